"""Benchmark ``protocol.legal_plays`` on seeded random deals, optionally against RLCard 1.2.0.

Run from the repository root::

    .venv/bin/python benchmarks/legal_plays.py --deals 300 --seed 1

and, to compare with RLCard's Dou Dizhu judger (installed in a venv of its own, so that it never
becomes a project dependency)::

    python3 -m venv /tmp/rlcard-venv
    /tmp/rlcard-venv/bin/pip install rlcard==1.2.0 numpy
    .venv/bin/python benchmarks/legal_plays.py --deals 300 --seed 1 \\
        --rlcard /tmp/rlcard-venv/bin/python --out /tmp/legal_plays.json

Each deal (``random.Random(seed)``) gives three seats 17 cards, a random landlord the 3-card
kitty, and six positions: a lead of the landlord's 20 cards, a lead of each peasant's 17
cards, and three answers, where each seat answers a play drawn from the previous seat's legal
leads (``--draw kind``: a kind first, bombs and the rocket included, then a play of it;
``--draw play``: any play). Every position is timed ``--repeats`` times, round robin over the
positions, with ``time.perf_counter_ns``; a position's time is the median of its repeats. Per
category the table shows the median of those times, calls per second and plays per second
(positions and plays over the summed times: the throughput on the whole set). Column "ratio"
is our calls per second over RLCard's, "med.r" RLCard's median time over ours. A second table
times the first call of each position in a fresh process, where ``legal_plays`` has not yet
made (and kept) the plays with kickers that the hand holds.

With ``--rlcard`` the positions go, as JSON, to ``benchmarks/rlcard_judger_bench.py`` under
that interpreter, which times RLCard's own code path for the same positions and returns its
plays. RLCard allows airplanes with singles whose kickers hold three cards of one rank
(``333444555`` + ``777``), which SPEC section 4 forbids; positions where RLCard's set holds
such plays are left out of the comparison and counted, and any other difference between the
two sets is reported as a disagreement.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from protocol import Kind, Play, Rank, classify, legal_plays  # noqa: E402
from protocol.cards import full_deck, ranks_of  # noqa: E402

COMPANION = Path(__file__).resolve().parent / "rlcard_judger_bench.py"
CATEGORIES = ("lead 20", "lead 17", "answer")

#: RLCard's one-letter rank names: 'T' is 10, 'B' the black (small) joker, 'R' the red (big).
RLCARD_CHAR: dict[Rank, str] = {
    **{Rank(v): str(v) for v in range(3, 10)},
    Rank.TEN: "T",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
    Rank.TWO: "2",
    Rank.SMALL_JOKER: "B",
    Rank.BIG_JOKER: "R",
}
FROM_RLCARD: dict[str, Rank] = {c: r for r, c in RLCARD_CHAR.items()}


def to_rlcard(ranks: Sequence[Rank]) -> str:
    """Sorted ranks in RLCard's string form (RLCard's plays are sorted by rank too)."""
    return "".join(RLCARD_CHAR[r] for r in sorted(ranks))


@dataclass
class Position:
    """A hand to lead (``to_beat`` None) or to answer ``to_beat``; its plays and timings."""

    id: int
    category: str
    hand: list[Rank]
    to_beat: Play | None
    plays: list[Play] = field(default_factory=list)
    ns: float = 0.0
    first_ns: float = 0.0


def draw_play(rng: random.Random, leads: list[Play], how: str) -> Play:
    """A play to answer, from another seat's legal leads."""
    if how == "play":
        return rng.choice(leads)
    kinds = list(dict.fromkeys(p.kind for p in leads))
    kind = rng.choice(kinds)
    return rng.choice([p for p in leads if p.kind is kind])


def build_positions(deals: int, seed: int, draw: str) -> list[Position]:
    """Per deal: three leads (the landlord's 20 cards, two peasants' 17) and three answers."""
    rng = random.Random(seed)
    positions: list[Position] = []

    def add(category: str, hand: list[Rank], to_beat: Play | None) -> None:
        positions.append(Position(len(positions), category, hand, to_beat))

    for _ in range(deals):
        deck = full_deck()
        rng.shuffle(deck)
        landlord = rng.randrange(3)
        hands = [
            ranks_of(deck[17 * s : 17 * s + 17] + (deck[51:] if s == landlord else []))
            for s in range(3)
        ]
        for s in range(3):
            add("lead 20" if s == landlord else "lead 17", hands[s], None)
        for s in range(3):
            to_beat = draw_play(rng, legal_plays(hands[s]), draw)
            add("answer", hands[(s + 1) % 3], to_beat)
    return positions


def time_ours(positions: list[Position], repeats: int) -> None:
    """Fill in each position's plays and its median ns per call of ``legal_plays``."""
    for pos in positions:
        pos.plays = legal_plays(pos.hand, pos.to_beat)
    perf = time.perf_counter_ns
    samples: list[list[int]] = [[] for _ in positions]
    calls = [(pos.hand, pos.to_beat) for pos in positions]
    gc.disable()
    try:
        for _ in range(repeats):
            for (hand, to_beat), sample in zip(calls, samples, strict=True):
                t0 = perf()
                legal_plays(hand, to_beat)
                sample.append(perf() - t0)
    finally:
        gc.enable()
    for pos, sample in zip(positions, samples, strict=True):
        pos.ns = statistics.median(sample)


