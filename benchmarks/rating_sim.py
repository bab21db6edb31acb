"""Rating simulation: headless players of three strengths play quick matches formed by the
server's own matcher, and are rated by the server's own rating code.

Run from the repository root::

    .venv/bin/python benchmarks/rating_sim.py --easy 120 --normal 120 --strong 60 \
        --matches 16 --workers 2 --seed 1

Each player plays as one bot level plays (``easy``, ``normal``, ``strong``: ``server/bots``)
on the project's sans-I/O core (``server.game.match.Match``: bidding, void deals, 3-deal
matches, the score), in-process, no sockets. The queue runs on a simulated clock: an idle
player joins after a break (exponential, mean ``--break`` seconds), the matcher looks every
0.25 s (``server.lobby.matching.form_tables``, with the server's 15 s wait: bots of the
``normal`` level fill what the queue cannot), and a match keeps its players busy
``--match-seconds``. Each match is rated from its players' ratings at its start
(``server.players.rating.rating_updates``) and applied at its end, as the server does.

The strong bot is slow (up to a second a move in play). Here it searches with a reduced
budget (``--strong-budget`` s a move, fewer bidding rollouts, a smaller end-game solver), so
it is weaker than the server's strong bot, and there are fewer strong players. Matches are
played in a pool of ``--workers`` processes.

Reported:

- the mean display rating (mu - 3 sigma) and mu of each strength, and the share of pairs of
  players of different strengths that the display rating orders right;
- the spread of skill (highest mu less lowest, by the ratings at the match start) of the
  tables the queue formed in the second half of the run, against random tables of three
  drawn from all players at the same moments; and the share of tables of one strength;
- how often bots filled a seat, and the time spent waiting;
- the rating as players read it (1500-based points, provisional, tiers): each strength's
  mean points and tiers, and the ladder's top ten.
"""

from __future__ import annotations

import argparse
import heapq
import json
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.messages import BotLevel
from server.bots.base import BotPolicy, policy_for
from server.bots.strong import StrongBot
from server.game.commands import Bid, Pass, PlayCards, Ready
from server.game.match import Match, MatchConfig
from server.lobby.matching import Waiter, form_tables, spread
from server.players.rating import (
    NEW,
    TIERS,
    RatedMatch,
    RatedSeat,
    Rating,
    outcomes,
    points,
    provisional,
    rating_updates,
    tier,
)

LEVELS: tuple[BotLevel, ...] = ("easy", "normal", "strong")
#: Lines of the ladder the report shows, in the shown scale.
TOP_SHOWN = 10
WAIT = 15.0
TICK = 0.25
NOW = 0.0


#: The simulation's strong bot: the server's search with fewer bidding rollouts and a
#: smaller end-game solver (the budget per move is ``--strong-budget``).
BID_ROLLOUTS = 60
ENDGAME_CARDS = 20


class ReducedStrong(StrongBot):
    """The simulation's strong player at 0.01 s a move, for ``benchmarks/arena.py --a
    benchmarks.rating_sim:ReducedStrong``."""

    def __init__(self, rng: random.Random) -> None:
        seed = rng.randrange(2**31)
        super().__init__(0.01, seed, bid_rollouts=BID_ROLLOUTS, endgame_cards=ENDGAME_CARDS)


def policy(level: BotLevel, rng: random.Random, strong_budget: float) -> BotPolicy:
    if level == "strong":
        seed = rng.randrange(2**31)
        return StrongBot(
            strong_budget, seed, bid_rollouts=BID_ROLLOUTS, endgame_cards=ENDGAME_CARDS
        )
    return policy_for(level, random.Random(rng.random()))


def play_match(job: tuple[int, list[BotLevel], int, float]) -> tuple[int, list[list[int]]]:
    """One 3-deal match of these levels, played out; its deals' scores."""
    index, levels, seed, strong_budget = job
    rng = random.Random(f"{seed}:match:{index}")
    policies = [policy(level, rng, strong_budget) for level in levels]
    match, _ = Match.start(MatchConfig(deals=3), rng, NOW)
    while match.phase != "over":
        if match.phase == "between_deals":
            for ready in range(3):
                if not match.ready[ready]:
                    match.apply(Ready(ready), NOW, rng)
            continue
        turn = match.turn
        assert turn is not None
        seat = turn
        view = match.view_for(seat, NOW)
        if match.phase == "bidding":
            value = policies[seat].bid(view)
            match.apply(Bid(seat, value) if value else Pass(seat), NOW, rng)
        else:
            ranks = policies[seat].play(view)
            command = Pass(seat) if ranks is None else PlayCards(seat, tuple(ranks))
            match.apply(command, NOW, rng)
    return index, [list(s) for s in match.deal_scores]


