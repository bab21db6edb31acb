"""SPEC section 4 (the 14 kinds and the kicker rules) and section 5 (beating), one rule at a
time, with every example the rule book gives."""

from __future__ import annotations

import pytest

from protocol import CardTextError, InvalidPlayError, Kind, Play, Rank, classify, parse_cards


def play(text: str) -> Play:
    return Play.parse(text)


def kind_of(text: str) -> Kind | None:
    """The kind these cards make, or None when they make no play."""
    found = classify(parse_cards(text))
    return None if found is None else found.kind


def assert_play(text: str, kind: Kind, main: str) -> None:
    found = classify(parse_cards(text))
    assert found is not None, f"{text!r} should be a {kind}"
    assert found.kind is kind, f"{text!r} is a {found.kind}, not a {kind}"
    assert found.rank.text == main, f"{text!r} has main rank {found.rank}, not {main}"
    assert found.cards == tuple(parse_cards(text))


def assert_no_play(text: str) -> None:
    found = classify(parse_cards(text))
    assert found is None, f"{text!r} should be no play, but is {found!r} ({found and found.kind})"


# --- The kinds ------------------------------------------------------------------------------


def test_there_are_fourteen_kinds_with_their_wire_names() -> None:
    assert [k.value for k in Kind] == [
        "single",
        "pair",
        "triple",
        "triple_single",
        "triple_pair",
        "straight",
        "pair_chain",
        "airplane",
        "airplane_singles",
        "airplane_pairs",
        "four_two_singles",
        "four_two_pairs",
        "bomb",
        "rocket",
    ]


@pytest.mark.parametrize(
    ("text", "main"),
    [("3", "3"), ("10", "10"), ("A", "A"), ("2", "2"), ("SJ", "SJ"), ("BJ", "BJ")],
)
def test_a_single_is_one_card_of_any_rank_jokers_included(text: str, main: str) -> None:
    assert_play(text, Kind.SINGLE, main)


@pytest.mark.parametrize(("text", "main"), [("33", "3"), ("10 10", "10"), ("22", "2")])
def test_a_pair_is_two_cards_of_the_same_rank(text: str, main: str) -> None:
    assert_play(text, Kind.PAIR, main)


@pytest.mark.parametrize("text", ["34", "3 2", "2 SJ", "A BJ"])
def test_two_different_ranks_are_no_pair(text: str) -> None:
    assert_no_play(text)


def test_two_jokers_are_never_a_pair_they_are_the_rocket() -> None:
    rocket = play("SJ BJ")
    assert rocket.kind is Kind.ROCKET
    assert rocket.cards == (Rank.SMALL_JOKER, Rank.BIG_JOKER)


def test_a_pair_of_the_same_joker_is_impossible() -> None:
    assert classify([Rank.SMALL_JOKER, Rank.SMALL_JOKER]) is None
    assert classify([Rank.BIG_JOKER, Rank.BIG_JOKER]) is None
    with pytest.raises(CardTextError):
        Play.parse("SJ SJ")


@pytest.mark.parametrize(("text", "main"), [("333", "3"), ("KKK", "K"), ("222", "2")])
def test_a_triple_is_three_cards_of_the_same_rank(text: str, main: str) -> None:
    assert_play(text, Kind.TRIPLE, main)


@pytest.mark.parametrize(
    ("text", "main"),
    [
        ("333 4", "3"),
        ("3 444", "4"),
        ("222 3", "2"),
        ("KKK SJ", "K"),
        ("AAA BJ", "A"),
        ("333 2", "3"),
    ],
)
def test_a_triple_and_a_single_of_another_rank_is_triple_single(text: str, main: str) -> None:
    assert_play(text, Kind.TRIPLE_SINGLE, main)


@pytest.mark.parametrize(
    ("text", "main"), [("333 44", "3"), ("33 444", "4"), ("222 AA", "2"), ("333 22", "3")]
)
def test_a_triple_and_a_pair_of_another_rank_is_triple_pair(text: str, main: str) -> None:
    assert_play(text, Kind.TRIPLE_PAIR, main)


@pytest.mark.parametrize("text", ["333 4 5", "333 SJ BJ", "333 44 5", "333 444 5"])
def test_a_triple_takes_one_single_or_one_pair_and_nothing_else(text: str) -> None:
    assert_no_play(text)


