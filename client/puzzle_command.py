"""``ddz puzzle [--daily] [--id ID]``: play a puzzle (残局) in the terminal, against the
server's solver.

The open position is printed (every hand, seats numbered from the landlord: 0 the landlord,
1 the farmer after it, 2 the other), then the player types their side's moves one at a time
(cards as ``ddz`` reads them, ``33 4`` or ``334``; ``pass``); the server answers each with
its longest defence, until the puzzle is solved or a move lets the win go (then the winning
line is shown). A refused move (cards not held, not a play, does not beat) is said and asked
again: it changed nothing. A first try is rated: it says so before the first move and in
each prompt (``landlord [rated]>``), since leaving it before its end (stdin ended, or
another puzzle asked for) counts as a failed try and costs puzzle rating; a retry, which
rates nothing, does not. ``--json`` prints every server message as a JSON line instead of
words (the moves are still read from stdin). The player's session and key are the kept ones,
as for ``ddz profile``: the rating and record are theirs.
"""

from __future__ import annotations

import asyncio
from typing import TextIO

from client.connection import Link, LinkError, to_json_line
from client.options import Options
from client.saved_session import SessionFile
from protocol.cards import CardTextError, Rank, format_cards, parse_cards
from protocol.codec import ProtocolError
from protocol.messages import (
    Error,
    GetPuzzle,
    PuzzleData,
    PuzzleMove,
    PuzzlePlay,
    PuzzlePosition,
    PuzzleReply,
    ServerMessage,
)

#: Exit statuses: solved, failed (or stdin ended), as ``ddz profile``'s refusals and links.
EXIT_SOLVED = 0
EXIT_FAILED = 1

SEATS = ("landlord", "farmer 1", "farmer 2")
#: Said before the first move of a rated (first) try.
RATED = "rated: leaving before the end counts as a failed try and costs puzzle rating"
#: Said when stdin ends in a rated try.
LEFT_RATED = "left before the end: this rated try counts as failed"


def cards_text(ranks: list[int] | None) -> str:
    return "pass" if ranks is None else format_cards(Rank(r) for r in ranks)


def position_lines(position: PuzzlePosition, mine: tuple[int, ...]) -> list[str]:
    lines = []
    for seat, hand in enumerate(position.hands):
        you = " (you)" if seat in mine else ""
        turn = "  <- to play" if seat == position.turn else ""
        lines.append(f"  {seat} {SEATS[seat]}{you}: {cards_text(hand)}{turn}")
    if position.to_beat is not None and position.by is not None:
        lines.append(f"  to beat: {cards_text(position.to_beat)} by {SEATS[position.by]}")
    else:
        lines.append(f"  {SEATS[position.turn]} leads")
    return lines


def plays_text(plays: list[PuzzlePlay]) -> str:
    return ", ".join(f"{SEATS[p.seat]} {cards_text(p.ranks)}" for p in plays)


def puzzle_lines(data: PuzzleData) -> list[str]:
    mine = (0,) if data.side == "landlord" else (1, 2)
    marks = [m for m, on in (("the day's puzzle", data.daily), ("from a deal you lost", data.own),
                             ("tried before: not rated", data.tried)) if on]  # fmt: skip
    head = f"puzzle {data.puzzle_id} (rated {data.rating}; you {data.your_rating})"
    return [
        head + (f" - {', '.join(marks)}" if marks else ""),
        *([] if data.tried else [RATED]),
        f"you play the {data.side}: force the win (it takes {data.min_plays} plays or more)",
        *position_lines(data.position, mine),
    ]


def prompt(data: PuzzleData, seat: int) -> str:
    """What the player is asked their move with: the seat on turn, and ``[rated]`` while a
    first try is played (leaving it counts)."""
    return f"{SEATS[seat]}{'' if data.tried else ' [rated]'}> "