def write_positions(positions: list[Position], repeats: int) -> Path:
    """The positions as JSON in RLCard's card letters, for the companion and ``--cold``."""
    spec = {
        "repeats": repeats,
        "positions": [
            {
                "id": pos.id,
                "category": pos.category,
                "hand": to_rlcard(pos.hand),
                "to_beat": None if pos.to_beat is None else to_rlcard(pos.to_beat.cards),
                "expected": [to_rlcard(p.cards) for p in pos.plays],
            }
            for pos in positions
        ],
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    return Path(f.name)


def run_json(argv: list[str]) -> dict[str, Any]:
    """Run a helper process and return the JSON it prints."""
    try:
        out = subprocess.run(argv, check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        sys.exit(f"{' '.join(argv)} failed:\n{e.stderr}")
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def cold_first_calls(path: str) -> None:
    """``--cold``: in this fresh process, time the first call of each position, in order, and
    print the ns as JSON (a play made for the first time costs more than one made before)."""
    spec = json.loads(Path(path).read_text())
    calls: list[tuple[list[Rank], Play | None]] = []
    for pos in spec["positions"]:
        beat = pos["to_beat"]
        to_beat = None if beat is None else classify(FROM_RLCARD[c] for c in beat)
        calls.append(([FROM_RLCARD[c] for c in pos["hand"]], to_beat))
    perf = time.perf_counter_ns
    first_ns: list[int] = []
    gc.disable()
    try:
        for hand, to_beat in calls:
            t0 = perf()
            legal_plays(hand, to_beat)
            first_ns.append(perf() - t0)
    finally:
        gc.enable()
    json.dump({"first_ns": first_ns}, sys.stdout)


@dataclass
class Stats:
    """One side's figures for a group of positions."""

    positions: int
    median_us: float
    calls_per_s: float
    plays_per_s: float


def stats(times_ns: list[float], plays: list[int]) -> Stats:
    """The median time of a position, and calls and plays per second over the summed times."""
    total_s = sum(times_ns) / 1e9
    return Stats(
        positions=len(times_ns),
        median_us=statistics.median(times_ns) / 1e3,
        calls_per_s=len(times_ns) / total_s,
        plays_per_s=sum(plays) / total_s,
    )


def row(label: str, ours: Stats, theirs: Stats | None) -> dict[str, Any]:
    r: dict[str, Any] = {"category": label, "positions": ours.positions, "ours": vars(ours)}
    if theirs is not None:
        r["rlcard"] = vars(theirs)
        r["ratio_throughput"] = ours.calls_per_s / theirs.calls_per_s
        r["ratio_median"] = theirs.median_us / ours.median_us
    return r


def print_table(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{title}")
    head = f"{'category':<28} {'pos':>5} {'ours µs':>9} {'ours calls/s':>12} {'plays/s':>10}"
    with_rlcard = any("rlcard" in r for r in rows)
    if with_rlcard:
        head += f" {'RLCard µs':>10} {'RLC calls/s':>11} {'plays/s':>10} {'ratio':>6} {'med.r':>6}"
    print(head)
    print("-" * len(head))
    for r in rows:
        o = r["ours"]
        line = (
            f"{r['category']:<28} {r['positions']:>5} {o['median_us']:>9.1f} "
            f"{o['calls_per_s']:>12,.0f} {o['plays_per_s']:>10,.0f}"
        )
        if "rlcard" in r:
            t = r["rlcard"]
            line += (
                f" {t['median_us']:>10.1f} {t['calls_per_s']:>11,.0f} {t['plays_per_s']:>10,.0f}"
                f" {r['ratio_throughput']:>5.1f}x {r['ratio_median']:>5.1f}x"
            )
        print(line)


def check_plays(
    positions: list[Position], rl: dict[int, dict[str, Any]]
) -> tuple[Counter[str], list[dict[str, Any]]]:
    """Compare both sets of plays per position; mark in ``rl`` which positions to compare.

    Returns, by category, how many positions RLCard gave plays that SPEC section 4 forbids
    (and nothing else different), and the positions with any other difference.
    """
    excluded: Counter[str] = Counter()
    disagreements: list[dict[str, Any]] = []
    for pos in positions:
        r = rl[pos.id]
        only = [s for s, _ in r["rlcard_only"]]
        forbidden = [s for s in only if classify(FROM_RLCARD[c] for c in s) is None]
        other = [s for s in only if s not in forbidden]
        dups = len(pos.plays) - len({p.cards for p in pos.plays})
        r["compare"] = False
        if other or r["ours_only"] or dups or r["plays"] != r["distinct"]:
            disagreements.append(
                {
                    "id": pos.id,
                    "category": pos.category,
                    "hand": to_rlcard(pos.hand),
                    "to_beat": None if pos.to_beat is None else to_rlcard(pos.to_beat.cards),
                    "rlcard_only_legal_for_us": other[:10],
                    "ours_only": r["ours_only"][:10],
                    "our_duplicates": dups,
                    "rlcard_duplicates": r["plays"] - r["distinct"],
                }
            )
        elif forbidden:
            excluded[pos.category] += 1
            r["forbidden"] = (forbidden[:3], dict(Counter(t for _, t in r["rlcard_only"])))
        else:
            r["compare"] = True
    return excluded, disagreements


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Benchmark protocol.legal_plays on seeded random deals (see the docstring)."
    )
    parser.add_argument("--deals", type=int, default=300, help="deals to make (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="random.Random seed (default 1)")
    parser.add_argument("--repeats", type=int, default=7, help="timed calls per position")
    parser.add_argument(
        "--draw",
        choices=("kind", "play"),
        default="kind",
        help="how a play to answer is drawn: a kind then a play of it, or any play",
    )
    parser.add_argument("--rlcard", metavar="PYTHON", help="a python with rlcard==1.2.0")
    parser.add_argument("--by-kind", action="store_true", help="answers by the kind to beat")
    parser.add_argument("--out", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--cold", metavar="POSITIONS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cold:
        cold_first_calls(args.cold)
        return

    positions = build_positions(args.deals, args.seed, args.draw)
    time_ours(positions, args.repeats)
    print(
        f"legal_plays benchmark: {args.deals} deals, seed {args.seed}, draw {args.draw}, "
        f"{args.repeats} repeats; Python {platform.python_version()} on {platform.machine()}"
    )
    report: dict[str, Any] = {
        "deals": args.deals,
        "seed": args.seed,
        "repeats": args.repeats,
        "draw": args.draw,
        "python": platform.python_version(),
    }
    path = write_positions(positions, args.repeats)
    try:
        cold = run_json([sys.executable, str(Path(__file__).resolve()), "--cold", str(path)])
        for pos, ns in zip(positions, cold["first_ns"], strict=True):
            pos.first_ns = ns
        rl: dict[int, dict[str, Any]] = {}
        if args.rlcard:
            result = run_json([args.rlcard, str(COMPANION), str(path)])
            report["rlcard_version"] = result["rlcard_version"]
            rl = {r["id"]: r for r in result["results"]}
    finally:
        path.unlink()
    excluded, disagreements = check_plays(positions, rl) if rl else (Counter[str](), [])

    def summary(label: str, group: list[Position], first: bool = False) -> dict[str, Any]:
        if rl:
            group = [p for p in group if rl[p.id]["compare"]]
        ours = stats([p.first_ns if first else p.ns for p in group], [len(p.plays) for p in group])
        theirs = None
        if rl:
            theirs = stats(
                [rl[p.id]["first_ns" if first else "ns"] for p in group],
                [rl[p.id]["distinct"] for p in group],
            )
        return row(label, ours, theirs)

    by_cat: dict[str, list[Position]] = defaultdict(list)
    for pos in positions:
        by_cat[pos.category].append(pos)
    which = "positions where both agree on the set of plays" if rl else "all positions"
    report["rows"] = [summary(c, by_cat[c]) for c in CATEGORIES]
    print_table(f"Median of {args.repeats} calls, {which}", report["rows"])
    report["rows_first_call"] = [summary(c, by_cat[c], first=True) for c in CATEGORIES]
    print_table(
        "First call of each position in a fresh process (caches cold), " + which,
        report["rows_first_call"],
    )
    if args.by_kind:
        kinds: dict[Kind, list[Position]] = defaultdict(list)
        for pos in by_cat["answer"]:
            assert pos.to_beat is not None
            kinds[pos.to_beat.kind].append(pos)
        rows = [summary(f"answer to {k.value}", kinds[k]) for k in Kind if kinds[k]]
        report["rows_answers_by_kind"] = [r for r in rows if r["positions"]]
        print_table("Answers by the kind to beat", report["rows_answers_by_kind"])

    if rl:
        print(
            "\nLeft out of the comparison, RLCard allowing airplanes with singles whose kickers"
            " hold three cards of one rank (SPEC section 4 forbids them): "
            + ", ".join(f"{c}: {excluded[c]}" for c in CATEGORIES)
        )
        examples = [(p, rl[p.id]["forbidden"]) for p in positions if "forbidden" in rl[p.id]]
        for pos, (plays, types) in examples[:2]:
            beat = "lead" if pos.to_beat is None else f"answer to {to_rlcard(pos.to_beat.cards)}"
            print(f"  e.g. {to_rlcard(pos.hand)} ({beat}): RLCard also gives {plays} {types}")
        print(f"Disagreements (any other difference in the set of plays): {len(disagreements)}")
        for d in disagreements[:3]:
            print(f"  {d}")
        report["excluded_rule_difference"] = dict(excluded)
        report["disagreements"] = disagreements
        below = [r["category"] for r in report["rows"] if r["ratio_throughput"] < 2]
        verdict = "met in every category" if not below else f"not met in {', '.join(below)}"
        print(f"Goal, at least 2x RLCard's throughput (calls/s): {verdict}")

    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2))
        print(f"\nfigures written to {args.out}")


if __name__ == "__main__":
    main()
