"""The exact end-game solver: forced wins and losses on hand-made positions, and agreement
with a plain minimax (no memo, no move ordering) on small random positions."""

from __future__ import annotations

import random

import pytest

from protocol.cards import parse_cards
from protocol.legal import legal_plays_from_counts
from protocol.plays import Play
from server.bots.endgame import Hands, Solver, SolverLimit
from server.bots.sim import counts_of, info


def hand(text: str) -> tuple[int, ...]:
    """Card text as a counts tuple ('' for an empty hand)."""
    return tuple(counts_of([r - 3 for r in parse_cards(text)])) if text else (0,) * 15


def lead(landlord: int, hands: Hands, turn: int) -> bool:
    return Solver(landlord).landlord_wins(hands, turn, None, turn)


def test_bomb_first_then_the_single_wins_for_the_landlord() -> None:
    # Led first, the 3 loses to either farmer's single, who then goes out; the bomb first
    # holds the lead (no farmer has a bomb), and the 3 goes out after it.
    hands = (hand("4444 3"), hand("5"), hand("6 7"))
    assert lead(0, hands, 0)
    single_three = next(
        m for m in legal_plays_from_counts(hands[0], None) if m.cards == tuple(parse_cards("3"))
    )
    after = (hand("4444"), hands[1], hands[2])
    assert not Solver(0).landlord_wins(after, 1, single_three, 0)


def test_a_farmer_with_the_rocket_stops_the_landlord() -> None:
    # Whatever the landlord leads, the rocket takes the lead and the farmer's 3 goes out.
    hands = (hand("KK A"), hand("SJ BJ 3"), hand("4 5 6"))
    assert not lead(0, hands, 0)


def test_farmers_cooperate_one_lets_the_partner_go_out() -> None:
    # Farmer 1 leads a low single; farmer 2 tops the landlord's answer only if needed:
    # leading the 4 lets farmer 2 (with the 2) win; the solver finds that.
    hands = (hand("A 3 3"), hand("4 5"), hand("2"))
    assert not lead(0, hands, 1)


def test_a_landlord_who_is_out_of_moves_loses() -> None:
    hands = (hand("3 4"), hand("5"), hand("6"))
    assert not lead(0, hands, 0)


def test_the_node_limit_is_enforced() -> None:
    rng = random.Random(5)
    deck = [i for i in range(13) for _ in range(4)] + [13, 14]
    rng.shuffle(deck)
    hands = (
        tuple(counts_of(deck[:20])),
        tuple(counts_of(deck[20:37])),
        tuple(counts_of(deck[37:54])),
    )
    with pytest.raises(SolverLimit):
        Solver(0, node_limit=50).landlord_wins(hands, 0, None, 0)


def _minimax(landlord: int, hands: Hands, turn: int, last: Play | None, last_seat: int) -> bool:
    """Plain minimax, the rules spelled out: whether the landlord goes out first."""
    if last_seat == turn:
        last = None
    want = turn == landlord
    options: list[Play | None] = legal_plays_from_counts(hands[turn], last)
    if last is not None:
        options.append(None)
    for m in options:
        if m is None:
            result = _minimax(landlord, hands, (turn + 1) % 3, last, last_seat)
        else:
            after = list(hands[turn])
            for i, c in info(m).takes:
                after[i] -= c
            if sum(after) == 0:
                result = turn == landlord
            else:
                new = list(hands)
                new[turn] = tuple(after)
                result = _minimax(landlord, (new[0], new[1], new[2]), (turn + 1) % 3, m, turn)
        if result == want:
            return want
    return not want


@pytest.mark.parametrize("seed", range(40))
def test_the_solver_agrees_with_plain_minimax(seed: int) -> None:
    rng = random.Random(seed)
    deck = [i for i in range(13) for _ in range(4)] + [13, 14]
    rng.shuffle(deck)
    sizes = [rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 3)]
    cut = [0, sizes[0], sizes[0] + sizes[1], sum(sizes)]
    hands: Hands = (
        tuple(counts_of(deck[cut[0] : cut[1]])),
        tuple(counts_of(deck[cut[1] : cut[2]])),
        tuple(counts_of(deck[cut[2] : cut[3]])),
    )
    landlord = seed % 3
    turn = rng.randrange(3)
    assert Solver(landlord).landlord_wins(hands, turn, None, turn) == _minimax(
        landlord, hands, turn, None, turn
    )