@pytest.mark.parametrize(
    ("text", "main"),
    [
        ("3-7", "3"),
        ("34567", "3"),
        ("8 9 10 J Q", "8"),
        ("10-A", "10"),
        ("3-8", "3"),
        ("5-A", "5"),
        ("3-A", "3"),
    ],
)
def test_a_straight_is_five_to_twelve_consecutive_single_ranks_within_3_to_a(
    text: str, main: str
) -> None:
    assert_play(text, Kind.STRAIGHT, main)


def test_a_straight_of_twelve_runs_from_3_to_a() -> None:
    longest = play("3 4 5 6 7 8 9 10 J Q K A")
    assert longest.kind is Kind.STRAIGHT
    assert len(longest.cards) == 12
    assert longest.rank is Rank.THREE


@pytest.mark.parametrize(
    "text",
    [
        "3456",  # four cards are too few
        "10 J Q K",
        "3 4 5 6 8",  # a gap
        "3 4 5 6 7 9",
        "J Q K A 2",  # 2 never belongs to a straight
        "Q K A 2 3",  # no wrapping around
        "A 2 3 4 5",
        "10 J Q K A 2",
        "3-A 2",
        "K A 2 SJ BJ",  # nor do the jokers
        "3 4 5 6 7 7",  # one card each
    ],
)
def test_no_straight_is_short_broken_or_holds_2_or_a_joker(text: str) -> None:
    assert_no_play(text)


@pytest.mark.parametrize(
    ("text", "main"),
    [
        ("334455", "3"),
        ("QQKKAA", "Q"),
        ("33 44 55 66", "3"),
        ("55 66 77 88 99 10 10 JJ QQ KK AA", "5"),
    ],
)
def test_a_pair_chain_is_three_or_more_consecutive_pairs_within_3_to_a(
    text: str, main: str
) -> None:
    assert_play(text, Kind.PAIR_CHAIN, main)


def test_a_pair_chain_of_ten_pairs_holds_twenty_cards() -> None:
    chain = play("33 44 55 66 77 88 99 10 10 JJ QQ")
    assert chain.kind is Kind.PAIR_CHAIN
    assert len(chain.cards) == 20
    assert chain.rank is Rank.THREE


@pytest.mark.parametrize(
    "text",
    [
        "3344",  # two pairs are too few
        "KKAA",
        "334466",  # a gap
        "KKAA22",  # 2 never belongs to a pair chain
        "AA2233",
        "33445",
        "3344556",
    ],
)
def test_no_pair_chain_is_short_broken_or_holds_2(text: str) -> None:
    assert_no_play(text)


@pytest.mark.parametrize(
    ("text", "main"),
    [
        ("333444", "3"),
        ("KKKAAA", "K"),
        ("777888999", "7"),
        ("333444555666", "3"),
    ],
)
def test_an_airplane_is_two_or_more_consecutive_triples_within_3_to_a(text: str, main: str) -> None:
    assert_play(text, Kind.AIRPLANE, main)


def test_an_airplane_of_six_triples_holds_eighteen_cards() -> None:
    airplane = play("333 444 555 666 777 888")
    assert airplane.kind is Kind.AIRPLANE
    assert len(airplane.cards) == 18
    assert play("999 10 10 10 JJJ QQQ KKK AAA").kind is Kind.AIRPLANE


@pytest.mark.parametrize("text", ["333555", "AAA222", "222333", "KKKAAA222"])
def test_no_airplane_is_broken_or_holds_2(text: str) -> None:
    assert_no_play(text)


@pytest.mark.parametrize(
    ("text", "main"),
    [
        ("333444 5 6", "3"),
        ("333444 2 BJ", "3"),
        ("333444 SJ 2", "3"),
        ("3 KKKAAA 2", "K"),
        ("333444555 6 7 8", "3"),
        ("333444555666 7 8 9 10", "3"),
        ("333444555666777 8 9 10 J Q", "3"),
    ],
)
def test_an_airplane_of_n_triples_and_n_single_kickers_is_airplane_singles(
    text: str, main: str
) -> None:
    assert_play(text, Kind.AIRPLANE_SINGLES, main)


