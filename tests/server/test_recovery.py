"""Nothing lost: a server restart, a dropped connection, and Redis going away and coming
back. Real sockets, real Redis."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

import server.cluster.directory as directory_module
import server.cluster.node as node_module
from client.table import TableState
from protocol.errors import ErrorCode
from protocol.events import BidMade, CardsPlayed, DealEnded, MatchEnded, TurnStarted
from protocol.messages import (
    PROTOCOL_VERSION,
    BidRequest,
    CreateRoom,
    Error,
    Hello,
    Paused,
    ReadyRequest,
    Resumed,
    SeatBot,
    Snapshot,
    StartPractice,
)
from server.app import App
from server.cluster.directory import RoomDirectory
from server.edge.transport import open_store, serve_app
from server.game.journal import replay
from server.rooms.room import Clocks, Room
from server.rooms.stored import room_from_stored, room_to_data
from server.settings import Settings
from server.store.addresses import AddressStore
from server.store.base import RoomWrite
from server.store.codec import pack
from server.store.redis_store import RedisStore
from tests.redis_server import RedisProcess, free_port, unique_prefix
from tests.server.wire import AutoSeat, WireClient, running_server, wire_client


async def test_a_match_goes_on_after_the_server_restarts(redis_url: str) -> None:
    prefix = unique_prefix()
    async with running_server(redis_url, key_prefix=prefix) as srv:
        async with wire_client(srv.url) as (client, welcome):
            seat = AutoSeat(client)
            await client.send(StartPractice(deals=1, level="easy", speed="instant"))
            await seat.until(CardsPlayed)
            code = seat.state.room.code if seat.state else ""
            runner = srv.app.rooms[code]
            last_sent = client.next_id - 1
    before = room_to_data(runner.room)  # as the server stopped (its bots may have moved on)
    # what is stored (the room saved whole and the steps since) is the room as it stopped
    store = await RedisStore.connect(redis_url, 60, 60, prefix=prefix, wait=10)
    try:
        stored = await store.load_room(code)
    finally:
        await store.close()
    assert stored is not None
    assert room_to_data(room_from_stored(stored))["match"] == before["match"]
    # the process is gone; a new one on the same Redis brings the room back (a bot whose
    # turn it was may move at once)
    async with running_server(redis_url, key_prefix=prefix) as srv:
        assert code in srv.app.rooms
        restored = room_to_data(srv.app.rooms[code].room)
        assert restored["match"]["version"] >= before["match"]["version"]
        async with wire_client(srv.url, token=welcome.token) as (client, again):
            assert again.resumed and again.room == code and again.player_id == welcome.player_id
            # the room applied some of this session's requests: a new process numbers on
            assert 0 < again.last_request_id <= last_sent
            seat = AutoSeat(client)
            snapshot: Snapshot = await seat.until(Snapshot)
            assert snapshot.room.table is not None
            assert snapshot.room.table.hand == before["match"]["deal"]["hands"][0]
            end: MatchEnded = await seat.until(MatchEnded)
        records = await srv.app.store.read_log(code)
        *_, (_, match, _) = replay(records)
        assert match.totals == end.totals


async def test_a_dropped_connection_comes_back_to_its_seat_mid_trick(redis_url: str) -> None:
    async with running_server(redis_url) as srv:
        async with wire_client(srv.url) as (client, welcome):
            seat = AutoSeat(client)
            await client.send(StartPractice(deals=1, level="easy", speed="instant"))
            await seat.until(CardsPlayed)
            hand = seat.state.table.hand if seat.state and seat.state.table else None
        # the socket is closed; the seat waits for its person (practice has no clock)
        async with wire_client(srv.url, token=welcome.token) as (client, again):
            assert again.resumed
            seat = AutoSeat(client)
            snapshot: Snapshot = await seat.until(Snapshot)
            assert snapshot.room.table is not None
            assert snapshot.room.table.hand is not None
            assert set(snapshot.room.table.hand) <= set(hand or [])
            await seat.until(MatchEnded)


async def test_a_wrong_token_is_refused(redis_url: str) -> None:
    async with running_server(redis_url) as srv, connect(srv.url) as ws:
        client = WireClient(ws)
        await client.send(Hello(name="x", version=PROTOCOL_VERSION, token="not-a-token"))
        error: Error = await client.recv_type(Error)
        assert error.code == ErrorCode.BAD_TOKEN


async def test_an_expired_token_is_refused(redis_url: str) -> None:
    async with running_server(redis_url, session_ttl=1) as srv:
        async with wire_client(srv.url) as (_, welcome):
            pass
        # The session is kept session_ttl (1 s) in Redis; rather than wait, its time is made
        # to run out now.
        store = srv.app.store
        key = store.keys.session(welcome.token)
        assert 0 < await store.redis.pttl(key) <= 1000
        await store.redis.pexpire(key, 1)
        while await store.redis.exists(key):
            await asyncio.sleep(0.01)
        async with connect(srv.url) as ws:
            client = WireClient(ws)
            await client.send(Hello(name="x", version=PROTOCOL_VERSION, token=welcome.token))
            error: Error = await client.recv_type(Error)
            assert error.code == ErrorCode.BAD_TOKEN


async def test_time_spent_down_does_not_count_against_the_seat_on_turn(redis_url: str) -> None:
    """Regression (issue 11, item 15): a player came back after a restart at "0s left"
    and was passed by the clock. The seat on turn gets back the time its clock had left
    at the last save (here the whole 2 s clock: shorter than the 5 s floor), from the
    moment the room is back and its 0.5 s grace for the person's return is over (nobody
    comes back here), however long the server was down. (The bots act at once: their pace
    is not what this is about; a 3 s clock, a 1 s grace and bots at 1 s took 9 s.)"""
    prefix = unique_prefix()
    timing: dict[str, Any] = {"bid_timeout": 2.0, "play_timeout": 2.0, "ready_timeout": 2.0}
    timing |= {"resume_grace": 0.5, "bot_speed": "instant"}
    async with running_server(redis_url, key_prefix=prefix, **timing) as srv:
        async with wire_client(srv.url) as (client, _):
            await client.send(CreateRoom(deals=3))
            snapshot: Snapshot = await client.recv_type(Snapshot)
            await client.send(SeatBot(level="easy"))
            await client.send(SeatBot(level="easy"))
            await client.send(ReadyRequest())
            turn: TurnStarted = await client.recv_type(TurnStarted)
            while turn.seat != 0:  # the person's turn (the bots answer at once)
                turn = await client.recv_type(TurnStarted)
            code = snapshot.room.code
            # the server stops before the person's clock runs out
    assert turn.deadline is not None and time.time() < turn.deadline
    await asyncio.sleep(turn.deadline - time.time() + 0.5)  # down past the deadline
    restarted = time.time()
    async with running_server(redis_url, key_prefix=prefix, **timing) as srv:
        room = srv.app.rooms[code].room
        assert room.match is not None and room.match.deadline is not None
        assert room.match.deadline >= restarted + 2.0  # the time it had left, from now
        async with asyncio.timeout(15):
            while True:
                records = await srv.app.store.read_log(code)
                if any(r["k"] == "cmd" and r["cmd"]["type"] == "Timeout" for r in records):
                    break
                await asyncio.sleep(0.05)
    timeouts = [r for r in records if r["k"] == "cmd" and r["cmd"]["type"] == "Timeout"]
    assert timeouts[0]["cmd"]["seat"] == 0
    # not at once on the way back, but once the clock given back has run out
    assert restarted + 2.0 <= timeouts[0]["now"] < restarted + 10.0


async def test_while_redis_is_away_commands_are_refused_then_the_match_goes_on(
    tmp_path: Path,
) -> None:
    redis = RedisProcess(tmp_path / "redis").start()
    try:
        async with running_server(redis.url) as srv, wire_client(srv.url) as (client, _):
            await client.send(StartPractice(deals=1, level="easy", speed="instant"))
            snapshot: Snapshot = await client.recv_type(Snapshot)
            code = snapshot.room.code
            redis.stop()  # Redis goes away (its append-only file stays)
            await client.send(BidRequest(value=3))  # its save fails: the room pauses
            await client.recv_type(Paused)
            redis.start()  # back, with what it had: the bid was not stored, it is refused
            seen: dict[type, Any] = {}
            while not (Error in seen and Resumed in seen):
                message = await client.recv()
                seen.setdefault(type(message), message)
            assert seen[Error].code == ErrorCode.STORAGE_UNAVAILABLE
            seat = AutoSeat(client, TableState.from_snapshot(snapshot))
            await client.send(BidRequest(value=3))
            bid: BidMade = await seat.until(BidMade)
            assert bid.bid == 3 and bid.seat == 0
            end: MatchEnded = await seat.until(MatchEnded)
            records = await srv.app.store.read_log(code)
            *_, (_, match, _) = replay(records)
            assert match.totals == end.totals
            bids = [r for r in records if r["k"] == "cmd" and r["cmd"]["type"] == "Bid"]
            assert len(bids) == 1  # the refused bids were never written
    finally:
        redis.stop()


async def test_a_redis_restart_mid_match_loses_nothing(tmp_path: Path) -> None:
    redis = RedisProcess(tmp_path / "redis").start()
    try:
        async with running_server(redis.url) as srv, wire_client(srv.url) as (client, _):
            seat = AutoSeat(client)
            await client.send(StartPractice(deals=3, level="easy", speed="instant"))
            first: DealEnded = await seat.until(DealEnded)
            code = seat.state.room.code if seat.state else ""
            before = room_to_data(srv.app.rooms[code].room)
            redis.stop()
            redis.start()
            stored = await srv.app.store.load_room(code)
            assert stored is not None
            assert room_from_stored(stored).version >= before["version"]
            end: MatchEnded = await seat.until(MatchEnded, timeout=60)
            assert end.deal_scores[0] == first.score.scores
            records = await srv.app.store.read_log(code)
            *_, (_, match, _) = replay(records)
            assert match.totals == end.totals
    finally:
        redis.stop()


async def healthz(port: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    answer = await reader.read()
    writer.close()
    return answer


async def test_leases_are_renewed_and_healthz_answers_while_rooms_come_back(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Regression (issue 11, item 4): with 20,000 rooms stored, a restart took 10-12 s
    to answer /healthz and logged 8,672 "lease lost": rooms came back one at a time and
    renewal started only after the last. Here recovery is slowed to outlast the lease
    TTL several times over; no lease runs out, and /healthz answers meanwhile."""
    prefix = unique_prefix()
    settings = Settings(port=free_port(), redis_url=redis_url, key_prefix=prefix, lease_ttl=1.0)
    node = f"{socket.gethostname()}:{settings.port}"  # the restarted process's name
    store = open_store(settings, redis_url)
    clocks = Clocks(bid=600, play=600, ready=600)
    codes = [f"L{i:04d}" for i in range(40)]
    for code in codes:
        room = Room.quick(code, [(f"{code}-{i}", f"p{i}") for i in range(3)], clocks)
        room.start_match(time.time(), random.Random(1))
        await store.save_room(
            RoomWrite(code, -1, room.version, pack(room_to_data(room)), room.take_journal())
        )
    await store.acquire_leases(codes, node, settings.lease_ttl)

    # (the start's recovery batches in the cluster part, the renewal's in the directory)
    monkeypatch.setattr(node_module, "ADOPT_BATCH", 5)
    monkeypatch.setattr(directory_module, "ADOPT_BATCH", 5)
    adopt_many = RoomDirectory.adopt_many

    # (and none before /healthz has answered 200: on a busy machine the rooms could all be
    # back before the first request was made)
    answered = asyncio.Event()

    async def slowly(directory: RoomDirectory, batch: list[str]) -> int:
        await asyncio.sleep(0.4)  # 8 batches: 3.2 s, over three lease TTLs
        await answered.wait()
        return await adopt_many(directory, batch)

    monkeypatch.setattr(RoomDirectory, "adopt_many", slowly)
    app = App(settings, store, addresses=AddressStore(store))
    ready, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve_app(app, ready, stop))
    try:
        async with asyncio.timeout(10):
            while True:
                with contextlib.suppress(OSError):
                    if (await healthz(settings.port)).startswith(b"HTTP/1.1 200"):
                        break
                await asyncio.sleep(0.05)
        # answered while the rooms were still to come back (they wait for this answer)
        assert not ready.is_set() and not app.rooms
        answered.set()
        await asyncio.wait_for(ready.wait(), 20)
        assert sorted(app.rooms) == codes
        for code in codes:
            held = await store.lease_holder(code)
            assert held == f"{node}:{app.rooms[code].fence}"
        assert "lease lost" not in caplog.text
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        await store.close()
