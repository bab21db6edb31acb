"""Mining puzzles from finished matches (issue 33): the work of the review process.

``mine_match`` reviews each finished deal of a match's journal (from its end back, under a
budget of seconds per deal: the end of a deal is where puzzles are) and cuts its puzzles
(``server.analysis.puzzles``), each with the match seats of the side that missed it (their
people's own lost deal), and lists the match's turning points by seat (for a player's
"turning points this week"). ``self_play`` is a match of the bots from a seed, as its
journal: what a new server mines at start-up. Both answer plain JSON data, as a worker
process sends it back.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from protocol.cards import Rank, format_cards
from protocol.messages import BidRequest, PassRequest, PlayRequest, ReadyRequest, Request
from protocol.plays import classify
from server.analysis.puzzles import NODE_LIMIT, min_plays, puzzle_at, puzzle_id
from server.analysis.review import Budget, played_deals, review_deal
from server.bots.base import BotPolicy, decide, policy_for
from server.game.commands import Bid, Command, Pass, PlayCards, Ready
from server.game.journal import RecordingRandom, command_record, start_record
from server.game.match import Match, MatchConfig


def mine_match(
    records: Iterable[dict[str, Any]],
    seconds: float,
    limit: int = NODE_LIMIT,
    nodes: int | None = None,
) -> dict[str, Any]:
    """The puzzles and turning points of a match's finished deals, as JSON data:
    ``puzzles``: ``{"id", "key", "side", "answer", "min_plays", "seats"}`` (``seats``: the
    match seats of the side that missed it), each id once; ``turning``: ``{"deal",
    "index", "seat"}`` for each play or pass (not a timeout's) that threw a win away;
    ``deals``: how many deals were reviewed."""
    puzzles: dict[str, dict[str, Any]] = {}
    turning: list[dict[str, int]] = []
    deals = 0
    for deal in played_deals(records):
        if deal.winner is None:
            continue
        deals += 1
        # (puzzles and turning points come from the exact part only: no estimates)
        review = review_deal(deal, Budget(seconds=seconds, nodes=nodes, playouts=0))
        for index, (step, decision) in enumerate(zip(deal.steps, review.decisions, strict=True)):
            if not decision.turning:
                continue
            if not decision.timeout:
                turning.append({"deal": deal.deal_no, "index": index, "seat": decision.seat})
            if len(decision.better) != 1:
                continue
            played = None if step.play is None else classify(step.play)
            puzzle = puzzle_at(step.position, played, limit)
            if puzzle is None:
                continue
            plays = min_plays(puzzle, limit)
            if plays is None:
                continue
            side = step.position.side(step.position.turn)
            seats = [s for s in range(3) if step.position.side(s) == side]
            key = puzzle.key
            puzzles.setdefault(
                key,
                {
                    "id": puzzle_id(key),
                    "key": key,
                    "side": puzzle.side,
                    "answer": None if puzzle.answer is None else format_cards(puzzle.answer),
                    "min_plays": plays,
                    "seats": seats,
                },
            )
    return {"puzzles": list(puzzles.values()), "turning": turning, "deals": deals}


def command_for(seat: int, request: Request) -> Command:
    """The game command a bot's request becomes, as the server turns a person's."""
    if isinstance(request, BidRequest):
        return Bid(seat, request.value)
    if isinstance(request, PassRequest):
        return Pass(seat)
    if isinstance(request, PlayRequest):
        return PlayCards(seat, tuple(Rank(r) for r in request.ranks))
    if isinstance(request, ReadyRequest):
        return Ready(seat)
    raise ValueError(f"a bot sent {request!r}")


def self_play(deals: int, seed: int, level: str = "normal") -> list[dict[str, Any]]:
    """A match of ``deals`` deals played by three ``level`` bots from ``seed``, recorded as
    a room journals it (the start, every command, every draw)."""
    if level not in ("easy", "normal"):
        raise ValueError(f"self-play is by the easy or normal bots, not {level}")
    policies = [policy_for(level, random.Random(seed * 3 + s)) for s in range(3)]
    return journaled_match(policies, deals, seed)


def journaled_match(policies: Sequence[BotPolicy], deals: int, seed: int) -> list[dict[str, Any]]:
    """A match played by ``policies`` from ``seed``, as its journal."""
    records: list[dict[str, Any]] = []
    rng = RecordingRandom(random.Random(seed), records)
    config = MatchConfig(deals=deals)
    records.append(start_record(config, None, 0.0))
    match, _ = Match.start(config, rng, 0.0)
    while match.phase != "over":
        for seat in range(3):
            request = decide(policies[seat], match.view_for(seat, 0.0))
            if request is not None:
                command = command_for(seat, request)
                records.append(command_record(command, 0.0))
                match.apply(command, 0.0, rng)
                break
        else:
            raise AssertionError("no seat acted")
    return records


def mine_self_play(
    deals: int, seed: int, seconds: float, level: str = "easy", nodes: int | None = None
) -> dict[str, Any]:
    """``mine_match`` of a ``level`` bots' match of ``deals`` deals from ``seed``."""
    return mine_match(self_play(deals, seed, level), seconds, nodes=nodes)
