"""A process whose storage stops answering while it starts waits for it, as its rooms do,
instead of ending: the start goes on once the storage answers again."""

from __future__ import annotations

import asyncio
import random

from server.app import App
from server.settings import Settings
from server.store.memory import MemoryRedis
from server.store.memory_lobby import MemoryAddresses, MemoryServerStore
from tests.server.cluster.harness import until
from tests.server.lobby.harness import NO_CAPS, Clock, LobbyHub


async def test_an_outage_while_the_process_starts_waits_for_the_storage() -> None:
    clock = Clock()
    redis = MemoryRedis(clock)
    store = MemoryServerStore(redis)
    settings = Settings(**{**NO_CAPS, "bot_pool_start": "lazy"})
    app = App(
        settings, store, random.Random(3), clock, LobbyHub(), addresses=MemoryAddresses(store)
    )
    redis.down = True
    starting = asyncio.ensure_future(app.start())
    try:
        await until(lambda: app.health.down)
        await asyncio.sleep(0)
        assert not starting.done()  # waiting, not failed
        redis.down = False
        await asyncio.wait_for(starting, 10)
        assert app.accepting and not app.health.down
    finally:
        if not starting.done():
            starting.cancel()
        await app.close()
