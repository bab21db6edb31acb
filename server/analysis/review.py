"""The review of a finished deal: where it was decided (issue 33).

Every play and pass of the deal (bids are not judged) is a *decision*: a seat, the position
it faced (every hand open, whose turn, the play to beat and who made it) and what it did.
The exact three-seat solver (``protocol.solver.solve_three``) gives the side that wins with
best play by everyone before each decision, and so after it (the position before the next
decision, or the deal's end). Best play cannot turn a lost position into a won one, so the
value changes only where the seat that moved threw its side's win away: those decisions are
*turning points*, each with the moves that would have kept the win, and the first of them
is where the deal was lost.

The solver works from the end of the deal backwards, every position under one budget per
deal (``Budget``: seconds of one core and/or positions searched, the latter for reproducible
tests): the end of a deal is small and quick, its start is mostly out of reach. The first
position it cannot finish stops the walk; ``DealReview.reach`` says how many decisions from
the end were solved.

Before the reach, each position gets the strong bot's estimate of the landlord's chance
(``server.analysis.estimate``: a float in [0, 1], ``exact`` false), at a fixed number of
playouts a position so that it is the same for the same journal. Its cost is its own, not
what the exact part left (which would leave the estimates nothing on the deals that need
them most): some 20 to 50 ms of one core a position, under a second for a deal's early
part (``benchmarks/review.py``), so the exact part keeps its whole budget.
``Budget.estimate_seconds`` is only a guard (a deal of very many decisions, a slow or busy
machine: it counts the clock, as the exact part does), past which the earlier positions
stay unknown (``None``), never guessed otherwise. The clock is the CPU time of the thread
that reviews (``time.thread_time``): a loaded machine slows a review down but does not cut
what it judges (on the wall's clock, a review process given little CPU judged nothing).
With the defaults (8 s exact, at most 1.5 s of estimates) a deal's review stays within 10 s
of one core. Estimates judge no move: a turning point needs both sides of the move exact.

Positions come from the match's journal, replayed through the game core that played it
(``server.game.journal.replay``), so a review needs nothing a replay does not.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from protocol.cards import Rank, card_rank, format_cards, parse_cards
from protocol.events import CardsPlayed, DealEnded, LandlordChosen, Passed
from protocol.plays import Play
from protocol.solver import Solution, solve_three
from server.analysis.estimate import PLAYOUTS, landlord_chance
from server.analysis.position import Cards as Cards
from server.analysis.position import Position as Position
from server.analysis.position import Side as Side
from server.game.journal import replay
from server.game.match import EVERYONE, Match

#: A position's value: the side that wins with best play (exact), the estimated landlord's
#: chance (a float in [0, 1]), or None (unknown).
Value = Side | float | None
#: Seconds of one core a deal's exact review may take by default, and the positions it may
#: search.
DEAL_SECONDS = 8.0
DEAL_NODES: int | None = None
#: Seconds of one core the estimates of a deal may take at most (a guard: they take far
#: less; see the module docstring).
ESTIMATE_SECONDS = 1.5


@dataclass(frozen=True, slots=True)
class Budget:
    """What the review of one deal may spend: the exact part ``seconds`` of the clock and
    ``nodes`` positions searched; the estimates ``playouts`` a position (0: none) and at
    most ``estimate_seconds`` in all (None: no bound of that kind)."""

    seconds: float | None = DEAL_SECONDS
    nodes: int | None = DEAL_NODES
    playouts: int = PLAYOUTS
    estimate_seconds: float | None = ESTIMATE_SECONDS


def is_exact(value: Value) -> bool:
    """Whether a position's value is the solver's (a side), not an estimate or unknown."""
    return isinstance(value, str)


@dataclass(frozen=True, slots=True)
class Step:
    """A decision as the journal has it: the position and what its seat did (None: pass)."""

    position: Position
    play: Cards | None
    timeout: bool


@dataclass(slots=True)
class PlayedDeal:
    """A deal as it was played from the landlord's choice on: the hands then (the kitty in
    the landlord's), each decision, and the side that won."""

    deal_no: int
    landlord: int
    hands: tuple[Cards, Cards, Cards]
    steps: list[Step] = field(default_factory=list)
    winner: Side | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision. ``before``/``after``: the side that wins with best play before
    and after it, or before the solver's reach the estimated landlord's chance (a float),
    or None (unknown); ``better``: when this move threw the win away, the moves that would
    have kept it (None: the pass)."""

    seat: int
    play: Cards | None
    timeout: bool
    before: Value
    after: Value
    better: tuple[Cards | None, ...]

    @property
    def exact(self) -> bool:
        """Whether both values are the solver's (neither an estimate nor unknown)."""
        return is_exact(self.before) and is_exact(self.after)

    @property
    def turning(self) -> bool:
        """Whether this move turned a won position into a lost one for its side (known
        only where both sides of it are exact: never from estimates)."""
        return self.exact and self.before != self.after


