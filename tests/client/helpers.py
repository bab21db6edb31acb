"""Builders of hand-made server messages and table states for the client's tests."""

from __future__ import annotations

from client.table import TableState
from protocol.events import (
    BidMade,
    DealEnded,
    DealStarted,
    LandlordChosen,
    ScoreBreakdown,
    TurnStarted,
)
from protocol.messages import RoomView, SeatView


def card(rank: int, suit: int = 0) -> int:
    """The id of the card of ``rank`` (3..15) in suit 0..3; 52, 53 are the jokers."""
    return (rank - 3) * 4 + suit


HAND = sorted([card(r, s) for r in range(3, 7) for s in range(4)] + [52])  # 3333..6666 SJ
KITTY = [card(14, 0), card(14, 1), 53]  # A A BJ


def seats(*kinds: str) -> list[SeatView]:
    return [
        SeatView(kind="person", name="me", connected=True)
        if k == "me"
        else SeatView(kind="bot", name=f"bot {i}", level="easy", connected=True, ready=True)
        if k == "bot"
        else SeatView(kind="empty")
        for i, k in enumerate(kinds)
    ]


def room(your_seat: int | None = 0, mode: str = "practice") -> RoomView:
    return RoomView.model_validate(
        {
            "code": "ABCDE",
            "mode": mode,
            "deals": 3,
            "seats": [s.model_dump() for s in seats("me", "bot", "bot")],
            "watchers": 0,
            "your_seat": your_seat,
            "creator_seat": 0,
            "bot_speed": "normal",
            "timed": False,
            "version": 0,
            "table": None,
        }
    )


def turn(seat: int, version: int, action: str = "bid", may_pass: bool = True) -> TurnStarted:
    return TurnStarted.model_validate(
        {
            "seat": seat,
            "action": action,
            "may_pass": may_pass,
            "deadline": None,
            "server_time": 100.0,
            "version": version,
        }
    )


def started(deal_no: int = 1, hand: list[int] | None = HAND) -> DealStarted:
    return DealStarted(
        deal_no=deal_no,
        deals_total=3,
        first_bidder=0,
        forced_bid=False,
        hand=hand,
        card_counts=[17, 17, 17],
    )


def run(state: TableState, *messages: object) -> TableState:
    for message in messages:
        state = state.apply(message)  # type: ignore[arg-type]
    return state


def bidding_done(state: TableState, landlord: int = 0) -> TableState:
    """Seat 0 bids 3 at once (or passes, then seat 1 bids 3)."""
    if landlord == 0:
        return run(
            state,
            started(),
            turn(0, 0),
            BidMade(seat=0, bid=3, highest=3, version=1),
            LandlordChosen(seat=0, base=3, kitty=KITTY, card_counts=[20, 17, 17]),
            turn(0, 1, "play", may_pass=False),
        )
    return run(
        state,
        started(),
        turn(0, 0),
        BidMade(seat=0, bid=0, highest=0, version=1),
        turn(1, 1),
        BidMade(seat=1, bid=3, highest=3, version=2),
        LandlordChosen(seat=1, base=3, kitty=KITTY, card_counts=[17, 20, 17]),
        turn(1, 2, "play", may_pass=False),
    )


def end_of_deal(deal_no: int, totals: list[int]) -> DealEnded:
    scores = [6, -3, -3]
    return DealEnded(
        deal_no=deal_no,
        landlord=0,
        winner="landlord",
        hands=[[], [card(7)], [card(8), card(9)]],
        score=ScoreBreakdown(
            base=3, bombs=0, rockets=0, spring=False, anti_spring=False, multiplier=1, scores=scores
        ),
        totals=totals,
    )
