"""Every bot level only ever makes legal moves: whole matches on the sans-I/O core, each bot
deciding from its own seat's view, every request accepted by the match."""

from __future__ import annotations

import random

import pytest

from server.bots.base import policy_for
from tests.server.bots.helpers import run_match

#: (level, matches of three deals): 300 deals for easy and normal, fewer for strong, whose
#: policy may take a time budget per decision.
CASES = [("easy", 100), ("normal", 100), ("strong", 20)]


@pytest.mark.parametrize(("level", "matches"), CASES)
def test_level_plays_only_legal_moves(level: str, matches: int) -> None:
    deals = 0
    for m in range(matches):
        policies = [policy_for(level, random.Random(f"{m}:{s}")) for s in range(3)]
        match, _ = run_match(policies, deals=3, seed=m)
        deals += len(match.deal_scores)
    assert deals == 3 * matches


def test_mixed_table_plays_only_legal_moves() -> None:
    for m in range(30):
        levels = ["easy", "normal", "strong"]
        random.Random(m).shuffle(levels)
        policies = [policy_for(level, random.Random(m)) for level in levels]
        match, _ = run_match(policies, deals=3, seed=1000 + m)
        assert sum(match.totals) == 0
