"""How the ladder (``ddz top``), a rating, its history and its change read on a terminal,
within 80 columns.

A rating is a skill estimate, not points carried over: it reads as ``points`` on a familiar
scale (1500 for a new player; ``1500?`` while provisional) with its tier (段位: bronze to
master), beside the skill and its uncertainty (``27.3 ± 2.1``); the ladder ranks by it,
from 10 rated matches. Names pass through
``printable`` and are cut to their columns (a wide character takes two); each carries the
player's public tag (``#3f2a9c``), which tells two players of one name apart.
"""

from __future__ import annotations

import unicodedata

from client.render import BOLD, DIM, GOOD, WARN, Fragments
from client.safe_text import printable
from protocol.messages import LadderLine, Leaderboard, RatingChanged, RatingView

#: The ladder's lines fit this many columns.
LADDER_WIDTH = 80
#: Columns of a name on the ladder.
NAME_COLUMNS = 26


def columns(text: str) -> int:
    """Columns ``text`` takes on a terminal (East Asian wide and full-width: two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns (an ellipsis where cut) and padded to them."""
    if columns(text) > width:
        out = ""
        for char in text:
            if columns(out + char) > width - 1:
                break
            out += char
        text = out + "…"
    return text + " " * (width - columns(text))


def shown(rating: RatingView) -> str:
    """``1562``, or ``1500?`` while provisional."""
    return f"{rating.points}{'?' if rating.provisional else ''}"


def rating_text(rating: RatingView) -> str:
    """``1562 gold  (skill 30.9 ± 2.1)``."""
    return f"{shown(rating)} {rating.tier}  (skill {rating.mu:.1f} ± {rating.sigma:.1f})"


#: Eight heights of a bar, for a rating's history on one line.
BARS = "▁▂▃▄▅▆▇█"


def history_line(history: list[int]) -> str:
    """``1500 ▁▃▅▄▆█ 1623`` (a bar per rated match, the oldest first), or empty."""
    if not history:
        return ""
    low, high = min(history), max(history)
    span = max(high - low, 1)
    bars = "".join(BARS[round((p - low) * (len(BARS) - 1) / span)] for p in history)
    return f"{history[0]} {bars} {history[-1]}"


def _line(line: LadderLine) -> str:
    r = line.rating
    rank = f"{line.rank:>4}" if line.rank is not None else "   -"
    tag = f" #{line.tag}" if line.tag else ""
    name = fit(fit(printable(line.name, 64), NAME_COLUMNS - len(tag)).rstrip() + tag, NAME_COLUMNS)
    skill = f"{r.mu:>5.1f} ± {r.sigma:<4.1f}"
    return f"{rank}  {name}  {shown(r):>6} {r.tier:<8}  {skill}  {r.matches:>7}"


def leaderboard_lines(board: Leaderboard) -> list[Fragments]:
    """The ladder's top, a line each, then my own place."""
    need = board.min_matches
    lines: list[Fragments] = [
        [(BOLD, "Ladder"), (DIM, f": {board.ranked} ranked (after {need} rated quick matches)")]
    ]
    if board.top:
        head = (
            f"{'#':>4}  {fit('name', NAME_COLUMNS)}  {'rating':>6} {'tier':<8}  "
            f"{'skill ± unc.':<12}  matches"
        )
        lines.append([(DIM, head)])
        lines.extend([("", _line(line))] for line in board.top)
    else:
        lines.append([(DIM, "nobody is ranked yet")])
    you = board.you
    if you is None:
        lines.append([(DIM, "you: not rated yet: quick matches with other people rate you")])
    elif you.rank is None:
        left = max(0, need - you.rating.matches)
        lines.append(
            [
                ("", f"you: rating {rating_text(you.rating)}, "),
                (DIM, f"{left} more rated match{'es' if left != 1 else ''} to be ranked"),
            ]
        )
    else:
        lines.append([(BOLD, f"you: #{you.rank}"), ("", f", rating {rating_text(you.rating)}")])
    lines.append([(DIM, "1500 to start, ? while provisional: a skill estimate, not points won")])
    return lines


def rating_changed_line(message: RatingChanged) -> Fragments:
    """``Your rating: 1500? -> 1562? (+62), gold; skill 27.8 ± 6.3 (1 rated)`` after a rated
    match (a new tier said so)."""
    before, after = message.before, message.after
    change = after.points - before.points
    style = GOOD if change >= 0 else WARN
    line: Fragments = [
        ("", f"Your rating: {shown(before)} -> {shown(after)} "),
        (style, f"({change:+d})"),
        ("", f", {after.tier}"),
    ]
    if after.tier != before.tier:
        line.append((style, f" (was {before.tier})"))
    line.append((DIM, f"; skill {after.mu:.1f} ± {after.sigma:.1f} ({after.matches} rated)"))
    return line
