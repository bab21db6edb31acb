"""Time and reach of the review of a finished deal (``server.analysis.review``, issue 33) on
self-play deals of the bots.

Each match is played by bots from a seed through the sans-I/O ``Match``, its journal
recorded as a room records it (the start, every command, every draw), then reviewed from
that journal under one ``Budget`` per deal. Prints, per deal and in all: the seconds the
review took (p50 and p95 in all, CPU seconds of this process), of them the strong bot's
estimates before the solver's reach, the decisions of the deal and how many from the end
were solved exactly (*reach*), the cards left in the three hands at the earliest solved
decision, the turning points found, and the puzzles mined from them
(``server.analysis.puzzles``). ``--calibrate`` also estimates the solved positions of 28
cards or more and compares the estimates with the solver's answers there.

    nice -n 10 .venv/bin/python benchmarks/review.py --matches 4 --seconds 8
    nice -n 10 .venv/bin/python benchmarks/review.py --level strong --matches 2
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.analysis.estimate import landlord_chance
from server.analysis.mining import journaled_match as self_play
from server.analysis.puzzles import mine
from server.analysis.review import Budget, played_deals, review_deal
from server.bots.base import BotPolicy, policy_for


def _policy(level: str, seed: int) -> BotPolicy:
    if level == "strong":
        from server.bots.strong import StrongBot

        return StrongBot(budget=None, iterations=6, seed=seed, bid_rollouts=20)
    return policy_for(level, random.Random(seed))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="normal")
    parser.add_argument("--seconds", type=float, default=8.0, help="budget per deal")
    parser.add_argument("--calibrate", action="store_true", help="estimates against the solver")
    args = parser.parse_args(argv)
    times: list[float] = []
    estimating: list[float] = []
    estimated: list[int] = []
    #: (estimate, 1 the landlord wins with best play, 0 the farmers) at solved positions
    compared: list[tuple[float, int]] = []
    reaches: list[int] = []
    cards_at: list[int] = []
    whole = turning = total = puzzles = 0
    mining = 0.0
    for m in range(args.matches):
        seed = args.seed * 1000 + m
        policies = [_policy(args.level, seed * 3 + s) for s in range(3)]
        records = self_play(policies, args.deals, seed)
        for deal in played_deals(records):
            started = time.process_time()
            review = review_deal(deal, Budget(seconds=args.seconds, nodes=None))
            cpu = time.process_time() - started
            n = len(review.decisions)
            # the estimates again, alone, for their share of the time
            started = time.process_time()
            for step in deal.steps[: review.estimated]:
                landlord_chance(step.position)
            estimating.append(time.process_time() - started)
            estimated.append(review.estimated)
            if args.calibrate:
                for step, d in zip(deal.steps, review.decisions, strict=True):
                    cards = sum(len(h) for h in step.position.hands)
                    if isinstance(d.before, str) and cards >= 28:
                        won = int(d.before == "landlord")
                        compared.append((landlord_chance(step.position), won))
            first = deal.steps[n - review.reach].position if review.reach else None
            left = sum(len(h) for h in first.hands) if first else 0
            times.append(cpu)
            reaches.append(review.reach)
            cards_at.append(left)
            whole += review.reach == n
            total += 1
            turning += sum(d.turning for d in review.decisions)
            started = time.process_time()
            found = mine(deal, review)
            mining += time.process_time() - started
            puzzles += len(found)
            print(
                f"seed {seed} deal {deal.deal_no}: {cpu:5.2f} s cpu"
                f" ({estimating[-1]:4.2f} s of {review.estimated:2d} estimates),"
                f" reach {review.reach:2d} of {n:2d} decisions (from {left:2d} cards in hand),"
                f" {review.positions} positions, lost at {review.lost_at}, {len(found)} puzzles"
            )
    p95 = statistics.quantiles(times, n=20, method="inclusive")[-1] if len(times) > 1 else times[0]
    print(
        f"\n{total} deals: cpu s per deal p50 {statistics.median(times):.2f} p95 {p95:.2f}"
        f" max {max(times):.2f}; of it the estimates p50 {statistics.median(estimating):.2f}"
        f" max {max(estimating):.2f} ({statistics.median(estimated)} positions median,"
        f" max {max(estimated)}); reach median {statistics.median(reaches)} decisions,"
        f" cards in hand at reach median {statistics.median(cards_at)}"
        f" (min {min(cards_at)}, max {max(cards_at)}); {whole} deals solved whole;"
        f" {turning} turning points; {puzzles} puzzles ({mining:.1f} s cpu to mine them)"
    )
    if compared:
        at_won = [e for e, w in compared if w]
        at_lost = [e for e, w in compared if not w]
        brier = statistics.mean((e - w) ** 2 for e, w in compared)
        agree = statistics.mean((e >= 0.5) == bool(w) for e, w in compared)
        print(
            f"estimates at {len(compared)} solved positions of 28+ cards: mean"
            f" {statistics.mean(at_won) if at_won else float('nan'):.2f} where the landlord"
            f" wins with best play ({len(at_won)}),"
            f" {statistics.mean(at_lost) if at_lost else float('nan'):.2f} where the farmers"
            f" do ({len(at_lost)}); Brier {brier:.3f}, same side {agree:.2f}"
        )


if __name__ == "__main__":
    main()