@dataclass
class Player:
    pid: str
    level: BotLevel
    rating: Rating = NEW
    matches: int = 0


@dataclass
class Measures:
    """What the run notes as it goes: waits, and the tables of its second half."""

    waits: list[float] = field(default_factory=list)
    queue_spreads: list[float] = field(default_factory=list)
    random_spreads: list[float] = field(default_factory=list)
    queue_same: list[bool] = field(default_factory=list)
    random_same: list[bool] = field(default_factory=list)
    bot_seats: int = 0


@dataclass
class Report:
    """What a run measured (see the module docstring)."""

    players: dict[str, int]
    matches: int
    seconds: float
    mean_display: dict[str, float]
    mean_mu: dict[str, float]
    pairs_ordered: float
    pairs_ordered_by_levels: dict[str, float]
    mean_mu_all: float
    queue_spread: float
    random_spread: float
    queue_one_strength: float
    random_one_strength: float
    bot_seats: int
    mean_wait: float
    max_wait: float
    tables_measured: int
    per_level: dict[str, dict[str, float]] = field(default_factory=dict)
    #: The shown rating (``server/players/rating.py`` ``points``): per strength, how many
    #: players stand in each tier, and the ladder's top as it would show (rank, strength,
    #: points, "?" while provisional, tier, ranked by points as the server ranks).
    tiers: dict[str, dict[str, int]] = field(default_factory=dict)
    top: list[str] = field(default_factory=list)


def simulate(
    counts: dict[BotLevel, int],
    matches_each: int,
    seed: int = 1,
    workers: int = 1,
    strong_budget: float = 0.01,
    match_seconds: float = 240.0,
    rest: float = 60.0,
    order: Sequence[BotLevel] = LEVELS,
) -> Report:
    """Run the simulation until the players have played ``matches_each`` matches on average."""
    started = time.perf_counter()
    rng = random.Random(seed)
    players = [
        Player(f"{level[0]}{i}", level) for level in LEVELS for i in range(counts.get(level, 0))
    ]
    by_id = {p.pid: p for p in players}
    target = matches_each * len(players) // 3
    joins: list[tuple[float, str]] = [(rng.expovariate(1 / rest), p.pid) for p in players]
    heapq.heapify(joins)
    queue: dict[str, float] = {}
    ends: list[tuple[float, int]] = []  # (end time, match index)
    starts: dict[int, RatedMatch] = {}
    results: dict[int, Any] = {}
    seen = Measures()
    formed = 0
    now = 0.0
    pool = multiprocessing.Pool(workers) if workers > 1 else None
    try:
        while formed < target or ends:
            now += TICK
            while joins and joins[0][0] <= now and formed < target:
                _, pid = heapq.heappop(joins)
                queue[pid] = now
            waiting = [Waiter(pid, t, by_id[pid].rating.mu) for pid, t in queue.items()]
            for table in form_tables(waiting, now, WAIT) if formed < target else []:
                seats: list[RatedSeat] = []
                levels: list[BotLevel] = []
                for w in table:
                    del queue[w.player_id]
                    seen.waits.append(now - w.joined)
                    seats.append(RatedSeat(w.player_id, by_id[w.player_id].rating))
                    levels.append(by_id[w.player_id].level)
                while len(seats) < 3:
                    seats.append(RatedSeat.bot("normal"))
                    levels.append("normal")
                    seen.bot_seats += 1
                a, b, c = seats
                starts[formed] = RatedMatch(f"M{formed}", (a, b, c), ())
                if formed >= target // 2 and len(table) == 3:
                    seen.queue_spreads.append(spread([w.mu for w in table]))
                    seen.queue_same.append(len({by_id[w.player_id].level for w in table}) == 1)
                    drawn = rng.sample(players, 3)
                    seen.random_spreads.append(spread([p.rating.mu for p in drawn]))
                    seen.random_same.append(len({p.level for p in drawn}) == 1)
                job = (formed, levels, seed, strong_budget)
                results[formed] = pool.apply_async(play_match, (job,)) if pool else play_match(job)
                heapq.heappush(ends, (now + match_seconds, formed))
                formed += 1
            while ends and ends[0][0] <= now:
                _, index = heapq.heappop(ends)
                found = results.pop(index)
                _, scores = found.get() if pool else found
                start = starts.pop(index)
                rated = RatedMatch(start.code, start.seats, outcomes(scores))
                for pid, change in rating_updates(rated).items():
                    player = by_id[pid]
                    player.rating = Rating(
                        player.rating.mu + change.after.mu - change.before.mu,
                        player.rating.sigma * change.after.sigma / change.before.sigma,
                    )
                    player.matches += 1
                for seat in start.seats:
                    if seat.player_id is not None:
                        heapq.heappush(joins, (now + rng.expovariate(1 / rest), seat.player_id))
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return report(players, counts, formed, time.perf_counter() - started, seen, order)


