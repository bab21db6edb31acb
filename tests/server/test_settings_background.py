"""The settings of the background work (reviews, puzzle mining): their bounds, and the
environment under the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.settings import load_settings


def test_the_review_niceness_and_the_mining_positions_parse_within_their_bounds() -> None:
    settings = load_settings(["--review-niceness", "0", "--puzzle-mine-nodes", "300000"], env={})
    assert settings.review_niceness == 0 and settings.puzzle_mine_nodes == 300_000
    defaults = load_settings([], env={})
    assert defaults.review_niceness == 10 and defaults.puzzle_mine_nodes == 0
    from_env = load_settings([], env={"DDZ_REVIEW_NICENESS": "19"})
    assert from_env.review_niceness == 19


@pytest.mark.parametrize(
    "argv",
    [
        ["--review-niceness", "-1"],
        ["--review-niceness", "20"],
        ["--puzzle-mine-nodes", "-5"],
    ],
)
def test_out_of_bounds_background_settings_are_refused(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        load_settings(argv, env={})
    assert argv[0] in capsys.readouterr().err


def test_a_journal_export_to_mine_must_be_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = tmp_path / "matches.jsonl"
    export.write_text("")
    assert load_settings(["--puzzle-mine-journal", str(export)], env={}).puzzle_mine_journal
    from_env = load_settings([], env={"DDZ_PUZZLE_MINE_JOURNAL": str(export)})
    assert from_env.puzzle_mine_journal == str(export)
    assert load_settings([], env={}).puzzle_mine_journal == ""
    with pytest.raises(SystemExit):
        load_settings(["--puzzle-mine-journal", str(tmp_path / "none.jsonl")], env={})
    assert "--puzzle-mine-journal: no such file" in capsys.readouterr().err
