"""Issue 14 end to end: real ``ddz`` processes on a real server finish a quick match (a bot
in the third seat), take the rematch (``--again``: the first to ask opens it, the other
accepts), then ``ddz replay CODE`` and ``ddz history``, as the sessions they kept, print
what the matches were."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.client.procs import DDZ_KEEPING

TIMEOUT = 120


def messages(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def ddz(server: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DDZ_KEEPING, "--server", server, *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "XDG_STATE_HOME": str(home)},
    )


def test_two_finish_a_match_play_it_again_then_replay_it_and_list_it(
    quick_server: str, tmp_path: Path
) -> None:
    homes = {name: tmp_path / name for name in ("ann", "bob")}
    players = {
        name: subprocess.Popen(
            [*DDZ_KEEPING, "--server", quick_server, "--name", name]
            + ["--auto", "easy", "--json", "--again", "quick"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "XDG_STATE_HOME": str(home)},
        )
        for name, home in homes.items()
    }
    try:
        outputs = {name: p.communicate(timeout=TIMEOUT) for name, p in players.items()}
    finally:
        for proc in players.values():
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    seen: dict[str, list[dict[str, Any]]] = {}
    for name, (out, err) in outputs.items():
        assert players[name].returncode == 0, err
        seen[name] = messages(out)
    rooms = {
        name: [m["room"]["code"] for m in got if m["type"] == "snapshot"]
        for name, got in seen.items()
    }
    first, again = rooms["ann"][0], rooms["ann"][-1]
    assert first != again and rooms["bob"][0] == first and rooms["bob"][-1] == again
    for got in seen.values():
        assert [m["type"] for m in got].count("match_end") == 2  # the match and its rematch
    asked = [m for got in seen.values() for m in got if m["type"] == "rematch_asked"]
    assert asked and asked[0]["code"] == first  # one asked, the other was told and accepted

    # the replay, as the player who kept the session: every deal with every hand
    shown = ddz(quick_server, homes["ann"], "replay", first.lower())
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert text.startswith(f"replay of room {first} · quick · 3 deal(s) of 3")  # · N void
    assert "ann (S" in text and "bob (S" in text
    deals = [line.split(" ── ")[0] for line in text.splitlines() if line.startswith("── deal ")]
    assert sorted({d.removesuffix(" (void)") for d in deals}) == [
        "── deal 1 of 3", "── deal 2 of 3", "── deal 3 of 3"
    ]  # fmt: skip
    assert text.count("\n   kitty ") == len(deals) and text.count("\n bidding\n") == len(deals)
    assert " trick 1 of " in text and "deal over: " in text and "match over: " in text
    assert "_" not in text and "[" not in text  # no wire names, no lists
    raw = ddz(quick_server, homes["bob"], "--json", "replay", first)
    (data,) = messages(raw.stdout)
    played = [deal for deal in data["deals"] if not deal["void"]]  # a void deal is dealt again
    assert data["type"] == "replay" and data["code"] == first and len(played) == 3

    # the history: both matches, the newest first, with the codes replay takes
    listed = ddz(quick_server, homes["bob"], "history")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split()[:3] == ["ended", "mode", "deals"]
    assert lines[1].endswith(again) and lines[2].endswith(first)
    assert all(" quick " in line and " 3/3 " in line for line in lines[1:3])
    assert all(len(line) <= 80 for line in lines)
    (history,) = messages(ddz(quick_server, homes["bob"], "--json", "history").stdout)
    assert [e["code"] for e in history["entries"]] == [again, first]

    # a stranger (a fresh session) is refused the replay, clearly
    stranger = ddz(quick_server, tmp_path / "eve", "replay", first)
    assert stranger.returncode == 1 and "no match of yours" in stranger.stderr
