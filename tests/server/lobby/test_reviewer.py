"""The review process does not hold a server's exit: a job running in it (a review, a mining
job: seconds each) is ended with it, not waited for."""

from __future__ import annotations

import asyncio
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
