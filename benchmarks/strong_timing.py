"""Decision time of the strong bot at a given budget, on positions sampled from real deals.

Positions come from seeded deals played by normal bots (every play-phase turn, and the first
bid of each deal); the strong bot decides each from that seat's view. ``--pool`` sends the
decisions through the process pool (``server.bots.pool.BotPool.choose``), one at a time, so the
times include the pool's overhead. Prints p50, p95 and max in milliseconds, and the
average number of sampled worlds per searched decision.

    .venv/bin/python benchmarks/strong_timing.py --budget 1.0 --positions 100
    .venv/bin/python benchmarks/strong_timing.py --budget 1.0 --positions 100 --pool
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.events import TableView
from server.bots import pool
from server.bots.base import decide
from server.bots.normal import NormalBot
from server.bots.strong import StrongBot
from server.game.commands import Bid, Pass, PlayCards
from server.game.match import Match, MatchConfig


def positions(count: int, seed: int) -> list[TableView]:
    """Views of seats on turn, from deals played by normal bots, spread over whole deals."""
    rng = random.Random(seed)
    views: list[TableView] = []
    normal = NormalBot()
    while len(views) < count:
        match, _ = Match.start(MatchConfig(deals=1), rng, 0.0)
        while match.phase in ("bidding", "playing"):
            seat = match.deal.turn
            view = match.view_for(seat, 0.0)
            if match.phase == "playing" or not match.deal.bids:
                views.append(view)
            if match.phase == "bidding":
                value = normal.bid(view)
                match.apply(Pass(seat) if value == 0 else Bid(seat, value), 0.0, rng)
            else:
                ranks = normal.play(view)
                command = Pass(seat) if ranks is None else PlayCards(seat, tuple(ranks))
                match.apply(command, 0.0, rng)
    rng.shuffle(views)
    return views[:count]


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def through_pool(views: list[TableView], budget: float) -> list[float]:
    bots = pool.BotPool()
    await bots.warm_up()
    factory = functools.partial(StrongBot, budget=budget)
    times = []
    for view in views:
        start = time.monotonic()
        await bots.choose("strong", view, factory=factory, budget=budget)
        times.append(time.monotonic() - start)
    bots.shutdown()
    return times


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="strong bot decision time")
    parser.add_argument("--budget", type=float, default=1.0)
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pool", action="store_true", help="decide through the process pool")
    opts = parser.parse_args(argv)
    views = positions(opts.positions, opts.seed)
    worlds: list[int] = []
    if opts.pool:
        times = asyncio.run(through_pool(views, opts.budget))
    else:
        bot = StrongBot(budget=opts.budget)
        times = []
        for view in views:
            start = time.monotonic()
            decide(bot, view)
            times.append(time.monotonic() - start)
            if view.phase == "playing" and bot.stats.worlds:
                worlds.append(bot.stats.worlds)
    where = "through the pool" if opts.pool else "inline"
    print(
        f"strong, budget {opts.budget} s, {len(times)} positions, {where}: "
        f"p50 {1000 * percentile(times, 0.5):.0f} ms, p95 {1000 * percentile(times, 0.95):.0f} ms,"
        f" max {1000 * max(times):.0f} ms"
    )
    if worlds:
        print(f"worlds per searched decision: mean {sum(worlds) / len(worlds):.0f}")


if __name__ == "__main__":
    main()