@pytest.mark.parametrize(
    ("text", "main"),
    [
        ("333444 55 66", "3"),
        ("33 44 QQQKKK", "Q"),
        ("333444555 66 77 22", "3"),
        ("333444555666 77 88 99 10 10", "3"),
        ("666777888999 33 44 AA 22", "6"),
    ],
)
def test_an_airplane_of_n_triples_and_n_kicker_pairs_is_airplane_pairs(
    text: str, main: str
) -> None:
    assert_play(text, Kind.AIRPLANE_PAIRS, main)


def test_airplane_pairs_of_four_triples_holds_twenty_cards() -> None:
    airplane = play("333 444 555 666 77 88 99 10 10")
    assert airplane.kind is Kind.AIRPLANE_PAIRS
    assert len(airplane.cards) == 20


@pytest.mark.parametrize(
    "text",
    [
        "333444 5",  # too few kickers
        "333444 5 6 7",  # too many
        "333444 55 6",  # neither singles nor pairs
        "333444 55 66 77",
        "333444 55 6 7",
    ],
)
def test_an_airplane_takes_exactly_one_kicker_unit_per_triple(text: str) -> None:
    assert_no_play(text)


@pytest.mark.parametrize(
    ("text", "main"),
    [
        ("5555 3 4", "5"),
        ("3 4 5555", "5"),
        ("2222 3 4", "2"),
        ("5555 3 SJ", "5"),
        ("5555 2 BJ", "5"),
    ],
)
def test_four_of_a_rank_and_two_single_kickers_is_four_two_singles(text: str, main: str) -> None:
    assert_play(text, Kind.FOUR_TWO_SINGLES, main)


@pytest.mark.parametrize(
    ("text", "main"),
    [("4444 55 66", "4"), ("44445566", "4"), ("33 2222 AA", "2"), ("AAAA 33 22", "A")],
)
def test_four_of_a_rank_and_two_kicker_pairs_is_four_two_pairs(text: str, main: str) -> None:
    assert_play(text, Kind.FOUR_TWO_PAIRS, main)


def test_44445566_is_four_two_pairs_not_a_bomb() -> None:
    found = play("44445566")
    assert found.kind is Kind.FOUR_TWO_PAIRS
    assert not found.is_bomb_like


@pytest.mark.parametrize("text", ["4444 5", "4444 5 6 7", "4444 55 6", "4444 55 66 77"])
def test_four_of_a_rank_takes_two_singles_or_two_pairs_and_nothing_else(text: str) -> None:
    assert_no_play(text)


@pytest.mark.parametrize(("text", "main"), [("3333", "3"), ("10 10 10 10", "10"), ("2222", "2")])
def test_a_bomb_is_exactly_four_cards_of_one_rank(text: str, main: str) -> None:
    assert_play(text, Kind.BOMB, main)


def test_the_rocket_is_both_jokers() -> None:
    rocket = play("SJ BJ")
    assert rocket.kind is Kind.ROCKET
    assert rocket.rank is Rank.SMALL_JOKER  # by convention; never compared


def test_only_bombs_and_the_rocket_are_bomb_like() -> None:
    assert play("3333").is_bomb_like
    assert play("SJ BJ").is_bomb_like
    for text in ["3", "33", "333", "3333 45", "3333 4455", "333444", "3-7", "SJ"]:
        assert not play(text).is_bomb_like, text


def test_the_empty_play_is_no_play() -> None:
    assert classify([]) is None


def test_more_cards_of_a_rank_than_a_deck_holds_are_no_play() -> None:
    assert classify([Rank.THREE] * 5) is None
    assert classify([Rank.SMALL_JOKER] * 2 + [Rank.THREE] * 3) is None


# --- Kicker rules ---------------------------------------------------------------------------


def test_spec_example_5555_33_is_four_two_singles() -> None:
    assert_play("5555 33", Kind.FOUR_TWO_SINGLES, "5")


def test_two_single_kickers_may_be_a_pair_of_one_rank() -> None:
    assert_play("333444 55", Kind.AIRPLANE_SINGLES, "3")
    assert_play("333444555 66 7", Kind.AIRPLANE_SINGLES, "3")
    assert_play("333444555666 77 88", Kind.AIRPLANE_SINGLES, "3")
    assert_play("2222 AA", Kind.FOUR_TWO_SINGLES, "2")


