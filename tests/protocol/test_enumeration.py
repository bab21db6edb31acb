"""SPEC section 4: "every multiset of cards is at most one kind with one main rank; a test
should prove the uniqueness by enumeration".

The enumeration below is written from the SPEC table alone: it does not call ``legal_plays``
or anything in ``protocol.legal``. It lists every play of every kind with at most 20 cards,
then ``classify`` and ``legal_plays`` are checked against it, and "perft" counts pin down the
legal leads of a few fixed hands.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import Kind, Play, Rank, classify, legal_plays, parse_cards
from protocol.cards import ranks_of

Multiset = tuple[Rank, ...]

ALL_RANKS: tuple[Rank, ...] = tuple(Rank)
#: Ranks a pair, triple, four or kicker pair may be of: everything but the jokers.
PAIRABLE: tuple[Rank, ...] = tuple(r for r in Rank if r <= Rank.TWO)
#: Ranks a straight, pair chain or airplane may hold: 3 up to A.
CHAINABLE: tuple[Rank, ...] = tuple(r for r in Rank if r <= Rank.ACE)
JOKERS = frozenset({Rank.SMALL_JOKER, Rank.BIG_JOKER})
DECK_LIMIT: dict[Rank, int] = {r: 1 if r in JOKERS else 4 for r in Rank}
MAX_CARDS = 20

SPEC_TOTAL = 24_639
#: How many plays of each kind exist, from the SPEC table by counting:
SPEC_COUNT_BY_KIND: dict[Kind, int] = {
    Kind.SINGLE: 15,  # any of the 15 ranks
    Kind.PAIR: 13,  # 3..2
    Kind.TRIPLE: 13,
    Kind.TRIPLE_SINGLE: 13 * 14,  # any other rank, jokers included
    Kind.TRIPLE_PAIR: 13 * 12,  # a pair of any other of 3..2
    Kind.STRAIGHT: sum(12 - n + 1 for n in range(5, 13)),  # 36
    Kind.PAIR_CHAIN: sum(12 - n + 1 for n in range(3, 11)),  # 52 (up to 10 pairs)
    Kind.AIRPLANE: sum(12 - n + 1 for n in range(2, 7)),  # 45 (up to 6 triples)
    Kind.AIRPLANE_SINGLES: 18_990,  # 2..5 triples: see test below
    Kind.AIRPLANE_PAIRS: 11 * 55 + 10 * 120 + 9 * 126,  # C(13-n, n) pairs for n = 2, 3, 4
    Kind.FOUR_TWO_SINGLES: 13 * (91 - 1 + 12),  # two other ranks but not SJ+BJ, or a pair
    Kind.FOUR_TWO_PAIRS: 13 * 66,  # C(12, 2) other pair ranks
    Kind.BOMB: 13,
    Kind.ROCKET: 1,
}


def _single_kickers(allowed: Sequence[Rank], n: int) -> Iterator[Multiset]:
    """Every multiset of ``n`` single kickers from ``allowed``: at most two cards of a rank
    (no deck holds two of a joker), never both jokers."""
    for combo in itertools.combinations_with_replacement(allowed, n):
        counts = Counter(combo)
        if any(c > min(2, DECK_LIMIT[r]) for r, c in counts.items()):
            continue
        if counts.keys() >= JOKERS:
            continue
        yield combo


def _pair_kickers(allowed: Sequence[Rank], n: int) -> Iterator[Multiset]:
    """Every set of ``n`` kicker pairs of different ranks from ``allowed`` (never jokers)."""
    for ranks in itertools.combinations([r for r in allowed if r not in JOKERS], n):
        yield tuple(r for r in ranks for _ in range(2))


def _runs(length: int) -> Iterator[tuple[Rank, ...]]:
    """Every run of ``length`` consecutive ranks within 3..A."""
    for start in range(len(CHAINABLE) - length + 1):
        yield CHAINABLE[start : start + length]


def _spec_plays() -> Iterator[tuple[Kind, Rank, Multiset]]:
    """Every play of the SPEC table with at most 20 cards, as (kind, main rank, cards)."""
    for r in ALL_RANKS:
        yield Kind.SINGLE, r, (r,)
    for r in PAIRABLE:
        others = [o for o in ALL_RANKS if o != r]
        yield Kind.PAIR, r, (r,) * 2
        yield Kind.TRIPLE, r, (r,) * 3
        for kick in _single_kickers(others, 1):
            yield Kind.TRIPLE_SINGLE, r, (r,) * 3 + kick
        for kick in _pair_kickers(others, 1):
            yield Kind.TRIPLE_PAIR, r, (r,) * 3 + kick
        for kick in _single_kickers(others, 2):
            yield Kind.FOUR_TWO_SINGLES, r, (r,) * 4 + kick
        for kick in _pair_kickers(others, 2):
            yield Kind.FOUR_TWO_PAIRS, r, (r,) * 4 + kick
        yield Kind.BOMB, r, (r,) * 4
    yield Kind.ROCKET, Rank.SMALL_JOKER, (Rank.SMALL_JOKER, Rank.BIG_JOKER)
    for length in range(5, 13):
        for run in _runs(length):
            yield Kind.STRAIGHT, run[0], run
    for length in range(3, MAX_CARDS // 2 + 1):
        for run in _runs(length):
            yield Kind.PAIR_CHAIN, run[0], run * 2
    for length in range(2, MAX_CARDS // 3 + 1):
        for run in _runs(length):
            main = run * 3
            others = [o for o in ALL_RANKS if o not in run]
            yield Kind.AIRPLANE, run[0], main
            if 4 * length <= MAX_CARDS:
                for kick in _single_kickers(others, length):
                    yield Kind.AIRPLANE_SINGLES, run[0], main + kick
            if 5 * length <= MAX_CARDS:
                for kick in _pair_kickers(others, length):
                    yield Kind.AIRPLANE_PAIRS, run[0], main + kick


@cache
def spec_table() -> dict[Multiset, tuple[Kind, Rank]]:
    """Sorted multiset of ranks -> (kind, main rank), failing on any multiset listed twice."""
    table: dict[Multiset, tuple[Kind, Rank]] = {}
    for kind, main, cards in _spec_plays():
        key = tuple(sorted(cards))
        assert key not in table, f"{key} is both {table[key]} and {(kind, main)}"
        table[key] = (kind, main)
    return table


@cache
def spec_plays() -> frozenset[Play]:
    return frozenset(Play(kind, main, cards) for cards, (kind, main) in spec_table().items())


def whole_deck() -> list[Rank]:
    return [r for r in Rank for _ in range(DECK_LIMIT[r])]


# --- The enumeration itself -----------------------------------------------------------------


def test_no_multiset_of_ranks_is_two_kinds_or_has_two_main_ranks() -> None:
    generated = list(_spec_plays())
    table = spec_table()  # asserts on any multiset listed twice
    assert len(generated) == len(table)


def test_there_are_exactly_24639_distinct_plays_of_at_most_20_cards() -> None:
    assert len(spec_table()) == SPEC_TOTAL
    assert sum(SPEC_COUNT_BY_KIND.values()) == SPEC_TOTAL


def test_each_kind_has_the_number_of_plays_the_spec_table_counts() -> None:
    by_kind = Counter(kind for kind, _ in spec_table().values())
    assert by_kind == SPEC_COUNT_BY_KIND


def test_airplane_singles_count_by_a_second_counting() -> None:
    """Airplane + singles of n triples: (13 - n) runs; n kickers from the other 15 - n ranks
    (13 - n ordinary ranks up to two each, the jokers up to one, not both)."""

    def kicker_ways(ordinary: int, n: int) -> int:
        # generating function (1 + x + x^2)^ordinary * (1 + 2x)  (no joker, or one of two)
        poly = [1]
        for _ in range(ordinary):
            poly = [
                sum(poly[j - d] for d in range(3) if 0 <= j - d < len(poly))
                for j in range(len(poly) + 2)
            ]
        no_joker = poly[n]
        one_joker = 2 * poly[n - 1]
        return no_joker + one_joker

    total = sum((13 - n) * kicker_ways(13 - n, n) for n in range(2, 6))
    assert total == SPEC_COUNT_BY_KIND[Kind.AIRPLANE_SINGLES]


def test_every_play_is_at_most_20_cards_and_held_by_the_deck() -> None:
    for cards in spec_table():
        assert 1 <= len(cards) <= MAX_CARDS
        assert all(n <= DECK_LIMIT[r] for r, n in Counter(cards).items())


def test_classify_gives_every_play_back_with_the_same_kind_and_main_rank() -> None:
    for cards, (kind, main) in spec_table().items():
        found = classify(cards)
        assert found == Play(kind, main, cards), f"{cards}: {found} is not {kind} of {main}"


def test_classify_reads_a_play_in_any_card_order() -> None:
    for cards, (kind, main) in itertools.islice(spec_table().items(), 0, None, 97):
        found = classify(reversed(cards))
        assert found is not None
        assert (found.kind, found.rank, found.cards) == (kind, main, cards)


def test_every_play_round_trips_through_its_text() -> None:
    for found in spec_plays():
        assert Play.parse(str(found)) == found
        assert eval(repr(found), {"Play": Play}) == found


def _multisets_up_to(size: int) -> Iterator[Multiset]:
    def rec(i: int, left: int, acc: Multiset) -> Iterator[Multiset]:
        if i == len(ALL_RANKS):
            yield acc
            return
        rank = ALL_RANKS[i]
        for c in range(min(DECK_LIMIT[rank], left) + 1):
            yield from rec(i + 1, left - c, acc + (rank,) * c)

    return rec(0, size, ())


def test_classify_finds_exactly_the_spec_plays_among_all_multisets_of_up_to_8_cards() -> None:
    table = spec_table()
    checked = 0
    for cards in _multisets_up_to(8):
        found = classify(cards)
        expected = table.get(cards)
        if expected is None:
            assert found is None, f"{cards} is no play, but classify says {found!r}"
        else:
            assert found is not None and (found.kind, found.rank) == expected, cards
        checked += 1
    assert checked == 375_470


@st.composite
def _deck_multisets(draw: st.DrawFn) -> Multiset:
    """A multiset of up to 20 ranks the deck holds: either random, or a SPEC play with one
    card added, removed or swapped (the near misses where a classifier goes wrong)."""
    if draw(st.booleans()):
        ids = draw(st.sets(st.integers(0, 53), min_size=1, max_size=MAX_CARDS))
        return tuple(ranks_of(ids))
    cards = list(draw(st.sampled_from(sorted(spec_table()))))
    change = draw(st.sampled_from(["add", "remove", "swap", "keep"]))
    if change in ("remove", "swap") and len(cards) > 1:
        cards.pop(draw(st.integers(0, len(cards) - 1)))
    if change in ("add", "swap"):
        cards.append(draw(st.sampled_from(ALL_RANKS)))
    counts = Counter(cards)
    if len(cards) > MAX_CARDS or any(n > DECK_LIMIT[r] for r, n in counts.items()):
        cards.pop()
    return tuple(sorted(cards))


@pytest.mark.slow  # thousands of generated hands
@settings(max_examples=3000, deadline=None)
@given(cards=_deck_multisets())
def test_classify_finds_a_play_exactly_when_the_spec_table_lists_one(cards: Multiset) -> None:
    found = classify(cards)
    expected = spec_table().get(cards)
    if expected is None:
        assert found is None, f"{cards} is no play, but classify says {found!r}"
    else:
        assert found is not None and (found.kind, found.rank, found.cards) == (*expected, cards)


# --- legal_plays of the whole deck ----------------------------------------------------------


def test_legal_plays_of_the_whole_deck_is_exactly_every_play() -> None:
    plays = legal_plays(whole_deck())
    assert len(plays) == SPEC_TOTAL
    assert len(set(plays)) == SPEC_TOTAL
    assert set(plays) == spec_plays()


def test_a_new_trick_may_open_with_any_play_of_the_whole_deck() -> None:
    by_kind = Counter(p.kind for p in legal_plays(whole_deck(), None))
    assert by_kind == SPEC_COUNT_BY_KIND


# --- Perft: the exact legal leads of fixed hands --------------------------------------------


def brute_force_leads(hand: Sequence[Rank]) -> set[Play]:
    """Every play a hand holds: classify every sub-multiset of the hand."""
    counts = sorted(Counter(hand).items())
    plays: set[Play] = set()
    for taken in itertools.product(*(range(n + 1) for _, n in counts)):
        cards = tuple(r for (r, _), k in zip(counts, taken, strict=True) for _ in range(k))
        found = classify(cards)
        if found is not None:
            plays.add(found)
    return plays


def table_leads(hand: Sequence[Rank]) -> set[Play]:
    """Every play a hand holds, by filtering the SPEC enumeration (no classify involved)."""
    held = Counter(hand)
    return {p for p in spec_plays() if not Counter(p.cards) - held}


def _by_kind(plays: set[Play] | list[Play]) -> dict[Kind, int]:
    return dict(Counter(p.kind for p in plays))


S, TS, TP, PR, TR = Kind.SINGLE, Kind.TRIPLE_SINGLE, Kind.TRIPLE_PAIR, Kind.PAIR, Kind.TRIPLE
ST, PC, AP = Kind.STRAIGHT, Kind.PAIR_CHAIN, Kind.AIRPLANE
AS, APP, F2S, F2P = (
    Kind.AIRPLANE_SINGLES,
    Kind.AIRPLANE_PAIRS,
    Kind.FOUR_TWO_SINGLES,
    Kind.FOUR_TWO_PAIRS,
)
BOMB, ROCKET = Kind.BOMB, Kind.ROCKET

#: Hand text and the exact number of distinct legal leads of each kind (checked by hand too).
PERFT: list[tuple[str, dict[Kind, int]]] = [
    # a farmer's 17 cards: pair chains in 44..77, straights in 4..9, a bomb, the rocket
    (
        "44 55 66 777 8 9 KKKK SJ BJ",
        {S: 9, PR: 5, TR: 2, TS: 16, TP: 8, ST: 3, PC: 3, F2S: 31, F2P: 6, BOMB: 1, ROCKET: 1},
    ),
    # an ordinary 17 cards: ten ranks in a row from 5 to A, no triple, no bomb
    ("33 5 6 77 8 9 10 10 J QQ K A 2 BJ", {S: 13, PR: 4, ST: 21}),
    # a landlord's 20 cards: airplanes in 333444555, a bomb of 2s, one joker
    (
        "333 444 555 6 7 8 9 JJ 2222 BJ",
        {
            S: 10,
            PR: 5,
            TR: 4,
            TS: 36,
            TP: 16,
            ST: 6,
            PC: 1,
            AP: 3,
            AS: 109,
            APP: 6,
            F2S: 40,
            F2P: 6,
            BOMB: 1,
        },
    ),
    # a landlord's 20 cards that are one airplane + pairs of four triples
    (
        "333 444 555 666 77 88 99 10 10",
        {S: 8, PR: 8, TR: 4, TS: 28, TP: 28, ST: 10, PC: 21, AP: 6, AS: 142, APP: 66},
    ),
]
PERFT_TOTALS = [85, 38, 243, 321]


@pytest.mark.parametrize(("text", "expected"), PERFT, ids=[t for t, _ in PERFT])
def test_perft_legal_leads_of_a_fixed_hand_per_kind(text: str, expected: dict[Kind, int]) -> None:
    hand = parse_cards(text)
    brute = brute_force_leads(hand)
    assert brute == table_leads(hand)
    assert _by_kind(brute) == expected
    leads = legal_plays(hand)
    assert len(leads) == len(set(leads))
    assert _by_kind(leads) == _by_kind(brute)
    assert set(leads) == brute


def test_perft_totals() -> None:
    assert [sum(expected.values()) for _, expected in PERFT] == PERFT_TOTALS
    assert [len(parse_cards(text)) for text, _ in PERFT] == [17, 17, 20, 20]
