"""``ddz puzzle`` over a real server process and a real Redis: a puzzle solved move by move
(a refused move said and asked again), one failed with the winning line shown, and the
record in ``ddz profile --json``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.puzzle_command import LEFT_RATED, RATED
from protocol.cards import format_cards
from server.analysis.puzzle_play import answer, winning_line
from server.analysis.puzzles import puzzle_id, puzzle_key
from server.analysis.review import Position
from server.players.puzzle_rating import seed, shown
from server.store.puzzles import PuzzleEntry, RedisPuzzles
from server.store.redis_store import RedisStore
from tests.client.conftest import running_server
from tests.client.procs import DDZ_KEEPING
from tests.redis_server import unique_prefix
from tests.server.analysis.test_puzzles import PUZZLE

TIMEOUT = 60.0
PID = puzzle_id(puzzle_key(PUZZLE))


async def _add(redis_url: str, prefix: str) -> None:
    store = RedisStore.from_url(redis_url, finished_ttl=3600, session_ttl=600, prefix=prefix)
    try:
        entry = PuzzleEntry(puzzle_key(PUZZLE), "landlord", "9", 4, 0.0)
        await RedisPuzzles(store).add_puzzle(PID, entry, seed(4), shown(seed(4)))
    finally:
        await store.close()


@pytest.fixture(scope="module")
def puzzle_server(tmp_path_factory: pytest.TempPathFactory, redis_url: str) -> Iterator[str]:
    prefix = unique_prefix()
    asyncio.run(_add(redis_url, prefix))
    extra = ["--redis-url", redis_url, "--key-prefix", prefix, "--puzzle-mine-seconds", "0"]
    with running_server(tmp_path_factory.mktemp("puzzle-server"), extra) as url:
        yield url


def ddz(server: str, home: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DDZ_KEEPING, "--server", server, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "XDG_STATE_HOME": str(home)},
    )


def winning_moves() -> list[str]:
    """The landlord's moves that solve the puzzle against the server's defence."""
    typed = []
    position: Position | None = PUZZLE
    while position is not None:
        _, cards = winning_line(position, "landlord")[0]
        typed.append("pass" if cards is None else format_cards(cards))
        move = position.options()
        chosen = next(m for m in move if (m is None and cards is None) or (m and m.cards == cards))
        position = answer(position, "landlord", chosen).position
    return typed


def test_a_puzzle_solved_in_the_terminal_then_failed_then_the_record(
    puzzle_server: str, tmp_path: Path
) -> None:
    moves = winning_moves()
    solved = ddz(puzzle_server, tmp_path, "\n".join(["3", *moves]) + "\n",
                 "--name", "ann", "puzzle", "--id", PID)  # fmt: skip
    assert solved.returncode == 0, solved.stderr + solved.stdout
    out = solved.stdout
    assert out.startswith(f"puzzle {PID} (rated {shown(seed(4))}; you 1500)")
    assert out.splitlines()[1] == RATED  # a first try: leaving it would count as failed
    assert "landlord [rated]> " in out
    assert "you play the landlord: force the win (it takes 4 plays or more)" in out
    assert "0 landlord (you): 5 9 10 Q" in out and "2 farmer 2: 5 6" in out
    assert "refused: seat 0 does not hold those cards" in out  # the 3, asked again
    assert "solved!" in out and "puzzle rating 1500 -> " in out

    failed = ddz(puzzle_server, tmp_path / "bo", "5\n", "--name", "bo", "puzzle", "--id", PID)
    assert failed.returncode == 1, failed.stderr
    assert "that lets the win go: puzzle failed" in failed.stdout
    assert "the winning line: landlord 9, farmer 1 " in failed.stdout

    # a retry rates nothing: no word of a count, even when stdin ends before a move
    retry = ddz(puzzle_server, tmp_path / "bo", "", "--name", "bo", "puzzle", "--id", PID)
    assert "tried before: not rated" in retry.stdout.splitlines()[0]
    assert RATED not in retry.stdout and LEFT_RATED not in retry.stdout
    assert "landlord> " in retry.stdout and "[rated]" not in retry.stdout

    profile = ddz(puzzle_server, tmp_path, "", "--json", "profile")
    assert profile.returncode == 0, profile.stderr
    record = json.loads(profile.stdout)["puzzles"]
    assert (record["tried"], record["solved"]) == (1, 1) and record["rating"] > 1500

    words = ddz(puzzle_server, tmp_path, "", "profile")
    assert f"puzzles      1 solved of 1 tried, puzzle rating {record['rating']}" in words.stdout
    assert "turning pts  0 " in words.stdout

    daily = ddz(puzzle_server, tmp_path, "", "--json", "puzzle", "--daily")
    first = json.loads(daily.stdout.splitlines()[0])
    assert first["type"] == "puzzle" and first["daily"] and first["puzzle_id"] == PID
    assert first["tried"] and daily.returncode == 1  # (stdin ended before a move)

    unknown = ddz(puzzle_server, tmp_path, "", "puzzle", "--id", "0" * 12)
    assert unknown.returncode == 1 and "no_puzzle" in unknown.stderr