def test_spec_example_44445555_is_no_play_at_all() -> None:
    assert_no_play("44445555")
    with pytest.raises(InvalidPlayError):
        Play.parse("44445555")


def test_spec_example_333444555666_is_only_an_airplane_of_four() -> None:
    found = play("333444555666")
    assert found.kind is Kind.AIRPLANE
    assert found.rank is Rank.THREE
    assert found.cards == tuple(parse_cards("333444555666"))


def test_a_third_card_of_a_rank_is_never_split_into_single_kickers() -> None:
    assert_no_play("333444555 777")  # not three triples + three 7s
    assert_no_play("333444555666777 8")  # not 444555666777 + 3, 3, 3, 8
    assert_no_play("333 444 555 666 AAA 2")


def test_four_cards_of_a_rank_are_never_split_into_kickers() -> None:
    assert_no_play("333444555666 7777")  # not four 7s as four single kickers
    assert_no_play("333444 7777")  # not two kicker pairs 77 + 77
    assert_no_play("4444 7777")
    assert_no_play("3333444455556666")


def test_two_kicker_pairs_are_of_different_ranks() -> None:
    assert_no_play("333444 5555")
    assert_no_play("AAAA 3333")


def test_a_fourth_card_of_a_main_rank_is_never_a_kicker() -> None:
    assert_no_play("3333 4")  # not 333 + a single 3 (and a 4 left over)
    assert_no_play("3333 444555")  # not 444555 + 33 + 33, nor + 3, 3, 3, 3
    assert_no_play("3333 444555 6")  # not 444555 + 3 + 6 with 333 over
    assert_play("3333 44", Kind.FOUR_TWO_SINGLES, "3")  # four + two, never 333 + 3 + 44
    assert_play("3333 45", Kind.FOUR_TWO_SINGLES, "3")


def test_a_kicker_is_never_of_a_rank_of_the_main_part() -> None:
    assert_no_play("333444 3 4")  # airplane 333444 with kickers 3 and 4
    assert_no_play("333444 3 5")
    assert_no_play("333444 4 5")
    assert_no_play("333444555 3 4 5")
    assert_no_play("3333 4444 55 66")  # four + two pairs cannot take a kicker 3 or 4
    with pytest.raises(CardTextError):
        Play.parse("333 3 3")  # five 3s: no deck holds them


def test_one_joker_alone_may_be_a_single_kicker() -> None:
    assert_play("333 SJ", Kind.TRIPLE_SINGLE, "3")
    assert_play("333 BJ", Kind.TRIPLE_SINGLE, "3")
    assert_play("333444 5 SJ", Kind.AIRPLANE_SINGLES, "3")
    assert_play("333444 BJ 5", Kind.AIRPLANE_SINGLES, "3")
    assert_play("5555 SJ 3", Kind.FOUR_TWO_SINGLES, "5")
    assert_play("5555 BJ 2", Kind.FOUR_TWO_SINGLES, "5")


def test_both_jokers_are_never_kickers_together() -> None:
    assert_no_play("333 SJ BJ")
    assert_no_play("333444 SJ BJ")
    assert_no_play("333444555 6 SJ BJ")
    assert_no_play("5555 SJ BJ")
    assert_no_play("333444555666 7 8 SJ BJ")


def test_jokers_never_make_a_kicker_pair() -> None:
    with pytest.raises(CardTextError):
        Play.parse("333 SJ SJ")
    assert classify(parse_cards("333") + [Rank.BIG_JOKER] * 2) is None
    assert classify(parse_cards("4444 33") + [Rank.SMALL_JOKER] * 2) is None


def test_2_may_be_a_main_rank_or_a_kicker_outside_chains() -> None:
    assert_play("222 3", Kind.TRIPLE_SINGLE, "2")
    assert_play("222 33", Kind.TRIPLE_PAIR, "2")
    assert_play("2222 3 4", Kind.FOUR_TWO_SINGLES, "2")
    assert_play("333444 22", Kind.AIRPLANE_SINGLES, "3")
    assert_play("333444 22 AA", Kind.AIRPLANE_PAIRS, "3")


