"""A process that starts while the storage does not answer (it was started again during a
failover) waits for it, then takes its rooms back and hears the other processes: it does
not end. Over the in-memory store."""

from __future__ import annotations

import asyncio
from typing import Any

from protocol.messages import Snapshot
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