@dataclass(frozen=True, slots=True)
class DealReview:
    """A reviewed deal: its decisions in order, the winner, where it was lost (the index of
    the first turning point, None when the winner always had it or the review does not
    reach that far), how many decisions from the end were solved, the cost, and how many
    decisions before those have an estimate before them (``estimated``)."""

    deal_no: int
    landlord: int
    hands: tuple[Cards, Cards, Cards]
    winner: Side
    decisions: tuple[Decision, ...]
    lost_at: int | None
    reach: int
    positions: int
    seconds: float
    estimated: int = 0


def _cards(ranks: Iterable[Rank]) -> Cards:
    return tuple(sorted(ranks))


def position_of(match: Match) -> Position | None:
    """The position of the deal being played, or None when no deal is in play."""
    deal = match.deal
    if match.phase != "playing" or deal.landlord is None:
        return None
    hands = tuple(_cards(deal.hand_ranks(s)) for s in range(3))
    last = deal.last_play
    return Position(
        hands=(hands[0], hands[1], hands[2]),
        landlord=deal.landlord,
        turn=deal.turn,
        to_beat=deal.table_play,
        by=None if last is None else last["seat"],
    )


def played_deals(records: Iterable[dict[str, Any]]) -> list[PlayedDeal]:
    """The deals a journal holds that reached their play (void deals have none), each with
    its decisions; the last may be unfinished (``winner`` None) if the match ended early."""
    deals: list[PlayedDeal] = []
    before: Position | None = None
    for _, match, outgoing in replay(records):
        for audience, message in outgoing:
            if audience != EVERYONE:
                continue
            if isinstance(message, LandlordChosen):
                hands = tuple(_cards(match.deal.hand_ranks(s)) for s in range(3))
                deals.append(
                    PlayedDeal(match.deal_no, message.seat, (hands[0], hands[1], hands[2]))
                )
            elif isinstance(message, CardsPlayed | Passed) and before is not None:
                play = None
                if isinstance(message, CardsPlayed):
                    play = _cards(card_rank(c) for c in message.cards)
                deals[-1].steps.append(Step(before, play, message.timeout))
            elif isinstance(message, DealEnded) and deals:
                deals[-1].winner = message.winner
        before = position_of(match)
    return deals


