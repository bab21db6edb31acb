"""Puzzles mined from the bots' self-play, and the time the server takes to answer a puzzle
move (issue 33).

Plays ``--matches`` matches of ``--deals`` deals by ``--level`` bots from seeds, mines each
as the server does (``server.analysis.mining.mine_match``, ``--seconds`` of solver per deal),
and prints the puzzles found per 1,000 deals (extrapolated from the deals played) and the
CPU it took. Then plays every puzzle found (and the test suite's puzzle) as a player would:
the winning line move by move, and a losing first move, timing each ``answer`` (the defence
that lasts longest, or the winning line after a losing move), and prints p50/p95/max.

    nice -n 10 .venv/bin/python benchmarks/puzzles.py --matches 10 --level easy
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.analysis.mining import mine_match, self_play
from server.analysis.puzzle_play import answer, winning_line
from server.analysis.puzzles import position_of_key
from server.analysis.review import Position, Side

#: The test suite's puzzle (tests/server/analysis/test_puzzles.py), always among those timed.
KNOWN = ("5 9 10 Q|33 6 7 10 K|5 6|0|lead", "landlord")


def timed_answers(key: str, side: Side) -> list[float]:
    """Seconds of each answer: the puzzle solved along its winning line, then failed."""
    times: list[float] = []
    start = position_of_key(key)
    position: Position | None = start
    while position is not None:
        _, cards = winning_line(position, side)[0]
        move = next(
            m
            for m in position.options()
            if (m is None and cards is None) or (m is not None and m.cards == cards)
        )
        began = time.perf_counter()
        position = answer(position, side, move).position
        times.append(time.perf_counter() - began)
    _, best = winning_line(start, side)[0]
    wrong = [m for m in start.options() if (m is None) != (best is None) or (m and m.cards != best)]
    if wrong:
        began = time.perf_counter()
        answer(start, side, wrong[0])
        times.append(time.perf_counter() - began)
    return times


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="easy")
    parser.add_argument("--seconds", type=float, default=2.0, help="solver budget per deal")
    args = parser.parse_args(argv)
    found: dict[str, str] = {}
    deals = 0
    cpu = 0.0
    for m in range(args.matches):
        records = self_play(args.deals, args.seed * 1000 + m, args.level)
        began = time.process_time()
        mined = mine_match(records, args.seconds)
        cpu += time.process_time() - began
        deals += mined["deals"]
        for p in mined["puzzles"]:
            found.setdefault(p["key"], p["side"])
        print(f"match {m}: {mined['deals']} deals, {len(mined['puzzles'])} puzzles", flush=True)
    per = 1000 * len(found) / deals if deals else 0.0
    print(
        f"\n{deals} deals of {args.level} bots mined at {args.seconds} s a deal: {len(found)}"
        f" puzzles (distinct), {per:.0f} per 1,000 deals extrapolated;"
        f" {cpu:.1f} s cpu ({cpu / max(deals, 1):.2f} s a deal)"
    )
    times: list[float] = []
    for key, side in [KNOWN, *found.items()]:
        times += timed_answers(key, "landlord" if side == "landlord" else "farmers")
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    print(
        f"{len(times)} answers to puzzle moves over {len(found) + 1} puzzles: p50"
        f" {1000 * statistics.median(times):.1f} ms, p95 {1000 * p95:.1f} ms,"
        f" max {1000 * times[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
