"""``ddz solve``: the exact solver (``protocol.solver``) on open hands typed at the command line.

    ddz solve FIRST SECOND [--beat PLAY]             two hands, FIRST to move
    ddz solve --landlord H --farmer1 H --farmer2 H   three seats, the landlord to lead
        [--turn landlord|farmer1|farmer2] [--beat PLAY --by SEAT]

Cards as the client reads them anywhere (``KK5543``, ``"10 10 J"``, ``"SJ BJ"``). farmer1 is
the farmer who plays right after the landlord. It prints who goes out first with best play
and every winning move of the side to move in words; with ``--json`` one line
``{"winner": ..., "winning_moves": [...], "positions": N, "seconds": S}``. Exit status 0
when solved, 1 when ``--max-seconds`` ran out first (the winner is then unknown: null), 2
for bad input (cards no deck holds, the same card in two hands, a play to beat that is no
play or that its seat could not have).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import TextIO

from client.commands import describe_play
from protocol.cards import CardTextError, Rank, parse_cards
from protocol.plays import InvalidPlayError, Play
from protocol.solver import SEAT_NAMES, Solution, SolveInputError, solve_three, solve_two

EXIT_SOLVED = 0
EXIT_UNKNOWN = 1
EXIT_BAD_INPUT = 2


class _BadInput(Exception):
    pass


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``solve`` subcommand's arguments."""
    solve = sub.add_parser(
        "solve",
        help="solve open hands exactly: who goes out first, and every winning move",
        description="Solve a position with every hand open: who goes out first when everyone "
        "plays best, and every move of the side to move that keeps its win. Two hands: ddz "
        "solve FIRST SECOND (FIRST to move). Three seats: ddz solve --landlord H --farmer1 H "
        "--farmer2 H (farmer1 plays after the landlord). Cards as typed at the table: "
        'KK5543, "10 10 J", "SJ BJ". Exit 0 solved, 1 out of time, 2 bad input.',
    )
    solve.add_argument("hands", nargs="*", metavar="FIRST SECOND", help="two hands")
    solve.add_argument("--landlord", metavar="H", help="the landlord's hand (three seats)")
    solve.add_argument("--farmer1", metavar="H", help="the farmer after the landlord")
    solve.add_argument("--farmer2", metavar="H", help="the other farmer")
    solve.add_argument(
        "--turn",
        choices=SEAT_NAMES,
        default="landlord",
        help="three seats: who is to move (default landlord)",
    )
    solve.add_argument(
        "--beat",
        metavar="PLAY",
        help="the play the side to move must beat or pass on (two hands: SECOND's play)",
    )
    solve.add_argument("--by", choices=SEAT_NAMES, help="three seats: who made the --beat play")
    solve.add_argument(
        "--max-seconds",
        type=float,
        metavar="S",
        help="give up after this long (the winner is then unknown, exit 1)",
    )
    solve.add_argument("--json", dest="solve_json", action="store_true", help="print one JSON line")


def _cards(what: str, text: str) -> list[Rank]:
    try:
        return parse_cards(text)
    except CardTextError as exc:
        raise _BadInput(f"{what}: {exc}") from None


def _play(text: str) -> Play:
    try:
        return Play.parse(text)
    except (CardTextError, InvalidPlayError) as exc:
        raise _BadInput(f"--beat: {exc}") from None


def _solve(ns: argparse.Namespace) -> tuple[Solution, str]:
    """Solve the position the arguments give; the solution and the seat to move's name."""
    three = [ns.landlord, ns.farmer1, ns.farmer2]
    to_beat = None if ns.beat is None else _play(ns.beat)
    limit = ns.max_seconds
    if any(h is not None for h in three):
        if ns.hands:
            raise _BadInput("give two hands, or --landlord, --farmer1 and --farmer2, not both")
        if any(h is None for h in three):
            raise _BadInput("three seats need --landlord, --farmer1 and --farmer2")
        if (to_beat is None) != (ns.by is None):
            raise _BadInput("--beat and --by go together: the play and the seat that made it")
        hands = [_cards(f"--{name}", h) for name, h in zip(SEAT_NAMES, three, strict=True)]
        turn = SEAT_NAMES.index(ns.turn)
        by = None if ns.by is None else SEAT_NAMES.index(ns.by)
        solution = solve_three(*hands, turn=turn, to_beat=to_beat, by=by, time_limit=limit)
        return solution, ns.turn
    if len(ns.hands) != 2:
        raise _BadInput("give two hands (FIRST SECOND), or --landlord, --farmer1 and --farmer2")
    if ns.by is not None or ns.turn != "landlord":
        raise _BadInput("--turn and --by are for three seats")
    first, second = (_cards(w, h) for w, h in zip(("first", "second"), ns.hands, strict=True))
    return solve_two(first, second, to_beat, time_limit=limit), "first"


def _move_words(move: Play | None) -> str:
    return "pass" if move is None else describe_play(move)


def _lines(solution: Solution, mover: str, seconds: float) -> list[str]:
    searched = f"{solution.positions:,} positions searched in {seconds:.2f} s"
    if solution.winner is None:
        return [f"Unknown: the time ran out ({searched})."]
    sides = {"first": "First", "second": "Second", "landlord": "The landlord"}
    winner = sides.get(solution.winner, "The farmers")
    verb = "win" if solution.winner == "farmers" else "wins"
    lines = [f"{winner} {verb} with best play ({searched})."]
    if solution.winning_moves:
        moves = ", ".join(_move_words(m) for m in solution.winning_moves)
        only = "The only winning move" if len(solution.winning_moves) == 1 else "Winning moves"
        lines.append(f"{only} for {mover}: {moves}")
    else:
        lines.append(f"{mover.capitalize()} has no winning move.")
    return lines


def run_solve(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``ddz solve``; the exit status."""
    start = time.perf_counter()
    try:
        solution, mover = _solve(ns)
    except (_BadInput, SolveInputError) as exc:
        print(f"ddz solve: {exc}", file=err, flush=True)
        return EXIT_BAD_INPUT
    seconds = time.perf_counter() - start
    if ns.json or ns.solve_json:
        line = {
            "winner": solution.winner,
            "winning_moves": ["pass" if m is None else str(m) for m in solution.winning_moves],
            "positions": solution.positions,
            "seconds": round(seconds, 4),
        }
        print(json.dumps(line), file=out, flush=True)
    else:
        for text in _lines(solution, mover, seconds):
            print(text, file=out, flush=True)
    return EXIT_SOLVED if solution.known else EXIT_UNKNOWN
