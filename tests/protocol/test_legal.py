"""legal_plays (SPEC sections 4, 5 and the hint of section 10): every play a hand can make
that beats the table, each once, smallest first, then bombs, then the rocket."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import Kind, Play, Rank, classify, legal_plays, parse_cards
from protocol.cards import full_deck, rank_counts, ranks_of
from protocol.legal import hint_order, legal_plays_from_counts


def hand(text: str) -> list[Rank]:
    return parse_cards(text)


def play(text: str) -> Play:
    return Play.parse(text)


def texts(plays: Sequence[Play]) -> list[str]:
    return [str(p) for p in plays]


@st.composite
def hands(draw: st.DrawFn, min_size: int = 1, max_size: int = 20) -> list[Rank]:
    """A random hand: a random sub-multiset of the deck of ``min_size``..``max_size`` cards."""
    size = draw(st.integers(min_size, max_size))
    deck = draw(st.permutations(full_deck()))
    return ranks_of(deck[:size])


@st.composite
def tables(draw: st.DrawFn) -> Play | None:
    """Nothing on the table (a lead), or a random play of another random hand (a random kind
    first, so that airplanes with kickers, the most numerous, do not crowd out the rest)."""
    if draw(st.integers(0, 4)) == 0:
        return None
    other = legal_plays(draw(hands()))
    kind = draw(st.sampled_from(sorted({p.kind for p in other}, key=list(Kind).index)))
    return draw(st.sampled_from([p for p in other if p.kind is kind]))


def hint_group(p: Play) -> int:
    return 2 if p.kind is Kind.ROCKET else 1 if p.kind is Kind.BOMB else 0


def held_by(p: Play, cards: Sequence[Rank]) -> bool:
    return not Counter(p.cards) - Counter(cards)


def brute_force(cards: Sequence[Rank], to_beat: Play | None) -> set[Play]:
    """Every play among the sub-multisets of ``cards`` that beats ``to_beat``."""
    counts = sorted(Counter(cards).items())
    found: set[Play] = set()
    for taken in itertools.product(*(range(n + 1) for _, n in counts)):
        sub = [r for (r, _), k in zip(counts, taken, strict=True) for _ in range(k)]
        p = classify(sub)
        if p is not None and (to_beat is None or p.beats(to_beat)):
            found.add(p)
    return found


# --- Properties -----------------------------------------------------------------------------


@pytest.mark.slow  # thousands of generated hands
@settings(max_examples=1000, deadline=None)
@given(cards=hands(), to_beat=tables())
def test_every_legal_play_is_a_held_play_that_beats_the_table_once_in_hint_order(
    cards: list[Rank], to_beat: Play | None
) -> None:
    plays = legal_plays(cards, to_beat)
    assert len(set(plays)) == len(plays), "a play is listed twice"
    for p in plays:
        assert classify(p.cards) == p, f"{p!r} does not classify as itself"
        assert held_by(p, cards), f"{p!r} is not in the hand {cards}"
        assert len(p.cards) <= 20
        if to_beat is not None:
            assert p.beats(to_beat), f"{p!r} does not beat {to_beat!r}"
    groups = [hint_group(p) for p in plays]
    assert groups == sorted(groups), "ordinary plays, then bombs, then the rocket"
    ordinary = [p.rank for p in plays if hint_group(p) == 0]
    assert ordinary == sorted(ordinary), "ordinary plays ascend by main rank"
    bombs = [p.rank for p in plays if p.kind is Kind.BOMB]
    assert bombs == sorted(set(bombs)), "bombs ascend, each once"
    assert groups.count(2) <= 1
    # the whole order, kickers included: legal_plays sorts by a packed int key, which must
    # order exactly as the documented hint_order tuple does
    assert plays == sorted(plays, key=hint_order)


@pytest.mark.slow  # thousands of generated hands
@settings(max_examples=1000, deadline=None)
@given(cards=hands(), to_beat=tables())
def test_legal_answers_are_the_legal_leads_that_beat_the_table(
    cards: list[Rank], to_beat: Play | None
) -> None:
    leads = legal_plays(cards)
    assert legal_plays(cards, to_beat) == [p for p in leads if to_beat is None or p.beats(to_beat)]


@pytest.mark.slow  # thousands of generated hands
@settings(max_examples=1000, deadline=None)
@given(cards=hands(max_size=10), to_beat=tables())
def test_brute_force_over_small_hands_finds_no_play_legal_plays_missed(
    cards: list[Rank], to_beat: Play | None
) -> None:
    assert set(legal_plays(cards, to_beat)) == brute_force(cards, to_beat)


@settings(max_examples=300, deadline=None)
@given(cards=hands())
def test_a_lead_always_has_a_play_every_single_card_of_the_hand(cards: list[Rank]) -> None:
    singles = [p.rank for p in legal_plays(cards) if p.kind is Kind.SINGLE]
    assert singles == sorted(set(cards))


@settings(max_examples=300, deadline=None)
@given(cards=hands(), to_beat=tables())
def test_legal_plays_do_not_depend_on_the_order_of_the_hand(
    cards: list[Rank], to_beat: Play | None
) -> None:
    assert legal_plays(list(reversed(cards)), to_beat) == legal_plays(cards, to_beat)


# --- Fixed examples -------------------------------------------------------------------------


def test_a_pair_is_answered_by_higher_pairs_then_the_bomb_then_the_rocket() -> None:
    answers = legal_plays(hand("3 44 66 QQ 7777 2 SJ BJ"), play("55"))
    # 77 may be split from the bomb; 44 is too low; the jokers are no pair
    assert texts(answers) == ["66", "77", "QQ", "7777", "SJ BJ"]


def test_nothing_answers_the_rocket() -> None:
    assert legal_plays(hand("3333 2222 SJ BJ AAAA"), play("SJ BJ")) == []
    assert legal_plays(hand("44 55 66 77"), play("SJ BJ")) == []


def test_only_higher_bombs_and_the_rocket_answer_a_bomb() -> None:
    answers = legal_plays(hand("3333 8888 KKKK 99 222 SJ BJ"), play("5555"))
    assert texts(answers) == ["8888", "KKKK", "SJ BJ"]
    assert legal_plays(hand("3333 4444 99 2 SJ"), play("5555")) == []


def test_four_two_singles_is_answered_by_a_higher_four_of_the_same_size_and_any_bomb() -> None:
    answers = legal_plays(hand("3333 55 66 KKKK 2"), play("4444 7 8"))
    assert [p.kind for p in answers[:-2]] == [Kind.FOUR_TWO_SINGLES] * (len(answers) - 2)
    assert all(p.rank is Rank.KING for p in answers[:-2])
    assert texts(answers[-2:]) == ["3333", "KKKK"]
    assert "KKKK 55 66" not in texts(answers)  # four + two pairs is another size


def test_a_straight_is_answered_only_by_higher_straights_of_the_same_length() -> None:
    answers = legal_plays(hand("4 5 6 7 8 9 10"), play("3-7"))
    assert texts(answers) == ["4 5 6 7 8", "5 6 7 8 9", "6 7 8 9 10"]


def test_kickers_never_count_when_answering() -> None:
    answers = legal_plays(hand("3 QQQ KKK BJ"), play("QQQ 4"))
    # QQQ + a higher kicker does not beat QQQ 4; KKK with any kicker does
    assert texts(answers) == ["3 KKK", "Q KKK", "KKK BJ"]
    assert not play("QQQ BJ").beats(play("QQQ 4"))


def test_both_jokers_are_never_offered_as_kickers() -> None:
    answers = legal_plays(hand("444 SJ BJ"), play("333 5"))
    assert texts(answers) == ["444 SJ", "444 BJ", "SJ BJ"]
    leads = texts(legal_plays(hand("333444 SJ BJ")))
    assert "333444 SJ BJ" not in leads
    assert "SJ BJ" in leads


def test_a_hand_of_both_jokers_leads_two_singles_or_the_rocket_never_a_pair() -> None:
    leads = legal_plays(hand("SJ BJ"))
    assert [(p.kind, str(p)) for p in leads] == [
        (Kind.SINGLE, "SJ"),
        (Kind.SINGLE, "BJ"),
        (Kind.ROCKET, "SJ BJ"),
    ]


def test_a_play_bigger_than_the_hand_is_answered_only_by_bombs_and_the_rocket() -> None:
    answers = legal_plays(hand("2222 SJ BJ"), play("3-10"))
    assert texts(answers) == ["2222", "SJ BJ"]


def test_an_empty_hand_has_no_play() -> None:
    assert legal_plays([]) == []
    assert legal_plays([], play("3")) == []


def test_a_lead_lists_ordinary_plays_by_main_rank_then_bombs_then_the_rocket() -> None:
    leads = legal_plays(hand("3333 44 2222 SJ BJ"))
    kinds = [p.kind for p in leads]
    assert kinds[-3:] == [Kind.BOMB, Kind.BOMB, Kind.ROCKET]
    assert texts(leads[-3:]) == ["3333", "2222", "SJ BJ"]
    assert str(leads[0]) == "3"


@settings(max_examples=200, deadline=None)
@given(cards=hands(), to_beat=tables())
def test_plays_from_counts_are_the_same_plays_and_the_same_objects_each_time(
    cards: list[Rank], to_beat: Play | None
) -> None:
    # the bots' searches keep hands as counts and key caches on the plays' identity
    counts = rank_counts(cards)
    plays = legal_plays_from_counts(counts, to_beat)
    assert plays == legal_plays(cards, to_beat)
    again = legal_plays_from_counts(tuple(counts), to_beat)
    assert all(a is b for a, b in zip(plays, again, strict=True))
