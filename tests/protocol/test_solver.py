"""protocol.solver (issue 32): the exact solver equals a plain minimax over ``legal_plays`` on
thousands of small random positions of both forms (winner and every winning move), a
position is won iff some move leads to a position lost for the other side, the published
two-hand puzzles get their published results, and limits give "unknown", never a guess."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import cache

import pytest

from protocol.cards import Rank, card_rank, parse_cards
from protocol.legal import legal_plays
from protocol.plays import Play
from protocol.solver import (
    FARMER1,
    FARMER2,
    LANDLORD,
    Solution,
    SolveInputError,
    solve_three,
    solve_two,
)
from protocol.solver.lean import lean, present
from protocol.solver.moves import PLAY, leads, pack_ranks

Hand = tuple[Rank, ...]


def _without(hand: Hand, play: Play) -> Hand:
    left = Counter(hand)
    left.subtract(play.cards)
    return tuple(sorted(left.elements()))


@cache
def brute_two(a: Hand, b: Hand, last: Play | None) -> bool:
    """Plain minimax: whether hand ``a``, to move on ``last``, goes out before ``b``."""
    for p in legal_plays(a, last):
        rest = _without(a, p)
        if not rest or not brute_two(b, rest, p):
            return True
    return last is not None and not brute_two(b, a, None)


def brute_two_moves(a: Hand, b: Hand, last: Play | None) -> set[Play | None]:
    won: set[Play | None] = set()
    for p in legal_plays(a, last):
        rest = _without(a, p)
        if not rest or not brute_two(b, rest, p):
            won.add(p)
    if last is not None and not brute_two(b, a, None):
        won.add(None)
    return won


Hands3 = tuple[Hand, Hand, Hand]


@cache
def brute_three(hands: Hands3, turn: int, last: Play | None, by: int) -> bool:
    """Plain minimax: whether the landlord (seat 0) goes out first."""
    values = brute_three_values(hands, turn, last, by).values()
    return any(values) if turn == LANDLORD else all(values)


def brute_three_values(
    hands: Hands3, turn: int, last: Play | None, by: int
) -> dict[Play | None, bool]:
    """Each move of ``turn`` (None: the pass) and whether the landlord wins after it."""
    if by == turn:
        last = None
    values: dict[Play | None, bool] = {}
    nxt = (turn + 1) % 3
    for p in legal_plays(hands[turn], last):
        rest = _without(hands[turn], p)
        if not rest:
            values[p] = turn == LANDLORD
            continue
        after = list(hands)
        after[turn] = rest
        values[p] = brute_three((after[0], after[1], after[2]), nxt, p, turn)
    if last is not None:
        values[None] = brute_three(hands, nxt, last, by)
    return values


#: Decks for small positions: the whole deck, and a few ranks only, so that pairs, triples,
#: bombs, chains, airplanes, four-with-two and the rocket come up often.
_DECKS = [
    list(range(54)),
    [c for c in range(54) if card_rank(c) <= Rank.NINE or c >= 48],
    [c for c in range(54) if Rank.FIVE <= card_rank(c) <= Rank.NINE or c >= 52],
]


def _draw(rng: random.Random, deck: list[int], n: int) -> Hand:
    return tuple(sorted(card_rank(deck.pop()) for _ in range(n)))


def _random_play(rng: random.Random, hand: Hand) -> Play:
    return rng.choice(legal_plays(hand))


def _position_two(rng: random.Random) -> tuple[Hand, Hand, Play | None]:
    deck = list(rng.choice(_DECKS))
    rng.shuffle(deck)
    a = _draw(rng, deck, rng.randint(1, 7))
    b = _draw(rng, deck, rng.randint(1, 7))
    last = None
    if rng.random() < 0.5:
        last = _random_play(rng, _draw(rng, deck, rng.randint(1, 6)))
    return a, b, last


def _position_three(rng: random.Random) -> tuple[Hands3, int, Play | None, int | None]:
    deck = list(rng.choice(_DECKS))
    rng.shuffle(deck)
    hands = (
        _draw(rng, deck, rng.randint(1, 4)),
        _draw(rng, deck, rng.randint(1, 3)),
        _draw(rng, deck, rng.randint(1, 3)),
    )
    turn = rng.randrange(3)
    last: Play | None = None
    by: int | None = None
    if rng.random() < 0.5:
        by = rng.choice([s for s in range(3) if s != turn])
        last = _random_play(rng, _draw(rng, deck, rng.randint(1, 6)))
    return hands, turn, last, by


def _moves(solution: Solution) -> set[Play | None]:
    return set(solution.winning_moves)


def test_two_hands_equal_brute_force() -> None:
    rng = random.Random(32)
    for _ in range(2000):
        a, b, last = _position_two(rng)
        got = solve_two(a, b, last)
        want = brute_two_moves(a, b, last)
        assert got.winner == ("first" if want else "second"), (a, b, last)
        assert _moves(got) == want, (a, b, last)
        assert len(got.winning_moves) == len(want)
        assert got.positions >= 0


def test_three_seats_equal_brute_force() -> None:
    rng = random.Random(33)
    for _ in range(2000):
        hands, turn, last, by = _position_three(rng)
        got = solve_three(*hands, turn=turn, to_beat=last, by=by)
        values = brute_three_values(hands, turn, last, turn if by is None else by)
        mine = turn == LANDLORD
        want = {m for m, landlord_won in values.items() if landlord_won == mine}
        landlord_won = bool(want) == mine
        assert got.winner == ("landlord" if landlord_won else "farmers"), (hands, turn, last, by)
        assert _moves(got) == want, (hands, turn, last, by)


def test_three_seats_with_kicker_choices_equal_brute_force() -> None:
    # The landlord holds a triple or a four and several lone cards, so that the search leaves
    # out kicker choices that another choice dominates (protocol.solver.moves); the answer
    # must not change.
    rng = random.Random(36)
    pruned = 0
    for _ in range(300):
        deck = list(range(54))
        rng.shuffle(deck)
        main = rng.randrange(13)
        width = rng.choice((3, 3, 4))
        landlord = [main] * width
        deck = [c for c in deck if card_rank(c) - 3 != main]
        landlord += [card_rank(deck.pop()) - 3 for _ in range(rng.randint(2, 4))]
        hands = (
            tuple(sorted(Rank(i + 3) for i in landlord)),
            _draw(rng, deck, rng.randint(1, 2)),
            _draw(rng, deck, rng.randint(1, 2)),
        )
        turn = rng.randrange(3)
        got = solve_three(*hands, turn=turn)
        values = brute_three_values(hands, turn, None, turn)
        mine = turn == LANDLORD
        want = {m for m, landlord_won in values.items() if landlord_won == mine}
        assert got.winner == ("landlord" if bool(want) == mine else "farmers"), (hands, turn)
        assert _moves(got) == want, (hands, turn)
        mine, others = pack_ranks(hands[0]), pack_ranks(hands[1] + hands[2])
        pruned += len(leads(mine)) - len(lean(mine, None, present(others), 0))
    assert pruned > 100  # the positions do exercise the pruning


def _lean_texts(hand: str, others: str = "", partner: str = "") -> set[str]:
    mask = present(pack_ranks(parse_cards(others))) if others else 0
    pmask = present(pack_ranks(parse_cards(partner))) if partner else 0
    return {str(m[PLAY]) for m in lean(pack_ranks(parse_cards(hand)), None, mask, pmask)}


def test_lean_keeps_the_lowest_lone_kickers() -> None:
    # 4, 6, 9, Q and 2 are lone cards (no straight can hold them): of them only the 4 goes
    # with the triple. A joker, and a 7 of the pair, are not lone: those plays are kept.
    kept = _lean_texts("333 4 6 9 Q 2 SJ 77")
    assert {"333 4", "333 SJ", "333 7", "333 77"} <= kept
    assert not {"333 6", "333 9", "333 Q", "333 2"} & kept
    # A farmer whose partner holds an 8 keeps the lowest lone kicker on each side of it.
    kept = _lean_texts("333 4 6 9 Q 2 SJ 77", partner="8")
    assert {"333 4", "333 9"} <= kept
    assert not {"333 6", "333 Q", "333 2"} & kept


def test_lean_keeps_the_lowest_lone_single_between_the_others_cards() -> None:
    # The others hold a 5 and a 10: 4 | 6 9 | Q 2 make the same table within each stretch.
    kept = _lean_texts("4 6 9 Q 2 SJ 77", others="5 10")
    assert {"4", "6", "Q", "SJ", "7", "77"} <= kept
    assert not {"9", "2"} & kept
    # No card of the others: every lone single makes the same table, the lowest is kept.
    assert {"4", "6", "9", "Q", "2"} & _lean_texts("4 6 9 Q 2", others="SJ") == {"4"}
    # Lone pairs alike.
    assert {"44", "99"} & _lean_texts("44 99 J", others="3") == {"44"}


def _children_two(a: Hand, b: Hand, last: Play | None) -> list[tuple[Play | None, bool]]:
    """Each move of ``a`` and whether ``b`` (then to move) wins after it, by the solver."""
    out: list[tuple[Play | None, bool]] = []
    for p in legal_plays(a, last):
        rest = _without(a, p)
        out.append((p, bool(rest) and solve_two(b, rest, p).winner == "first"))
    if last is not None:
        out.append((None, solve_two(b, a).winner == "first"))
    return out


def test_two_hands_won_iff_some_move_leaves_the_other_lost() -> None:
    rng = random.Random(34)
    for _ in range(300):
        a, b, last = _position_two(rng)
        got = solve_two(a, b, last)
        children = _children_two(a, b, last)
        assert (got.winner == "first") == any(not other for _, other in children)
        assert _moves(got) == {m for m, other in children if not other}


def test_three_seats_won_iff_some_move_leaves_the_other_side_lost() -> None:
    rng = random.Random(35)
    for _ in range(300):
        hands, turn, last, by = _position_three(rng)
        got = solve_three(*hands, turn=turn, to_beat=last, by=by)
        mine = "landlord" if turn == LANDLORD else "farmers"
        nxt = (turn + 1) % 3
        children: list[tuple[Play | None, str]] = []
        for p in legal_plays(hands[turn], last):
            rest = _without(hands[turn], p)
            if not rest:
                children.append((p, mine))
                continue
            after = list(hands)
            after[turn] = rest
            children.append((p, solve_three(*after, turn=nxt, to_beat=p, by=turn).winner or ""))
        if last is not None:
            assert by is not None
            # After a pass the trick goes on, or is over if the next seat made the play.
            nxt_beat = None if by == nxt else last
            children.append(
                (
                    None,
                    solve_three(
                        *hands, turn=nxt, to_beat=nxt_beat, by=None if by == nxt else by
                    ).winner
                    or "",
                )
            )
        assert (got.winner == mine) == any(w == mine for _, w in children)
        assert _moves(got) == {m for m, w in children if w == mine}


def _table_cards(text: str) -> list[Rank]:
    """The published table's notation: 0 the ten, Y the small joker, Z the big one."""
    return parse_cards(" ".join({"0": "10", "Y": "SJ", "Z": "BJ"}.get(c, c) for c in text))


