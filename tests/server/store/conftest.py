"""Fixtures shared by the store's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.redis_sentinel import SentinelProcesses


@pytest.fixture
def sentinel() -> Iterator[SentinelProcesses]:
    """A primary, its replica and one Sentinel, this test's own."""
    processes = SentinelProcesses().start()
    try:
        yield processes
    finally:
        processes.stop()
