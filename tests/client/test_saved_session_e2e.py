"""A restarted ``ddz`` takes its seat back, over a real server: the session it kept on disk
is resumed, and the room it sat in is shown at once.

Regression (issue 11, item 14): quit ``ddz`` mid-match and run ``ddz join CODE``: "this room
has no empty seat". The token lived only in the process, so the seat went to a bot for good.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, cast

from prompt_toolkit.input import PipeInput

from client.interactive import Interactive
from client.options import Options
from tests.client.procs import DDZ_KEEPING

TIMEOUT = 20.0


class Ddz:
    """A headless ``ddz --json`` keeping its session; its stdout read as JSON messages."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            [*DDZ_KEEPING, "--json", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.messages: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in cast(IO[str], self.proc.stdout):
            if line.strip():
                self.messages.append(json.loads(line))

    def first(self, kind: str, where: Callable[[dict[str, Any]], bool] = bool) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            for message in list(self.messages):
                if message["type"] == kind and where(message):
                    return message
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"no {kind!r} message; stderr: {self.stop()}")
            time.sleep(0.05)

    def stop(self) -> str:
        """Stop the process (as a closed terminal or ``kill`` would); its stderr."""
        if self.proc.poll() is None:
            self.proc.terminate()
        _, err = self.proc.communicate(timeout=10)
        self._reader.join(5)
        return err or ""


def saved_files(state_home: Path) -> list[Path]:
    return sorted((state_home / "ddz").glob("*.json"))


def test_a_restarted_client_is_back_in_its_seat_with_its_hand(
    server: str, state_home: Path
) -> None:
    first = Ddz(["--server", server, "--name", "ann", "create", "--bots", "easy"])
    second: Ddz | None = None
    try:
        snapshot = first.first("snapshot")
        dealt = first.first("deal_started")
        code, seat = snapshot["room"]["code"], snapshot["room"]["your_seat"]
        first.stop()  # mid-match, no leave: the seat is the session's still
        (saved,) = saved_files(state_home)
        assert saved.stat().st_mode & 0o777 == 0o600

        second = Ddz(["--server", server, "--name", "ann", "join", code])
        welcome = second.first("welcome")
        assert welcome["resumed"] and welcome["room"] == code
        back = second.first("snapshot")["room"]
        assert back["code"] == code and back["your_seat"] == seat
        assert sorted(back["table"]["hand"]) == sorted(dealt["hand"])
        assert not [m for m in second.messages if m["type"] == "error"]  # no "no empty seat"
    finally:
        first.stop()
        if second is not None:
            second.stop()


async def wait_until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def test_quit_keeps_the_seat_and_leave_gives_it_up(
    pipe: PipeInput, server: str, state_home: Path
) -> None:
    opts = Options(server=server, name="typist", keep_session=True)

    def dealt(client: Interactive) -> bool:
        state = client.state
        return state is not None and state.table is not None and state.table.hand is not None

    first = Interactive(opts)
    task = asyncio.create_task(first.run())
    pipe.send_text("practice 1 normal slow\r")
    await wait_until(lambda: dealt(first), "the deal")
    assert first.state is not None and first.state.table is not None
    room, hand = first.state.room.code, first.state.table.hand
    pipe.send_text("quit\r")
    assert await asyncio.wait_for(task, 10) == 0
    assert saved_files(state_home)

    again = Interactive(opts)
    task = asyncio.create_task(again.run())  # no subcommand: the room comes back by itself
    await wait_until(lambda: dealt(again), "the room shown again")
    assert again.link is not None and again.link.welcome.resumed
    assert again.state is not None and again.state.table is not None
    assert (again.state.room.code, again.state.table.hand) == (room, hand)
    pipe.send_text("leave\r")
    await wait_until(lambda: again.confirm == "leave", "the question (issue 14: leave asks)")
    pipe.send_text("leave\r")
    await wait_until(lambda: again.state is not None and again.state.left, "the room left")
    assert saved_files(state_home) == []  # leave forgets the saved session
    pipe.send_text("quit\r")
    assert await asyncio.wait_for(task, 10) == 0

    fresh = Interactive(opts)
    task = asyncio.create_task(fresh.run())
    await wait_until(lambda: fresh.link is not None, "a connection")
    # no seat to come back to; the same player still (the key kept beside the session)
    assert fresh.link is not None and fresh.link.welcome.room is None
    assert fresh.link.welcome.player_id == again.link.welcome.player_id
    assert fresh.state is None
    pipe.send_text("quit\r")
    assert await asyncio.wait_for(task, 10) == 0
