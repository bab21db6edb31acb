"""The review process does not hold a server's exit: a job running in it (a review, a mining
job: seconds each) is ended with it, not waited for."""

from __future__ import annotations

import asyncio
import os
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from server.lobby.reviews import Reviewer


async def test_shutdown_ends_a_running_job_at_once() -> None:
    reviewer = Reviewer(seconds=8.0)
    loop = asyncio.get_running_loop()
    pool = reviewer.executor()
    # a job that runs long, started for sure before the shutdown
    await loop.run_in_executor(pool, time.sleep, 0)
    job = loop.run_in_executor(pool, time.sleep, 40)
    started = time.monotonic()
    await asyncio.sleep(0.2)  # (the worker is in the sleep now)
    reviewer.shutdown()
    with pytest.raises(BrokenProcessPool):
        await job
    assert time.monotonic() - started < 30  # not the job's 40 s
    assert reviewer._executor is None


def _niceness() -> int:
    return os.nice(0)


@pytest.mark.parametrize("niceness", [0, 7])
async def test_the_worker_yields_the_cpu_by_the_niceness_asked(niceness: int) -> None:
    """Reviews and mining run below the rooms (``--review-niceness``): a loaded machine
    serves the players first."""
    reviewer = Reviewer(seconds=8.0, niceness=niceness)
    try:
        worker = await asyncio.get_running_loop().run_in_executor(reviewer.executor(), _niceness)
    finally:
        reviewer.shutdown()
    assert worker == os.nice(0) + niceness
