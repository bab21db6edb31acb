"""Arena: one bot level against another on seeded deals, the way published Dou Dizhu agents are
evaluated (DouZero and others): no bidding, the landlord seat is fixed and takes the kitty, and
every deal is played twice with the roles swapped.

Run from the repository root::

    .venv/bin/python benchmarks/arena.py --a normal --b easy --deals 1000 --seed 1 --workers 2

Each deal ``i`` shuffles a deck with ``random.Random(f"{seed}:deal:{i}")`` and is played on the
project's own sans-I/O core (``server.game.match.Match`` over ``server.game.deal.Deal``), so
the rules, the legality checks and the score (bombs, rockets, spring, anti-spring) are the
server's. Bidding is replayed rather than skipped: seat 0 bids 1 and the others pass, so seat 0
is the landlord with the kitty and the base is 1. Every bot decides from
``match.view_for(seat, now)``, the very view a person in that seat gets, and every play it
returns goes through ``Match.apply`` (a refused play stops the run).

Deal ``i`` is played once with A as the landlord against two B farmers, and once with B as the
landlord against two A farmers. Reported for A against B:

- win rate and average points per deal as landlord, as farmers, and combined. Points are A's
  side's: the landlord's +-2S, or the two farmers' together +-2S (base 1, so S is the
  multiplier), so landlord and farmer figures are on one scale and sum to zero with B's;
- each with a 95% interval by the normal approximation (mean +- 1.96 standard errors). The
  combined figures take the two games of a deal as one sample (their mean), since the two
  games of one deal are not independent;
- decision time of ``play`` per level, p50 and p95 in milliseconds;
- a bidding check per level: on ``--bid-deals`` other deals the level's bot is the first
  bidder (seat 0); how often it bids, and, playing every one of those deals as the landlord
  against two normal farmers, the landlord's win rate on the hands it bid and on those it
  passed.

``--budget`` (seconds per decision) goes to levels that take one: to the policy's ``budget``
attribute when it has one (the strong bot).
``--out`` also writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.cards import full_deck
from server.bots.base import BotPolicy, policy_for
from server.game.commands import Pass, PlayCards
from server.game.deal import HAND_SIZE, SEATS, Deal
from server.game.match import Match, MatchConfig

LANDLORD = 0
NOW = 0.0


def make_policy(level: str, rng: random.Random, budget: float | None) -> BotPolicy:
    """A level's policy, seeded, with the time budget where the level takes one. A level
    written ``module:Class`` is that class, built with ``rng`` (to try out a variant)."""
    if ":" in level:
        module, name = level.split(":")
        cls = getattr(importlib.import_module(module), name)
        policy: BotPolicy = cls(rng)
        return policy
    policy = policy_for(level, rng=rng)
    if budget is not None and hasattr(policy, "budget"):
        policy.budget = budget
    return policy


def dealt(key: str) -> Deal:
    """A seeded deal at the start of bidding, seat 0 first to bid."""
    deck = full_deck()
    random.Random(key).shuffle(deck)
    hands = [sorted(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(SEATS)]
    return Deal(
        first_bidder=LANDLORD,
        forced_bid=False,
        hands=hands,
        kitty=sorted(deck[SEATS * HAND_SIZE :]),
        turn=LANDLORD,
    )


def with_landlord(deal: Deal) -> Match:
    """Seat 0 bids 1 and the others pass: seat 0 is the landlord, base 1."""
    deal.bid(0, 1, version=1)
    deal.bid(1, 0, version=2)
    deal.bid(2, 0, version=3)
    return Match(config=MatchConfig(deals=1), deal=deal, phase="playing", version=3)


@dataclass
class Game:
    """One played deal: the scores by seat and each level's decision times (seconds)."""

    scores: list[int]
    landlord_won: bool
    times: dict[str, list[float]] = field(default_factory=dict)


