"""``ddz review``: the command line, and a review in words."""

from __future__ import annotations

import json

from client.cli import parse_args
from client.connection import to_json_line
from client.options import setup_request
from client.review_view import only_deal, review_lines
from protocol.messages import GetReview, ReviewData, ReviewDeal, ReviewDecision


def decision(
    seat: int,
    play: str | None,
    before: str | float | None,
    after: str | float | None,
    better: list[str | None] | None = None,
) -> ReviewDecision:
    return ReviewDecision(
        seat=seat,
        play=play,
        before=before,  # type: ignore[arg-type]
        after=after,  # type: ignore[arg-type]
        exact=isinstance(before, str) and isinstance(after, str),
        better=better or [],
        timeout=False,
    )


def deal(no: int) -> ReviewDeal:
    return ReviewDeal(
        deal_no=no,
        landlord=1,
        hands=["3 44 5", "10 10 J SJ 2 2", "6 BJ"],
        winner="farmers",
        lost_at=1,
        reach=2,
        positions=100,
        seconds=0.1,
        decisions=[
            decision(1, "10 10", None, "landlord"),
            decision(2, None, "landlord", "farmers", ["BJ", "6"]),
            decision(0, "3", "farmers", "farmers"),
        ],
    )


REVIEW = ReviewData(code="K7Q2XW", deals=[deal(1), deal(2)])
#: A review with the strong bot's estimates before the solver's reach.
ESTIMATED = ReviewData(
    code="K7Q2XW",
    deals=[
        deal(1).model_copy(
            update={
                "winner": "landlord",
                "reach": 2,
                "estimated": 1,
                "lost_at": None,
                "decisions": [
                    decision(1, "10 10", 0.625, "landlord"),
                    decision(2, None, "landlord", "landlord"),
                    decision(0, "3", "landlord", "landlord"),
                ],
            }
        )
    ],
)


def test_the_command_line_asks_for_the_review_of_one_deal() -> None:
    opts = parse_args(["review", "k7q2xw", "--deal", "2"])
    assert (opts.mode, opts.code, opts.review_deal) == ("review", "K7Q2XW", 2)
    assert setup_request(opts) == GetReview(code="K7Q2XW")
    assert parse_args(["review", "k7q2xw"]).review_deal is None


def test_the_play_that_lost_the_deal_is_marked_with_the_moves_that_kept_it() -> None:
    lines = review_lines(REVIEW, 2)
    assert lines[0] == "review of K7Q2XW"
    assert sum(line.startswith("== deal") for line in lines) == 1
    assert "lost at play 2 (S3 pass)" in lines[2]
    (lost,) = [i for i, line in enumerate(lines) if line.startswith(" X")]
    assert "S3  pass" in lines[lost] and "landlord -> farmers" in lines[lost]
    assert lines[lost + 1].split() == ["better:", "BJ", "|", "6"]
    assert [line for line in lines if line.startswith(" ")][-1].split()[-1] == "farmers"
    assert any(line.endswith(" ?") for line in lines)  # out of reach: not guessed


def test_one_deal_of_the_json_and_a_deal_that_is_not_there() -> None:
    assert [d.deal_no for d in only_deal(REVIEW, 1).deals] == [1]
    assert only_deal(REVIEW, None) == REVIEW
    assert review_lines(REVIEW, 5) == ["review of K7Q2XW: no deal 5 played to its end"]


def test_before_the_solvers_reach_the_estimate_is_said_as_one() -> None:
    lines = review_lines(ESTIMATED)
    assert "the 1 before them with the landlord's chance as the strong bot" in lines[6]
    first = next(line for line in lines if line.startswith("     1"))
    assert first.endswith("landlord ~63% (estimate)")  # (0.625: a half up, as the page)
    assert not any(line.startswith((" x", " X")) for line in lines)  # no turning point
    assert not any(line.endswith(" ?") for line in lines)


def test_the_json_has_the_estimate_as_a_number_and_exact_false() -> None:
    data = json.loads(to_json_line(ESTIMATED))
    first, second = data["deals"][0]["decisions"][:2]
    assert (first["before"], first["after"], first["exact"]) == (0.625, "landlord", False)
    assert (second["before"], second["exact"]) == ("landlord", True)
    assert data["deals"][0]["estimated"] == 1
    assert ReviewData.model_validate(data) == ESTIMATED
