"""A process that starts while the storage does not answer (it was started again during a
failover) waits for it, then takes its rooms back and hears the other processes: it does
not end. Over the in-memory store."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from protocol.messages import Snapshot
from server.cluster import ops
from server.store.base import RoomWrite
from server.store.errors import StoreError, StoreUnavailable
from server.store.memory import MemoryPubSub
from tests.server.cluster.harness import join_from, nodes, open_room, until


async def test_rooms_are_taken_back_once_the_storage_answers() -> None:
    async with nodes("a:1", "b:2", lease_ttl=5.0, watched=True) as (redis, clock, (a, b)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        for runner in a.directory.rooms.values():  # a died
            runner.stop()
        a.directory.rooms.clear()
        clock.now += 6.0  # its leases ran out
        redis.down = True

        recovering = asyncio.ensure_future(b.cluster.recover())  # b starts meanwhile
        await until(lambda: b.health is not None and b.health.down)
        await asyncio.sleep(0.05)
        assert not recovering.done()
        redis.down = False

        assert await asyncio.wait_for(recovering, 2.0) == 1
        assert code in b.directory.rooms


async def test_the_relay_listens_once_redis_answers() -> None:
    async with nodes("a:1", "b:2") as (_, _, (a, b)):
        relay = a.cluster.relay
        await relay.stop()
        subscriber = a.store.subscriber
        refusals = [ConnectionError("Redis is failing over")]

        def refusing() -> Any:
            client = subscriber()
            make = client.pubsub

            def pubsub(**options: Any) -> MemoryPubSub:
                made = make(**options)
                subscribe = made.subscribe

                async def first_refused(*channels: str) -> None:
                    if refusals:
                        raise refusals.pop()
                    await subscribe(*channels)

                made.subscribe = first_refused  # type: ignore[method-assign]
                return made

            client.pubsub = pubsub
            return client

        a.store.subscriber = refusing  # type: ignore[method-assign]
        await relay.start()  # it does not end the start
        assert not relay.listening
        await until(lambda: relay.listening)

        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        bo = await join_from(b, code)  # forwarded to a, which hears it
        await until(lambda: any(isinstance(m, Snapshot) for m in b.hub.got[bo]))
        assert not refusals


async def test_a_return_waiting_for_a_takeover_whose_save_was_answered_late_is_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process started again takes its rooms back while its players come back (a hello
    during the recovery waits for the room's takeover). The takeover's save was stored, but
    its answer came too late: the room is as stored, and Ann's return, next in line, is
    made over it (not refused as a conflict, which left her seat marked away)."""
    async with nodes("a:1") as (_, _, (a,)):
        ann = await a.connect("Ann")
        code = await open_room(a, ann)
        for runner in a.directory.rooms.values():  # a died (kill -9), and is started again
            runner.stop()
        a.directory.rooms.clear()
        save_rooms = a.store.save_rooms
        returns: list[asyncio.Future[None]] = []

        async def answered_late(writes: list[RoomWrite]) -> list[StoreError | None]:
            await save_rooms(writes)  # stored
            returns.append(asyncio.ensure_future(a.directory.route(code, ops.Back(ann))))
            for _ in range(3):  # her return reaches the room, and waits for its lock
                await asyncio.sleep(0)
            raise StoreUnavailable("no answer in time")

        monkeypatch.setattr(a.store, "save_rooms", answered_late)

        await a.directory.adopt(code)

        (back,) = returns
        await back  # not refused
        assert a.directory.rooms[code].room.seats[0].connected
        assert isinstance(a.hub.got[ann][-1], Snapshot)
        stored = await a.store.load_room(code)
        assert stored is not None and stored.state["seats"][0]["connected"]
