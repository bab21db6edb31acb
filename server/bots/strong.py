"""The strong bot: card inference plus determinized Monte Carlo search, and an exact solver
for end games.

Each decision in the play phase:

1. Candidates: the rollout policy's own move (the default), and the legal plays thinned
   where they are nearly alike (one kicker choice per main rank, a few main ranks per kind
   of lead, the smallest bomb and the rocket), plus pass when allowed. A play that empties
   the hand is taken at once.
2. Worlds: hidden hands drawn from ``server.bots.infer`` (hard facts, weighted by the pass
   evidence), one world at a time, every candidate evaluated in the same world so that the
   comparison is paired.
3. Evaluation: when few cards remain in the three hands (``endgame_cards``) the world is
   solved exactly (``server.bots.endgame``) after every candidate; otherwise, or when the
   solver's node limit stops any one of them, the deal is played out after every candidate
   by the rollout policy for all three seats (``server.bots.sim.club``: the normal bot's
   club-player heuristics on rank counts, so the opponents are modelled as sound players).
   One world's candidates are always judged the same way: a mix would prefer the moves
   whose positions the solver cannot finish, judged by the kinder rollouts. A result counts
   +1 or -1 for a win or a loss of this seat's side. (Counting points, doubled for each bomb
   and spring to come, made the results several times as noisy for the same worlds: in an
   arena of 100 deals, seats swapped, at 0.5 s a move against normal, points gave 0.500 of
   the deals and wins alone 0.550.)
4. Budget: worlds are added until the time budget runs out (``budget`` seconds, wall clock,
   or the pool's absolute ``deadline`` if earlier), or a fixed number of ``iterations``
   (``budget=None``), which with a ``seed`` makes decisions reproducible. Candidates that
   fall clearly behind the best on the paired results are dropped on the way.
5. Choice: the best mean, but the default move stands unless the best beats it by a
   standard error of the paired difference: with a few dozen worlds the top mean of
   twenty candidates is partly luck.

Bidding plays the hand out as landlord (greedy rollouts, fast) against sampled hands and
kitties and bids by the share of wins.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from protocol.cards import Rank, card_rank
from protocol.events import TableView
from protocol.legal import legal_plays_from_counts
from protocol.plays import Play
from server.bots.endgame import Solver, SolverLimit
from server.bots.infer import Knowledge, bidding_world, deal_unknown, read_view, sample
from server.bots.sim import (
    BOMB_CODE,
    ROCKET_CODE,
    Policy,
    club,
    counts_of,
    greedy,
    info,
    playout,
)
from server.bots.sim import canonical as canonical_play
from server.bots.view import table_play

#: Share of the time budget the search may use; the rest is for the answer's way back.
BUDGET_SHARE = 0.85
#: Rollout policies by name: NormalBot's heuristics on counts, or the cheaper greedy one.
ROLLOUTS: dict[str, Policy] = {"club": club, "greedy": greedy}
#: How sure (in standard errors) the search must be to play other than the default move.
DEVIATE_Z = 1.0
#: Landlord win shares (as estimated by rollouts) at which the bot bids 1, 2 and 3.
BID_THRESHOLDS = (0.5, 0.58, 0.66)


@dataclass
class SearchStats:
    """What the last search did (for benchmarks and tests)."""

    worlds: int = 0
    candidates: int = 0
    solved: int = 0
    seconds: float = 0.0


class StrongBot:
    """Inference and determinized search (see the module docstring).

    ``budget``: seconds per decision (None: run ``iterations`` worlds, for reproducible
    tests). ``seed``: fixes the random draws (None: fresh entropy per decision).
    ``deadline``: an absolute ``time.monotonic()`` the decision must be ready by; the process
    pool sets it so that queueing counts against the budget.
    """

    def __init__(
        self,
        budget: float | None = 1.0,
        seed: int | None = None,
        iterations: int | None = None,
        endgame_cards: int = 30,
        node_limit: int = 3000,
        max_candidates: int = 20,
        bid_rollouts: int = 400,
        rollout: str = "club",
    ) -> None:
        if budget is None and iterations is None:
            iterations = 200
        self.budget = budget
        self.seed = seed
        self.iterations = iterations
        self.endgame_cards = endgame_cards
        self.node_limit = node_limit
        self.max_candidates = max_candidates
        self.bid_rollouts = bid_rollouts
        self.policy: Policy = ROLLOUTS[rollout]
        self.deadline: float | None = None
        self.stats = SearchStats()

    # --- time and seeds -----------------------------------------------------------------

    def _stop_time(self, start: float) -> float:
        """The monotonic time by which the search must stop (inf when counting worlds)."""
        stop = math.inf if self.budget is None else start + self.budget * BUDGET_SHARE
        if self.deadline is not None:
            stop = min(stop, self.deadline)
        return stop

    def _rng(self, view: TableView) -> random.Random:
        """A random source for one decision: fixed by the seed, the seat, its hand and the
        public progress of the deal (a string seed hashes the same in every run), fresh
        entropy without a seed."""
        if self.seed is None:
            return random.Random()
        hand = sorted(view.hand or ())
        progress = (len(view.bids), len(view.plays), len(view.passes))
        return random.Random(f"{self.seed}:{view.viewer_seat}:{hand}:{progress}")

    # --- bidding ------------------------------------------------------------------------

    def bid(self, view: TableView) -> int:
        """Bid by the landlord win share of rollouts over sampled hands and kitties."""
        highest = max([0] + [b for _, b in view.bids])
        may_pass = view.turn is None or view.turn.may_pass
        share = self.landlord_share(view)
        wanted = sum(1 for t in BID_THRESHOLDS if share >= t)
        if wanted > highest:
            return wanted
        return 0 if may_pass else highest + 1

    def landlord_share(self, view: TableView) -> float:
        """The share of rollouts the hand wins as landlord with a sampled kitty."""
        start = time.monotonic()
        stop = start + (self._stop_time(start) - start) * 0.5
        rng = self._rng(view)
        mine = counts_of([card_rank(c) - 3 for c in view.hand or ()])
        wins = n = 0
        while n < self.bid_rollouts and (n < 20 or time.monotonic() < stop):
            left, right, kitty = bidding_world(mine, rng)
            hands = [[a + b for a, b in zip(mine, kitty, strict=True)], left, right]
            won, _ = playout(hands, 0, 0, None, 0, [0, 0, 0])
            wins += won
            n += 1
        return wins / n

    # --- playing ------------------------------------------------------------------------

    def play(self, view: TableView) -> tuple[Rank, ...] | None:
        """The play with the best average result over sampled worlds (None: pass)."""
        start = time.monotonic()
        self.stats = SearchStats()
        k = read_view(view)
        seat = k.me
        to_beat = table_play(view)
        if to_beat is not None:
            to_beat = canonical_play(to_beat)
        legal = legal_plays_from_counts(k.mine, to_beat)
        if not legal:
            return None
        size = sum(k.mine)
        for m in legal:
            if len(m.cards) == size:
                return m.cards
        last_seat = seat if view.last_play is None else view.last_play.seat
        may_pass = to_beat is not None
        sizes = list(view.card_counts)
        cands = self._candidates(k, legal, to_beat, last_seat, sizes)
        options: list[Play | None] = [*cands, None] if may_pass else list(cands)
        self.stats.candidates = len(options)
        if len(options) == 1:
            return None if options[0] is None else options[0].cards
        made = [0, 0, 0]
        for p in view.plays:
            made[p.seat] += 1
        default = self._default(k, to_beat, last_seat, sizes)
        fallback = options.index(default) if default in options else 0
        best = self._search(view, k, options, to_beat, last_seat, made, start, fallback)
        self.stats.seconds = time.monotonic() - start
        return None if best is None else best.cards

    def _default(
        self, k: Knowledge, to_beat: Play | None, last_seat: int, sizes: list[int]
    ) -> Play | None:
        """The rollout policy's own move here (None: pass). It sees the other two hands only
        as their sum (the unseen cards) and their sizes, so any world gives the same."""
        world = deal_unknown(k, random.Random(0))
        return self.policy(world, sizes, k.me, k.landlord, to_beat, last_seat)

    def _candidates(
        self,
        k: Knowledge,
        legal: list[Play],
        to_beat: Play | None,
        last_seat: int,
        sizes: list[int],
    ) -> list[Play]:
        """The plays worth searching: the rollout policy's own choice first, then for each
        kind and size the best kicker choice per main rank, a few main ranks of each kind
        when leading, the smallest bomb and the rocket."""
        hand = k.mine
        per_main: dict[tuple[int, int, int], tuple[float, Play]] = {}
        bombs: list[Play] = []
        for m in legal:
            mi = info(m)
            if mi.bomb:
                bombs.append(m)
                continue
            cost = 0.0
            for i, c in mi.kickers:
                held = hand[i]
                cost += 1 + i / 16 + (4 if held == 4 else 1 if c < held else 0)
            key = (mi.kind, mi.size, mi.main)
            old = per_main.get(key)
            if old is None or cost < old[0]:
                per_main[key] = (cost, m)
        by_kind: dict[tuple[int, int], list[Play]] = {}
        for (kind, n, _), (_, m) in sorted(per_main.items()):
            by_kind.setdefault((kind, n), []).append(m)
        chosen: list[Play] = []
        first = self._default(k, to_beat, last_seat, sizes)
        if first is not None:
            chosen.append(first)
        for plays in by_kind.values():
            picks = plays if to_beat is not None else [*plays[:2], plays[-1]]
            for m in picks:
                if m not in chosen:
                    chosen.append(m)
        plain = [b for b in bombs if info(b).kind == BOMB_CODE]
        rocket = [b for b in bombs if info(b).kind == ROCKET_CODE]
        for b in plain[:1] + rocket:
            if b not in chosen:
                chosen.append(b)
        if len(chosen) > self.max_candidates:
            head, rest = chosen[:1], chosen[1:]
            rest.sort(key=lambda p: (info(p).main, -info(p).size))
            chosen = head + rest[: self.max_candidates - 1]
        return chosen

    def _search(
        self,
        view: TableView,
        k: Knowledge,
        options: list[Play | None],
        to_beat: Play | None,
        last_seat: int,
        made: list[int],
        start: float,
        default: int,
    ) -> Play | None:
        """Paired Monte Carlo over sampled worlds; returns the option with the best mean
        (or ``options[default]`` when the search is not sure it is better)."""
        stop = self._stop_time(start)
        rng = self._rng(view)
        me, landlord = k.me, k.landlord
        mine_landlord = me == landlord
        alive = list(range(len(options)))
        results: list[list[float]] = [[] for _ in options]
        worlds = 0
        failed = 0
        while True:
            if self.iterations is not None and worlds >= self.iterations:
                break
            if worlds > 0 and time.monotonic() >= stop:
                break
            world = sample(k, rng)
            starts = [self._after(world, options[j], to_beat, last_seat, made, me) for j in alive]
            values: list[float] | None = None
            within = all(left <= self.endgame_cards for *_, left in starts)
            if within and failed <= self.stats.solved // 4 + 2:
                values = self._solved(starts, landlord, me, stop)
                if values is None:
                    failed += 1
                else:
                    self.stats.solved += len(values)
            if values is None:
                values = []
                for hands, last, ls, turn_made, _ in starts:
                    if time.monotonic() >= stop:
                        break
                    won, _ = playout(
                        hands, landlord, (me + 1) % 3, last, ls, turn_made, self.policy
                    )
                    values.append(1.0 if won == mine_landlord else -1.0)
            if len(values) < len(alive):
                if worlds == 0:
                    return options[default]  # out of time before one world was done
                break
            for j, value in zip(alive, values, strict=True):
                results[j].append(value)
            worlds += 1
            if worlds >= 16 and worlds % 8 == 0:
                alive = _prune(alive, results, worlds)
                if len(alive) == 1:
                    break
        self.stats.worlds = worlds
        return options[_choose(alive, results, worlds, default)]

    @staticmethod
    def _after(
        world: list[list[int]],
        option: Play | None,
        to_beat: Play | None,
        last_seat: int,
        made: list[int],
        me: int,
    ) -> tuple[list[list[int]], Play | None, int, list[int], int]:
        """The world once this seat has made ``option`` (None: passed): the hands, the play
        to beat and its seat, the plays each seat has made, and the cards left in all."""
        hands = [list(h) for h in world]
        turn_made = list(made)
        left = sum(sum(h) for h in world)
        if option is None:
            return hands, to_beat, last_seat, turn_made, left
        mi = info(option)
        for i, c in mi.takes:
            hands[me][i] -= c
        turn_made[me] += 1
        return hands, option, me, turn_made, left - mi.size

    def _solved(
        self,
        starts: list[tuple[list[list[int]], Play | None, int, list[int], int]],
        landlord: int,
        me: int,
        stop: float,
    ) -> list[float] | None:
        """Each candidate's exact value in one world (+1 a win for this seat's side, -1 a
        loss), or None when the solver's node limit (or the time) stops any one of them."""
        solver = Solver(landlord, self.node_limit)
        values: list[float] = []
        for hands, last, ls, _, _ in starts:
            if time.monotonic() >= stop:
                return None
            frozen = (tuple(hands[0]), tuple(hands[1]), tuple(hands[2]))
            try:
                won = solver.landlord_wins(frozen, (me + 1) % 3, last, ls)
            except SolverLimit:
                return None
            values.append(1.0 if won == (me == landlord) else -1.0)
        return values


