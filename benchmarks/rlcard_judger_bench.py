"""Time RLCard 1.2.0's Dou Dizhu legal-action code on positions written by ``legal_plays.py``.

This companion runs under a separate interpreter that has RLCard installed, never under the
project's venv, and imports nothing from the project. ``benchmarks/legal_plays.py`` starts it
as a subprocess; to run it by hand::

    python3 -m venv /tmp/rlcard-venv
    /tmp/rlcard-venv/bin/pip install rlcard==1.2.0 numpy
    /tmp/rlcard-venv/bin/python benchmarks/rlcard_judger_bench.py POSITIONS.json > RESULT.json

The input is JSON: ``{"repeats": R, "positions": [{"id", "category", "hand", "to_beat",
"expected"}]}`` with cards in RLCard's rank letters (``3``-``9``, ``T``, ``J``, ``Q``, ``K``,
``A``, ``2``, ``B`` small/black joker, ``R`` big/red joker), ``to_beat`` null for a lead and
``expected`` the plays the project's ``legal_plays`` made. The output (stdout) is JSON with,
per position, the ns of its first call, the median ns of its timed calls, RLCard's number of
plays, and the plays found by only one side (with RLCard's type for those only it found).

The code paths timed are the ones RLCard's ``DoudizhuGame`` runs for the player to act:

* a lead: ``DoudizhuJudger.__init__`` computes
  ``playable_cards_from_hand(cards2str(player.current_hand))`` and ``DoudizhuGame.get_state``
  turns ``player.available_actions(None, judger)`` (that set) into a list;
* an answer: ``player.available_actions(greater_player, judger)``, which is
  ``get_gt_cards(player, greater_player)`` (its list starts with ``'pass'``).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from typing import Any

import numpy as np
import rlcard
from rlcard.games.base import Card
from rlcard.games.doudizhu.judger import DoudizhuJudger
from rlcard.games.doudizhu.player import DoudizhuPlayer
from rlcard.games.doudizhu.utils import CARD_TYPE, cards2str, get_gt_cards

SUITS = ("S", "H", "D", "C")


def make_cards(hand: str) -> list[Card]:
    """RLCard Card objects for a hand string, suits handed out in turn as the dealer would."""
    cards: list[Card] = []
    seen: dict[str, int] = {}
    for ch in hand:
        if ch == "B":
            cards.append(Card("BJ", ""))
        elif ch == "R":
            cards.append(Card("RJ", ""))
        else:
            n = seen.get(ch, 0)
            seen[ch] = n + 1
            cards.append(Card(SUITS[n], ch))
    return cards


def lead(player: DoudizhuPlayer) -> list[str]:
    """What RLCard computes for a player to lead from a fresh hand."""
    return list(DoudizhuJudger.playable_cards_from_hand(cards2str(player.current_hand)))


def answer(player: DoudizhuPlayer, greater: DoudizhuPlayer) -> list[str]:
    """What RLCard computes for a player to answer ``greater``'s play ('pass' included)."""
    answers: list[str] = get_gt_cards(player, greater)
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("positions", help="JSON file written by benchmarks/legal_plays.py")
    args = parser.parse_args()
    with open(args.positions) as f:
        spec = json.load(f)
    repeats: int = spec["repeats"]
    rng = np.random.RandomState(0)

    calls: list[tuple[Any, ...]] = []
    for pos in spec["positions"]:
        player = DoudizhuPlayer(0, rng)
        player.set_current_hand(make_cards(pos["hand"]))
        if pos["to_beat"] is None:
            calls.append((lead, player))
        else:
            greater = DoudizhuPlayer(1, rng)
            greater.played_cards = pos["to_beat"]
            calls.append((answer, player, greater))

    perf = time.perf_counter_ns
    gc.disable()
    try:
        # The first call of each position, in order, timed on its own; its plays are compared.
        firsts: list[tuple[int, list[str]]] = []
        for fn, *fargs in calls:
            t0 = perf()
            plays = fn(*fargs)
            firsts.append((perf() - t0, plays))
        # Then round robin: each repeat calls every position once, so consecutive calls see
        # different hands (as in a game) and RLCard's one-hand cache in contains_cards does not
        # carry over from one call to the next.
        samples: list[list[int]] = [[] for _ in calls]
        for _ in range(repeats):
            for (fn, *fargs), sample in zip(calls, samples, strict=True):
                t0 = perf()
                fn(*fargs)
                sample.append(perf() - t0)
    finally:
        gc.enable()

    results: list[dict[str, Any]] = []
    for pos, (first_ns, plays), sample in zip(spec["positions"], firsts, samples, strict=True):
        got = [a for a in plays if a != "pass"]
        got_set = set(got)
        expected = set(pos["expected"])
        results.append(
            {
                "id": pos["id"],
                "plays": len(got),
                "distinct": len(got_set),
                "rlcard_only": [[s, CARD_TYPE[0][s][0][0]] for s in sorted(got_set - expected)],
                "ours_only": sorted(expected - got_set),
                "first_ns": first_ns,
                "ns": statistics.median(sample),
            }
        )

    json.dump(
        {
            "rlcard_version": rlcard.__version__,
            "python": sys.version.split()[0],
            "results": results,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
