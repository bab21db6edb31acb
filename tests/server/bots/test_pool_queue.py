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
def one_slot() -> Iterator[pool.BotPool]:
    bots = pool.BotPool(workers=1, queue_limit=1)
    yield bots
    bots.shutdown()


async def test_a_decision_past_the_queue_limit_is_made_inline_at_once(
    one_slot: pool.BotPool,
) -> None:
    bots = one_slot
    await bots.warm_up()
    assert not bots.busy()
    held = asyncio.create_task(bots.choose("strong", lead_view(), factory=SleepyBot, budget=2))
    async with asyncio.timeout(5):
        while not bots.busy():
            await asyncio.sleep(0.01)
    assert bots.in_flight() == 1
    start = time.monotonic()
    request = await bots.choose("strong", lead_view())
    assert time.monotonic() - start < 0.3
    assert request == decide(policy_for(pool.FALLBACK_LEVEL), lead_view())
    await held
    # (the held decision may have run out of its budget on a loaded machine and been made
    # inline: its job then still ends in the worker, a moment later)
    async with asyncio.timeout(10):
        while bots.in_flight() or bots.busy():
            await asyncio.sleep(0.01)


def test_the_settings_size_the_pool_and_zero_workers_means_up_to_two() -> None:
    bots = pool.BotPool(workers=3, queue_limit=0)
    assert bots.workers == 3 and bots.queue_limit == 0 and not bots.busy()
    assert 1 <= pool.BotPool(workers=0, queue_limit=0).workers <= 2