def _choose(alive: list[int], results: list[list[float]], worlds: int, default: int) -> int:
    """The option with the best mean, unless the default (the rollout policy's own move)
    is still in and the best beats it by less than ``DEVIATE_Z`` standard errors of their
    paired difference: with few worlds the top mean of many options is mostly luck, and
    the default is a sound move."""
    best = max(alive, key=lambda j: (sum(results[j][:worlds]) / max(1, worlds), -j))
    if best == default or default not in alive or worlds < 2:
        return best
    diffs = [a - b for a, b in zip(results[best], results[default], strict=True)]
    mean = sum(diffs) / worlds
    var = sum((d - mean) ** 2 for d in diffs) / (worlds - 1)
    return best if mean > DEVIATE_Z * math.sqrt(var / worlds) else default


def _prune(alive: list[int], results: list[list[float]], worlds: int) -> list[int]:
    """Drop the options whose paired difference to the current best is more than three
    standard errors below zero."""
    means = {j: sum(results[j]) / worlds for j in alive}
    top = max(alive, key=lambda j: (means[j], -j))
    kept = []
    for j in alive:
        if j == top:
            kept.append(j)
            continue
        diffs = [a - b for a, b in zip(results[top], results[j], strict=True)]
        mean = sum(diffs) / worlds
        var = sum((d - mean) ** 2 for d in diffs) / (worlds - 1)
        if mean <= 3.0 * math.sqrt(var / worlds) + 1e-9:
            kept.append(j)
    return kept