#: WZ403809264/doudizhu_solver's published two-hand positions, first to move and lead.
PUBLISHED = [
    ("KK5543", "225543", "first"),
    ("ZA54333", "Y222KQ", "first"),
    ("2KK0077554", "AA8", "second"),
    ("ZKKQJ09876633", "AAKQJ0987", "first"),
    ("2AK096554", "YKJ08854", "first"),
    ("ZYAAKKQ0099", "2222JJ00", "first"),
    ("Y2AK998553", "ZQQJJ0953", "first"),
]


@pytest.mark.parametrize(("first", "second", "winner"), PUBLISHED)
def test_published_positions(first: str, second: str, winner: str) -> None:
    assert solve_two(_table_cards(first), _table_cards(second)).winner == winner


def test_published_first_position_has_two_winning_leads() -> None:
    got = solve_two(parse_cards("KK5543"), parse_cards("225543"))
    assert [str(m) for m in got.winning_moves] == ["4", "5"]


def test_a_node_limit_gives_unknown_never_a_guess() -> None:
    a, b = _table_cards("2AK096554"), _table_cards("YKJ08854")
    cut = solve_two(a, b, node_limit=50)
    assert cut.winner is None and not cut.known and cut.winning_moves == ()
    assert solve_two(a, b, node_limit=10**7).winner == "first"