def test_chains_stop_at_a() -> None:
    assert_play("10 J Q K A", Kind.STRAIGHT, "10")
    assert_no_play("J Q K A 2")
    assert_play("QQKKAA", Kind.PAIR_CHAIN, "Q")
    assert_no_play("KKAA22")
    assert_play("KKKAAA", Kind.AIRPLANE, "K")
    assert_no_play("AAA222")
    assert_no_play("AAA222 3 4")
    assert_no_play("AAA222 33 44")


# --- Play.parse, str and repr ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["34", "3 5", "44445555", "3333 4", "333444 SJ BJ", "J Q K A 2", "3456"]
)
def test_play_parse_raises_invalid_play_error_for_cards_that_are_no_play(text: str) -> None:
    with pytest.raises(InvalidPlayError) as info:
        Play.parse(text)
    assert "is not a play" in str(info.value)


def test_invalid_play_error_is_a_value_error() -> None:
    assert issubclass(InvalidPlayError, ValueError)


@pytest.mark.parametrize("text", ["", "X", "33333", "SJ SJ", "A-3"])
def test_play_parse_raises_card_text_error_for_text_that_is_no_cards(text: str) -> None:
    with pytest.raises(CardTextError):
        Play.parse(text)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("33344", "333 44"),
        ("10 10 10 J", "10 10 10 J"),
        ("TTTJ", "10 10 10 J"),
        ("bj sj", "SJ BJ"),
        ("3-7", "3 4 5 6 7"),
        ("4 4 4 4 5 6", "4444 5 6"),
    ],
)
def test_a_play_prints_as_its_sorted_card_text(text: str, shown: str) -> None:
    found = play(text)
    assert str(found) == shown
    assert repr(found) == f"Play.parse({shown!r})"


@pytest.mark.parametrize(
    "text",
    [
        "3",
        "BJ",
        "22",
        "333 BJ",
        "333 22",
        "3-A",
        "33 44 55",
        "333444 SJ 2",
        "333444 55 66",
        "5555 33",
        "4444 55 66",
        "2222",
        "SJ BJ",
    ],
)
def test_str_and_repr_of_a_play_round_trip(text: str) -> None:
    found = play(text)
    assert Play.parse(str(found)) == found
    assert eval(repr(found), {"Play": Play}) == found


def test_a_play_holds_its_kind_main_rank_and_sorted_cards() -> None:
    found = play("4 333")
    assert found == Play(Kind.TRIPLE_SINGLE, Rank.THREE, (Rank.THREE,) * 3 + (Rank.FOUR,))
    assert found.kind is Kind.TRIPLE_SINGLE
    assert found.rank is Rank.THREE
    assert found.cards == (Rank.THREE, Rank.THREE, Rank.THREE, Rank.FOUR)


# --- Beating --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("higher", "lower"),
    [
        ("4", "3"),
        ("2", "A"),
        ("SJ", "2"),
        ("BJ", "SJ"),
        ("22", "AA"),
        ("44", "33"),
        ("222", "AAA"),
        ("444 3", "333 2"),
        ("KKK 3", "QQQ BJ"),  # SPEC: kickers never count
        ("444 33", "333 22"),
        ("45678", "34567"),
        ("10-A", "9-K"),
        ("4-A", "3-K"),
        ("445566", "334455"),
        ("444555", "333444"),
        ("444555 3 3", "333444 2 BJ"),
        ("444555 33 66", "333444 22 AA"),
        ("6666 3 4", "5555 2 BJ"),
        ("6666 3 3", "5555 22"),
        ("6666 33 44", "5555 22 AA"),
    ],
)
def test_a_play_of_the_same_kind_and_size_with_a_higher_main_rank_beats(
    higher: str, lower: str
) -> None:
    assert play(higher).kind is play(lower).kind
    assert play(higher).beats(play(lower))
    assert not play(lower).beats(play(higher))


def test_spec_example_kkk_3_beats_qqq_bj_because_kickers_never_count() -> None:
    assert play("KKK 3").beats(play("QQQ BJ"))
    assert not play("QQQ BJ").beats(play("KKK 3"))


