"""The strong bot's exact end-game solver for one sampled world: ``protocol.solver``'s
three-seat search, behind the counts-and-seats interface the bot's simulator uses.

The game is two-sided, the landlord against both farmers, and a deal ends the moment a seat
has no cards, so the value of a position is a yes/no: does the landlord go out first with
best play by everyone. The search (``protocol.solver.search.ThreeSeats``) keeps the landlord
at seat 0; this adapter turns the table's seats around the landlord and the bot's count
tuples into packed hands.

Each call is bounded by a node limit: past it ``SolverLimit`` is raised and the caller falls
back to rollouts. A solver keeps its table (exact values only) between calls, so the
candidates of one decision in one world share the work.
"""

from __future__ import annotations

from protocol.plays import Play
from protocol.solver.moves import move, pack
from protocol.solver.search import SearchLimit, ThreeSeats

Hand = tuple[int, ...]
Hands = tuple[Hand, Hand, Hand]


class SolverLimit(Exception):
    """The search visited more positions than allowed."""


class Solver:
    """Exact perfect-information search for one world (one set of three hands)."""

    def __init__(self, landlord: int, node_limit: int = 20000) -> None:
        self.landlord = landlord
        self.node_limit = node_limit
        self._search = ThreeSeats(node_limit=node_limit)

    @property
    def nodes(self) -> int:
        """Positions searched by the last call."""
        return self._search.nodes

    def landlord_wins(self, hands: Hands, turn: int, last: Play | None, last_seat: int) -> bool:
        """Whether the landlord goes out first when everyone plays perfectly from here:
        ``turn`` is to act on ``last`` (played by ``last_seat``), or leads when ``last`` is
        None or ``last_seat == turn``. Raises SolverLimit past the node limit."""
        ll = self.landlord
        h0, h1, h2 = (pack(hands[(ll + i) % 3]) for i in range(3))
        search = self._search
        search.budget.restart()
        try:
            return search.landlord_wins(
                h0,
                h1,
                h2,
                (turn - ll) % 3,
                None if last is None else move(last),
                (last_seat - ll) % 3,
            )
        except SearchLimit:
            raise SolverLimit from None
