"""Quick-match tables between equals: which waiting players sit down together now.

Pure: it takes the queue as read (who waits, since when, at what skill ``mu``) and the
time, and gives the tables to take. The longest waiting comes first (first come, first
seated): they sit with the two others closest to them in skill when the three lie within
their window, a span of skill that widens the longer they wait (``window``). Once they
have waited the server's wait (``--quick-match-wait``, 15 s) their window has no bound:
they sit with the two closest of whoever waits, or with bots in the seats nobody fills.
Someone who cannot sit yet is passed over, and the next longest waiting looks for a table
among the rest. Nobody therefore waits much past the wait: the matcher looks a few times
a second.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The window's span of skill (in mu) for someone who just joined: openskill's beta, the
#: skill gap at which the better player wins about 76% of head-to-head games.
BASE_WINDOW = 25.0 / 6.0
#: How much the window widens each second waited: after 10 s about 14 mu, most of the span
#: between the bot levels' easy and strong ratings and then some.
WIDENING = 1.0


@dataclass(frozen=True, slots=True)
class Waiter:
    """One waiting player: their id, when they joined (server time), their skill ``mu``."""

    player_id: str
    joined: float
    mu: float


def window(waited: float, wait: float) -> float:
    """The span of skill a table may have for someone who waited ``waited`` seconds: it
    only widens, and has no bound from the server's ``wait`` on (then bots fill)."""
    if waited >= wait:
        return math.inf
    return BASE_WINDOW + WIDENING * max(0.0, waited)


def form_tables(waiting: Sequence[Waiter], now: float, wait: float) -> list[list[Waiter]]:
    """The tables to seat now, each longest waiting first: three within the window of its
    longest waiting, or, for one who waited ``wait``, them and up to two others."""
    pool = sorted(waiting, key=lambda w: (w.joined, w.player_id))
    tables: list[list[Waiter]] = []
    while pool:
        first, rest = pool[0], pool[1:]
        span = window(now - first.joined, wait)
        table = _closest(first, rest, span)
        if table is None:  # passed over: the next longest waiting looks among the rest
            pool = rest
            continue
        tables.append(table)
        taken = {w.player_id for w in table}
        pool = [w for w in rest if w.player_id not in taken]
    return tables


def _closest(first: Waiter, others: Sequence[Waiter], span: float) -> list[Waiter] | None:
    """``first`` and the two others making the narrowest table within ``span`` (the
    earlier joined among equals), in joining order; with no bound, ``first`` and whoever
    of the others there are (fewer than two: bots fill). None when no table fits."""
    if not others:
        return [first] if math.isinf(span) else None
    by_skill = sorted(others, key=lambda w: (w.mu, w.joined, w.player_id))
    if len(by_skill) == 1:
        only = by_skill[0]
        return [first, only] if math.isinf(span) else None
    below = [w for w in by_skill if w.mu < first.mu]
    above = by_skill[len(below) :]
    # the narrowest table holding ``first`` takes its neighbours in skill order
    candidates: list[tuple[Waiter, Waiter]] = []
    if len(below) >= 2:
        candidates.append((below[-2], below[-1]))
    if below and above:
        candidates.append((below[-1], above[0]))
    if len(above) >= 2:
        candidates.append((above[0], above[1]))

    def width(pair: tuple[Waiter, Waiter]) -> tuple[float, float]:
        mus = (first.mu, pair[0].mu, pair[1].mu)
        return (max(mus) - min(mus), max(pair[0].joined, pair[1].joined))

    best = min(candidates, key=width)
    if width(best)[0] > span:
        return None
    return sorted([first, *best], key=lambda w: (w.joined, w.player_id))


def spread(table: Sequence[float]) -> float:
    """A table's span of skill: its highest rating less its lowest."""
    return max(table) - min(table) if table else 0.0
