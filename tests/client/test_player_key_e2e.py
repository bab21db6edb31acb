"""The lasting player over a real server and real ``ddz`` processes: a practice played, the
server killed (SIGKILL) between the room's closing save and its records, started again; the
match is then in ``ddz history`` and ``ddz profile`` once, and ``ddz replay`` gives it, also
from a new session, and on another machine after ``ddz key --use CODE``; after ``ddz key
--new`` there, the first machine's key is refused with what to do.

Regression (issue 22): ``ddz practice 1``, ``leave``, ``quit``, then ``ddz history`` said
"no matches yet" and ``ddz replay CODE`` was refused: the history was the session's.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client.player_key import KeyFile
from client.saved_session import SessionFile
from server.players.bookkeeping import KILL_BEFORE_RECORDS
from tests.client.procs import DDZ_KEEPING, DDZ_SERVER, free_port
from tests.redis_server import store_args

TIMEOUT = 60.0


class Server:
    """A ddz-server on one port and store, started again in its place after it died."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.args = [*DDZ_SERVER, "--port", str(self.port), *store_args(tmp / "data")]
        self.args += ["--bot-speed", "instant"]
        self.log = tmp / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, env: dict[str, str] | None = None) -> None:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                self.args, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
            )
        deadline = time.monotonic() + 20
        while True:
            try:
                health = f"http://127.0.0.1:{self.port}/healthz"
                with urllib.request.urlopen(health, timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    log = self.log.read_text()
                    raise RuntimeError("the server did not start: " + log) from None
                time.sleep(0.1)

    def died(self) -> int:
        assert self.proc is not None
        return self.proc.wait(TIMEOUT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path)
    try:
        yield s
    finally:
        s.stop()


def ddz(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One ``ddz`` run keeping its session and key under ``state``, to its end."""
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    return subprocess.run(
        [*DDZ_KEEPING, *args], capture_output=True, text=True, env=env, timeout=TIMEOUT
    )


def answer(state: Path, server: str, *args: str) -> dict[str, Any]:
    done = ddz(state, "--server", server, "--json", *args)
    assert done.returncode == 0, done.stderr
    message: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return message


def history_codes(state: Path, server: str) -> list[str]:
    """The codes in ``ddz history``, once it has any: a restarted server settles what a
    crash left pending right after it takes its rooms back (it answers meanwhile)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        codes = [e["code"] for e in answer(state, server, "history")["entries"]]
        if codes or time.monotonic() > deadline:
            return codes
        time.sleep(0.2)


def test_the_player_keeps_their_matches_through_a_crash_new_sessions_and_machines(
    server: Server, tmp_path: Path
) -> None:
    home, phone = tmp_path / "home-state", tmp_path / "phone-state"
    server.start({KILL_BEFORE_RECORDS: "1"})
    # (the bots at once: their pace is not what this test is about)
    played = ddz(
        home, "--server", server.url, "--auto", "easy", "--json", "practice", "1", "instant"
    )
    assert server.died() != 0  # it killed itself between the closing save and the records
    ends = [json.loads(line) for line in played.stdout.splitlines() if line.strip()]
    code = next(m["room"]["code"] for m in ends if m["type"] == "snapshot")
    assert any(m["type"] == "match_end" for m in ends)
    server.start()  # recovery settles what the crash left pending

    assert history_codes(home, server.url) == [code]
    profile = answer(home, server.url, "profile")
    (practice,) = [m for m in profile["modes"] if m["mode"] == "practice"]
    assert practice["played"] == 1 and profile["total"] == 1  # once, not twice
    assert profile["landlord_deals"] + profile["farmer_deals"] >= 1

    SessionFile(server.url, home / "ddz").forget()  # a new session: the same player
    assert answer(home, server.url, "replay", code)["code"] == code

    key = KeyFile.of(server.url, home / "ddz").load()
    assert key is not None
    shown = ddz(home, "--server", server.url, "key")
    assert shown.returncode == 0 and key[:40] in shown.stdout
    used = ddz(phone, "--server", server.url, "key", "--use", key)
    assert used.returncode == 0, used.stderr
    assert [e["code"] for e in answer(phone, server.url, "history")["entries"]] == [code]

    renewed = ddz(phone, "--server", server.url, "key", "--new")
    assert renewed.returncode == 0, renewed.stderr
    new_key = KeyFile.of(server.url, phone / "ddz").load()
    assert new_key is not None and new_key != key and new_key[:40] in renewed.stdout
    assert [e["code"] for e in answer(phone, server.url, "history")["entries"]] == [code]
    SessionFile(server.url, home / "ddz").forget()
    refused = ddz(home, "--server", server.url, "history")
    assert refused.returncode != 0 and "ddz key --use CODE" in refused.stderr
