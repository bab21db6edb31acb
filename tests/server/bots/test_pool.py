"""The process pool: pooled decisions run in another process, keep the event loop free,
keep their time budget (queueing included), and fall back inline when the pool is late."""

from __future__ import annotations

import asyncio
import functools
import itertools
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from protocol.events import TableView
from protocol.messages import BidRequest, PassRequest, PlayRequest
from server.bots import pool
from server.bots.base import decide, policy_for
from server.bots.strong import StrongBot
from server.settings import load_settings
from tests.server.bots.helpers import play_view
from tests.server.wire import running_server


class PidBot:
    """Bids 1 in another process than ``parent``, 2 in it (a picklable test policy)."""

    def __init__(self, parent: int) -> None:
        self.parent = parent

    def bid(self, view: TableView) -> int:
        return 1 if os.getpid() != self.parent else 2

    def play(self, view: TableView) -> None:
        return None


class SlowBot:
    """Thinks far too long."""

    def bid(self, view: TableView) -> int:
        time.sleep(1.5)
        return 3

    def play(self, view: TableView) -> None:
        time.sleep(1.5)
        return None


class DeadlineBot:
    """Notes the deadline the pool gave it and when it began, thinks ``think`` seconds, and
    bids 1 (a picklable test policy)."""

    def __init__(self, notes: str, think: float) -> None:
        self.notes, self.think = notes, think
        self.deadline: float | None = None

    def bid(self, view: TableView) -> int:
        with open(self.notes, "a") as notes:
            notes.write(f"{self.deadline} {time.monotonic()}\n")
        time.sleep(self.think)
        return 1

    def play(self, view: TableView) -> None:
        return None


def bid_view() -> TableView:
    view = play_view(
        seat=1, hand="3 4 5 6 7 8 9 10 J Q K A 2 2 SJ BJ 3", landlord=0, card_counts=[17, 17, 17]
    )
    assert view.turn is not None
    turn = view.turn.model_copy(update={"action": "bid", "may_pass": True})
    return view.model_copy(
        update={"phase": "bidding", "landlord": None, "bids": [], "plays": [], "turn": turn}
    )


def lead_view() -> TableView:
    return play_view(
        seat=0,
        hand="33 44 5 6 7 8 99 10 J QQ K A 22 SJ BJ",
        landlord=0,
        card_counts=[20, 17, 17],
    )


#: The pool the tests decide in (the server's app owns one, built from its settings).
bots = pool.BotPool()


@pytest.fixture
async def warm_pool() -> AsyncIterator[list[int]]:
    pids = await bots.warm_up()
    yield pids
    bots.shutdown()


async def test_cheap_levels_decide_inline() -> None:
    view = lead_view()
    assert await bots.choose("normal", view) == decide(policy_for("normal"), view)


async def test_pooled_decisions_run_in_another_process(warm_pool: list[int]) -> None:
    assert os.getpid() not in warm_pool
    # (a budget a busy machine keeps: past it the pool decides inline, in this process)
    request = await bots.choose(
        "strong", bid_view(), factory=functools.partial(PidBot, os.getpid()), budget=10.0
    )
    assert request == BidRequest(value=1, version=1)


async def test_a_strong_decision_does_not_block_the_event_loop(warm_pool: list[int]) -> None:
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    task = asyncio.create_task(ticker())
    factory = functools.partial(StrongBot, budget=0.6, seed=1)
    start, cpu = time.monotonic(), time.process_time()
    request = await bots.choose("strong", lead_view(), factory=factory, budget=0.6)
    elapsed, used = time.monotonic() - start, time.process_time() - cpu
    task.cancel()
    assert isinstance(request, PlayRequest)
    assert elapsed > 0.3  # it did search
    # The search ran in another process: this one spent next to no CPU on it (a search in
    # this process spends most of its half second here, and that does not depend on how
    # busy the machine is), and the loop ticked all through it (a loop blocked by the
    # search would show one gap of nearly the whole decision; on a loaded machine a tick
    # may come a few hundred ms late, which is no block)
    assert used < 0.15, used
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert len(ticks) >= 5
    assert max(gaps) < 0.7 * elapsed, (max(gaps), elapsed)


async def test_a_queued_decision_has_only_what_is_left_of_its_budget(
    warm_pool: list[int], tmp_path: Path
) -> None:
    # More decisions at once than workers: the queued ones wait for a worker, and their
    # deadline still runs from when they were asked, not from when a worker took them up
    notes = tmp_path / "notes"
    factory = functools.partial(DeadlineBot, str(notes), 0.2)
    asked = 2 * bots.workers
    jobs = [bots.choose("strong", bid_view(), factory=factory, budget=10.0) for _ in range(asked)]
    assert await asyncio.gather(*jobs) == [BidRequest(value=1, version=1)] * asked
    noted = [[float(x) for x in line.split()] for line in notes.read_text().splitlines()]
    assert len(noted) == asked
    deadlines, began = [d for d, _ in noted], [b for _, b in noted]
    assert max(began) - min(began) >= 0.2  # (some waited a whole decision for a worker)
    assert max(deadlines) - min(deadlines) < 0.1  # (all asked at once: one deadline)


async def test_a_late_pool_falls_back_inline(warm_pool: list[int]) -> None:
    start = time.monotonic()
    request = await bots.choose("strong", lead_view(), factory=SlowBot, budget=0.3)
    assert time.monotonic() - start < 1.0  # not the 1.5 s the slow bot thinks
    assert request == decide(policy_for(pool.FALLBACK_LEVEL), lead_view())
    assert not isinstance(request, PassRequest)


async def test_the_pool_starts_with_the_server_or_at_the_first_strong_decision(
    redis_url: str,
) -> None:
    """``--bot-pool-start warm`` (the default) starts the workers with the server, so that
    the first strong decision waits for none; ``lazy`` leaves them to that decision."""
    async with running_server(redis_url, bot_pool_start="warm") as warm:
        assert warm.app.bots._executor is not None
    async with running_server(redis_url, bot_pool_start="lazy") as lazy:
        assert lazy.app.bots._executor is None
        assert await lazy.app.bots.choose("easy", lead_view()) is not None
        assert lazy.app.bots._executor is None  # not a strong decision
        assert await lazy.app.bots.choose("strong", lead_view()) is not None
        assert lazy.app.bots._executor is not None


def test_a_pool_start_that_is_neither_is_refused() -> None:
    assert load_settings([], env={}).bot_pool_start == "warm"
    assert load_settings(["--bot-pool-start", "lazy"], env={}).bot_pool_start == "lazy"
    with pytest.raises(SystemExit):
        load_settings(["--bot-pool-start", "soon"], env={})
