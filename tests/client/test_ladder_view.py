"""``ddz top`` and the rating line: the ladder within 80 columns, names made safe, and
the command line that asks for it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from client.cli import parse_args
from client.ladder_view import (
    columns,
    fit,
    history_line,
    leaderboard_lines,
    rating_changed_line,
)
from client.options import setup_request
from client.render import plain
from protocol.messages import GetLeaderboard, LadderLine, Leaderboard, RatingChanged, RatingView
from server.players.ladder import view
from server.players.rating import Rating
from tests.client.procs import DDZ_KEEPING


def rating(display: float, matches: int = 12, sigma: float = 2.08) -> RatingView:
    """A rating whose conservative value is ``display`` (as the server shows one)."""
    return view(Rating(display + 3 * sigma, sigma), matches)


def board(names: list[str], you: LadderLine | None) -> Leaderboard:
    top = [
        LadderLine(rank=i + 1, name=name, rating=rating(40.0 - i / 3, 1000 + i), tag=f"{i:06x}")
        for i, name in enumerate(names)
    ]
    return Leaderboard(top=top, ranked=12345, min_matches=10, you=you)


def test_the_ladder_fits_80_columns_with_wide_and_hostile_names() -> None:
    names = ["Ann", "王" * 24, "\x1b[2JEve\u202e", "x" * 24, "Zoë 🂡"] * 20
    you = LadderLine(rank=7, name="Ann", rating=rating(31.5))
    lines = [plain(line) for line in leaderboard_lines(board(names, you))]
    assert len(lines) == 100 + 4
    assert all(columns(line) <= 80 for line in lines), max(lines, key=columns)
    text = "\n".join(lines)
    assert "\x1b" not in text and "\u202e" not in text
    assert (
        "   1  Ann #000000  " in text
        and "   6  Ann #000005  " in text
        and "王" in text
        and "…" in text
    )
    assert "you: #7, rating 2010 master  (skill 37.7 ± 2.1)" in text
    assert "1500 to start" in lines[-1]


def test_who_is_not_ranked_yet_is_told_how_far_they_are() -> None:
    unranked = LadderLine(rank=None, name="Bo", rating=rating(-3.2, matches=3))
    text = "\n".join(plain(line) for line in leaderboard_lines(board([], unranked)))
    assert "nobody is ranked yet" in text
    assert "you: rating 622 bronze" in text and "7 more rated matches to be ranked" in text
    never = "\n".join(plain(line) for line in leaderboard_lines(board(["Ann"], None)))
    assert "you: not rated yet" in never


def test_a_rating_change_reads_as_one_line() -> None:
    before = view(Rating(25.0, 25 / 3), 0)
    told = RatingChanged(code="K7P2Q", before=before, after=view(Rating(27.87, 7.9), 1))
    assert plain(rating_changed_line(told)) == (
        "Your rating: 1500? -> 1615? (+115), platinum (was gold); skill 27.9 ± 7.9 (1 rated)"
    )
    settled = RatingChanged(
        code="K7P2Q", before=view(Rating(26.0, 4.0), 30), after=view(Rating(25.5, 3.9), 31)
    )
    assert plain(rating_changed_line(settled)) == (
        "Your rating: 1540 -> 1520 (-20), gold; skill 25.5 ± 3.9 (31 rated)"
    )


def test_the_rating_reads_on_a_familiar_scale_with_tiers_and_its_history() -> None:
    """Issue 34: the shown rating was mu - 3 sigma, 0 for a new player, creeping up as the
    uncertainty shrank: a win showed no move."""
    new = view(Rating(25.0, 25 / 3), 0)
    assert (new.points, new.provisional, new.tier) == (1500, True, "gold")
    won = view(Rating(26.2, 8.0), 1)
    assert won.points == 1548 and won.provisional  # a first won deal moves it at once
    assert view(Rating(25.0, 4.7), 11).provisional is False
    tiers = [view(Rating(mu, 3.0), 20).tier for mu in (10, 20, 24, 28, 32, 36)]
    assert tiers == ["bronze", "silver", "gold", "platinum", "diamond", "master"]
    assert history_line([1500, 1548, 1520, 1610]) == "1500 ▁▄▂█ 1610"
    assert history_line([]) == ""


def test_fit_cuts_and_pads_by_columns() -> None:
    assert fit("ab", 4) == "ab  "
    assert fit("王王王", 4) == "王… " and columns(fit("王王王", 4)) == 4


def test_the_command_line_takes_top() -> None:
    opts = parse_args(["top"])
    assert opts.mode == "top" and isinstance(setup_request(opts), GetLeaderboard)


def test_ddz_top_prints_the_ladder_and_exits(quick_server: str, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}

    def ddz(*args: str) -> subprocess.CompletedProcess[str]:
        command = [*DDZ_KEEPING, "--server", quick_server, *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)

    shown = ddz("top")
    assert shown.returncode == 0, shown.stderr
    assert "Ladder: " in shown.stdout and "you: not rated yet" in shown.stdout
    assert all(columns(line) <= 80 for line in shown.stdout.splitlines())
    raw = ddz("--json", "top")
    (answer,) = [json.loads(x) for x in raw.stdout.splitlines() if x.strip()]
    assert answer["type"] == "leaderboard" and answer["min_matches"] == 10
    assert answer["top"] == [] and answer["you"] is None


def test_the_prompt_takes_top() -> None:
    from client import commands as cmd

    assert cmd.parse_command("top") == cmd.ShowLadder()
    assert any("top" in usage for _, rows in cmd.HELP for usage, _ in rows)
