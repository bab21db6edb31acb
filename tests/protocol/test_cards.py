"""SPEC section 1 (cards) and section 10 (typing cards): ranks, the 54 physical cards, card
text in and out."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import CardTextError, Rank, format_cards, parse_cards
from protocol.cards import (
    CHAIN_RANKS,
    DECK_SIZE,
    JOKERS,
    RANKS,
    SUITS,
    Card,
    card_rank,
    format_hand,
    full_deck,
    rank_counts,
    ranks_of,
)

SPEC_RANK_ORDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "SJ", "BJ"]


# --- Rank order -----------------------------------------------------------------------------


def test_there_are_fifteen_ranks_in_the_spec_order_low_to_high() -> None:
    assert [r.text for r in RANKS] == SPEC_RANK_ORDER
    assert [str(r) for r in Rank] == SPEC_RANK_ORDER
    assert list(RANKS) == sorted(Rank)


def test_each_rank_is_strictly_lower_than_the_next() -> None:
    for low, high in itertools.pairwise(RANKS):
        assert low < high


def test_two_is_above_ace_and_the_jokers_are_above_two() -> None:
    assert Rank.ACE < Rank.TWO < Rank.SMALL_JOKER < Rank.BIG_JOKER
    assert Rank.KING < Rank.ACE
    assert min(Rank) == Rank.THREE
    assert max(Rank) == Rank.BIG_JOKER


def test_rank_index_is_its_position_in_the_order() -> None:
    assert [r.index for r in RANKS] == list(range(15))


def test_chain_ranks_run_from_three_to_ace_without_two_or_jokers() -> None:
    assert [r.text for r in CHAIN_RANKS] == SPEC_RANK_ORDER[:12]
    assert Rank.TWO not in CHAIN_RANKS
    for joker in JOKERS:
        assert joker not in CHAIN_RANKS


# --- The 54 physical cards ------------------------------------------------------------------


def test_the_deck_has_fifty_four_cards_with_ids_zero_to_fifty_three() -> None:
    assert DECK_SIZE == 54
    assert full_deck() == list(range(54))


def test_full_deck_returns_a_fresh_list_each_time() -> None:
    deck = full_deck()
    deck.pop()
    assert len(full_deck()) == 54


def test_each_of_the_thirteen_ordinary_ranks_has_four_cards_one_of_each_suit() -> None:
    by_rank: dict[Rank, list[str | None]] = {}
    for card_id in full_deck():
        card = Card(card_id)
        by_rank.setdefault(card.rank, []).append(card.suit)
    for rank in RANKS[:13]:
        assert sorted(s for s in by_rank[rank] if s is not None) == sorted(SUITS)
        assert len(by_rank[rank]) == 4
    assert by_rank[Rank.SMALL_JOKER] == [None]
    assert by_rank[Rank.BIG_JOKER] == [None]


def test_card_ids_are_rank_major_and_the_jokers_are_fifty_two_and_fifty_three() -> None:
    assert [card_rank(i) for i in range(4)] == [Rank.THREE] * 4
    assert [card_rank(i) for i in range(48, 52)] == [Rank.TWO] * 4
    assert card_rank(52) is Rank.SMALL_JOKER
    assert card_rank(53) is Rank.BIG_JOKER
    for card_id in range(52):
        assert card_rank(card_id) is RANKS[card_id // 4]
        assert Card(card_id).suit == SUITS[card_id % 4]


def test_jokers_have_no_suit() -> None:
    assert Card(52).suit is None
    assert Card(53).suit is None


def test_the_deck_holds_exactly_the_spec_rank_counts() -> None:
    counts = Counter(card_rank(c) for c in full_deck())
    assert counts == {**{r: 4 for r in RANKS[:13]}, Rank.SMALL_JOKER: 1, Rank.BIG_JOKER: 1}
    assert rank_counts(ranks_of(full_deck())) == [4] * 13 + [1, 1]


@pytest.mark.parametrize("bad_id", [-1, 54, 100])
def test_a_card_id_outside_zero_to_fifty_three_is_refused(bad_id: int) -> None:
    with pytest.raises(ValueError):
        Card(bad_id)


def test_cards_print_as_suit_and_rank_and_jokers_as_their_name() -> None:
    assert str(Card(0)) == "♠3"
    assert str(Card(1)) == "♥3"
    assert str(Card(31)) == "♦10"
    assert str(Card(52)) == "SJ"
    assert str(Card(53)) == "BJ"
    assert format_hand([53, 0, 31, 52, 1]) == "♠3 ♥3 ♦10 SJ BJ"


def test_ranks_of_physical_cards_are_sorted_and_ignore_suits() -> None:
    assert ranks_of([53, 3, 0, 52]) == [Rank.THREE, Rank.THREE, Rank.SMALL_JOKER, Rank.BIG_JOKER]


def test_rank_counts_is_a_fifteen_slot_count_array() -> None:
    counts = rank_counts([Rank.THREE, Rank.THREE, Rank.TEN, Rank.BIG_JOKER])
    assert len(counts) == 15
    assert counts[Rank.THREE.index] == 2
    assert counts[Rank.TEN.index] == 1
    assert counts[Rank.BIG_JOKER.index] == 1
    assert sum(counts) == 4


# --- parse_cards ----------------------------------------------------------------------------

T, J, Q, K, A = Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE
R3, R4, R5, R6, R7 = Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX, Rank.SEVEN


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("333 44", [R3, R3, R3, Rank.FOUR, Rank.FOUR]),
        ("33344", [R3, R3, R3, Rank.FOUR, Rank.FOUR]),
        ("10 10 10 J", [T, T, T, J]),
        ("101010J", [T, T, T, J]),
        ("TTTJ", [T, T, T, J]),
        ("tttj", [T, T, T, J]),
        ("T 10 t", [T, T, T]),
        ("jqka", [J, Q, K, A]),
        ("sj bj", [Rank.SMALL_JOKER, Rank.BIG_JOKER]),
        ("SJBJ", [Rank.SMALL_JOKER, Rank.BIG_JOKER]),
        ("Bj sJ", [Rank.SMALL_JOKER, Rank.BIG_JOKER]),
        ("2", [Rank.TWO]),
        ("3,4,\t5", [R3, R4, R5]),
        ("  3  ", [R3]),
    ],
)
def test_parse_cards_reads_what_people_type(text: str, expected: list[Rank]) -> None:
    assert parse_cards(text) == expected


def test_parse_cards_returns_ranks_sorted_whatever_the_typing_order() -> None:
    assert parse_cards("BJ 2 A 3 10") == [R3, T, A, Rank.TWO, Rank.BIG_JOKER]
    assert all(isinstance(r, Rank) for r in parse_cards("K 3"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3-7", [R3, R4, R5, R6, R7]),
        ("10-A", [T, J, Q, K, A]),
        ("t-a", [T, J, Q, K, A]),
        ("3-A", list(CHAIN_RANKS)),
        ("8-10", [Rank.EIGHT, Rank.NINE, T]),
        ("33-5", [R3, R3, R4, R5]),
        ("3-5 3-5", [R3, R3, R4, R4, R5, R5]),
        ("3-4 BJ", [R3, R4, Rank.BIG_JOKER]),
    ],
)
def test_parse_cards_reads_a_range_as_one_card_of_each_rank(
    text: str, expected: list[Rank]
) -> None:
    assert parse_cards(text) == expected


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "no cards"),
        ("   ", "no cards"),
        (", ,", "no cards"),
        ("1", "'1'"),
        ("3 1 4", "'1' at position 3"),
        ("S", "'S'"),
        ("B", "'B'"),
        ("S J", "'S'"),
        ("X", "'X'"),
        ("33X", "'X' at position 3"),
        ("0", "'0'"),
        ("33333", "5 cards of rank 3"),
        ("3333 3", "5 cards of rank 3"),
        ("SJ SJ", "2 cards of rank SJ"),
        ("bj bj", "2 cards of rank BJ"),
        ("A-3", "range A-3"),
        ("5-5", "range 5-5"),
        ("Q-2", "range Q-2"),
        ("3-SJ", "range 3-SJ"),
        ("-5", "'-' at position 1"),
        ("5-", "'-' at position 2"),
        ("5- 7", "'-' at position 2"),
        ("5-X", "'X' at position 3"),
        ("3-7 3-7 3-7 3-7 3-7", "5 cards of rank"),
    ],
)
def test_malformed_card_text_raises_card_text_error_saying_what_was_wrong(
    text: str, says: str
) -> None:
    with pytest.raises(CardTextError) as info:
        parse_cards(text)
    assert says in str(info.value)


def test_card_text_error_is_a_value_error() -> None:
    assert issubclass(CardTextError, ValueError)
    with pytest.raises(ValueError):
        parse_cards("X")


def test_parse_cards_accepts_the_most_a_deck_holds_of_each_rank() -> None:
    assert parse_cards("3333") == [R3] * 4
    whole_deck = " ".join(f"{r.text} {r.text} {r.text} {r.text}" for r in RANKS[:13])
    assert parse_cards(whole_deck + " SJ BJ") == ranks_of(full_deck())


# --- format_cards ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ranks", "text"),
    [
        ([R3, R3, R3, R4, R4], "333 44"),
        ([R4, R3, R4, R3, R3], "333 44"),
        ([T, T, J], "10 10 J"),
        ([T, T, T, J], "10 10 10 J"),
        ([Rank.BIG_JOKER, Rank.SMALL_JOKER], "SJ BJ"),
        ([Rank.TWO, Rank.TWO, A], "A 22"),
        ([R3, R4, R5, R6, R7], "3 4 5 6 7"),
        ([], ""),
    ],
)
def test_format_cards_groups_sorted_ranks(ranks: list[Rank], text: str) -> None:
    assert format_cards(ranks) == text


def _multiset_of_ranks() -> st.SearchStrategy[list[Rank]]:
    """Any non-empty multiset of ranks a deck holds: up to four of 3..2, up to one of each
    joker."""
    limits = [4] * 13 + [1, 1]
    return (
        st.tuples(*(st.integers(0, n) for n in limits))
        .map(lambda counts: [r for r, n in zip(RANKS, counts, strict=True) for _ in range(n)])
        .filter(bool)
    )


@settings(max_examples=500, deadline=None)
@given(ranks=_multiset_of_ranks(), data=st.data())
def test_parse_cards_of_format_cards_gives_back_the_sorted_ranks(
    ranks: list[Rank], data: st.DataObject
) -> None:
    shuffled = data.draw(st.permutations(ranks))
    text = format_cards(shuffled)
    assert parse_cards(text) == sorted(ranks)
    assert parse_cards(text.lower()) == sorted(ranks)
    assert format_cards(parse_cards(text)) == text
