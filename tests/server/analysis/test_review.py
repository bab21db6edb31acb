"""The review of a finished deal: positions from the journal, values from the end back,
where the deal was lost and what would have kept it."""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import replace
from typing import Any

from protocol.cards import parse_cards
from protocol.messages import ReviewData
from protocol.plays import classify
from server.analysis import review as review_module
from server.analysis.review import (
    Budget,
    Decision,
    Position,
    is_exact,
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
#: No guard of time on the estimates: every position before the reach gets one, on any
#: machine.
ESTIMATES = {"estimate_seconds": None}
#: ... and few playouts, where what is checked is which positions have an estimate and that
#: each is a chance, not what it is worth (``test_estimate.py`` judges those): a tenth of
#: the estimates' time.
FEW_ESTIMATES = {"estimate_seconds": None, "playouts": 3}


def test_a_deal_thrown_away_is_marked_where_it_was_lost() -> None:
    thrower = Thrower(cards=28)
    records = journaled_match(1, seed=3, script=thrower)
    assert thrower.thrown is not None, "the script found no won position to throw"
    deal_no, index, kept = thrower.thrown
    (deal,) = played_deals(records)
    review = review_deal(deal, Budget(seconds=None, nodes=200_000, playouts=0))
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
    reviews = review_match(records, Budget(seconds=None, nodes=100_000, **FEW_ESTIMATES))
    assert sum(r.lost_at is not None for r in reviews) == 2
    assert [r.deal_no for r in reviews] == [d.deal_no for d in played_deals(records)]
    for review in reviews:
        decisions = review.decisions
        assert decisions[-1].after == review.winner
        for a, b in itertools.pairwise(decisions):
            assert a.after == b.before
        for d in decisions:
            mover = "landlord" if d.seat == review.landlord else "farmers"
            if is_exact(d.before) and d.before != mover:
                assert d.after == d.before and not d.better  # a lost position stays lost
            assert d.turning == bool(d.better)
        known = [is_exact(d.before) for d in decisions]
        assert sum(known) == review.reach
        assert known == sorted(known)  # estimated first, then solved to the end
        estimates = [d.before for d in decisions[: len(decisions) - review.reach]]
        assert all(isinstance(v, float) and 0 <= v <= 1 for v in estimates)
        assert review.estimated == len(estimates)
        if review.lost_at is not None:
            assert decisions[review.lost_at].turning
            assert not any(d.turning for d in decisions[: review.lost_at])


def test_before_the_reach_the_landlords_chance_is_estimated_and_marked_so() -> None:
    (deal,) = played_deals(journaled_match(1, seed=5))
    review = review_deal(deal, Budget(seconds=None, nodes=2_000, **ESTIMATES))
    unsolved = len(deal.steps) - review.reach
    assert 0 < review.reach < len(deal.steps)
    assert review.estimated == unsolved
    for d in review.decisions[:unsolved]:
        assert isinstance(d.before, float) and 0.0 <= d.before <= 1.0
        assert not d.exact and not d.turning and not d.better
    boundary = review.decisions[unsolved - 1]  # an estimate before, the solver's after
    assert isinstance(boundary.before, float) and is_exact(boundary.after)
    assert all(d.exact for d in review.decisions[unsolved:])
    # the same journal, the same estimates
    again = review_deal(deal, Budget(seconds=None, nodes=2_000, **ESTIMATES))
    assert again.decisions == review.decisions


def test_without_estimates_or_their_time_nothing_is_guessed() -> None:
    (deal,) = played_deals(journaled_match(1, seed=5))
    for budget in (
        Budget(seconds=None, nodes=2_000, playouts=0),
        Budget(seconds=None, nodes=2_000, estimate_seconds=0.0),
    ):
        review = review_deal(deal, budget)
        assert 0 < review.reach < len(deal.steps) and review.estimated == 0
        for d in review.decisions[: len(deal.steps) - review.reach]:
            assert d.before is None and not d.exact and not d.turning and not d.better
    none = review_deal(deal, Budget(seconds=0.0, nodes=None, playouts=0))
    assert none.positions == 0
    assert all(d.before is None for d in none.decisions[: len(deal.steps) - none.reach])


def test_the_seconds_are_the_reviewers_cpu_time_not_the_walls(monkeypatch: Any) -> None:
    """A review process that waits for the CPU (a busy machine, its niceness) judges as
    much as one that does not: only the time it computes counts against its seconds."""
    (deal,) = played_deals(journaled_match(1, seed=2))
    quick_end = 15  # the deal's last 15 decisions take the solver under 0.1 s in all
    budget = Budget(seconds=0.25, nodes=None, playouts=0)
    solve = review_module.solve
    waited: list[float] = []

    def waiting_solve(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.1)  # the wall's time passes, the reviewer's CPU time does not
        waited.append(0.1)
        return solve(*args, **kwargs)

    monkeypatch.setattr(review_module, "solve", waiting_solve)
    assert review_deal(deal, budget).reach >= quick_end
    assert sum(waited) > budget.seconds  # (on the wall's clock it would have stopped sooner)


def test_a_turning_point_is_never_read_from_estimates() -> None:
    # the mover's side went from likely to unlikely, or to an exact loss: no turning point
    assert not Decision(0, None, False, 0.9, 0.1, ()).turning
    assert not Decision(0, None, False, 0.9, "farmers", ()).turning
    assert not Decision(0, None, False, "landlord", 0.0, ()).turning
    assert Decision(0, None, False, "landlord", "farmers", ()).turning
    # in a review, estimates swing as they will and no move before the reach is marked
    for review in review_match(
        journaled_match(3, seed=3), Budget(seconds=None, nodes=3_000, **FEW_ESTIMATES)
    ):
        unsolved = len(review.decisions) - review.reach
        assert review.estimated == unsolved
        assert not any(d.turning or d.better for d in review.decisions[:unsolved])
        assert review.lost_at is None or review.lost_at >= unsolved


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
    reviews = review_match(records, Budget(seconds=None, nodes=20_000, **FEW_ESTIMATES))
    data = reviews_to_data(reviews)
    assert json.loads(json.dumps(data)) == data
    (deal,) = data["deals"]
    assert deal["lost_at"] == reviews[0].lost_at is not None
    lost = deal["decisions"][deal["lost_at"]]
    assert set(lost) >= {"seat", "play", "before", "after", "exact", "better"}
    assert lost["exact"] and lost["before"] != lost["after"] and lost["better"]
    assert deal["estimated"] > 0
    first = deal["decisions"][0]
    assert isinstance(first["before"], float) and first["exact"] is False
    back = reviews_from_data(data)
    assert [replace(r, seconds=0.0) for r in back] == [replace(r, seconds=0.0) for r in reviews]
    # as the server sends it and the clients read it
    sent = ReviewData(code="K7Q2XW", **json.loads(json.dumps(data)))
    assert sent.deals[0].decisions[0].before == first["before"]
    assert sent.deals[0].estimated == deal["estimated"]


def test_a_review_kept_before_the_estimates_still_loads() -> None:
    # Kept in Redis with the match (``ddz:room:{CODE}:review``, JSON) by a server that
    # knew no estimates: its unknowns null, no "estimated"; read back as it was.
    records = journaled_match(1, seed=5)
    (review,) = review_match(records, Budget(seconds=None, nodes=2_000, playouts=0))
    old = reviews_to_data([review])
    for deal in old["deals"]:
        del deal["estimated"]
    kept = json.dumps(old, separators=(",", ":")).encode()
    (back,) = reviews_from_data(json.loads(kept))
    assert back.estimated == 0
    assert [d.before for d in back.decisions] == [d.before for d in review.decisions]
    assert back.decisions[0].before is None and not back.decisions[0].exact
    sent = ReviewData(code="K7Q2XW", **json.loads(kept))
    assert sent.deals[0].estimated == 0 and sent.deals[0].decisions[0].before is None