def test_a_time_limit_gives_unknown() -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 1.0
        return now[0]

    a, b = _table_cards("ZKKQJ09876633"), _table_cards("AAKQJ0987")
    assert solve_two(a, b, time_limit=0.5, clock=clock).winner is None


def test_pass_is_a_winning_move_when_it_is_one() -> None:
    # farmer1 played a 7, the landlord (a pair of 3s) passed; farmer1 goes out with its 2
    # once it leads or answers, so farmer2 wins by beating the 7 with its 8, or by passing.
    got = solve_three(
        parse_cards("3 3"),
        parse_cards("2"),
        parse_cards("4 4 8"),
        turn=FARMER2,
        to_beat=Play.parse("7"),
        by=FARMER1,
    )
    assert got.winner == "farmers"
    assert _fmt(got.winning_moves) == ["8", "pass"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"landlord": "", "farmer1": "3", "farmer2": "4"}, "empty"),
        ({"landlord": "3333", "farmer1": "3", "farmer2": "4"}, "5 cards of rank 3"),
        ({"landlord": "SJ", "farmer1": "SJ", "farmer2": "4"}, "2 cards of rank SJ"),
    ],
)
def test_bad_hands_are_refused(kwargs: dict[str, str], message: str) -> None:
    hands = [parse_cards(t) if t else [] for t in kwargs.values()]
    with pytest.raises(SolveInputError, match=message):
        solve_three(*hands)


def test_a_play_to_beat_must_fit_the_deck_and_name_another_seat() -> None:
    with pytest.raises(SolveInputError, match="play to beat"):
        solve_two(parse_cards("333"), parse_cards("4"), Play.parse("33"))
    with pytest.raises(SolveInputError, match="own play"):
        solve_three(
            parse_cards("3"),
            parse_cards("4"),
            parse_cards("5"),
            to_beat=Play.parse("6"),
            by=LANDLORD,
        )
    with pytest.raises(SolveInputError, match="seat that made it"):
        solve_three(parse_cards("3"), parse_cards("4"), parse_cards("5"), to_beat=Play.parse("6"))
    with pytest.raises(SolveInputError, match="no seat"):
        solve_three(parse_cards("3"), parse_cards("4"), parse_cards("5"), turn=FARMER2 + 1)


def _fmt(plays: Sequence[Play | None]) -> list[str]:
    return ["pass" if p is None else str(p) for p in plays]


def test_farmers_win_when_the_partner_goes_out() -> None:
    # farmer1 leads 4 and is out next unless the landlord beats it; the landlord can't.
    got = solve_three(parse_cards("3 5"), parse_cards("4 6"), parse_cards("7"), turn=FARMER1)
    assert got.winner == "farmers"
    assert _fmt(got.winning_moves) == ["4", "6"]
