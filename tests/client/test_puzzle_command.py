"""``ddz puzzle`` (client/puzzle_command.py) against a scripted server: a first try says
before the first move, and in each prompt, that leaving it counts as a failed try, and says
it counted when stdin ends; a retry (the server's ``tried``) says none of it."""

from __future__ import annotations

import io

from client.options import Options
from client.puzzle_command import EXIT_FAILED, LEFT_RATED, RATED, play_puzzle, puzzle_lines
from protocol.messages import (
    GetPuzzle,
    PuzzleData,
    PuzzleMove,
    PuzzlePlay,
    PuzzlePosition,
    PuzzleReply,
    Request,
    ServerMessage,
)

PID = "0123456789ab"
PASS_2 = PuzzlePlay(seat=2, ranks=None)
START = PuzzlePosition(
    hands=[[5, 9, 10, 12], [3, 3, 6, 7, 10, 13], [5, 6]], turn=0, to_beat=None, by=None
)
AFTER = PuzzlePosition(hands=[[5, 10, 12], [3, 3, 6, 7, 13], [5, 6]], turn=0, to_beat=[10], by=1)


def puzzle(tried: bool) -> PuzzleData:
    return PuzzleData(
        puzzle_id=PID,
        position=START,
        side="landlord",
        min_plays=4,
        rating=1560,
        your_rating=1500,
        tried=tried,
    )


class ScriptedLink:
    """A server that answers the puzzle asked for, then each move with ``replies``."""

    def __init__(self, data: PuzzleData, replies: list[ServerMessage]) -> None:
        self.sent: list[Request] = []
        self.waiting: list[ServerMessage] = [data, *replies]

    async def send(self, request: Request) -> int:
        self.sent.append(request)
        return len(self.sent)

    async def receive(self) -> ServerMessage:
        return self.waiting.pop(0)


async def played(data: PuzzleData, typed: str) -> tuple[int, str, list[Request]]:
    """``ddz puzzle`` with ``typed`` on stdin, the server answering the 9 once: its exit
    status, what it printed and what it sent."""
    reply = PuzzleReply(
        puzzle_id=PID,
        step=1,
        moves=[PuzzlePlay(seat=0, ranks=[9]), PuzzlePlay(seat=1, ranks=[10]), PASS_2],
        position=AFTER,
        result="going",
    )
    link = ScriptedLink(data, [reply])
    out, err = io.StringIO(), io.StringIO()
    opts = Options(server="ws://unused", name="me", puzzle_id=PID)
    status = await play_puzzle(link, opts, io.StringIO(typed), out, err)  # type: ignore[arg-type]
    return status, out.getvalue(), link.sent


def test_a_first_try_says_before_the_first_move_that_leaving_it_counts_as_failed() -> None:
    lines = puzzle_lines(puzzle(tried=False))
    assert lines[:2] == [f"puzzle {PID} (rated 1560; you 1500)", RATED]
    assert RATED == "rated: leaving before the end counts as a failed try and costs puzzle rating"


def test_a_retry_rates_nothing_and_does_not_say_it() -> None:
    lines = puzzle_lines(puzzle(tried=True))
    assert lines[0] == f"puzzle {PID} (rated 1560; you 1500) - tried before: not rated"
    assert RATED not in lines


async def test_a_first_try_left_by_ending_stdin_says_it_counted() -> None:
    status, out, sent = await played(puzzle(tried=False), "9\n")
    assert status == EXIT_FAILED
    assert sent == [
        GetPuzzle(puzzle_id=PID),
        PuzzleMove(puzzle_id=PID, seat=0, ranks=[9], step=0),
    ]
    assert out.count("landlord [rated]> ") == 2  # (before the move, and after its answer)
    assert out.splitlines()[-1] == LEFT_RATED
    assert LEFT_RATED == "left before the end: this rated try counts as failed"


async def test_a_retry_left_by_ending_stdin_says_nothing_of_a_count() -> None:
    status, out, _ = await played(puzzle(tried=True), "9\n")
    assert status == EXIT_FAILED
    assert "[rated]" not in out and LEFT_RATED not in out and RATED not in out
    assert out.count("landlord> ") == 2
