"""Real server and client processes for the tests that kill, restart and spread them: a
``ddz-server`` to start, kill and start again, a headless ``ddz`` whose JSON lines are read
as they come, and what a match's journal says happened (to hold the clients' views to).
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from protocol.events import BidMade, CardsPlayed, Passed
from server.game.journal import replay
from server.store.embedded import EmbeddedRedis
from server.store.redis_store import RedisStore
from tests.client.procs import DDZ

TIMEOUT = 120
Message = dict[str, Any]


def after_plays(n: int) -> Callable[[Message], bool]:
    """A ``read_until`` test true from the ``n``-th play on (mid-trick, for n=4)."""
    played = 0

    def test(message: Message) -> bool:
        nonlocal played
        played += message["type"] == "played"
        return bool(played >= n)

    return test


Action = tuple[int, str, int, tuple[int, ...]]
"""(deal number, kind, seat, what): one public action as a client saw it."""


class ServerProcess:
    """A ddz-server on a fixed port and store, to kill and start again."""

    def __init__(self, port: int, store: list[str], log: Path, *extra: str) -> None:
        self.port, self.store, self.log, self.extra = port, store, log, extra
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        args = [sys.executable, "-m", "server", "--port", str(self.port), *self.store]
        args += ["--bid-timeout", "60", "--play-timeout", "60", "--ready-timeout", "60"]
        args += self.extra
        with self.log.open("ab") as log:
            self.proc = await asyncio.create_subprocess_exec(*args, stdout=log, stderr=log)
        # Up once it takes a websocket: it listens (and answers /healthz) first, and
        # refuses upgrades with 503 "starting" until its cluster part has started; it takes
        # them while it brings its rooms back (a player's hello may come before their room).
        for _ in range(600):
            try:
                async with connect(f"ws://127.0.0.1:{self.port}", open_timeout=2):
                    return
            except (OSError, TimeoutError, InvalidStatus):
                if self.proc.returncode is not None:
                    break
                await asyncio.sleep(0.05)
        raise RuntimeError("the server did not start: " + self.log.read_text())

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()

    async def stop(self) -> None:
        """SIGTERM, and wait for the process to end: a server still up 20 s on is a
        failure (it is killed, so the test run goes on)."""
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
                raise AssertionError(f"the server on port {self.port} ignored SIGTERM") from None


class Client:
    """A headless ddz process whose JSON lines are read as they come."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.messages: list[Message] = []

    @classmethod
    async def start(cls, *args: str) -> Client:
        proc = await asyncio.create_subprocess_exec(
            *DDZ, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        return cls(proc)

    async def next(self) -> Message | None:
        assert self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            return None
        message: Message = json.loads(line)
        self.messages.append(message)
        return message

    async def read_until(self, wanted: Callable[[Message], bool]) -> Message:
        while True:
            message = await self.next()
            if message is None:
                raise AssertionError("the client ended before the point was reached")
            if wanted(message):
                return message

    async def finish(self) -> int:
        while await self.next() is not None:
            pass
        return await self.proc.wait()


def seen_actions(messages: list[Message]) -> list[Action]:
    """The public actions a client saw, in order."""
    deal = 0
    actions: list[Action] = []
    for m in messages:
        if m["type"] == "deal_started" or (m["type"] == "snapshot" and m["room"]["table"]):
            deal = m["deal_no"] if m["type"] == "deal_started" else m["room"]["table"]["deal_no"]
        elif m["type"] == "bid":
            actions.append((deal, "bid", m["seat"], (m["bid"],)))
        elif m["type"] == "played":
            actions.append((deal, "played", m["seat"], tuple(m["cards"])))
        elif m["type"] == "passed":
            actions.append((deal, "passed", m["seat"], ()))
    return actions


def journal_actions(records: list[dict[str, Any]]) -> tuple[list[Action], list[int]]:
    """The public actions of a replay of the journal, and its final totals."""
    actions: list[Action] = []
    totals: list[int] = []
    for _, match, out in replay(records):
        for audience, event in out:
            if audience != "everyone":
                continue
            if isinstance(event, BidMade):
                actions.append((match.deal_no, "bid", event.seat, (event.bid,)))
            elif isinstance(event, CardsPlayed):
                actions.append((match.deal_no, "played", event.seat, tuple(event.cards)))
            elif isinstance(event, Passed):
                actions.append((match.deal_no, "passed", event.seat, ()))
        if match.phase == "over":
            totals = list(match.totals)
    return actions, totals


def first_out_of_order(seen: list[Action], journal: list[Action]) -> int | None:
    """Where ``seen`` stops being a subsequence of ``journal`` (each seen action matched
    once, in order), or None when it is one."""
    remaining = iter(journal)
    for index, action in enumerate(seen):
        if not any(action == j for j in remaining):
            return index
    return None


async def read_journal(store_args: list[str], data_dir: Path, prefix: str, code: str) -> Any:
    if "--redis-url" in store_args:
        url = store_args[store_args.index("--redis-url") + 1]
        store = await RedisStore.connect(url, 60, 60, prefix=prefix, wait=10)
        try:
            return await store.read_log(code)
        finally:
            await store.close()
    embedded = EmbeddedRedis(data_dir)
    url = embedded.start()
    store = RedisStore.from_url(url, 60, 60)
    try:
        return await store.read_log(code)
    finally:
        await store.close()
        embedded.stop()


async def finish_all(clients: list[Client]) -> None:
    """Read every client to its end; each must exit 0 (its stderr is the message if not)."""
    codes = await asyncio.wait_for(asyncio.gather(*(c.finish() for c in clients)), TIMEOUT)
    errors = [(await c.proc.stderr.read()).decode() if c.proc.stderr else "" for c in clients]
    assert codes == [0] * len(clients), errors


async def kill_running(clients: list[Client]) -> None:
    """Kill the clients still running (a test that failed half-way)."""
    for c in clients:
        if c.proc.returncode is None:
            c.proc.kill()
            await c.proc.wait()


async def check_nothing_lost_or_doubled(
    store: list[str], data_dir: Path, prefix: str, code: str, clients: list[Client]
) -> None:
    """The journal replays to the end, every client was told its totals, every action a
    client saw is in it once and in order, and it holds no action twice."""
    records = await read_journal(store, data_dir, prefix, code)
    check_journal_holds_what_was_seen(records, [c.messages for c in clients])


def check_journal_holds_what_was_seen(
    records: list[dict[str, Any]], received: list[list[Message]]
) -> None:
    """``check_nothing_lost_or_doubled`` for a journal's ``records`` and what each client
    ``received`` (its messages as JSON)."""
    journal, totals = journal_actions(records)
    assert totals, "the match did not end"
    for messages in received:
        (end,) = [m for m in messages if m["type"] == "match_end"]
        assert end["totals"] == totals
        seen = seen_actions(messages)
        bad = first_out_of_order(seen, journal)
        assert bad is None, (
            f"a client saw an action the journal lacks, or twice, or out of order: {seen[bad]}"
            f" after {seen[max(0, bad - 3) : bad]}; journal: {journal}"
        )
    kinds = [r["cmd"]["type"] for r in records if r["k"] == "cmd"]
    assert kinds.count("Bid") + kinds.count("Pass") + kinds.count("PlayCards") == len(journal)
