"""A small run of the rating simulation (benchmarks/rating_sim.py): players who play as the
easy bot end below those who play as the normal one, on tables the queue formed."""

from __future__ import annotations

import pytest

from benchmarks.rating_sim import simulate


@pytest.mark.slow  # (about 4 s of CPU: a hundred matches played out)
def test_ratings_order_two_strengths_and_the_queue_seats_equals_together() -> None:
    # (players back in the queue within seconds: enough waiting at once to choose from;
    # seeded, every bot too, so the run is the same each time)
    found = simulate({"easy": 15, "normal": 15}, 10, seed=4, rest=3.0, match_seconds=60.0)
    assert found.matches >= 100
    assert found.mean_display["easy"] + 5 < found.mean_display["normal"]
    assert found.pairs_ordered >= 0.85
    assert found.queue_spread < found.random_spread
    assert found.max_wait <= 15.0 + 0.25  # nobody waits past the bot fill (and a look)
