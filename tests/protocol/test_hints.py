"""hint_plays (issue 14, item 10): the plays a hint offers are exactly the legal plays, but
the ones that keep bombs, the rocket and chains whole come first."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import Play, Rank, legal_plays, parse_cards
from protocol.cards import full_deck, ranks_of
from protocol.hints import breaks_bomb_or_rocket, hand_groups, hint_plays


def texts(plays: list[Play]) -> list[str]:
    return [str(p) for p in plays]


def first(hand: str, to_beat: str | None = None) -> str:
    beat = None if to_beat is None else Play.parse(to_beat)
    return str(hint_plays(parse_cards(hand), beat)[0])


# --- the two reported cases ------------------------------------------------------------------


def test_a_lead_does_not_break_a_3333_bomb_into_a_single_3() -> None:
    # Reported: the first hint on a lead was a single 3 out of 3333.
    hand = "3333 5 8 J"
    assert str(legal_plays(parse_cards(hand))[0]) == "3"  # the smallest play: it breaks
    assert first(hand) == "5"
    order = texts(hint_plays(parse_cards(hand)))
    # every play that leaves the bomb whole comes before any that breaks it
    assert order.index("3333") < order.index("3") < order.index("33")


def test_an_ace_is_answered_with_a_2_before_a_joker() -> None:
    # Reported: the hint answered an A with a joker while a 2 was there.
    assert first("4 7 2 SJ BJ", "A") == "2"
    assert first("4 7 2 SJ", "A") == "2"
    order = texts(hint_plays(parse_cards("4 7 2 SJ BJ"), Play.parse("A")))
    assert order == ["2", "SJ BJ", "SJ", "BJ"]  # the rocket whole before one joker of it


def test_a_straight_is_kept_whole_when_another_single_answers() -> None:
    # 34567 is one group: answering a single 3 with the 9 keeps it; the 4 would break it.
    assert first("3 4 5 6 7 9 K", "3") == "9"
    # A lead plays a whole group of the best split: the straight, or a lone card.
    assert first("3 4 5 6 7 9") in ("3 4 5 6 7", "9")


def test_a_triple_takes_a_lone_card_along_on_a_lead() -> None:
    assert first("333 5 8 J") == "333 5"


def test_the_fours_with_two_break_a_bomb() -> None:
    hand = parse_cards("3333 5 8")
    assert breaks_bomb_or_rocket(Play.parse("3333 5 8"), hand)
    assert not breaks_bomb_or_rocket(Play.parse("3333"), hand)
    assert breaks_bomb_or_rocket(Play.parse("SJ"), parse_cards("SJ BJ"))
    assert not breaks_bomb_or_rocket(Play.parse("SJ"), parse_cards("SJ 2"))


def test_groups_count_a_hand_as_a_club_player_does() -> None:
    def groups(text: str) -> int:
        return hand_groups(tuple(Counter(r.index for r in parse_cards(text))[i] for i in range(15)))

    assert hand_groups((0,) * 15) == 0
    assert groups("3 4 5 6 7") == 1
    assert groups("3 4 5 6 7 9") == 2
    assert groups("333 5") == 1
    assert groups("333 444 5 6") == 1  # an airplane with two wings
    assert groups("3333 SJ BJ") == 2
    assert groups("33 44 55 K") == 2


# --- legal and complete ----------------------------------------------------------------------


@st.composite
def positions(draw: st.DrawFn) -> tuple[list[Rank], Play | None]:
    deck = draw(st.permutations(full_deck()))
    hand = ranks_of(deck[: draw(st.integers(1, 20))])
    if draw(st.integers(0, 4)) == 0:
        return hand, None
    other = legal_plays(ranks_of(deck[20 : 20 + draw(st.integers(1, 20))]))
    return hand, draw(st.sampled_from(other))


@settings(max_examples=400, deadline=None)
@given(positions())
def test_hints_are_exactly_the_legal_plays(position: tuple[list[Rank], Play | None]) -> None:
    hand, to_beat = position
    legal = legal_plays(hand, to_beat)
    hints = hint_plays(hand, to_beat)
    assert len(hints) == len(legal) and set(hints) == set(legal)


@settings(max_examples=200, deadline=None)
@given(positions())
def test_plays_that_break_a_bomb_or_the_rocket_come_last(
    position: tuple[list[Rank], Play | None],
) -> None:
    hand, to_beat = position
    breaking = [breaks_bomb_or_rocket(p, hand) for p in hint_plays(hand, to_beat)]
    assert breaking == sorted(breaking)