def play_out(match: Match, policies: Sequence[BotPolicy], levels: Sequence[str]) -> Game:
    """Play a match's one deal to its end, each seat's bot deciding from its own view."""
    rng = random.Random(0)  # Match.apply wants one; no new deal is ever shuffled here
    times: dict[str, list[float]] = {level: [] for level in levels}
    while match.phase == "playing":
        seat = match.deal.turn
        view = match.view_for(seat, NOW)
        start = time.perf_counter()
        ranks = policies[seat].play(view)
        times[levels[seat]].append(time.perf_counter() - start)
        command = Pass(seat) if ranks is None else PlayCards(seat, tuple(ranks))
        match.apply(command, NOW, rng)
    ended = match.last_deal
    assert ended is not None
    return Game(list(ended.score.scores), ended.winner == "landlord", times)


def run_pair(args: tuple[int, str, str, int, float | None]) -> tuple[int, Game, Game]:
    """Deal ``i`` twice: A as landlord against two B farmers, then B against two A."""
    i, a, b, seed, budget = args
    games = []
    for swap, (lord, farmer) in enumerate(((a, b), (b, a))):
        levels = [lord, farmer, farmer]
        policies = [
            make_policy(level, random.Random(f"{seed}:bot:{i}:{swap}:{s}"), budget)
            for s, level in enumerate(levels)
        ]
        games.append(play_out(with_landlord(dealt(f"{seed}:deal:{i}")), policies, levels))
    return i, games[0], games[1]


def run_bid(args: tuple[int, str, int, float | None]) -> tuple[str, int, Game]:
    """The bidding check on deal ``i``: the level's bid as first bidder, then the deal played
    with it as the landlord against two normal farmers."""
    i, level, seed, budget = args
    deal = dealt(f"{seed}:bid:{i}")
    bidding = Match(config=MatchConfig(deals=1), deal=deal, phase="bidding")
    rng = random.Random(f"{seed}:bidder:{i}")
    bid = make_policy(level, rng, budget).bid(bidding.view_for(LANDLORD, NOW))
    levels = [level, "normal", "normal"]
    policies = [
        make_policy(lv, random.Random(f"{seed}:bidplay:{i}:{s}"), budget)
        for s, lv in enumerate(levels)
    ]
    return level, bid, play_out(with_landlord(deal), policies, levels)


