"""How a profile and the player key read on a terminal (``ddz profile``, ``ddz key``).

Pure functions to ``Fragments``, within 80 columns; names and codes from the network pass
through ``client.safe_text.printable`` (in the history's lines, reused for the matches).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from client.after_match import history_lines
from client.ladder_view import history_line, rating_text
from client.render import BOLD, DIM, Fragments
from client.safe_text import printable
from protocol.messages import PROFILE_PAGE, History, Profile

#: What a person may read off the screen and type again elsewhere, a line of it.
KEY_LINE = 64


def rate(won: int, played: int) -> str:
    """``7/12 (58%)``, or ``0`` when none was played."""
    if played <= 0:
        return "0"
    return f"{won}/{played} ({round(100 * won / played)}%)"


def pages(profile: Profile) -> int:
    return max(1, -(-profile.total // PROFILE_PAGE))


def profile_lines(
    profile: Profile, local: Callable[[float | None], time.struct_time] = time.localtime
) -> list[Fragments]:
    """The player's rating (with its uncertainty) and statistics, then their page of
    matches (as ``history`` lists them) and how to see the next page."""
    name, player = printable(profile.name, 24), printable(profile.player_id, 40)
    lines: list[Fragments] = [[(BOLD, name), (DIM, f"  player {player}")]]
    modes = "   ".join(f"{m.mode} {rate(m.won, m.played)}" for m in profile.modes)
    if profile.rating is None:
        lines.append([(DIM, "rating       "), ("", "none yet (a quick match with others rates)")])
    else:
        rated = f"   {profile.rating.matches} rated matches"
        lines.append([(DIM, "rating       "), ("", rating_text(profile.rating) + rated)])
    if profile.rating_history:
        n = len(profile.rating_history)
        graph = history_line(profile.rating_history)
        lines.append([(DIM, "rating trend "), ("", graph), (DIM, f"  (last {n} rated)")])
    if profile.puzzles is not None:
        p = profile.puzzles
        text = f"{p.solved} solved of {p.tried} tried, puzzle rating {p.rating}"
        lines.append([(DIM, "puzzles      "), ("", text)])
        week = f"{p.turning_points_week} (moves that threw a won position away: ddz review)"
        lines.append([(DIM, "turning pts  "), ("", week), (DIM, "  this week")])
    lines.append([(DIM, "matches won  "), ("", modes)])
    lines.append(
        [
            (DIM, "deals won    "),
            ("", f"landlord {rate(profile.landlord_won, profile.landlord_deals)}   "),
            ("", f"farmer {rate(profile.farmer_won, profile.farmer_deals)}"),
        ]
    )
    lines.append(
        [
            (DIM, "points       "),
            ("", f"won {profile.points_won}   lost {profile.points_lost}   "),
            ("", f"springs {profile.springs}   bombs {profile.bombs}   rockets {profile.rockets}"),
        ]
    )
    if profile.best is not None:
        best = profile.best
        when = time.strftime("%Y-%m-%d", local(best.ended_at))
        total = best.totals[best.your_seat] if 0 <= best.your_seat < len(best.totals) else 0
        where = printable(best.code, 24)
        lines.append([(DIM, "best match   "), ("", f"{total:+d} on {when}, room "), (BOLD, where)])
    page = profile.offset // PROFILE_PAGE + 1
    lines.append([(DIM, f"matches {profile.total}, page {page} of {pages(profile)}")])
    if profile.matches or profile.offset == 0:
        lines += history_lines(History(entries=profile.matches), local)
    if page < pages(profile):
        lines.append([(DIM, f"more: profile {page + 1} (ddz profile --page {page + 1})")])
    return lines


def key_lines(key: str | None, server: str) -> list[Fragments]:
    """The kept key as a code to type on another machine, or why there is none."""
    if key is None:
        return [
            [(DIM, f"no player key is kept for {server[:40]} yet:")],
            [(DIM, "the server gives one with your first session (ddz profile will do)")],
        ]
    lines: list[Fragments] = [[("", "your player key (keep it secret: it is you on this server):")]]
    lines += [[(BOLD, key[i : i + KEY_LINE])] for i in range(0, len(key), KEY_LINE)]
    lines.append([(DIM, "on another machine: ddz key --use CODE   (this one keeps working)")])
    lines.append([(DIM, "replace it (the old one stops working): ddz key --new")])
    return lines
