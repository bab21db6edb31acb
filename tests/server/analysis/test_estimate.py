"""The strong bot's estimate of the landlord's chance in an open position: high where the
landlord plainly wins, low where it plainly loses, a share in [0, 1], the same every time."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from protocol.cards import parse_cards
from protocol.plays import classify
from server.analysis.estimate import ENDGAME_CARDS, landlord_chance
from server.analysis.review import Cards, Position, played_deals, solve
from tests.server.analysis.helpers import journaled_match


def hands(*texts: str) -> tuple[Cards, Cards, Cards]:
    """Three hands from text, checked to be cards of one pack."""
    ranks = [tuple(sorted(parse_cards(t))) for t in texts]
    counts = Counter(itertools.chain.from_iterable(ranks))
    assert all(n <= 4 for n in counts.values()), counts
    return ranks[0], ranks[1], ranks[2]


#: The landlord (seat 0) to lead with two bombs, the rocket and a lone 3 against two hands
#: of 17 low cards: whatever the farmers answer, it takes the lead back and goes out first.
LANDLORD_CRUSHES = Position(
    hands(
        "2 2 2 2 A A A A SJ BJ 3",
        "4 4 4 5 5 5 6 6 6 7 7 8 8 9 9 10 10",
        "J J J Q Q Q K K K 7 7 8 8 9 9 10 10",
    ),
    landlord=0,
    turn=0,
    to_beat=None,
    by=None,
)
#: A farmer (seat 1) to lead a 3, a bomb of 2s and the rocket; the landlord's 20 cards
#: hold neither bomb nor anything above an ace.
LANDLORD_IS_CRUSHED = Position(
    hands(
        "3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J Q K A",
        "2 2 2 2 SJ BJ 3",
        "3 3 5 5 6 6 7 7 8 8 9 9 Q Q K K A",
    ),
    landlord=0,
    turn=1,
    to_beat=None,
    by=None,
)


def test_a_position_the_landlord_plainly_wins_gets_a_high_chance() -> None:
    assert landlord_chance(LANDLORD_CRUSHES) >= 0.9


def test_a_position_the_landlord_plainly_loses_gets_a_low_chance() -> None:
    assert landlord_chance(LANDLORD_IS_CRUSHED) <= 0.1


def test_a_play_to_beat_is_answered_or_passed() -> None:
    # the same crushed landlord, now with a farmer's 3 to beat and its turn: still lost
    after = LANDLORD_IS_CRUSHED.after(classify(parse_cards("3")))
    assert after is not None and after.turn == 2 and after.to_beat is not None
    assert landlord_chance(after) <= 0.1


def test_the_estimate_is_a_share_the_same_for_the_same_position() -> None:
    (deal, *_) = played_deals(journaled_match(1, seed=5))
    for step in deal.steps[:6]:
        chance = landlord_chance(step.position, playouts=16)
        assert 0.0 <= chance <= 1.0
        assert chance * 16 == round(chance * 16)  # a share of the playouts
        assert landlord_chance(step.position, playouts=16) == chance
    # (another seed draws other slips: over a deal's positions, some estimate differs)
    assert any(
        landlord_chance(s.position, playouts=16, seed="other") != landlord_chance(s.position, 16)
        for s in deal.steps[:6]
    )


def test_the_endgame_is_solved_not_played_out() -> None:
    # within the endgame's cards every playout is the solver's answer: the exact value
    deals = played_deals(journaled_match(3, seed=3))
    steps = [s for d in deals for s in d.steps]
    small = [s.position for s in steps if sum(len(h) for h in s.position.hands) <= ENDGAME_CARDS]
    assert len(small) >= 4
    for position in small[:2] + small[-2:]:
        exact = 1.0 if solve(position).winner == "landlord" else 0.0
        assert landlord_chance(position, playouts=4) == exact


def test_an_estimate_takes_a_playout() -> None:
    with pytest.raises(ValueError):
        landlord_chance(LANDLORD_CRUSHES, playouts=0)