def solve(
    position: Position,
    *,
    node_limit: int | None = None,
    time_limit: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Solution:
    """``solve_three`` on a position of real seats (the solver numbers them from the
    landlord: its seat 1 plays after the landlord)."""
    landlord = position.landlord

    def own(seat: int) -> int:
        return (seat - landlord) % 3

    h = position.hands
    return solve_three(
        h[landlord],
        h[(landlord + 1) % 3],
        h[(landlord + 2) % 3],
        turn=own(position.turn),
        to_beat=position.to_beat,
        by=None if position.by is None else own(position.by),
        node_limit=node_limit,
        time_limit=time_limit,
        clock=clock,
    )


def review_deal(
    deal: PlayedDeal,
    budget: Budget = Budget(),
    clock: Callable[[], float] = time.thread_time,
) -> DealReview:
    """Judge every decision of a finished deal, exactly from its end back as far as
    ``budget`` allows, and estimate the positions before that."""
    if deal.winner is None:
        raise ValueError(f"deal {deal.deal_no} did not finish: there is nothing to review")
    started = clock()
    n = len(deal.steps)
    values: list[Value] = [None] * n
    values.append(deal.winner)
    winning: list[tuple[Play | None, ...]] = [()] * n
    searched = 0
    reach = 0
    for i in range(n - 1, -1, -1):
        position = deal.steps[i].position
        options = position.options()
        if options == [None]:  # nothing beats the play: the pass is no choice
            values[i] = values[i + 1]
            winning[i] = (None,) if values[i] == position.side(position.turn) else ()
            reach += 1
            continue
        nodes = None if budget.nodes is None else budget.nodes - searched
        seconds = None if budget.seconds is None else budget.seconds - (clock() - started)
        if (nodes is not None and nodes <= 0) or (seconds is not None and seconds <= 0):
            break
        solution = solve(position, node_limit=nodes, time_limit=seconds, clock=clock)
        searched += solution.positions
        if solution.winner is None:
            break
        values[i] = "landlord" if solution.winner == "landlord" else "farmers"
        winning[i] = solution.winning_moves
        reach += 1
    estimated = _estimate(deal, values, n - reach, budget, clock)
    decisions: list[Decision] = []
    for i, step in enumerate(deal.steps):
        before, after = values[i], values[i + 1]
        mover = step.position.side(step.position.turn)
        threw = is_exact(before) and is_exact(after) and before == mover != after
        better = tuple(None if m is None else m.cards for m in winning[i]) if threw else ()
        decisions.append(
            Decision(step.position.turn, step.play, step.timeout, before, after, better)
        )
    lost_at = next((i for i, d in enumerate(decisions) if d.turning), None)
    return DealReview(
        deal_no=deal.deal_no,
        landlord=deal.landlord,
        hands=deal.hands,
        winner=deal.winner,
        decisions=tuple(decisions),
        lost_at=lost_at,
        reach=reach,
        positions=searched,
        seconds=clock() - started,
        estimated=estimated,
    )


def _estimate(
    deal: PlayedDeal,
    values: list[Value],
    unsolved: int,
    budget: Budget,
    clock: Callable[[], float],
) -> int:
    """Fill the values of the ``unsolved`` first positions with estimates, from the
    solver's reach back, while ``budget`` allows; how many were estimated."""
    if budget.playouts <= 0:
        return 0
    started = clock()
    done = 0
    for i in range(unsolved - 1, -1, -1):
        spent = clock() - started
        if budget.estimate_seconds is not None and spent >= budget.estimate_seconds:
            break
        values[i] = landlord_chance(deal.steps[i].position, budget.playouts)
        done += 1
    return done


def review_match(
    records: Iterable[dict[str, Any]],
    budget: Budget = Budget(),
    clock: Callable[[], float] = time.thread_time,
) -> list[DealReview]:
    """Every finished deal of a match's journal, reviewed (each deal under its own
    ``budget``)."""
    return [review_deal(d, budget, clock) for d in played_deals(records) if d.winner is not None]


def _text(cards: Cards | None) -> str | None:
    return None if cards is None else format_cards(cards)


def _ranks(text: str | None) -> Cards | None:
    return None if text is None else tuple(parse_cards(text))


def _value(data: Any) -> Value:
    """A value back from data: a side, or an estimate (a whole number, as JSON from
    elsewhere may write 0 or 1, read as the float it is), or None."""
    if data == "landlord" or data == "farmers":
        return cast(Side, data)
    return None if data is None else float(data)


def reviews_to_data(reviews: Iterable[DealReview]) -> dict[str, Any]:
    """A match's reviews as plain JSON data, the form kept and printed by ``ddz review
    --json``: per deal its decisions ``{"seat", "play", "before", "after", "exact",
    "better"}`` (cards as text, a pass as null; ``before``/``after`` the side that wins
    with best play, or before the solver's reach the estimated landlord's chance (a number,
    ``exact`` false), null unknown), with the deal's landlord, hands, winner, where it was
    lost (``lost_at``: an index into its decisions), ``reach``, ``estimated`` and its
    cost."""
    return {
        "deals": [
            {
                "deal_no": r.deal_no,
                "landlord": r.landlord,
                "hands": [format_cards(h) for h in r.hands],
                "winner": r.winner,
                "lost_at": r.lost_at,
                "reach": r.reach,
                "estimated": r.estimated,
                "positions": r.positions,
                "seconds": round(r.seconds, 3),
                "decisions": [
                    {
                        "seat": d.seat,
                        "play": _text(d.play),
                        "before": d.before,
                        "after": d.after,
                        "exact": d.exact,
                        "better": [_text(m) for m in d.better],
                        "timeout": d.timeout,
                    }
                    for d in r.decisions
                ],
            }
            for r in reviews
        ]
    }


def reviews_from_data(data: dict[str, Any]) -> list[DealReview]:
    """``reviews_to_data``'s reviews back; a review kept before the estimates (its
    unknowns null, no ``estimated``) loads as it was."""
    reviews: list[DealReview] = []
    for deal in data["deals"]:
        hands = tuple(tuple(parse_cards(h)) for h in deal["hands"])
        decisions = tuple(
            Decision(
                seat=d["seat"],
                play=_ranks(d["play"]),
                timeout=d["timeout"],
                before=_value(d["before"]),
                after=_value(d["after"]),
                better=tuple(_ranks(m) for m in d["better"]),
            )
            for d in deal["decisions"]
        )
        reviews.append(
            DealReview(
                deal_no=deal["deal_no"],
                landlord=deal["landlord"],
                hands=(hands[0], hands[1], hands[2]),
                winner=deal["winner"],
                decisions=decisions,
                lost_at=deal["lost_at"],
                reach=deal["reach"],
                positions=deal["positions"],
                seconds=deal["seconds"],
                estimated=deal.get("estimated", 0),
            )
        )
    return reviews
