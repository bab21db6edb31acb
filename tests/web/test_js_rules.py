"""The browser's rules (server/web/static/js/rules.js) are the Python rules, run in Node.

One run of ``js_rules_driver.mjs`` answers every question below; each test compares one
kind of answer with ``protocol`` and prints the first differences. The positions are seeded,
so a failure is the same on every run.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from client.commands import play_text
from protocol import CardTextError, Kind, Play, Rank, classify, format_cards, legal_plays
from protocol.cards import format_hand, full_deck, parse_cards, ranks_of
from protocol.hints import hint_plays
from tests.web.node import HERE, node_json, run_node

SEED = 20261201
POSITIONS = 10_000
PAIRS = 10_000
WHOLE_DECK: list[Rank] = [r for r in Rank for _ in range(1 if r >= Rank.SMALL_JOKER else 4)]

#: Card text a person might type, good and bad (each bad one is a different error).
TEXTS = [
    "333 44",
    "33344",
    "10 10 10 J",
    "TTTJ",
    "sj bj",
    "3-7",
    "3-A",
    "10-a",
    "5-10 J",
    "3,4,5",
    "3\t4\t5",
    " 2 ",
    "q-k",
    "SJ",
    "BJ",
    "2222",
    "tt jj qq",
    "",
    "   ",
    ",",
    "1",
    "19",
    "S",
    "B",
    "BX",
    "x",
    "3x",
    "ß",
    "😀3",
    "3😀",
    "-3",
    "3-",
    "3- 4",
    "3--5",
    "3-3",
    "5-3",
    "3-2",
    "J-SJ",
    "SJ-BJ",
    "33333",
    "SJ SJ",
    "bj BJ",
    "3-7 3-7 3-7 3-7 3",
    "10 10 10 10 10",
]


def play_key(play: Play | None) -> str | None:
    """A play as the driver writes it: ``kind:rank:r,r,r``."""
    if play is None:
        return None
    return f"{play.kind.value}:{int(play.rank)}:{','.join(str(int(r)) for r in play.cards)}"


def random_hand(rng: random.Random) -> list[Rank]:
    """Up to 20 cards from one shuffled deck."""
    deck = full_deck()
    rng.shuffle(deck)
    return ranks_of(deck[: rng.randint(1, 20)])


def random_table(rng: random.Random) -> Play | None:
    """Nothing (a lead) one time in five, else a random legal play of another random hand,
    a random kind first (as tests/protocol/test_legal.py draws them)."""
    if rng.randrange(5) == 0:
        return None
    other = legal_plays(random_hand(rng))
    kinds = sorted({p.kind for p in other}, key=list(Kind).index)
    kind = rng.choice(kinds)
    return rng.choice([p for p in other if p.kind is kind])


def near_miss(rng: random.Random, cards: Sequence[Rank]) -> list[int]:
    """A play with one card added, removed or swapped: mostly no play at all."""
    changed = [int(r) for r in cards]
    change = rng.choice(["add", "remove", "swap"])
    if change in ("remove", "swap") and len(changed) > 1:
        changed.pop(rng.randrange(len(changed)))
    if change in ("add", "swap"):
        changed.append(rng.choice(list(Rank)))
    return sorted(changed)


@cache
def all_plays() -> list[Play]:
    """Every play of at most 20 cards (24,639 of them), in hint order."""
    return legal_plays(WHOLE_DECK)


def build_input() -> dict[str, Any]:
    rng = random.Random(SEED)
    plays = all_plays()
    positions = []
    for _ in range(POSITIONS):
        hand = random_hand(rng)
        table = random_table(rng)
        positions.append((hand, table))
    by_shape: dict[tuple[Kind, int], list[int]] = defaultdict(list)
    for i, p in enumerate(plays):
        by_shape[p.kind, len(p.cards)].append(i)
    shapes = sorted(by_shape, key=lambda s: (list(Kind).index(s[0]), s[1]))
    pairs = []
    for n in range(PAIRS):
        # half the pairs of one kind and size (where ranks decide), half across kinds
        a = rng.choice(by_shape[rng.choice(shapes)])
        b = rng.choice(by_shape[plays[a].kind, len(plays[a].cards)] if n % 2 else range(len(plays)))
        pairs.append((a, b))
    hands = [sorted(rng.sample(full_deck(), rng.randint(1, 20))) for _ in range(200)]
    hands.append(full_deck())
    return {
        "plays": [[int(r) for r in p.cards] for p in plays],
        "near_misses": [near_miss(rng, p.cards) for p in plays],
        "positions": [
            {
                "hand": [int(r) for r in hand],
                "to_beat": None if table is None else [int(r) for r in table.cards],
            }
            for hand, table in positions
        ],
        "pairs": pairs,
        "texts": TEXTS,
        "hands": hands,
        "_positions": positions,  # for the Python side only
    }


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    """The driver's answers, and the input it was given."""
    given = build_input()
    payload = {k: v for k, v in given.items() if not k.startswith("_")}
    started = time.perf_counter()
    out = node_json("js_rules_driver.mjs", payload, tmp_path_factory.mktemp("js_rules"))
    print(f"node: {time.perf_counter() - started:.1f} s, of which the rules {out['ms']} ms")
    return out, given


