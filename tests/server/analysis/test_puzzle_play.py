"""Playing a puzzle against the solver: the longest defence, a win to the end, a losing move
ends it with the winning line, and every illegal move is refused with its rule."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode
from server.analysis.puzzle_play import (
    PuzzleError,
    answer,
    checked_move,
    longest_defence,
    replayed,
    winning_line,
)
from server.analysis.puzzles import (
    Puzzle,
    WinSearch,
    min_plays,
    position_of_key,
    puzzle_id,
    puzzle_key,
)
from server.analysis.review import Position, Side, solve
from tests.server.analysis.test_puzzles import PUZZLE, cards, play


def test_a_puzzle_key_gives_its_position_back_and_a_stable_id() -> None:
    key = puzzle_key(PUZZLE)
    assert position_of_key(key) == PUZZLE
    beaten = PUZZLE.after(play("5"))
    assert beaten is not None
    assert position_of_key(puzzle_key(beaten)) == beaten
    assert puzzle_id(key) == puzzle_id(key) and len(puzzle_id(key)) == 12
    assert puzzle_id(key) != puzzle_id(puzzle_key(beaten))
    assert min_plays(Puzzle(PUZZLE, "landlord", cards("9"))) == 4


def test_the_defence_is_the_move_that_lasts_longest() -> None:
    # The landlord led its 3; farmer 1's 9 (or a pass) makes it take four plays, J or A three.
    led = Position((cards("3 10 QQ K"), cards("3 9 J A"), cards("8 9 10")), 0, 0, None, None)
    position = led.after(play("3"))
    assert position is not None and position.turn == 1
    search = WinSearch("landlord")
    chosen = longest_defence(position, search)
    lengths = {}
    for option in position.options():
        after = position.after(option)
        assert after is not None
        lengths[option] = WinSearch("landlord").plays_to_win(after)
    assert lengths[chosen] == max(v for v in lengths.values() if v is not None)
    assert lengths == {play("9"): 4, play("J"): 3, play("A"): 3, None: 4}
    assert chosen == play("9")  # the first of the longest, in hint order


def test_the_winning_moves_solve_the_puzzle_against_the_longest_defence() -> None:
    position: Position | None = PUZZLE
    results = []
    plays = 0
    while position is not None:
        line = winning_line(position, "landlord")
        seat, move = line[0]
        reply = answer(position, "landlord", checked_move(position, "landlord", seat, move))
        results.append(reply.result)
        plays += move is not None
        assert reply.moves[0] == (seat, move)
        assert all(s != 0 for s, _ in reply.moves[1:])  # then the farmers' answers only
        position = reply.position
    assert results[-1] == "solved" and set(results[:-1]) == {"going"}
    assert plays == 4  # the win takes four plays of the landlord's (and a pass)


def test_a_losing_move_fails_and_shows_the_winning_line_to_the_end() -> None:
    reply = answer(PUZZLE, "landlord", play("5"))
    assert reply.result == "failed" and reply.position is None
    assert reply.moves == ((0, cards("5")),)
    assert reply.line[0] == (0, cards("9"))
    end = replayed(PUZZLE, reply.line[:-1])
    assert end is not None and end.after(play(" ".join(map(str, reply.line[-1][1] or ())))) is None
    assert reply.line[-1][0] == 0  # the landlord goes out
    assert solve(PUZZLE).winner == "landlord"


@pytest.mark.parametrize(
    ("position", "seat", "ranks", "code"),
    [
        (PUZZLE, 1, [3, 3], ErrorCode.NOT_YOUR_TURN),
        (PUZZLE, 0, [3], ErrorCode.CARDS_NOT_HELD),
        (PUZZLE, 0, [9, 9], ErrorCode.CARDS_NOT_HELD),
        (PUZZLE, 0, [5, 9], ErrorCode.NOT_A_PLAY),
        (PUZZLE, 0, None, ErrorCode.LEADER_MUST_PLAY),
        (PUZZLE.after(play("10")), 1, [6], ErrorCode.DOES_NOT_BEAT),
        (PUZZLE.after(play("10")), 2, [6], ErrorCode.NOT_YOUR_TURN),
    ],
)
def test_an_illegal_move_is_refused_with_its_rule(
    position: Position | None, seat: int, ranks: list[int] | None, code: ErrorCode
) -> None:
    assert position is not None
    # (the farmers' side for moves of seats 1 and 2)
    side: Side = "landlord" if position.turn == 0 else "farmers"
    with pytest.raises(PuzzleError) as refused:
        checked_move(position, side, seat, ranks)
    assert refused.value.code == code


def test_the_farmers_play_both_seats() -> None:
    # the farmers to move after the landlord's 10: seat 1 may play, seat 0 may not
    position = PUZZLE.after(play("10"))
    assert position is not None
    assert checked_move(position, "farmers", 1, [13]) == play("K")
    with pytest.raises(PuzzleError):
        checked_move(position, "farmers", 0, [12])
