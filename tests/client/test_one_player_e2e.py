"""One player, several ``ddz``: over a real server, real processes.

Regressions (issue 34):
- one key on two terminal clients fought for ever: each, closed as "replaced by a newer
  connection", connected again and closed the other (54 times each in 45 s); the older one
  now says where the player went and stops;
- a second ``ddz`` in the same state folder became a brand-new player, its key thrown
  away; it now plays as the player of the key kept there;
- ``ddz key --use`` threw the key kept before away unsaid; ``ddz key`` showed a key that
  ``--new`` on another machine had made dead.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, cast

from client.connection import TAKEN_OVER
from client.player_key import KeyFile
from client.saved_session import BAD_KEY_HELP
from tests.client.procs import DDZ_KEEPING

TIMEOUT = 30.0


class Ddz:
    """A headless ``ddz --json`` keeping its session and key under ``state``."""

    def __init__(self, state: Path, args: list[str]) -> None:
        env = {**os.environ, "XDG_STATE_HOME": str(state)}
        self.proc = subprocess.Popen(
            [*DDZ_KEEPING, "--json", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.messages: list[dict[str, Any]] = []
        self.err: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        for line in cast(IO[str], self.proc.stdout):
            if line.strip():
                self.messages.append(json.loads(line))

    def _read_err(self) -> None:
        for line in cast(IO[str], self.proc.stderr):
            self.err.append(line)

    def first(self, kind: str, where: Callable[[dict[str, Any]], bool] = bool) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            for message in list(self.messages):
                if message["type"] == kind and where(message):
                    return message
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"no {kind!r} message; stderr: {''.join(self.err)}")
            time.sleep(0.05)

    def ended(self) -> int:
        return self.proc.wait(TIMEOUT)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def ddz(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    return subprocess.run(
        [*DDZ_KEEPING, *args], capture_output=True, text=True, env=env, timeout=TIMEOUT
    )


def welcomes(client: Ddz) -> list[dict[str, Any]]:
    return [m for m in client.messages if m["type"] == "welcome"]


def test_two_clients_of_one_player_do_not_fight_and_a_second_ddz_is_the_same_player(
    server: str, tmp_path: Path
) -> None:
    home, laptop = tmp_path / "home", tmp_path / "laptop"
    practice = ["--server", server, "--auto", "easy", "practice", "9", "slow"]
    first = Ddz(home, practice)
    second: Ddz | None = None
    third: Ddz | None = None
    try:
        player = first.first("welcome")["player_id"]
        first.first("snapshot")
        # a second ddz in the same folder: the same player, back in the first one's seat
        second = Ddz(home, practice)
        assert second.first("welcome")["player_id"] == player
        assert first.ended() == 1
        assert TAKEN_OVER in "".join(first.err)
        assert len(welcomes(first)) == 1  # it did not connect again to take the player back
        room = second.first("snapshot")["room"]["code"]
        assert room == first.first("snapshot")["room"]["code"]

        # the key used in another folder: that one takes over, the one before stops
        key = KeyFile.of(server, home / "ddz").load()
        assert key is not None
        used = ddz(laptop, "--server", server, "key", "--use", key)
        assert used.returncode == 0, used.stderr
        third = Ddz(laptop, practice)
        assert third.first("welcome")["player_id"] == player
        assert second.ended() == 1
        assert TAKEN_OVER in "".join(second.err)
        time.sleep(1.0)  # (a fight would show as more welcomes within a second)
        assert len(welcomes(second)) == 1 and len(welcomes(third)) == 1
        assert third.proc.poll() is None
    finally:
        for client in (first, second, third):
            if client is not None:
                client.stop()


def test_key_use_says_the_key_it_replaces_and_key_says_when_the_key_is_dead(
    server: str, tmp_path: Path
) -> None:
    home, phone = tmp_path / "home", tmp_path / "phone"
    assert ddz(home, "--server", server, "--json", "profile").returncode == 0
    assert ddz(phone, "--server", server, "--json", "profile").returncode == 0
    home_key = KeyFile.of(server, home / "ddz").load()
    phone_key = KeyFile.of(server, phone / "ddz").load()
    assert home_key is not None and phone_key is not None and home_key != phone_key

    used = ddz(phone, "--server", server, "key", "--use", home_key)
    assert used.returncode == 0, used.stderr
    assert phone_key in used.stdout.replace("\n", "")  # the way back

    renewed = ddz(phone, "--server", server, "key", "--new")
    assert renewed.returncode == 0, renewed.stderr
    shown = ddz(home, "--server", server, "key")
    assert shown.returncode == 1
    assert home_key[:40] not in shown.stdout  # a dead key is not offered to type elsewhere
    assert BAD_KEY_HELP in shown.stderr.replace("\n", " ")
    alive = ddz(phone, "--server", server, "key")
    new_key = KeyFile.of(server, phone / "ddz").load()
    assert alive.returncode == 0 and new_key is not None and new_key[:40] in alive.stdout
