"""The pool's bounded queue: past ``queue_limit`` decisions waiting or running, a decision
is made inline at the fallback level (the table never waits) and the pool says it is busy."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from protocol.events import TableView
from server.bots import pool
from server.bots.base import decide, policy_for
from tests.server.bots.helpers import play_view


class SleepyBot:
    """Holds a worker for a second (a picklable test policy)."""

    def bid(self, view: TableView) -> int:
        time.sleep(1.0)
        return 3

    def play(self, view: TableView) -> None:
        time.sleep(1.0)
        return None


def lead_view() -> TableView:
    return play_view(
        seat=0, hand="33 44 5 6 7 8 99 10 J QQ K A 22 SJ BJ", landlord=0, card_counts=[20, 17, 17]
    )


@pytest.fixture
def one_slot() -> Iterator[None]:
    pool.configure(workers=1, queue_limit=1)
    yield
    pool.shutdown()
    pool.configure(workers=0, queue_limit=0)


async def test_a_decision_past_the_queue_limit_is_made_inline_at_once(one_slot: None) -> None:
    await pool.warm_up()
    assert not pool.busy()
    held = asyncio.create_task(pool.choose("strong", lead_view(), factory=SleepyBot, budget=2))
    async with asyncio.timeout(5):
        while not pool.busy():
            await asyncio.sleep(0.01)
    assert pool.in_flight() == 1
    start = time.monotonic()
    request = await pool.choose("strong", lead_view())
    assert time.monotonic() - start < 0.3
    assert request == decide(policy_for(pool.FALLBACK_LEVEL), lead_view())
    await held
    assert pool.in_flight() == 0 and not pool.busy()


def test_configure_sets_the_workers_and_zero_means_up_to_two() -> None:
    try:
        pool.configure(workers=3, queue_limit=0)
        assert pool.WORKERS == 3 and pool.QUEUE_LIMIT == 0 and not pool.busy()
        pool.configure(workers=0, queue_limit=0)
        assert 1 <= pool.WORKERS <= 2
    finally:
        pool.configure(workers=0, queue_limit=0)