def report(
    players: Sequence[Player],
    counts: dict[BotLevel, int],
    formed: int,
    seconds: float,
    seen: Measures,
    order: Sequence[BotLevel] = LEVELS,
) -> Report:
    """The figures of a run; ``order``: the strengths from the weakest, as measured
    (``benchmarks/arena.py``), by which a pair of players is ordered right or not."""
    present = [level for level in LEVELS if counts.get(level, 0) > 0]
    mean_display = {
        lv: statistics.fmean(p.rating.display for p in players if p.level == lv) for lv in present
    }
    mean_mu = {
        lv: statistics.fmean(p.rating.mu for p in players if p.level == lv) for lv in present
    }
    right = total = 0
    by_levels: dict[str, list[int]] = {}
    for i, p in enumerate(players):
        for q in players[i + 1 :]:
            if p.level == q.level:
                continue
            total += 1
            stronger, weaker = (p, q) if order.index(p.level) > order.index(q.level) else (q, p)
            ordered = stronger.rating.display > weaker.rating.display
            right += ordered
            tally = by_levels.setdefault(f"{weaker.level}<{stronger.level}", [0, 0])
            tally[0] += ordered
            tally[1] += 1
    waits = seen.waits
    return Report(
        players={lv: counts.get(lv, 0) for lv in present},
        matches=formed,
        seconds=round(seconds, 1),
        mean_display={k: round(v, 2) for k, v in mean_display.items()},
        mean_mu={k: round(v, 2) for k, v in mean_mu.items()},
        pairs_ordered=round(right / total, 3) if total else float("nan"),
        pairs_ordered_by_levels={k: round(r / n, 3) for k, (r, n) in by_levels.items()},
        mean_mu_all=round(statistics.fmean(p.rating.mu for p in players), 2),
        queue_spread=round(statistics.fmean(seen.queue_spreads or [0.0]), 2),
        random_spread=round(statistics.fmean(seen.random_spreads or [0.0]), 2),
        queue_one_strength=round(statistics.fmean(seen.queue_same or [0.0]), 3),
        random_one_strength=round(statistics.fmean(seen.random_same or [0.0]), 3),
        bot_seats=seen.bot_seats,
        mean_wait=round(statistics.fmean(waits or [0.0]), 2),
        max_wait=round(max(waits or [0.0]), 2),
        tables_measured=len(seen.queue_spreads),
        per_level={
            lv: {
                "sigma": round(
                    statistics.fmean(p.rating.sigma for p in players if p.level == lv), 2
                ),
                "matches": round(statistics.fmean(p.matches for p in players if p.level == lv), 1),
                "points": round(
                    statistics.fmean(points(p.rating) for p in players if p.level == lv)
                ),
                "provisional": round(
                    statistics.fmean(provisional(p.rating) for p in players if p.level == lv), 3
                ),
            }
            for lv in present
        },
        tiers={
            lv: {
                name: sum(1 for p in players if p.level == lv and tier(points(p.rating)) == name)
                for name, _ in TIERS
            }
            for lv in present
        },
        top=[
            f"{i + 1} {p.level} {points(p.rating)}{'?' if provisional(p.rating) else ''} "
            f"{tier(points(p.rating))}"
            for i, p in enumerate(sorted(players, key=lambda p: -p.rating.mu)[:TOP_SHOWN])
        ],
    )


def main(argv: Sequence[str] | None = None) -> Report:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--easy", type=int, default=120)
    parser.add_argument("--normal", type=int, default=120)
    parser.add_argument("--strong", type=int, default=60)
    parser.add_argument("--matches", type=int, default=16, help="matches a player, on average")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strong-budget", type=float, default=0.01, help="seconds a move")
    parser.add_argument("--match-seconds", type=float, default=240.0)
    parser.add_argument("--break", dest="rest", type=float, default=60.0)
    parser.add_argument(
        "--order",
        default="easy,normal,strong",
        help="the strengths from the weakest, as benchmarks/arena.py measured them",
    )
    parser.add_argument("--out", type=Path, default=None, help="also write JSON here")
    opts = parser.parse_args(argv)
    counts: dict[BotLevel, int] = {"easy": opts.easy, "normal": opts.normal, "strong": opts.strong}
    found = simulate(
        counts,
        opts.matches,
        seed=opts.seed,
        workers=opts.workers,
        strong_budget=opts.strong_budget,
        match_seconds=opts.match_seconds,
        rest=opts.rest,
        order=cast(list[BotLevel], opts.order.split(",")),
    )
    text = json.dumps(vars(found), indent=2)
    print(text)
    if opts.out is not None:
        opts.out.write_text(text + "\n")
    return found


if __name__ == "__main__":
    main()
