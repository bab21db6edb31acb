"""``ddz review CODE`` over a real server process: in words and as one JSON object."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.client.conftest import running_server
from tests.client.procs import DDZ_KEEPING

TIMEOUT = 60.0


@pytest.fixture(scope="module")
def review_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("review-server"), ["--review-seconds", "1"]) as url:
        yield url


def ddz(server: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DDZ_KEEPING, "--server", server, *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "XDG_STATE_HOME": str(home)},
    )


def test_a_finished_match_reviewed_in_words_and_as_json(review_server: str, tmp_path: Path) -> None:
    done = ddz(review_server, tmp_path, "--name", "ann", "--auto", "normal", "--json",
               "practice", "1", "instant")  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = re.search(r'"code":"([A-Z0-9-]+)"', done.stdout)
    assert found is not None
    code = found.group(1)

    shown = ddz(review_server, tmp_path, "review", code)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"review of {code}"
    assert lines[2].startswith("== deal 1: S") and " won" in lines[2]
    assert re.search(r"solved exactly: the last \d+ of \d+ plays and passes", shown.stdout)

    as_json = ddz(review_server, tmp_path, "--json", "review", code, "--deal", "1")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    (deal,) = data["deals"]
    assert data["code"] == code and deal["deal_no"] == 1
    for decision in deal["decisions"]:
        assert {"seat", "play", "before", "after", "exact", "better"} <= set(decision)
    assert deal["decisions"][-1]["after"] == deal["winner"]
    # exact (a side) from the solver's reach on, the strong bot's estimate before it
    n, reach = len(deal["decisions"]), deal["reach"]
    for i, decision in enumerate(deal["decisions"]):
        before = decision["before"]
        if i >= n - reach:
            assert before in ("landlord", "farmers")
        elif i >= n - reach - deal["estimated"]:
            assert isinstance(before, float) and 0 <= before <= 1
            assert decision["exact"] is False
    if reach < n:
        assert deal["estimated"] >= 1
        assert re.search(r"landlord ~\d+% \(estimate\)", shown.stdout)

    stranger = ddz(review_server, tmp_path / "eve", "--name", "eve", "review", code)
    assert stranger.returncode != 0
    assert f"no match of yours in room {code}" in stranger.stderr and not stranger.stdout
