"""How quick chat, the rematch offer, a replay and the match history read on a terminal.

Pure functions to ``Fragments`` (as ``client.render``), shared by the interactive and the
headless client. Every string from the network (names, room codes) enters a line through
``client.safe_text.printable`` here, and again on its way to the terminal.

A replay reads deal by deal and trick by trick (``client.replay_view``; on a terminal
``ddz replay`` pages it, ``client.replay_pager``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from client.ladder_view import leaderboard_lines, rating_changed_line
from client.render import ACCENT, BOLD, DIM, GOOD, WARN, Fragments, room_kind
from client.replay_view import replay_lines
from client.safe_text import NAME_LIMIT, printable
from protocol.chat import EMOTES, PHRASES, TEXT
from protocol.messages import (
    ChatSaid,
    History,
    HistoryEntry,
    Leaderboard,
    RatingChanged,
    RematchAsked,
    ReplayData,
)

SEAT_NAMES = ("S1", "S2", "S3")
#: The history table fits this many columns.
HISTORY_WIDTH = 80

# --- quick chat ---------------------------------------------------------------------------


def phrase_lines() -> list[Fragments]:
    """``say`` alone: every phrase id with its text, phrases then emotes."""
    lines: list[Fragments] = [[(BOLD, "say PHRASE (Tab completes):")]]
    for emote in (False, True):
        for phrase in PHRASES:
            if (phrase in EMOTES) == emote:
                lines.append([("", f"  {phrase:<13}"), (DIM, TEXT[phrase])])
    return lines


def seat_label(names: Sequence[str], seat: int, mine: int | None = None) -> str:
    """``Ann (S2)``, ``you (S1)`` for my own seat, ``S3`` when the name is unknown."""
    tag = SEAT_NAMES[seat] if 0 <= seat < len(SEAT_NAMES) else f"S{seat + 1}"
    if seat == mine:
        return f"you ({tag})"
    name = printable(names[seat], NAME_LIMIT) if 0 <= seat < len(names) else ""
    return f"{name} ({tag})" if name else tag


def chat_line(message: ChatSaid, names: Sequence[str], mine: int | None = None) -> Fragments:
    """``Ann (S2): Well played!`` (the text is the client's own, from the phrase id)."""
    style = ACCENT if message.phrase in EMOTES else ""
    return [(BOLD, seat_label(names, message.seat, mine) + ": "), (style, TEXT[message.phrase])]


# --- the rematch --------------------------------------------------------------------------


def rematch_line(
    message: RematchAsked, names: Sequence[str], left: float | None = None
) -> Fragments:
    """``Ann wants a rematch: type again (30 s)``; ``left``: the seconds the seat is held
    still (the panel counts down), else as long as the offer says."""
    known = names[message.seat] if 0 <= message.seat < len(names) else ""
    name = printable(message.name or known, NAME_LIMIT)
    who = name or (SEAT_NAMES[message.seat] if 0 <= message.seat < 3 else "someone")
    if left is None:
        left = message.deadline - message.server_time
    left = max(0.0, left)
    return [
        (GOOD + " bold", f"{who} wants a rematch: "),
        ("", "type "),
        (BOLD, "again"),
        (DIM, f" ({left:.0f} s)"),
    ]


# --- the history --------------------------------------------------------------------------

_RESULT_STYLE = {"won": GOOD, "lost": WARN, "unfinished": DIM}


def _totals(entry: HistoryEntry) -> str:
    """Each seat's total, mine in brackets: ``[+12] -6 -6``."""
    parts = []
    for seat, total in enumerate(entry.totals):
        text = f"{total:+d}"
        parts.append(f"[{text}]" if seat == entry.your_seat else text)
    return " ".join(parts)


def history_lines(
    history: History, local: Callable[[float | None], time.struct_time] = time.localtime
) -> list[Fragments]:
    """My last matches, the newest first, a line each within ``HISTORY_WIDTH`` columns:
    when it ended, its mode, deals played of the match's, every total (mine in brackets),
    my result, and the code that ``replay`` takes."""
    if not history.entries:
        return [[(DIM, "no matches yet (a match is kept for a week)")]]
    head = f"{'ended':<16}  {'mode':<8} {'deals':<5} {'totals (yours [])':<20} {'result':<10} code"
    lines: list[Fragments] = [[(DIM, head)]]
    for entry in history.entries:
        when = time.strftime("%Y-%m-%d %H:%M", local(entry.ended_at))
        deals = f"{entry.deals}/{entry.deals_total}"
        totals = _totals(entry)[:20]
        mode = room_kind(entry.mode, entry.code)
        start = f"{when:<16}  {mode:<8} {deals:<5} {totals:<20} "
        room = HISTORY_WIDTH - len(start) - 11
        lines.append(
            [
                ("", start),
                (_RESULT_STYLE.get(entry.result, ""), f"{entry.result:<10} "),
                (BOLD, printable(entry.code, room)),
            ]
        )
    lines.append([(DIM, "replay CODE shows one deal by deal")])
    return lines


# --- dispatch -------------------------------------------------------------------------------


def social_lines(
    message: object, names: Sequence[str] = (), mine: int | None = None
) -> list[Fragments] | None:
    """Lines for the messages of quick chat, rematch, replay, history, rating and ladder
    (``names``: the seats' names of the room they are about, ``mine``: my seat there); None
    for any other message (``client.render`` shows those)."""
    if isinstance(message, ChatSaid):
        return [chat_line(message, names, mine)]
    if isinstance(message, RematchAsked):
        return [rematch_line(message, names)]
    if isinstance(message, ReplayData):
        return replay_lines(message)
    if isinstance(message, History):
        return history_lines(message)
    if isinstance(message, RatingChanged):
        return [rating_changed_line(message)]
    if isinstance(message, Leaderboard):
        return leaderboard_lines(message)
    return None
