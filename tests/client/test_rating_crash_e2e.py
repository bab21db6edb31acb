"""A rated quick match through a crash, over a real server and real ``ddz`` processes: three
players' quick match, the server killed (SIGKILL) between the room's closing save and its
records, started again; each player's profile then shows the match once and their rating
changed by it once, as ``ddz top`` does, and a later start changes nothing more."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.players.bookkeeping import KILL_BEFORE_RECORDS
from server.players.rating import NEW
from tests.client.procs import DDZ_KEEPING
from tests.client.test_player_key_e2e import TIMEOUT, Server, answer, history_codes


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path)
    try:
        yield s
    finally:
        s.stop()


def quick(state: Path, url: str) -> subprocess.Popen[str]:
    """A ``ddz`` in the quick-match queue, playing by itself, its session and key kept
    under ``state``."""
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    return subprocess.Popen(
        [*DDZ_KEEPING, "--server", url, "--auto", "easy", "--json", "quick"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )


def rating_of(state: Path, url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The player's profile (once it holds the match) and their rating in it."""
    assert len(history_codes(state, url)) == 1
    profile = answer(state, url, "profile")
    assert profile["rating"] is not None, profile
    return profile, profile["rating"]


def test_a_rated_quick_match_left_by_a_crash_is_rated_once_after_the_restart(
    server: Server, tmp_path: Path
) -> None:
    states = [tmp_path / f"state-{n}" for n in range(3)]
    server.start({KILL_BEFORE_RECORDS: "1"})
    players = [quick(state, server.url) for state in states]
    try:
        assert server.died() != 0  # it killed itself between the closing save and the records
    finally:
        for player in players:
            player.terminate()
            player.wait(TIMEOUT)
    server.start()  # recovery settles what the crash left pending

    ratings = []
    for state in states:
        profile, rating = rating_of(state, server.url)
        (quick_mode,) = [m for m in profile["modes"] if m["mode"] == "quick"]
        assert quick_mode["played"] == 1 and profile["total"] == 1
        assert rating["matches"] == 1 and rating["mu"] != round(NEW.mu, 2)
        assert rating["sigma"] < NEW.sigma
        top = answer(state, server.url, "top")
        assert top["you"]["rating"] == rating
        ratings.append(rating)

    server.stop()
    server.start()  # another start's settle: nothing pending, nothing changes
    assert [rating_of(state, server.url)[1] for state in states] == ratings
