"""The lean connection of the hot path (``server/store/line.py``) against real redis-servers:
replies in order, error replies in their place, the URL's password and database, a lost
link or a silent Redis failing what waits (and the next call connecting again)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis import exceptions as redis_errors
from redis.asyncio import Redis

from server.store.line import LineScript, RedisLine, line_for
from tests.redis_server import RedisProcess


@pytest.fixture
async def line(redis_url: str) -> AsyncIterator[RedisLine]:
    made = line_for(redis_url, 2.0)
    assert made is not None
    yield made
    await made.close()


@pytest.fixture
async def admin(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def test_only_plain_and_unix_urls_get_a_line() -> None:
    line = line_for("redis://:s3cret@example.org:6380/4", 2.0)
    assert line is not None
    assert (line.host, line.port, line.db, line.password) == ("example.org", 6380, 4, "s3cret")
    unix = line_for("unix:///run/redis.sock?db=2", 2.0)
    assert unix is not None and (unix.path, unix.db) == ("/run/redis.sock", 2)
    assert line_for("rediss://example.org", 2.0) is None  # TLS: redis-py's
    assert line_for("redis+sentinel://example.org/ddz", 2.0) is None


async def test_replies_come_back_in_order_with_error_replies_in_their_place(
    line: RedisLine, key_prefix: str
) -> None:
    key = f"{key_prefix}n"
    replies = await line.execute(
        [("SET", key, 5), ("INCRBY", key, 2), ("HGET", key, "x"), ("GET", key)]
    )
    assert replies[:2] == [b"OK", 7]
    assert isinstance(replies[2], redis_errors.ResponseError)  # WRONGTYPE: its own
    assert replies[3] == b"7"
    (missing,) = await line.execute([("EVALSHA", "0" * 40, 0)])
    assert isinstance(missing, redis_errors.NoScriptError)


async def test_the_urls_password_and_database_are_used(tmp_path: Path) -> None:
    redis = RedisProcess(tmp_path, appendonly=False).start()
    try:
        port = redis.port
        setup = Redis(host="127.0.0.1", port=port)
        await setup.config_set("requirepass", "s3cret")
        await setup.aclose()
        line = line_for(f"redis://:s3cret@127.0.0.1:{port}/3", 2.0)
        assert line is not None
        await line.execute([("SET", "where", "db3")])
        await line.close()
        client = Redis(host="127.0.0.1", port=port, password="s3cret", db=3)
        assert await client.get("where") == b"db3"
        await client.aclose()
        wrong = line_for(f"redis://:nope@127.0.0.1:{port}/0", 2.0)
        assert wrong is not None
        with pytest.raises(redis_errors.ConnectionError):
            await wrong.execute([("PING",)])
    finally:
        redis.stop()


async def test_a_lost_link_fails_what_waits_and_the_next_call_connects_again(
    line: RedisLine, admin: Redis, key_prefix: str
) -> None:
    (me,) = await line.execute([("CLIENT", "ID")])
    waiting = asyncio.ensure_future(line.execute([("BLPOP", f"{key_prefix}none", 0)]))
    async with asyncio.timeout(5):
        while not waiting.done() and await admin.client_kill_filter(_id=me) == 0:
            await asyncio.sleep(0.01)
    with pytest.raises(redis_errors.ConnectionError):
        await waiting
    (again,) = await line.execute([("CLIENT", "ID")])
    assert again != me


async def test_replies_overdue_fail_with_a_timeout_and_cut_the_link(
    redis_url: str, admin: Redis
) -> None:
    line = line_for(redis_url, 0.3)
    assert line is not None
    try:
        await line.execute([("PING",)])
        await admin.client_pause(1500, all=True)
        with pytest.raises(redis_errors.TimeoutError):
            await line.execute([("PING",)])
        await admin.client_unpause()
        assert await line.execute([("PING",)]) == [b"PONG"]
    finally:
        await admin.client_unpause()
        await line.close()


async def test_a_redis_that_is_not_there_is_a_connection_error() -> None:
    line = RedisLine("127.0.0.1", 1, None, 0, None, None, 1.0)
    with pytest.raises(redis_errors.ConnectionError):
        await line.execute([("PING",)])


async def test_a_script_runs_by_its_sha_and_again_by_its_text_once_redis_forgot_it(
    line: RedisLine, admin: Redis, key_prefix: str
) -> None:
    text = "return redis.call('INCR', KEYS[1]) + tonumber(ARGV[1])"
    script = LineScript(line, text, admin.register_script(text).sha)
    key = f"{key_prefix}count"
    assert await script(keys=[key], args=[10]) == 11
    await admin.script_flush()
    assert await script(keys=[key], args=[10]) == 12  # sent as text, then known again
    with pytest.raises(redis_errors.ResponseError):
        await script(keys=[key], args=["not a number"])  # (counted 3 before failing)
    await admin.script_flush()
    replies = await script.many([([key], [0]), ([key], ["x"]), ([key], [100])])
    assert replies[0] == 4 and replies[2] == 106  # in one batch, after NOSCRIPT
    assert isinstance(replies[1], redis_errors.ResponseError)  # its own error
