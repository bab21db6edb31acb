"""The puzzle miner's filter on constructed positions: one winning move, at least three
plays to win, missed by the player; one puzzle per position of cards."""

from __future__ import annotations

from protocol.cards import Rank, parse_cards
from protocol.plays import Play, classify
from server.analysis.puzzles import Puzzle, mine, puzzle_at, puzzle_key, unique, wins_within
from server.analysis.review import (
    Budget,
    PlayedDeal,
    Position,
    Step,
    review_deal,
    solve,
)


def cards(text: str) -> tuple[Rank, ...]:
    return tuple(parse_cards(text))


def play(text: str) -> Play:
    found = classify(parse_cards(text))
    assert found is not None
    return found


# The landlord leads 5 9 10 Q against 33 6 7 10 K and 5 6: only the 9 wins, in four plays.
PUZZLE = Position((cards("5 9 10 Q"), cards("33 6 7 10 K"), cards("5 6")), 0, 0, None, None)


def test_a_position_with_one_winning_move_missed_by_the_player_is_a_puzzle() -> None:
    puzzle = puzzle_at(PUZZLE, played=play("5"))
    assert puzzle == Puzzle(PUZZLE, "landlord", cards("9"))
    for option in PUZZLE.options():  # the definition, move by move
        after = PUZZLE.after(option)
        assert after is not None
        won = solve(after).winner == "landlord"
        assert won == (option is not None and option.cards == cards("9"))


def test_the_player_who_found_the_move_leaves_no_puzzle() -> None:
    assert puzzle_at(PUZZLE, played=play("9")) is None


def test_two_winning_moves_are_no_puzzle() -> None:
    # 55 then 6, or 6 then 55: nothing of the farmers' beats either.
    two = Position((cards("55 6"), cards("3"), cards("4")), 0, 0, None, None)
    assert len(solve(two).winning_moves) >= 2
    assert puzzle_at(two, played=play("5")) is None


def test_a_win_in_two_plays_is_too_short() -> None:
    # Only the pair wins (a single is beaten, and that farmer is out), then the 4: two plays.
    short = Position((cards("33 4"), cards("5"), cards("6")), 0, 0, None, None)
    assert [m.cards for m in solve(short).winning_moves if m] == [cards("33")]
    assert wins_within(short, "landlord", 2) and not wins_within(short, "landlord", 1)
    assert puzzle_at(short, played=play("4")) is None
    assert not wins_within(PUZZLE, "landlord", 2)
    assert wins_within(PUZZLE, "landlord", 4)


def test_the_same_cards_are_one_puzzle_whatever_the_seats() -> None:
    h = PUZZLE.hands
    turned = Position((h[2], h[0], h[1]), landlord=1, turn=1, to_beat=None, by=None)
    a = puzzle_at(PUZZLE, played=play("5"))
    b = puzzle_at(turned, played=play("10"))
    assert a is not None and b is not None
    assert a == b and a.key == b.key == puzzle_key(turned)
    assert b.position.landlord == 0  # no seat of the match either
    assert unique([a, b]) == [a]
    other = puzzle_at(Position((h[0], h[1], cards("5 7")), 0, 0, None, None), played=play("5"))
    keys = {p.key for p in unique([a, b, *([other] if other else [])])}
    assert len(keys) == (2 if other else 1)


def test_a_puzzle_holds_only_cards() -> None:
    puzzle = puzzle_at(PUZZLE, played=play("5"))
    assert puzzle is not None
    assert set(Puzzle.__slots__) == {"position", "side", "answer"}
    assert puzzle.key == "5 9 10 Q|33 6 7 10 K|5 6|0|lead"


def test_a_deal_whose_player_missed_the_one_move_gives_its_puzzle_once() -> None:
    # From PUZZLE the landlord leads the 5 (the 9 alone wins), then everyone plays best.
    steps = [Step(PUZZLE, cards("5"), False)]
    position = PUZZLE.after(play("5"))
    while position is not None:
        solution = solve(position)
        move = solution.winning_moves[0] if solution.winning_moves else position.options()[0]
        steps.append(Step(position, None if move is None else move.cards, False))
        last, position = position, position.after(move)
    winner = last.side(last.turn)
    assert winner == "farmers"
    deal = PlayedDeal(1, 0, PUZZLE.hands, steps, winner)
    review = review_deal(deal, Budget(seconds=None, nodes=None))
    assert review.lost_at == 0 and review.decisions[0].better == (cards("9"),)
    assert mine(deal, review) == [Puzzle(PUZZLE, "landlord", cards("9"))]
    twice = PlayedDeal(2, 0, PUZZLE.hands, steps + steps, winner)  # (not a real deal)
    assert len(mine(twice, review_deal(twice, Budget(seconds=None, nodes=None)))) <= 1