def reply_lines(reply: PuzzleReply, mine: tuple[int, ...]) -> list[str]:
    lines = [plays_text(reply.moves)]
    if reply.result == "going" and reply.position is not None:
        lines += position_lines(reply.position, mine)
    elif reply.result == "solved":
        lines.append("solved!")
    else:
        lines.append("that lets the win go: puzzle failed")
        lines.append("the winning line: " + plays_text(reply.line))
    if reply.rating is not None:
        r = reply.rating
        lines.append(
            f"puzzle rating {r.before} -> {r.after} (the puzzle {r.puzzle_before} -> "
            f"{r.puzzle_after})"
        )
    return lines


def read_move(text: str) -> list[int] | str | None:
    """The move typed: ranks, None for a pass, or the error to say."""
    word = text.strip().lower()
    if word in ("pass", "p", "-"):
        return None
    try:
        return [int(r) for r in parse_cards(word)]
    except CardTextError as exc:
        return f"not cards: {exc}"


async def _next(link: Link, rid: int) -> ServerMessage:
    """The answer to request ``rid`` (a puzzle message, or its refusal)."""
    while True:
        message = await link.receive()
        if isinstance(message, PuzzleData | PuzzleReply):
            return message
        if isinstance(message, Error) and message.request_id in (rid, None):
            return message


async def play_puzzle(link: Link, opts: Options, inp: TextIO, out: TextIO, err: TextIO) -> int:
    """Play one puzzle over ``link``; the exit status (1: failed)."""

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    ask = GetPuzzle(daily=opts.puzzle_daily, puzzle_id=opts.puzzle_id)
    first = await _next(link, await link.send(ask))
    if isinstance(first, Error):
        print(f"ddz: refused: {first.message} [{first.code}]", file=err, flush=True)
        return EXIT_FAILED
    assert isinstance(first, PuzzleData)
    data = first
    mine = (0,) if data.side == "landlord" else (1, 2)
    for text in [to_json_line(data)] if opts.json else puzzle_lines(data):
        say(text)
    position: PuzzlePosition = data.position
    step = 0
    while True:
        if not opts.json:
            print(prompt(data, position.turn), end="", file=out, flush=True)
        line = await asyncio.to_thread(inp.readline)
        if not line:
            say("")
            if not data.tried and not opts.json:
                say(LEFT_RATED)
            return EXIT_FAILED
        move = read_move(line)
        if isinstance(move, str):
            say(move)
            continue
        request = PuzzleMove(puzzle_id=data.puzzle_id, seat=position.turn, ranks=move, step=step)
        answer = await _next(link, await link.send(request))
        if isinstance(answer, Error):
            say(to_json_line(answer) if opts.json else f"refused: {answer.message}")
            continue
        assert isinstance(answer, PuzzleReply)
        for text in [to_json_line(answer)] if opts.json else reply_lines(answer, mine):
            say(text)
        step = answer.step
        if answer.position is None:
            return EXIT_SOLVED if answer.result == "solved" else EXIT_FAILED
        position = answer.position


async def run_puzzle(opts: Options, inp: TextIO, out: TextIO, err: TextIO) -> int:
    """``ddz puzzle``: as the kept player (their session and key), when no other ``ddz``
    plays as them; else with a fresh session, as ``ddz profile`` does."""
    from client.headless import EXIT_CONNECT, EXIT_SESSION, open_first

    store = SessionFile.claim(opts.server) if opts.keep_session else None
    if opts.keep_session and store is None:
        print("ddz: another ddz is playing as you on this server", file=err, flush=True)
        return EXIT_SESSION
    try:
        try:
            link = await open_first(opts, err, store)
        except LinkError as exc:
            print(f"ddz: {exc}", file=err, flush=True)
            return EXIT_CONNECT
        try:
            return await play_puzzle(link, opts, inp, out, err)
        except ProtocolError as exc:
            print(f"ddz: protocol error: {exc.message}", file=err, flush=True)
            return EXIT_FAILED
        finally:
            await link.close()
    finally:
        if store is not None:
            store.release()
