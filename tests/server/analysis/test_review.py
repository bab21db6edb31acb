"""The review of a finished deal: positions from the journal, values from the end back,
where the deal was lost and what would have kept it."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

from protocol.cards import parse_cards
from protocol.plays import classify
from server.analysis.review import (
    Budget,
    Position,
    played_deals,
    review_deal,
    review_match,
    reviews_from_data,
    reviews_to_data,
    solve,
)
from server.game.journal import replay
from server.game.match import EVERYONE
from tests.server.analysis.helpers import Thrower, journaled_match

UNBOUNDED = Budget(seconds=None, nodes=None)


def test_a_deal_thrown_away_is_marked_where_it_was_lost() -> None:
    thrower = Thrower(cards=28)
    records = journaled_match(1, seed=3, script=thrower)
    assert thrower.thrown is not None, "the script found no won position to throw"
    deal_no, index, kept = thrower.thrown
    (deal,) = played_deals(records)
    review = review_deal(deal, Budget(seconds=None, nodes=200_000))
    thrown = review.decisions[index]
    side = "landlord" if thrown.seat == review.landlord else "farmers"
    assert review.deal_no == deal_no
    assert (thrown.before, thrown.after) == (side, "farmers" if side == "landlord" else "landlord")
    assert thrown.turning and thrown.better == kept
    assert review.winner != side
    assert review.lost_at is not None and review.lost_at <= index  # (bots may err before)
    assert all(not d.turning for d in review.decisions[index + 1 :])  # best play after


def test_values_chain_from_the_end_and_only_a_mover_throws_a_win() -> None:
    records = journaled_match(3, seed=3)
    # (100,000 positions a deal: both turning points of these deals in reach, as with
    # 300,000, in a seventh of the time)
    reviews = review_match(records, Budget(seconds=None, nodes=100_000))
    assert sum(r.lost_at is not None for r in reviews) == 2
    assert [r.deal_no for r in reviews] == [d.deal_no for d in played_deals(records)]
    for review in reviews:
        decisions = review.decisions
        assert decisions[-1].after == review.winner
        for a, b in itertools.pairwise(decisions):
            assert a.after == b.before
        for d in decisions:
            mover = "landlord" if d.seat == review.landlord else "farmers"
            if d.before is not None and d.before != mover:
                assert d.after == d.before and not d.better  # a lost position stays lost
            assert d.turning == bool(d.better)
        known = [d.before is not None for d in decisions]
        assert sum(known) == review.reach
        assert known == sorted(known)  # unknown first, then solved to the end
        if review.lost_at is not None:
            assert decisions[review.lost_at].turning
            assert not any(d.turning for d in decisions[: review.lost_at])


def test_the_budget_stops_the_walk_and_nothing_is_guessed() -> None:
    (deal,) = played_deals(journaled_match(1, seed=5))
    whole = review_deal(deal, Budget(seconds=None, nodes=2_000))
    assert 0 < whole.reach < len(deal.steps)
    for d in whole.decisions[: len(deal.steps) - whole.reach]:
        assert d.before is None and not d.exact and not d.turning and not d.better
    none = review_deal(deal, Budget(seconds=0.0, nodes=None))
    assert none.positions == 0
    assert all(d.before is None for d in none.decisions[: len(deal.steps) - none.reach])


def test_the_review_reads_every_play_and_pass_of_the_journal() -> None:
    records = journaled_match(3, seed=11)
    deals = played_deals(records)
    moves: dict[int, int] = {}
    for _, match, out in replay(records):
        for audience, message in out:
            if audience == EVERYONE and message.type in ("played", "passed"):
                moves[match.deal_no] = moves.get(match.deal_no, 0) + 1
    assert {d.deal_no: len(d.steps) for d in deals} == moves
    for deal in deals:
        assert sum(len(h) for h in deal.hands) == 54
        assert deal.steps[0].position.turn == deal.landlord
        assert deal.steps[0].position.hands == deal.hands
        for step, nxt in zip(deal.steps, deal.steps[1:], strict=False):
            play = None if step.play is None else classify(step.play)
            assert step.position.after(play) == nxt.position


def test_seats_are_numbered_from_the_landlord_for_the_solver() -> None:
    # The farmer after the landlord (seat 0 here, landlord seat 2) leads his pair and is
    # out; the same hands with the landlord at seat 0 are the solver's own numbering.
    a, b, c = parse_cards("3"), parse_cards("44"), parse_cards("55")
    real = Position((b, c, a), landlord=2, turn=0, to_beat=None, by=None)
    assert solve(real).winner == "farmers"
    assert tuple(b) in [m.cards for m in solve(real).winning_moves if m is not None]
    own = Position((a, b, c), landlord=0, turn=1, to_beat=None, by=None)
    assert solve(own) == solve(real)


def test_the_data_form_is_json_and_gives_the_reviews_back() -> None:
    thrower = Thrower(cards=28)
    records = journaled_match(1, seed=3, script=thrower)
    reviews = review_match(records, Budget(seconds=None, nodes=200_000))
    data = reviews_to_data(reviews)
    assert json.loads(json.dumps(data)) == data
    (deal,) = data["deals"]
    assert deal["lost_at"] == reviews[0].lost_at is not None
    lost = deal["decisions"][deal["lost_at"]]
    assert set(lost) >= {"seat", "play", "before", "after", "exact", "better"}
    assert lost["exact"] and lost["before"] != lost["after"] and lost["better"]
    back = reviews_from_data(data)
    assert [replace(r, seconds=0.0) for r in back] == [replace(r, seconds=0.0) for r in reviews]