def interval(samples: Sequence[float]) -> dict[str, float]:
    """Mean and its 95% interval by the normal approximation."""
    n = len(samples)
    mean = sum(samples) / n if n else math.nan
    var = sum((x - mean) ** 2 for x in samples) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n) if n else math.nan
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": n}


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--a", default="normal", help="level A")
    parser.add_argument("--b", default="easy", help="level B")
    parser.add_argument("--deals", type=int, default=1000, help="deals, each played twice")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--budget", type=float, default=None, help="seconds per decision")
    parser.add_argument(
        "--bid-deals", type=int, default=None, help="deals for the bidding check (--deals)"
    )
    parser.add_argument("--out", type=Path, default=None, help="also write JSON here")
    opts = parser.parse_args(argv)
    a, b, seed, budget = opts.a, opts.b, opts.seed, opts.budget
    bid_deals = opts.deals if opts.bid_deals is None else opts.bid_deals

    started = time.perf_counter()
    pair_jobs = [(i, a, b, seed, budget) for i in range(opts.deals)]
    bid_jobs = [
        (i, level, seed, budget) for level in dict.fromkeys((a, b)) for i in range(bid_deals)
    ]
    with multiprocessing.Pool(opts.workers) as pool:
        pairs = sorted(pool.imap_unordered(run_pair, pair_jobs, chunksize=8), key=lambda r: r[0])
        bids = list(pool.imap_unordered(run_bid, bid_jobs, chunksize=8))
    elapsed = time.perf_counter() - started

    lord_win = [float(g1.landlord_won) for _, g1, _ in pairs]
    lord_pts = [float(g1.scores[LANDLORD]) for _, g1, _ in pairs]
    farm_win = [float(not g2.landlord_won) for _, _, g2 in pairs]
    farm_pts = [float(-g2.scores[LANDLORD]) for _, _, g2 in pairs]
    result: dict[str, Any] = {
        "a": a,
        "b": b,
        "deals": opts.deals,
        "games": 2 * opts.deals,
        "seed": seed,
        "budget": budget,
        "interval": "95%, normal approximation; combined over deal pairs",
        "points": "A's side per deal: landlord +-2S, or both farmers together +-2S; base 1",
        "landlord": {"win_rate": interval(lord_win), "points": interval(lord_pts)},
        "farmers": {"win_rate": interval(farm_win), "points": interval(farm_pts)},
        "combined": {
            "win_rate": interval([(x + y) / 2 for x, y in zip(lord_win, farm_win, strict=True)]),
            "points": interval([(x + y) / 2 for x, y in zip(lord_pts, farm_pts, strict=True)]),
        },
        "decision_ms": {},
        "bidding": {},
        "seconds": elapsed,
    }
    times: dict[str, list[float]] = {}
    for _, g1, g2 in pairs:
        for game in (g1, g2):
            for level, ts in game.times.items():
                times.setdefault(level, []).extend(ts)
    for level, ts in times.items():
        result["decision_ms"][level] = {
            "p50": 1000 * percentile(ts, 0.5),
            "p95": 1000 * percentile(ts, 0.95),
            "max": 1000 * max(ts),
            "decisions": len(ts),
        }
    for level in dict.fromkeys((a, b)):
        mine = [(bid, game) for lv, bid, game in bids if lv == level]
        bid_on = [g.landlord_won for bid, g in mine if bid > 0]
        passed = [g.landlord_won for bid, g in mine if bid == 0]
        result["bidding"][level] = {
            "deals": len(mine),
            "bid_rate": len(bid_on) / len(mine) if mine else math.nan,
            "bids": {str(v): sum(1 for bid, _ in mine if bid == v) for v in (1, 2, 3)},
            "win_rate_when_bid": interval([float(w) for w in bid_on]) if bid_on else None,
            "win_rate_when_passed": interval([float(w) for w in passed]) if passed else None,
        }
    print(report(result))
    if opts.out is not None:
        opts.out.write_text(json.dumps(result, indent=2))
    return result


def report(r: dict[str, Any]) -> str:
    """The figures as a text table."""

    def ci(x: dict[str, float], digits: int = 3) -> str:
        return f"{x['mean']:+.{digits}f}  [{x['low']:+.{digits}f}, {x['high']:+.{digits}f}]"

    lines = [
        f"{r['a']} (A) vs {r['b']} (B): {r['deals']} deals x 2 (roles swapped), seed {r['seed']},"
        f" {r['seconds']:.0f} s",
        f"95% intervals, normal approximation (combined: over deal pairs). {r['points']}.",
        f"{'A as':<10}{'win rate':<28}{'points per deal':<28}",
    ]
    for role in ("landlord", "farmers", "combined"):
        lines.append(f"{role:<10}{ci(r[role]['win_rate']):<28}{ci(r[role]['points']):<28}")
    lines.append("decision time (play), ms:")
    for level, t in r["decision_ms"].items():
        lines.append(
            f"  {level:<8} p50 {t['p50']:.3f}  p95 {t['p95']:.3f}  max {t['max']:.1f}"
            f"  ({t['decisions']} decisions)"
        )
    lines.append("bidding check (first bidder; then landlord vs two normal farmers):")
    for level, bc in r["bidding"].items():
        won = bc["win_rate_when_bid"]
        lost = bc["win_rate_when_passed"]
        lines.append(
            f"  {level:<8} bids on {bc['bid_rate']:.3f} of {bc['deals']} deals {bc['bids']};"
            f" landlord wins {'-' if won is None else ci(won)} when it bid,"
            f" {'-' if lost is None else ci(lost)} when it passed"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
