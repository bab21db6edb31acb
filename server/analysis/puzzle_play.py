"""Playing a puzzle against the solver (issue 33), pure.

A puzzle (``server.analysis.puzzles``) is an open position, the landlord at seat 0, and the
side to move, which can force a win. The player makes that side's moves (both farmers' when
it is the farmers'); the server answers each with **the defence that lasts longest**: among
the defending seat's moves, the one after which the player's side needs the most plays of
its own to force its win (``WinSearch``: the fewest plays it can force the win in), the
first in hint order among equals. A move of the player's that lets the win go (the solver
finds the other side wins after it) ends the puzzle as failed, with the winning line from
the position before it: the player's side's quickest win against that longest defence, to
the end. A move that empties a hand of the player's side solves it.

Every search is under a node limit: past it the defence is the longest found so far, and a
line stops where its search did; a solve out of its limit counts the player's move as
keeping the win (a loss is never claimed unproved).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from protocol.cards import Rank
from protocol.errors import ErrorCode, Refusal
from protocol.plays import Play, classify
from server.analysis.puzzles import NODE_LIMIT, Unproved, WinSearch
from server.analysis.review import Cards, Position, Side, solve

#: Positions one answer may search: the check of the player's move, then the defence.
ANSWER_NODES = 200_000
#: The longest win a puzzle's line or defence looks for, in plays of the player's side.
MOST_PLAYS = 20

Result = Literal["going", "solved", "failed"]
#: One move of a puzzle: the seat (numbered from the landlord) and its cards (None: pass).
Move = tuple[int, Cards | None]


class PuzzleError(Refusal):
    """A puzzle move or request refused; it changes nothing."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What one move of the player's did: ``moves`` (the player's, then the defence's until
    the player's side is on turn again), the position now (None: over), the result, and on
    ``failed`` the winning line from the position before the move."""

    moves: tuple[Move, ...]
    position: Position | None
    result: Result
    line: tuple[Move, ...] = field(default=())


def seats_of(side: Side) -> tuple[int, ...]:
    """The seats a side plays in a puzzle (the landlord at seat 0)."""
    return (0,) if side == "landlord" else (1, 2)


def checked_move(
    position: Position, side: Side, seat: int, ranks: Sequence[int] | None
) -> Play | None:
    """The player's move (None: a pass) if it is legal here; else raises ``PuzzleError``
    with the rule it breaks."""
    if seat != position.turn or seat not in seats_of(side):
        raise PuzzleError(
            ErrorCode.NOT_YOUR_TURN, f"seat {position.turn} is on turn, and you play {side}"
        )
    if ranks is None:
        if position.to_beat is None:
            raise PuzzleError(ErrorCode.LEADER_MUST_PLAY, "you lead this trick: play something")
        return None
    cards = sorted(Rank(r) for r in ranks)
    held = list(position.hands[seat])
    for r in cards:
        if r not in held:
            raise PuzzleError(ErrorCode.CARDS_NOT_HELD, f"seat {seat} does not hold those cards")
        held.remove(r)
    play = classify(cards)
    if play is None:
        raise PuzzleError(ErrorCode.NOT_A_PLAY, "those cards are no play")
    if position.to_beat is not None and not play.beats(position.to_beat):
        raise PuzzleError(ErrorCode.DOES_NOT_BEAT, "that does not beat the play on the table")
    return play


def _cards(move: Play | None) -> Cards | None:
    return None if move is None else tuple(sorted(move.cards))


def longest_defence(position: Position, search: WinSearch) -> Play | None:
    """The defending seat's move after which ``search.side`` needs the most plays to force
    its win (the first in hint order among equals; within the search's node limit, the
    longest found when it runs out)."""
    options = position.options()
    alive = list(options)
    k = 1
    try:
        while len(alive) > 1 and k <= MOST_PLAYS:
            lasting = []
            for option in alive:
                after = position.after(option)
                if after is None:  # the defence goes out: only if the win was not forced
                    return option
                if not search.within(after, k):
                    lasting.append(option)
            if not lasting:
                break  # every one of them loses within k plays: equals
            alive = lasting
            k += 1
    except Unproved:
        pass
    return alive[0]


def quickest_win(position: Position, search: WinSearch) -> Play | None:
    """A move of the seat on turn (of ``search.side``) that forces the win in the fewest
    plays; raises ``Unproved`` past the node limit, ``ValueError`` when it has none."""
    k = search.plays_to_win(position, MOST_PLAYS)
    if k is None:
        raise ValueError("the side on turn cannot force its win here")
    for option in position.options():
        after = position.after(option)
        if after is None:
            return option
        if search.within(after, k - (0 if option is None else 1)):
            return option
    raise AssertionError("a win in k plays has a first move")


def defend(position: Position, side: Side, limit: int) -> tuple[list[Move], Position | None]:
    """The defence's moves from ``position`` until ``side`` is on turn again or the deal is
    over (the position then, None: over)."""
    moves: list[Move] = []
    search = WinSearch(side, limit)
    current: Position | None = position
    while current is not None and current.side(current.turn) != side:
        move = longest_defence(current, search)
        moves.append((current.turn, _cards(move)))
        current = current.after(move)
    return moves, current


def winning_line(position: Position, side: Side, limit: int = NODE_LIMIT) -> list[Move]:
    """From ``position`` (``side`` on turn, able to force its win): its quickest win against
    the longest defence, to the end (cut where the node limit runs out)."""
    search = WinSearch(side, limit)
    line: list[Move] = []
    current: Position | None = position
    try:
        while current is not None:
            if current.side(current.turn) == side:
                move = quickest_win(current, search)
            else:
                move = longest_defence(current, search)
            line.append((current.turn, _cards(move)))
            current = current.after(move)
    except (Unproved, ValueError):
        pass
    return line


def answer(position: Position, side: Side, move: Play | None, limit: int = ANSWER_NODES) -> Answer:
    """The answer to the player's legal ``move`` (``checked_move``) from ``position``."""
    mover = position.turn
    after = position.after(move)
    played: Move = (mover, _cards(move))
    if after is None:
        return Answer((played,), None, "solved")
    if _lost(after, side, limit):
        return Answer((played,), None, "failed", tuple(winning_line(position, side, limit)))
    defence, now = defend(after, side, limit)
    if now is None:  # (the defence went out: the win was not forced after all)
        return Answer(
            (played, *defence), None, "failed", tuple(winning_line(position, side, limit))
        )
    return Answer((played, *defence), now, "going")


def _lost(position: Position, side: Side, limit: int) -> bool:
    """Whether the solver proves ``side`` cannot win from here (unknown: not lost)."""
    solution = solve(position, node_limit=limit)
    return solution.winner is not None and solution.winner != side


def replayed(position: Position, moves: Iterable[Move]) -> Position | None:
    """The position after ``moves`` (None: the deal is over)."""
    current: Position | None = position
    for _, cards in moves:
        if current is None:
            raise ValueError("moves after the end of the puzzle")
        current = current.after(None if cards is None else _play(cards))
    return current


def _play(cards: Cards) -> Play:
    play = classify(list(cards))
    if play is None:
        raise ValueError(f"not a play: {cards}")
    return play
