"""Checks the store tests share."""

from __future__ import annotations

import pytest

from server.store.redis_store import RedisStore, StoreUnavailable, pack


async def assert_unavailable(store: RedisStore) -> None:
    """Every kind of call on a store whose Redis cannot be reached is refused as
    ``StoreUnavailable`` (a retryable error for the client), never a crash."""
    with pytest.raises(StoreUnavailable):
        await store.save_room("ABCDE", -1, 0, pack({"version": 0}), [])
    with pytest.raises(StoreUnavailable):
        await store.load_session("tok")
    with pytest.raises(StoreUnavailable):
        await store.renew_leases({"ABCDE": "a:1:1"}, 30)
    with pytest.raises(StoreUnavailable):
        await store.publish_many([("ch", b"x")])
    assert not await store.ping()
