"""The two searches: two open hands, and three seats (the landlord against both farmers).

Both are depth-first searches of a two-valued game with a transposition table: a position is
won for the side to move if some move (or the pass) leads to a position lost for the other
side, so a node stops at the first winning move, and a node that is lost has tried them all.
What makes them fast, and what keeps them exact:

- Hands are packed ints (``protocol.solver.moves``); a position is a tuple of ints, its own
  table key. Plays are generated once per hand and per play to beat.
- A move that empties the hand wins at once, so it is looked for first.
- Moves another move of the same seat dominates are skipped (``protocol.solver.lean``: a
  higher lone card played, or taken as a kicker, where a lower one would do as well).
- The farmers win if one farmer alone beats the landlord while the other passes to the end,
  so each three-seat position first asks the two-hand search (its table shared by every
  position with the same two hands) whether the farmer who can act alone wins: when one
  does, the position is decided without a move of its own.
- The landlord to lead wins at once when its hand is a chain of plays neither farmer can
  beat (each gives it the lead back, the farmers' hands unchanged) ending in one play that
  empties it (``control``, its own table by the three hands).
- A farmer facing the partner's play tries letting it stand first, unless the landlord is
  next and can beat it (then the farmer's own moves first, the pass last: on the slowest
  benchmark position letting it stand first failed so often that the search was 4.5x larger).
- Then the moves in the order of how few plays the hand will still need (``groups``: its
  ranks, less a triple's kicker, the rocket, a run of lone cards; ``lean`` keeps them in
  that order, so no position sorts them again), the pass last. After a
  move the other side cannot answer at all (for the landlord: neither farmer can) the side
  to move leads again, and the search goes there directly: the forced passes are no
  positions of their own.

No other move is left out, so the result is that of the full minimax (the tests compare it
with a plain one over ``protocol.legal`` on thousands of positions).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from protocol.solver.lean import lean, present
from protocol.solver.moves import DELTA, ID, Move, beaten, leads, tops

#: How often (in positions) the clock is read when a time limit is set.
_CLOCK_EVERY = 1024


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _paused(search: Callable[_P, _R]) -> Callable[_P, _R]:
    """``search`` with Python's cyclic garbage collector paused while it runs. A search
    makes millions of small tuples (its table keys, which hold no cycles); the collector's
    passes over them took 15-25% of the time. The collector is switched on again after, by
    the call that switched it off (a search inside another, or in another thread, leaves
    it to the outer one)."""

    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not gc.isenabled():
            return search(*args, **kwargs)
        gc.disable()
        try:
            return search(*args, **kwargs)
        finally:
            gc.enable()

    return run


class SearchLimit(Exception):
    """The node or time limit was reached before the answer was known."""


class _Budget:
    """Counts positions and stops the search past a node limit or a deadline."""

    def __init__(
        self, node_limit: int | None, time_limit: float | None, clock: Callable[[], float]
    ) -> None:
        self.nodes = 0
        self.node_limit = node_limit
        self.clock = clock
        self.deadline = None if time_limit is None else clock() + time_limit
        self.next_check = self._next_check()

    def _next_check(self) -> int:
        checks = []
        if self.node_limit is not None:
            checks.append(self.node_limit + 1)
        if self.deadline is not None:
            checks.append(self.nodes + _CLOCK_EVERY)
        return min(checks) if checks else -1

    def restart(self) -> None:
        """Count positions from zero again (the node limit applies per search)."""
        self.nodes = 0
        self.next_check = self._next_check()

    def check(self) -> None:
        """Called when ``nodes`` reaches ``next_check``: raise past a limit, else set the
        next check."""
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise SearchLimit
        if self.deadline is not None and self.clock() >= self.deadline:
            raise SearchLimit
        self.next_check = self._next_check()


class TwoHands:
    """Search of two open hands: ``wins(a, b, last)`` is whether the hand ``a``, to move,
    goes out before ``b``; ``last`` is ``b``'s play that ``a`` must beat or pass, or None
    when ``a`` leads. The table is kept between calls (it holds exact values only)."""

    def __init__(
        self,
        node_limit: int | None = None,
        time_limit: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        budget: _Budget | None = None,
    ) -> None:
        self.budget = budget or _Budget(node_limit, time_limit, clock)
        table: dict[tuple[int, int, int], bool] = {}
        budget = self.budget

        def win(a: int, b: int, last: Move | None) -> bool:
            key = (a, b, 0 if last is None else last[ID])
            known = table.get(key)
            if known is not None:
                return known
            budget.nodes += 1
            if budget.nodes == budget.next_check:
                budget.check()
            moves = lean(a, last, present(b), 0)
            if moves and moves[0][DELTA] == a:
                table[key] = True
                return True
            top = tops(b)
            for m in moves:
                if beaten(m, top):
                    if not win(b, a - m[DELTA], m):
                        table[key] = True
                        return True
                elif win(a - m[DELTA], b, None):
                    table[key] = True
                    return True
            if last is not None and not win(b, a, None):
                table[key] = True
                return True
            table[key] = False
            return False

        #: The search itself, for a search that calls it from inside its own.
        self.search = win
        self.wins = _paused(win)

    @property
    def nodes(self) -> int:
        return self.budget.nodes


class ThreeSeats:
    """Search of three open hands, seat 0 the landlord, seats 1 and 2 the farmers in turn
    order (seat 1 plays after the landlord). ``landlord_wins(hands, turn, last, by)``:
    whether the landlord goes out first; ``turn`` is to move, ``last`` the play to beat (made
    by seat ``by``), or None (or ``by == turn``) when ``turn`` leads."""

    def __init__(
        self,
        node_limit: int | None = None,
        time_limit: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.budget = _Budget(node_limit, time_limit, clock)
        table: dict[tuple[int, int, int, int, int, int], bool] = {}
        budget = self.budget
        alone = TwoHands(budget=budget).search
        held: dict[tuple[int, int, int], bool] = {}

        def control(h0: int, h1: int, h2: int) -> bool:
            # Whether the landlord, to lead, goes out on plays neither farmer can beat but
            # the last: each gives it the lead back, the farmers' hands unchanged.
            key = (h0, h1, h2)
            known = held.get(key)
            if known is not None:
                return known
            plays = leads(h0)
            found = False
            for m in plays:
                if m[DELTA] == h0:
                    found = True
                    break
            if not found:
                top1 = tops(h1)
                top2 = tops(h2)
                for m in plays:
                    if (
                        not beaten(m, top1)
                        and not beaten(m, top2)
                        and control(h0 - m[DELTA], h1, h2)
                    ):
                        found = True
                        break
            held[key] = found
            return found

        def lw(h0: int, h1: int, h2: int, turn: int, last: Move | None, by: int) -> bool:
            if by == turn:
                last = None
            key = (h0, h1, h2, turn, 0, 0) if last is None else (h0, h1, h2, turn, last[ID], by)
            known = table.get(key)
            if known is not None:
                return known
            budget.nodes += 1
            if budget.nodes == budget.next_check:
                budget.check()
            if turn == 0:
                hand = h0
                want = True
                nxt = 1
                moves = lean(hand, last, present(h1) | present(h2), 0)
            elif turn == 1:
                hand = h1
                want = False
                nxt = 2
                p2 = present(h2)
                moves = lean(hand, last, present(h0) | p2, p2)
            else:
                hand = h2
                want = False
                nxt = 0
                p1 = present(h1)
                moves = lean(hand, last, present(h0) | p1, p1)
            if moves and moves[0][DELTA] == hand:
                table[key] = want
                return want
            # The farmers win if one of them wins alone, the other passing to the end: the
            # two-hand game of that farmer and the landlord (far smaller, and its table is
            # shared by every position with the same two hands).
            if last is None:
                if turn == 0:
                    alone_wins = not alone(h0, h1, None) or not alone(h0, h2, None)
                else:
                    alone_wins = alone(hand, h0, None)
            elif turn == 0:
                # The landlord answering a farmer's play: not asked (on the slow benchmark
                # positions it decided about one position in 2,000 and cost more than it saved).
                alone_wins = False
            elif by == 0:
                if turn == 1:
                    alone_wins = alone(h1, h0, last) or alone(h2, h0, last)
                else:
                    alone_wins = alone(h2, h0, last) or not alone(h0, h1, None)
            elif turn == 1:  # farmer2's play, the landlord passed: farmer2 leads next
                alone_wins = alone(h2, h0, None)
            else:  # farmer1's play, the landlord to answer it next
                alone_wins = not alone(h0, h1, last)
            if alone_wins:
                table[key] = False
                return False
            if turn == 0 and last is None and control(h0, h1, h2):
                table[key] = True
                return True
            passed = False
            if (
                last is not None
                and turn != 0
                and by != 0
                and (turn == 1 or not beaten(last, tops(h0)))
            ):
                # A farmer facing the partner's play that the landlord has passed on, or
                # cannot beat: let it stand first.
                passed = True
                if lw(h0, h1, h2, nxt, last, by) == want:
                    table[key] = want
                    return want
            if turn == 0:
                top1 = tops(h1)
                top2 = tops(h2)
            for m in moves:
                d = m[DELTA]
                if turn == 0:
                    if beaten(m, top1) or beaten(m, top2):
                        r = lw(h0 - d, h1, h2, 1, m, 0)
                    else:  # no farmer can answer: the landlord leads again
                        r = lw(h0 - d, h1, h2, 0, None, 0)
                elif turn == 1:
                    r = lw(h0, h1 - d, h2, 2, m, 1)
                else:
                    r = lw(h0, h1, h2 - d, 0, m, 2)
                if r == want:
                    table[key] = want
                    return want
            if last is not None and not passed and lw(h0, h1, h2, nxt, last, by) == want:
                table[key] = want
                return want
            table[key] = not want
            return not want

        self.landlord_wins = _paused(lw)

    @property
    def nodes(self) -> int:
        return self.budget.nodes