def describe(expected: Any, got: Any) -> str:
    """How two answers differ; for lists of plays, which plays and where, not the lists."""
    if not (isinstance(expected, list) and isinstance(got, list)):
        return f"python: {expected}\n    js:     {got}"
    missing = [p for p in expected if p not in got]
    extra = [p for p in got if p not in expected]
    if missing or extra:
        return f"{len(expected)} plays in python, {len(got)} in js; only in python: " + (
            f"{missing[:5]}, only in js: {extra[:5]}"
        )
    first = next(i for i, (e, g) in enumerate(zip(expected, got, strict=True)) if e != g)
    python, js = expected[first : first + 3], got[first : first + 3]
    return f"the same plays in another order, from #{first}: python {python}, js {js}"


def assert_same(
    what: str, got: Sequence[Any], expected: Sequence[Any], about: Sequence[Any]
) -> None:
    """Fail on any difference, showing the first few with what was asked."""
    assert len(got) == len(expected), f"{what}: {len(got)} answers for {len(expected)} questions"
    diffs = [(q, e, g) for q, e, g in zip(about, expected, got, strict=True) if e != g]
    shown = "\n".join(f"  {q}\n    {describe(e, g)}" for q, e, g in diffs[:5])
    assert not diffs, f"{what}: {len(diffs)} of {len(expected)} differ, the first:\n{shown}"


# --- Classification and text ------------------------------------------------------------------


