"""The in-memory twin of the counts per client address answers as ``AddressStore`` does on
a real Redis, for the same calls (so the lobby's unit tests on the twin hold on Redis)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.lobby.stores import AddressCounts
from server.store.addresses import AddressStore
from server.store.memory import MemoryRedis, MemoryStore
from server.store.memory_lobby import MemoryAddresses
from server.store.redis_store import RedisStore

A = "192.0.2.1"
NOW = 1000.0


@pytest.fixture
async def redis_store(redis_url: str, key_prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=key_prefix)
    yield store
    await store.close()


async def script(addresses: AddressCounts) -> list[Any]:
    """The same calls, in order; what each answered (seconds rounded: Redis's run on)."""
    out: list[Any] = [round(await addresses.count(A, "new-rooms", 2, 60)) for _ in range(3)]
    out += [round(await addresses.missed(A, 2, 60, 150)) for _ in range(2)]
    out.append(round(await addresses.blocked(A)))

    async def claim(code: str, strong: int = 0) -> int:
        found = await addresses.claim(
            A, code, new_room=True, strong=strong, room_cap=2, strong_cap=2,
            now=NOW, ttl=3600, grace=30,
        )  # fmt: skip
        return int(found)

    out += [await claim("R1", strong=2), await claim("R2", strong=1), await claim("R2")]
    out.append(await claim("R3"))
    await addresses.release(A, "R2", room=True)
    out.append(await claim("R3"))
    await addresses.release(A, "R1", room=False, strong=1)
    out.append(await claim("R4", strong=1))  # (R1, R3 open: the room cap is reached)
    return out


async def test_the_twin_answers_as_redis_does(redis_store: RedisStore) -> None:
    on_redis = await script(AddressStore(redis_store))
    in_memory = await script(MemoryAddresses(MemoryStore(MemoryRedis(lambda: NOW))))
    assert in_memory == on_redis == [0, 0, 60, 0, 60, 60, 0, 2, 0, 1, 0, 1]
