"""End to end: a real ``ddz-server`` process and real ``ddz`` processes, headless.

A practice match under ``--auto``; a private room created by one client and joined by two
more, with a watcher, all to the end of the match; and an unreachable server.
"""

from __future__ import annotations

import json
import subprocess

from tests.client.procs import DDZ, free_port

TIMEOUT = 60


def json_types(stdout: str) -> list[str]:
    return [json.loads(line)["type"] for line in stdout.splitlines() if line.strip()]


def test_practice_under_auto_runs_to_the_end(server: str) -> None:
    done = subprocess.run(
        [*DDZ, "--server", server, "--auto", "easy", "--json"]
        + ["practice", "--deals", "1", "--speed", "instant"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    types = json_types(done.stdout)
    assert types[0] == "welcome" and types[1] == "snapshot"
    assert "match_end" in types and "deal_end" in types
    end = json.loads(done.stdout.splitlines()[types.index("match_end")])
    assert sum(end["totals"]) == 0


def test_plain_text_auto_prints_the_game(server: str) -> None:
    done = subprocess.run(
        [*DDZ, "--server", server, "--name", "robo", "--auto", "strong"]
        + ["practice", "--deals", "1", "--speed", "instant"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    assert "robo (you)" in done.stdout and "match over" in done.stdout


def test_a_created_room_joined_by_two_and_watched(server: str) -> None:
    base = [*DDZ, "--server", server, "--auto", "normal", "--json"]
    creator = subprocess.Popen(
        [*base, "--name", "host", "create", "--deals", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    others: list[subprocess.Popen[str]] = []
    try:
        assert creator.stderr is not None
        line = creator.stderr.readline()
        assert line.startswith("room code: "), line
        code = line.split(":", 1)[1].strip()
        watcher = subprocess.Popen(
            [*DDZ, "--server", server, "--json", "--name", "eye", "watch", code],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        others.append(watcher)
        assert watcher.stdout is not None
        # the watcher is in (its snapshot came) before anyone joins: it sees every deal
        watched_first: list[str] = []
        while not watched_first or json.loads(watched_first[-1])["type"] != "snapshot":
            watched_first.append(watcher.stdout.readline())
            assert watched_first[-1], "the watcher ended before it was in the room"
        for name in ("ann", "bob"):
            others.append(
                subprocess.Popen(
                    [*base, "--name", name, "join", code.lower()],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        results = [p.communicate(timeout=TIMEOUT) for p in [creator, *others]]
        for proc, (out, err) in zip([creator, *others], results, strict=True):
            assert proc.returncode == 0, err
            types = json_types(out)
            assert types.count("deal_end") == 3 and "match_end" in types
        watched = [json.loads(x) for x in [*watched_first, *results[1][0].splitlines()]]
        assert all(m.get("hand") is None for m in watched if m["type"] == "deal_started")
    finally:
        for proc in [creator, *others]:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def test_create_with_bots_plays_alone(server: str) -> None:
    done = subprocess.run(
        [*DDZ, "--server", server, "--auto", "easy", "--json", "create", "--deals", "3"]
        + ["--bots", "easy", "--speed", "instant"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    assert "room code: " in done.stderr
    assert json_types(done.stdout).count("deal_end") == 3


def test_joining_no_room_is_an_error(server: str) -> None:
    done = subprocess.run(
        [*DDZ, "--server", server, "--auto", "easy", "join", "ZZZZZ"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 1
    assert "no room" in done.stderr


def test_an_unreachable_server_is_an_error() -> None:
    port = free_port()
    done = subprocess.run(
        [*DDZ, "--server", f"ws://127.0.0.1:{port}", "--auto", "easy", "practice"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 3
    assert "cannot connect" in done.stderr
