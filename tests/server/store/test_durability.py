"""Durability levels against real redis-server processes: waiting for replicas after each
batch of saves (``WAIT``: reached, timed out with the replica stopped, over Sentinel), and the
embedded Redis's ``appendfsync always`` through a ``kill -9``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis import Redis
from redis.asyncio.cluster import RedisCluster

from server.settings import load_settings
from server.store.base import RoomWrite
from server.store.codec import pack
from server.store.embedded import EmbeddedRedis
from server.store.group_commit import GroupCommit, ReplicaWait
from server.store.redis_store import RedisStore, StoreConflict, StoreUnavailable
from tests.redis_sentinel import SentinelProcesses

WAIT = ReplicaWait(replicas=1, timeout_ms=300)


@pytest.fixture
async def waiting_store(sentinel: SentinelProcesses, key_prefix: str) -> AsyncIterator[RedisStore]:
    """A store on the primary's own address (the lean line) that waits for the replica."""
    url = f"redis://127.0.0.1:{sentinel.ports[0]}/0"
    store = await RedisStore.connect(url, 3600, 600, prefix=key_prefix, wait=5, replica_wait=WAIT)
    try:
        yield store
    finally:
        await store.close()


def wait_calls(port: int) -> int:
    """How many WAIT commands the Redis on ``port`` has run."""
    with contextlib.closing(Redis(host="127.0.0.1", port=port)) as client:
        stats = client.info("commandstats")
    return int(stats.get("cmdstat_wait", {}).get("calls", 0))


def stored_version(port: int, store: RedisStore, code: str) -> int | None:
    with contextlib.closing(Redis(host="127.0.0.1", port=port)) as client:
        value = client.hget(store.keys.room_state(code), "v")
    return None if value is None else int(value)


async def test_a_batch_returns_once_the_replica_holds_it(
    sentinel: SentinelProcesses, waiting_store: RedisStore
) -> None:
    primary, replica = sentinel.ports
    before = wait_calls(primary)
    codes = [f"W{i}" for i in range(5)]
    await asyncio.gather(
        *(waiting_store.save_room(RoomWrite(c, -1, 0, pack({"v": 0}), [])) for c in codes)
    )
    assert wait_calls(primary) > before
    # read from the replica at once: each acknowledged save is there already
    assert [stored_version(replica, waiting_store, c) for c in codes] == [0] * len(codes)


async def test_a_batch_the_replica_does_not_acknowledge_fails_as_unsaved(
    sentinel: SentinelProcesses, waiting_store: RedisStore
) -> None:
    primary, replica = sentinel.ports
    await waiting_store.save_room(RoomWrite("WT", -1, 0, pack({"v": 0}), []))
    stopped = sentinel.nodes[replica]
    os.kill(stopped.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="0 of 1 replicas"):
            await waiting_store.save_room(RoomWrite("WT", 0, 1, pack({"v": 1}), []))
        waited = time.monotonic() - started
        assert WAIT.timeout_ms / 1000 <= waited < 2.0
    finally:
        os.kill(stopped.pid, signal.SIGCONT)
    # the primary kept the write it could not promise: a save built on the version the
    # caller went back to is refused, and the caller reloads (as after a lost reply)
    assert stored_version(primary, waiting_store, "WT") == 1
    with pytest.raises(StoreConflict):
        await waiting_store.save_room(RoomWrite("WT", 0, 1, pack({"v": 1}), []))
    # with the replica back, saves are acknowledged again
    await waiting_store.save_room(RoomWrite("WT", 1, 2, pack({"v": 2}), []))
    assert stored_version(replica, waiting_store, "WT") == 2


async def test_saves_over_sentinel_wait_for_the_replica_too(
    sentinel: SentinelProcesses, key_prefix: str
) -> None:
    store = await RedisStore.connect(
        sentinel.url, 3600, 600, prefix=key_prefix, wait=5, replica_wait=WAIT
    )
    try:
        assert store.line is None  # redis-py's pipeline: the other path
        primary, replica = sentinel.ports
        before = wait_calls(primary)
        await store.save_room(RoomWrite("WS", -1, 0, pack({"v": 0}), []))
        assert wait_calls(primary) > before
        assert stored_version(replica, store, "WS") == 0
        os.kill(sentinel.nodes[replica].pid, signal.SIGSTOP)
        try:
            with pytest.raises(StoreUnavailable, match="replicas"):
                await store.save_room(RoomWrite("WS", 0, 1, pack({"v": 1}), []))
        finally:
            os.kill(sentinel.nodes[replica].pid, signal.SIGCONT)
    finally:
        await store.close()


def test_waiting_for_replicas_is_refused_on_a_cluster() -> None:
    # WAIT counts the writes of its own connection, and a cluster pipeline spreads a batch
    # over one connection per node (redis-py would send WAIT to every primary afresh)
    cluster = RedisCluster(host="127.0.0.1", port=1)
    with pytest.raises(ValueError, match="Cluster"):
        GroupCommit(cluster, "return 1", replica_wait=WAIT)


def test_the_wait_settings_are_checked() -> None:
    url = ["--redis-url", "redis://127.0.0.1:6379/0"]
    s = load_settings([*url, "--redis-wait-replicas", "2", "--redis-wait-timeout-ms", "800"])
    assert (s.redis_wait_replicas, s.redis_wait_timeout_ms) == (2, 800)
    assert load_settings([]).redis_wait_replicas == 0
    for bad in (
        ["--redis-wait-replicas", "1"],  # the embedded Redis has no replicas
        [*url, "--redis-wait-replicas", "-1"],
        [*url, "--redis-wait-replicas", "1", "--redis-wait-timeout-ms", "0"],
        [*url, "--redis-wait-replicas", "1", "--redis-wait-timeout-ms", "5000"],
    ):
        with pytest.raises(SystemExit):
            load_settings(bad)
    with pytest.raises(ValueError):
        ReplicaWait(0, 100)


async def test_with_appendfsync_always_every_acknowledged_save_survives_a_kill(
    tmp_path: Path, key_prefix: str
) -> None:
    embedded = EmbeddedRedis(tmp_path, appendfsync="always")
    url = embedded.start()
    embedded.supervise()
    store = await RedisStore.connect(url, 3600, 600, prefix=key_prefix, wait=5)
    try:
        codes = [f"F{i}" for i in range(20)]
        await asyncio.gather(
            *(store.save_room(RoomWrite(c, -1, 0, pack({"v": 0}), [])) for c in codes)
        )
        acknowledged = dict.fromkeys(codes, 0)
        for version in range(1, 6):  # bursts of saves, the last one right before the kill
            await asyncio.gather(
                *(
                    store.save_room(RoomWrite(c, version - 1, version, pack({"v": version}), []))
                    for c in codes
                )
            )
            acknowledged = dict.fromkeys(codes, version)
        process = embedded.process
        assert process is not None
        process.kill()
        deadline = time.monotonic() + 15
        while embedded.restarts < 1 or not await store.ping():
            assert time.monotonic() < deadline, "the embedded Redis did not come back"
            await asyncio.sleep(0.05)
        for code, version in acknowledged.items():
            stored = await store.load_room(code)
            assert stored is not None and stored.state == {"v": version}, code
    finally:
        await store.close()
        embedded.stop()
