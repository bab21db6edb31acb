"""The settings of the background work (reviews, puzzle mining): their bounds, and the
environment under the command line."""

from __future__ import annotations

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
