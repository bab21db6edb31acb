"""The strong bot's end-game solver as it was before issue 32 (``server/bots/endgame.py`` at
commit 4097a6e), kept unchanged but for this note as ``benchmarks/solver.py``'s baseline.

The game is two-sided, the landlord against both farmers, and a deal ends the moment a seat
has no cards, so the value of a position is a yes/no: does the landlord go out first with
best play by everyone. ``Solver.landlord_wins`` finds it by depth-first search with
memoization (a side stops at the first move that wins for it, which is alpha-beta on a
two-valued game). Moves that go out are tried first, then longer plays, and a farmer lets
the partner's play stand before trying to beat it, which finds wins early.

The search is bounded by a node limit: past it ``SolverLimit`` is raised and the caller falls
back to rollouts. A solver keeps its table between calls, so the candidates of one decision
in one world share the work.
"""

from __future__ import annotations

from protocol.legal import legal_plays_from_counts
from protocol.plays import Play
from server.bots.sim import info

Hand = tuple[int, ...]
Hands = tuple[Hand, Hand, Hand]


class SolverLimit(Exception):
    """The search visited more positions than allowed."""


def _after(hand: Hand, play: Play) -> Hand:
    """The hand once ``play`` is taken out of it."""
    counts = list(hand)
    for i, c in info(play).takes:
        counts[i] -= c
    return tuple(counts)


class Solver:
    """Memoized perfect-information search for one world (one set of three hands)."""

    def __init__(self, landlord: int, node_limit: int = 20000) -> None:
        self.landlord = landlord
        self.node_limit = node_limit
        self.nodes = 0
        self._memo: dict[tuple[Hands, int, int, int], bool] = {}
        self._moves: dict[tuple[Hand, int], list[Play]] = {}
        #: Keeps every play used as a memo key alive, so that its id stays unique.
        self._keep: dict[int, Play] = {}

    def landlord_wins(self, hands: Hands, turn: int, last: Play | None, last_seat: int) -> bool:
        """Whether the landlord goes out first when everyone plays perfectly from here:
        ``turn`` is to act on ``last`` (played by ``last_seat``), or leads when ``last`` is
        None or ``last_seat == turn``. Raises SolverLimit past the node limit."""
        if last is not None:
            self._keep[id(last)] = last
        self.nodes = 0
        return self._solve(hands, turn, last, last_seat)

    def _legal(self, hand: Hand, last: Play | None) -> list[Play]:
        key = (hand, 0 if last is None else id(last))
        found = self._moves.get(key)
        if found is None:
            found = legal_plays_from_counts(hand, last)
            found.sort(key=lambda p: -len(p.cards))
            self._moves[key] = found
        return found

    def _solve(self, hands: Hands, turn: int, last: Play | None, last_seat: int) -> bool:
        if last_seat == turn:
            last = None
        key = (hands, turn, 0 if last is None else id(last), last_seat if last else -1)
        known = self._memo.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise SolverLimit
        landlord = self.landlord
        want = turn == landlord
        hand = hands[turn]
        size = sum(hand)
        legal = self._legal(hand, last)
        for m in legal:
            if len(m.cards) == size:
                self._memo[key] = want
                return want
        nxt = (turn + 1) % 3
        partner_led = last is not None and turn != landlord and last_seat != landlord
        if partner_led and self._solve(hands, nxt, last, last_seat) == want:
            self._memo[key] = want
            return want
        for m in legal:
            after = _after(hand, m)
            if turn == 0:
                new: Hands = (after, hands[1], hands[2])
            elif turn == 1:
                new = (hands[0], after, hands[2])
            else:
                new = (hands[0], hands[1], after)
            if self._solve(new, nxt, m, turn) == want:
                self._memo[key] = want
                return want
        if (
            last is not None
            and not partner_led
            and self._solve(hands, nxt, last, last_seat) == want
        ):
            self._memo[key] = want
            return want
        self._memo[key] = not want
        return not want
