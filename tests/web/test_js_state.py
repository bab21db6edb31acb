"""The browser table's reducer, words and socket helpers (state.js, i18n.js, conn.js), and
the replay viewer's frames (replay.js) and its review (review.js), under node's test runner:
``state.test.mjs``, ``i18n.test.mjs``, ``replay.test.mjs``, ``review.test.mjs``; a puzzle
attempt (puzzle.js): ``puzzle.test.mjs``."""

from __future__ import annotations

from tests.web.node import HERE, run_node


def test_state_reducer_words_and_socket_helpers() -> None:
    run_node(["--test", str(HERE / "state.test.mjs")])


def test_words_plurals_names_and_plays_spoken() -> None:
    run_node(["--test", str(HERE / "i18n.test.mjs")])


def test_replay_frames() -> None:
    run_node(["--test", str(HERE / "replay.test.mjs")])


def test_review_beside_its_replay() -> None:
    run_node(["--test", str(HERE / "review.test.mjs")])


def test_puzzle_attempt() -> None:
    run_node(["--test", str(HERE / "puzzle.test.mjs")])
