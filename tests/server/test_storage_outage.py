"""A real server through a real Redis's outage, seen by a player and a watcher: Redis
stopped with SIGSTOP (it no longer answers) and then continued, and the embedded Redis
killed with -9 under the server's supervision. Both clients are told the match is paused,
the player's request is refused and changes nothing, and when Redis answers again both are
told it resumed, the seat's clock has the time it had when the outage began, and the match
goes on. No card reaches anyone who may not see it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from protocol.errors import ErrorCode
from protocol.events import BidMade, DealStarted, TurnStarted
from protocol.messages import (
    BidRequest,
    CreateRoom,
    Error,
    Paused,
    ReadyRequest,
    Resumed,
    SeatBot,
    Snapshot,
    Watch,
)
from server.store.embedded import EmbeddedRedis
from tests.redis_server import RedisProcess
from tests.server.test_e2e import check_no_leaks, dealt_hands
from tests.server.wire import RunningServer, WireClient, running_server, wire_client

#: The bid clock, in seconds: shorter than the outages here, so a clock that counted the
#: outage would run out.
BID_CLOCK = 4.0
#: Seconds a client waits for what it expects: Redis calls time out after about 2 s, and
#: are tried three times, before an outage is known.
WAIT = 20.0


async def got(client: WireClient, kind: type[Any], since: int) -> Any:
    """The first message of ``kind`` the client received from message ``since`` on, waiting
    for it when it has not come yet (what one change sends may come in any order here)."""
    while True:
        for message in client.received[since:]:
            if isinstance(message, kind):
                return message
        await client.recv(WAIT)


async def my_turn(client: WireClient) -> TurnStarted:
    """Until the turn is seat 0's (the creator's)."""
    while True:
        turn: TurnStarted = await client.recv_type(TurnStarted, WAIT)
        if turn.seat == 0:
            return turn


@contextlib.asynccontextmanager
async def timed_match(
    srv: RunningServer,
) -> AsyncIterator[tuple[WireClient, WireClient, str]]:
    """A timed room: a person in seat 0, two instant bots, and a watcher; bidding, on
    the person's turn."""
    async with (
        wire_client(srv.url, "Ann") as (player, _),
        wire_client(srv.url, "Wu") as (watcher, _),
    ):
        await player.send(CreateRoom(deals=3))
        snapshot: Snapshot = await player.recv_type(Snapshot)
        code = snapshot.room.code
        for _ in range(2):
            await player.send(SeatBot(level="easy"))
        await watcher.send(Watch(code=code))
        await watcher.recv_type(Snapshot)
        await player.send(ReadyRequest())
        await player.recv_type(DealStarted, WAIT)
        yield player, watcher, code


async def outage_and_return(
    srv: RunningServer,
    player: WireClient,
    watcher: WireClient,
    code: str,
    stop: Any,
    restart: Any,
) -> None:
    """On the player's turn Redis goes (``stop``); the player bids: both clients are told
    of the pause, the bid is refused and changes nothing. Redis comes back (``restart``):
    both are told of the resume and get the clock with the time it had at the pause;
    the player bids and everyone sees it."""
    turn = await my_turn(player)
    assert turn.deadline is not None
    runner = srv.app.rooms[code]
    version = runner.room.version
    marks = {id(c): len(c.received) for c in (player, watcher)}
    stop()
    await player.send(BidRequest(value=3))  # (always above the bids so far)
    refused: Error = await got(player, Error, marks[id(player)])
    assert refused.code == ErrorCode.STORAGE_UNAVAILABLE
    paused: Paused = await got(player, Paused, marks[id(player)])
    assert paused.code == code
    assert (await got(watcher, Paused, marks[id(watcher)])).code == code
    assert runner.room.version == version  # the refused bid changed nothing
    left = turn.deadline - paused.since  # what the seat had when the outage began
    assert 0 < left <= BID_CLOCK
    # the outage outlasts the seat's time: a clock that ran meanwhile would run out
    await asyncio.sleep(max(0.0, turn.deadline + 0.5 - time.time()))
    marks = {id(c): len(c.received) for c in (player, watcher)}
    restart()

    for client in (player, watcher):
        assert (await got(client, Resumed, marks[id(client)])).code == code
        prompt: TurnStarted = await got(client, TurnStarted, marks[id(client)])
        assert prompt.seat == 0 and prompt.deadline is not None
        assert abs((prompt.deadline - prompt.server_time) - left) < 0.01
    assert not any(isinstance(m, BidMade) and m.timeout for m in player.received)
    await player.send(BidRequest(value=3))
    for client in (player, watcher):
        bid: BidMade = await client.recv_type(BidMade, WAIT)
        while bid.seat != 0:
            bid = await client.recv_type(BidMade, WAIT)
        assert bid.bid == 3 and not bid.timeout
    records = await srv.app.store.read_log(code)
    deals = dealt_hands(records)
    check_no_leaks([m.model_dump(mode="json") for m in player.received], 0, deals)
    check_no_leaks([m.model_dump(mode="json") for m in watcher.received], None, deals)
    for client in (player, watcher):
        for message in client.received:
            if isinstance(message, Paused | Resumed):
                assert set(message.model_dump()) <= {"type", "code", "since"}


async def test_a_redis_that_stops_answering_pauses_the_match_until_it_answers(
    tmp_path: Path,
) -> None:
    redis = RedisProcess(tmp_path / "redis").start()
    stopped = False

    def stop() -> None:
        nonlocal stopped
        assert redis.process is not None
        os.kill(redis.process.pid, signal.SIGSTOP)
        stopped = True

    def cont() -> None:
        nonlocal stopped
        assert redis.process is not None
        os.kill(redis.process.pid, signal.SIGCONT)
        stopped = False

    try:
        timing = {"bid_timeout": BID_CLOCK, "bot_speed": "instant"}
        async with running_server(redis.url, **timing) as srv:
            async with timed_match(srv) as (player, watcher, code):
                await outage_and_return(srv, player, watcher, code, stop, cont)
            assert srv.app.health.outages == 1 and not srv.app.health.down
    finally:
        if stopped:
            cont()
        redis.stop()


async def test_the_embedded_redis_killed_pauses_the_match_until_it_is_started_again(
    tmp_path: Path,
) -> None:
    embedded = EmbeddedRedis(tmp_path / "data")
    url = embedded.start()
    embedded.supervise()

    def kill() -> None:
        assert embedded.process is not None
        os.kill(embedded.process.pid, signal.SIGKILL)

    try:
        timing = {"bid_timeout": BID_CLOCK, "bot_speed": "instant"}
        async with running_server(url, **timing) as srv:
            async with timed_match(srv) as (player, watcher, code):
                # the supervisor starts it again by itself, on its append-only file
                await outage_and_return(srv, player, watcher, code, kill, lambda: None)
    finally:
        embedded.stop()
