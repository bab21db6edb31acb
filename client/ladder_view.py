"""How the ladder (``ddz top``) and a rating change read on a terminal, within 80 columns.

A rating is a skill estimate, not points: ``rating`` is the conservative value the ladder
ranks by (skill less three times its uncertainty), shown beside the skill and its
uncertainty (``27.3 ± 2.1``). Names pass through ``printable`` and are cut to their columns
(a wide character takes two).
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


def rating_text(rating: RatingView) -> str:
    """``24.6  (skill 30.9 ± 2.1)``."""
    return f"{rating.rating:.1f}  (skill {rating.mu:.1f} ± {rating.sigma:.1f})"


def _line(line: LadderLine) -> str:
    r = line.rating
    rank = f"{line.rank:>4}" if line.rank is not None else "   -"
    name = fit(printable(line.name, 64), NAME_COLUMNS)
    return f"{rank}  {name}  {r.rating:>7.1f}  {r.mu:>6.1f} ± {r.sigma:<5.1f}  {r.matches:>7}"


def leaderboard_lines(board: Leaderboard) -> list[Fragments]:
    """The ladder's top, a line each, then my own place."""
    need = board.min_matches
    lines: list[Fragments] = [
        [(BOLD, "Ladder"), (DIM, f": {board.ranked} ranked (after {need} rated quick matches)")]
    ]
    if board.top:
        head = (
            f"{'#':>4}  {fit('name', NAME_COLUMNS)}  {'rating':>7}  {'skill ± unc.':<14}  matches"
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
    lines.append([(DIM, "rating = skill - 3 x uncertainty: an estimate, not points")])
    return lines


def rating_changed_line(message: RatingChanged) -> Fragments:
    """``Your rating: 3.2 -> 5.9 (+2.7), skill 27.8 ± 6.3`` after a rated match."""
    before, after = message.before, message.after
    change = after.rating - before.rating
    style = GOOD if change >= 0 else WARN
    return [
        ("", f"Your rating: {before.rating:.1f} -> {after.rating:.1f} "),
        (style, f"({change:+.1f})"),
        (DIM, f", skill {after.mu:.1f} ± {after.sigma:.1f} ({after.matches} rated)"),
    ]
