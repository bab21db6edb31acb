"""Inference: the sampled worlds respect every hard fact of the view (no card in two hands,
the card counts, the landlord's unplayed kitty cards), and passes weigh as soft evidence."""

from __future__ import annotations

import random

from protocol.cards import card_rank
from protocol.events import TableView
from protocol.messages import Request
from server.bots.infer import bidding_world, deal_unknown, read_view, sample, weight
from server.bots.normal import NormalBot
from tests.server.bots.helpers import play_view, run_match

DECK = [4] * 13 + [1, 1]


def play_views(seed: int) -> list[TableView]:
    """Every view a seat decided a play from in one normal-bot match."""
    views: list[TableView] = []

    def keep(seat: int, view: TableView, request: Request) -> None:
        if view.phase == "playing" and view.turn is not None and view.turn.action == "play":
            views.append(view)

    run_match([NormalBot(), NormalBot(), NormalBot()], deals=1, seed=seed, on_request=keep)
    return views


def test_worlds_respect_the_hard_facts() -> None:
    rng = random.Random(1)
    checked = 0
    for seed in range(6):
        for view in play_views(seed)[::3]:
            assert view.hand is not None and view.landlord is not None
            k = read_view(view)
            played = [0] * 15
            for p in view.plays:
                for c in p.cards:
                    played[card_rank(c) - 3] += 1
            kitty_left = [0] * 15
            gone = {c for p in view.plays for c in p.cards}
            for c in view.kitty or ():
                if c not in gone:
                    kitty_left[card_rank(c) - 3] += 1
            for _ in range(20):
                hands = sample(k, rng)
                for seat in range(3):
                    assert sum(hands[seat]) == view.card_counts[seat]
                    assert min(hands[seat]) >= 0
                assert hands[k.me] == k.mine
                # Every card is in exactly one place: a hand or the table.
                for i in range(15):
                    assert hands[0][i] + hands[1][i] + hands[2][i] + played[i] == DECK[i]
                # The landlord holds the kitty cards it has not played.
                assert all(hands[view.landlord][i] >= kitty_left[i] for i in range(15)), (
                    "kitty card outside the landlord's hand"
                )
                checked += 1
    assert checked > 100


def test_bidding_worlds_deal_the_unseen_cards() -> None:
    rng = random.Random(2)
    mine = [4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]  # 17 cards
    for _ in range(50):
        left, right, kitty = bidding_world(mine, rng)
        assert (sum(left), sum(right), sum(kitty)) == (17, 17, 3)
        for i in range(15):
            assert mine[i] + left[i] + right[i] + kitty[i] == DECK[i]


def test_a_pass_on_an_opponents_single_makes_higher_singles_less_likely() -> None:
    # Seat 1 (a farmer) passed on the landlord's single 2: only a joker beats it. Worlds
    # where seat 1 holds a joker weigh less, so sampling finds it jokerless more often
    # than a uniform deal of the unseen cards does (about 0.27 of the time).
    base = play_view(
        seat=2,
        hand="33 44 55 66 77 88 99 10 10 J",
        landlord=0,
        card_counts=[19, 17, 17],
        table=(0, "2"),
    )
    view = base.model_copy(update={"passes": [[1, 1]]})
    k = read_view(view)
    assert len(k.evidence) == 1
    factor = k.evidence[0].factor
    assert factor < 1.0
    rng = random.Random(3)
    draws = 3000
    uniform = sum(1 for _ in range(draws) if not any(deal_unknown(k, rng)[1][13:]))
    weighted = 0
    for _ in range(draws):
        hands = sample(k, rng)
        jokers = any(hands[1][13:])
        assert weight(k, hands) == (factor if jokers else 1.0)
        weighted += not jokers
    assert 0.22 < uniform / draws < 0.32
    assert weighted / draws > uniform / draws + 0.05


def test_a_farmers_pass_on_the_partner_is_no_evidence() -> None:
    base = play_view(
        seat=0,
        hand="33 44 55 66 77 88 99 10 10 JJ",
        landlord=0,
        card_counts=[18, 16, 19],
        table=(1, "K"),
    )
    view = base.model_copy(update={"passes": [[2, 1]]})
    assert read_view(view).evidence == []
