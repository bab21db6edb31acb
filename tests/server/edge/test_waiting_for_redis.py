"""A server started before its Redis answers says so once, and once more when it answers:
not a line a second for as long as the wait lasts."""

from __future__ import annotations

import logging

import pytest

from server.edge.transport import wait_for_store
from server.store.clients import is_cluster
from server.store.errors import StoreUnavailable
from tests.redis_server import free_port


class SlowToAnswer:
    """A store whose ping fails ``silent`` times, then answers."""

    def __init__(self, silent: int) -> None:
        self.silent = silent
        self.pings = 0

    async def ping(self) -> bool:
        self.pings += 1
        return self.pings > self.silent


async def test_a_long_wait_for_the_store_is_two_log_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = SlowToAnswer(silent=25)
    with caplog.at_level(logging.WARNING, logger="server.edge.transport"):
        await wait_for_store(store, interval=0)  # type: ignore[arg-type]
    assert store.pings == 26
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert lines[0].startswith("waiting for Redis to answer")
    assert lines[1].startswith("Redis answers")


async def test_a_store_that_answers_at_once_is_not_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="server.edge.transport"):
        await wait_for_store(SlowToAnswer(silent=0), interval=0)  # type: ignore[arg-type]
    assert caplog.records == []


async def test_asking_a_redis_that_is_not_there_is_one_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    with caplog.at_level(logging.WARNING, logger="server.store.clients"):
        with pytest.raises(StoreUnavailable):
            await is_cluster(url, wait=0.5, interval=0.05)  # asks about ten times
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and lines[0].startswith("waiting for Redis to answer"), lines
