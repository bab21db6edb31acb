"""``ddz-replay CODE`` prints a stored match deal by deal, with the same result."""

from __future__ import annotations

import asyncio
import subprocess
import sys

from protocol.events import MatchEnded
from protocol.messages import StartPractice
from server.analysis.export import read_export
from tests.redis_server import unique_prefix
from tests.server.wire import AutoSeat, running_server, wire_client


async def test_replay_prints_every_deal_and_the_same_totals(redis_url: str) -> None:
    prefix = unique_prefix()
    async with running_server(redis_url, key_prefix=prefix) as srv:
        async with wire_client(srv.url) as (client, _):
            seat = AutoSeat(client)
            await client.send(StartPractice(deals=3, level="easy", speed="instant"))
            end: MatchEnded = await seat.until(MatchEnded, timeout=60)
            code = seat.state.room.code if seat.state else ""
        records = await srv.app.store.read_log(code)
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "server.replay", code, "--redis-url", redis_url]
        + ["--key-prefix", prefix],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for deal in (1, 2, 3):
        assert f"== deal {deal}/3" in out
    assert out.count(" dealt ") >= 9  # every seat's hand of every deal, voids included
    assert f"match over: totals {end.totals}" in out

    # --export: the journal as one line of a journal export, as the store holds it
    exported = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "server.replay", code, "--export", "--redis-url", redis_url]
        + ["--key-prefix", prefix],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.count("\n") == 1
    (journal,) = read_export(exported.stdout.splitlines())
    assert journal == records


def test_replay_of_an_unknown_room_says_so(redis_url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server.replay", "NOPE1", "--redis-url", redis_url]
        + ["--key-prefix", unique_prefix()],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "no journal" in done.stderr