def test_every_play_there_is_classifies_alike(
    answers: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    out, given = answers
    assert len(given["plays"]) == 24_639
    expected = [play_key(p) for p in all_plays()]
    assert_same("classify", out["classify"], expected, given["plays"])


def test_near_misses_are_no_play_or_the_same_play(
    answers: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    out, given = answers
    expected = [play_key(classify(Rank(r) for r in c)) for c in given["near_misses"]]
    assert expected.count(None) > 10_000, "the near misses should be mostly no play"
    assert_same("classify near misses", out["near_misses"], expected, given["near_misses"])


def test_every_play_is_written_and_read_back_alike(
    answers: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    out, given = answers
    assert_same("formatCards", out["format"], [str(p) for p in all_plays()], given["plays"])
    assert_same("parseCards(formatCards)", out["reparsed"], given["plays"], given["plays"])


def test_every_play_is_written_main_part_first_as_the_terminal_client_does(
    answers: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """The page writes ``QQQ 3``, not ``3 QQQ``: ``mainFirstText`` is client/commands.py's
    ``play_text`` for every play there is."""
    out, given = answers
    expected = [play_text(p) for p in all_plays()]
    assert "QQQ 3" in expected
    assert_same("mainFirstText", out["main_first"], expected, given["plays"])


def _parsed(text: str) -> dict[str, Any]:
    try:
        return {"ranks": [int(r) for r in parse_cards(text)]}
    except CardTextError as exc:
        return {"error": str(exc)}


def test_card_text_parses_alike_and_bad_text_gets_the_same_message(
    answers: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    out, _ = answers
    expected = [_parsed(t) for t in TEXTS]
    assert sum("error" in e for e in expected) >= 20
    assert_same("parseCards", out["parse"], expected, [repr(t) for t in TEXTS])


def test_hands_of_card_ids_are_written_alike(
    answers: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    out, given = answers
    assert_same(
        "formatHand", out["format_hand"], [format_hand(h) for h in given["hands"]], given["hands"]
    )


# --- Beating and legal plays ------------------------------------------------------------------


def test_beats_alike_for_pairs_of_plays(answers: tuple[dict[str, Any], dict[str, Any]]) -> None:
    out, given = answers
    plays = all_plays()
    expected = [plays[a].beats(plays[b]) for a, b in given["pairs"]]
    assert 1_000 < sum(expected) < PAIRS - 1_000, "both answers should be common"
    about = [f"{plays[a]!r} beats {plays[b]!r}" for a, b in given["pairs"]]
    assert_same("beats", out["beats"], expected, about)


def test_legal_plays_alike_and_in_the_same_hint_order(
    answers: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    out, given = answers
    positions = given["_positions"]
    expected = [[play_key(p) for p in legal_plays(hand, table)] for hand, table in positions]
    assert sum(1 for _, table in positions if table is None) > POSITIONS // 10
    assert sum(len(e) for e in expected) > 50_000
    about = [f"hand {format_cards(hand)}, to beat {table!r}" for hand, table in positions]
    assert_same("legalPlays", out["legal"], expected, about)


def test_hint_plays_alike_over_the_same_positions(
    answers: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """``hintPlays`` orders the same 10,000 positions' plays as ``hint_plays`` does, play
    for play (issue 14: the plays that keep bombs, the rocket and chains whole first)."""
    out, given = answers
    positions = given["_positions"]
    expected = [[play_key(p) for p in hint_plays(hand, table)] for hand, table in positions]
    legal = [[play_key(p) for p in legal_plays(hand, table)] for hand, table in positions]
    reordered = sum(1 for e, g in zip(expected, legal, strict=True) if e != g)
    assert reordered > POSITIONS // 10, "the hint order should differ from legal_plays' often"
    about = [f"hand {format_cards(hand)}, to beat {table!r}" for hand, table in positions]
    assert_same("hintPlays", out["hint"], expected, about)


# --- The rule book's own examples, written in JavaScript -------------------------------------


def test_the_javascript_rule_book_examples_hold() -> None:
    """``rules_spec.test.mjs``: SPEC examples checked by hand, with node's test runner."""
    run_node(["--test", str(HERE / "rules_spec.test.mjs")])


def test_smart_pick_examples_hold() -> None:
    """``smart_pick.test.mjs``: which play a swipe or tap picks, and plays written main part
    first, with node's test runner."""
    run_node(["--test", str(HERE / "smart_pick.test.mjs")])


def test_a_20_card_hand_leads_in_well_under_50_ms(tmp_path: Path) -> None:
    """A phone must hint at once: every lead of some rich 20-card hands (hundreds of airplanes
    with wings), timed in node. The median of 20 runs is bounded; a single first run (the
    plays not made yet) is only printed, as one stall of this shared machine would fail it.
    Here: about 0.2 ms after, 1 to 20 ms the first time."""
    out = node_json("js_rules_timing.mjs", {"hands": TIMED_HANDS, "runs": 20}, tmp_path)
    print(out)
    assert out["counts"] == [len(legal_plays(parse_cards(h))) for h in TIMED_HANDS]
    assert out["worst_warm_ms"] < 50, out


TIMED_HANDS = [
    "333 444 555 666 77 88 99 10 10",
    "333 444 555 6 7 8 9 JJ 2222 BJ",
    "333 444 555 666 777 8 9 10 J Q",
    "3333 4444 5 6 7 8 9 10 J Q K A",
    "33 44 55 66 77 88 99 10 10 JJ",
]