@pytest.mark.parametrize(
    "text",
    ["3", "BJ", "55", "777", "777 3", "777 33", "3-7", "334455", "333444", "333444 5 6",
     "333444 55 66", "5555 3 4", "5555 33 44", "5555", "SJ BJ"],
)  # fmt: skip
def test_a_play_never_beats_its_equal(text: str) -> None:
    assert not play(text).beats(play(text))


def test_equal_main_rank_does_not_beat_whatever_the_kickers() -> None:
    assert not play("333 BJ").beats(play("333 4"))
    assert not play("333444 2 BJ").beats(play("333444 5 6"))
    assert not play("5555 2 BJ").beats(play("5555 3 4"))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("3-7", "4-9"),  # a straight of 6 and one of 5
        ("3-8", "4-8"),
        ("10-A", "3-A"),
        ("334455", "33 44 55 66"),
        ("333444", "444555666"),
        ("333444 5 6", "444555666 7 8 9"),
        ("333444 55 66", "444555666 77 88 99"),
    ],
)
def test_chains_of_different_sizes_never_beat_each_other(one: str, other: str) -> None:
    assert play(one).kind is play(other).kind
    assert len(play(one).cards) != len(play(other).cards)
    assert not play(one).beats(play(other))
    assert not play(other).beats(play(one))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("44", "3"),
        ("2", "33"),
        ("444", "33"),
        ("444", "333 5"),
        ("444 3", "333 55"),
        ("4-8", "33 44 55"),
        ("444555", "33 44 55"),
        ("444555 3 3", "444555"),
        ("444555 3 3", "3344 5566"),
        ("AAAA 3 4", "KKK 55"),
        ("AAAA 3 4", "3333 44 55"),  # four + two singles and four + two pairs
        ("AAAA 33 44", "33 44 55 66"),
        ("444555 66 77", "AAAA 33 44"),
    ],
)
def test_different_ordinary_kinds_never_beat_each_other(one: str, other: str) -> None:
    assert not play(one).beats(play(other))
    assert not play(other).beats(play(one))


ORDINARY_EXAMPLES = [
    "BJ",
    "22",
    "222",
    "222 BJ",
    "222 AA",
    "3-A",
    "55 66 77 88 99 10 10 JJ QQ KK AA",
    "999 10 10 10 JJJ QQQ KKK AAA",
    "JJJQQQKKKAAA 2 2 SJ 3",
    "QQQKKKAAA 22 33 44",
    "2222 SJ A",
    "2222 AA KK",
]


@pytest.mark.parametrize("text", ORDINARY_EXAMPLES)
def test_the_lowest_bomb_beats_every_ordinary_play(text: str) -> None:
    assert play("3333").beats(play(text))
    assert not play(text).beats(play("3333"))


def test_four_two_singles_and_four_two_pairs_are_not_bombs() -> None:
    assert play("3333").beats(play("2222 3 4"))
    assert play("3333").beats(play("2222 44 55"))
    assert not play("2222 3 4").beats(play("3333"))
    assert not play("2222 44 55").beats(play("3333"))
    assert not play("2222 3 4").beats(play("AAAA"))
    assert play("KKKK 3 4").beats(play("5555 A 2"))  # a higher four of the same kind
    assert not play("KKKK 3 4").beats(play("5555 33 44"))  # but not another size


def test_a_higher_bomb_beats_a_bomb() -> None:
    assert play("4444").beats(play("3333"))
    assert play("2222").beats(play("AAAA"))
    assert not play("3333").beats(play("4444"))
    assert not play("AAAA").beats(play("2222"))


def test_bombs_rank_by_main_rank_in_the_rank_order() -> None:
    bombs = [play(f"{r.text} {r.text} {r.text} {r.text}") for r in Rank if r < Rank.SMALL_JOKER]
    for i, low in enumerate(bombs):
        for high in bombs[i + 1 :]:
            assert high.beats(low)
            assert not low.beats(high)


@pytest.mark.parametrize("text", [*ORDINARY_EXAMPLES, "3", "3333", "2222", "AAAA"])
def test_the_rocket_beats_everything(text: str) -> None:
    assert play("SJ BJ").beats(play(text))


@pytest.mark.parametrize("text", [*ORDINARY_EXAMPLES, "3", "3333", "2222", "SJ BJ"])
def test_nothing_beats_the_rocket(text: str) -> None:
    assert not play(text).beats(play("SJ BJ"))
