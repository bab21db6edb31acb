"""Every bot level only ever makes legal moves: whole matches on the sans-I/O core, each bot
deciding from its own seat's view, every request accepted by the match."""

from __future__ import annotations

import itertools
import random

import pytest

from tests.server.bots.helpers import bot, run_match

#: (level, matches of three deals): 300 deals for easy and normal, fewer for strong, whose
#: search is run here on a fixed small number of sampled worlds rather than its 1 s budget
#: (every other test that plays it through a match checks its moves too: ``Match.apply``
#: refuses an illegal one).
CASES = [("easy", 100), ("normal", 100), pytest.param("strong", 4, marks=pytest.mark.slow)]


@pytest.mark.parametrize(("level", "matches"), CASES)
def test_level_plays_only_legal_moves(level: str, matches: int) -> None:
    deals = 0
    for m in range(matches):
        policies = [bot(level, random.Random(f"{m}:{s}")) for s in range(3)]
        match, _ = run_match(policies, deals=3, seed=m)
        deals += len(match.deal_scores)
    assert deals == 3 * matches


@pytest.mark.slow
def test_mixed_table_plays_only_legal_moves() -> None:
    """One match for each order the three levels can sit in."""
    for m, levels in enumerate(itertools.permutations(["easy", "normal", "strong"])):
        policies = [bot(level, random.Random(m)) for level in levels]
        match, _ = run_match(policies, deals=3, seed=1000 + m)
        assert sum(match.totals) == 0
