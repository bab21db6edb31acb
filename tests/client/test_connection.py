"""The client's request pacing and numbering, and its JSON lines."""

from __future__ import annotations

import json

import pytest

from client.connection import Pacer, RequestNumbers, to_json_line
from protocol.events import BidMade
from server.edge.flood import TokenBucket
from server.settings import Settings


def test_request_ids_count_from_one() -> None:
    numbers = RequestNumbers()
    assert [numbers.next() for _ in range(3)] == [1, 2, 3]
    assert numbers.last == 3


def test_the_pacer_lets_a_burst_through_then_spaces_requests() -> None:
    pacer = Pacer(rate=10.0, burst=3, tokens=3.0)
    assert [pacer.wait(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert pacer.wait(0.0) == pytest.approx(0.1)
    assert pacer.wait(0.0) == pytest.approx(0.2)  # queued behind the one before
    assert pacer.wait(10.0) == 0.0  # refilled, up to the burst


def test_the_pacer_stays_under_the_servers_default_limit() -> None:
    """Requests sent as fast as the pacer allows are never refused by the server's own token
    bucket with its default settings (the unpaced hello included)."""
    defaults = Settings()
    server = TokenBucket(defaults.rate_limit, defaults.rate_burst, clock=0.0)
    assert server.take(0.0)  # the hello
    pacer = Pacer()
    now = 0.0
    for _ in range(500):
        now += pacer.wait(now)
        assert server.take(now)


def test_json_lines_are_the_messages_json_dump() -> None:
    event = BidMade(seat=1, bid=2, highest=2, version=1)
    line = to_json_line(event)
    assert "\n" not in line
    assert json.loads(line) == event.model_dump(mode="json")
