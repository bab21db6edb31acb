"""A short chaos run (``benchmarks/chaos.py``): three servers on a Sentinel-managed Redis, a
few dozen headless clients, and every kind of fault once, one after the other as soon as
play has begun (``--each-fault-once``: short by design, where 35 s of faults at random
moments took a minute); nothing a client saw may
be missing from its match's journal or delivered twice, no process may be left behind, and
every match must end with no client stuck. One run, judged by the tests below."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAOS = ROOT / "benchmarks" / "chaos.py"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def chaos_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    out = tmp_path_factory.mktemp("chaos") / "chaos.json"
    # fmt: off
    command = [
        sys.executable, str(CHAOS), "--each-fault-once", "--bot-speed", "instant",
        "--clients", "15", "--seed", "7", "--finish-grace", "120", "--out", str(out),
    ]
    # fmt: on
    # its own session: whatever happens here, the whole group is ended below (its children
    # also die with it: server.children.die_with_parent)
    process = subprocess.Popen(
        command, cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        output, _ = process.communicate(timeout=1100)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert out.exists(), output.decode(errors="replace")[-3000:]
    yield json.loads(out.read_text())


def test_every_kind_of_fault_happened(chaos_run: dict[str, Any]) -> None:
    faults = chaos_run["faults"]
    assert faults["server_kills"] >= 1 and faults["failovers"] >= 1, chaos_run
    assert faults["redis_pauses"] >= 1 and faults["client_drops"] >= 1, chaos_run
    assert chaos_run["matches"] >= 2 and chaos_run["actions_seen"] > 100, chaos_run


def test_nothing_a_client_saw_is_lost(chaos_run: dict[str, Any]) -> None:
    assert chaos_run["lost"] == 0, chaos_run["examples"]


def test_nothing_a_client_saw_is_doubled(chaos_run: dict[str, Any]) -> None:
    assert chaos_run["doubled"] == 0, chaos_run["examples"]


def test_no_process_is_left_behind(chaos_run: dict[str, Any]) -> None:
    assert chaos_run["processes_left"] == 0, chaos_run["examples"]


def test_no_server_ended_by_itself(chaos_run: dict[str, Any]) -> None:
    """A server started again during a failover waits for Redis; it does not end."""
    assert chaos_run["servers_died"] == 0, chaos_run["examples"]


def test_every_match_ends(chaos_run: dict[str, Any]) -> None:
    assert chaos_run["unfinished"] == 0, chaos_run["examples"]


def test_no_client_is_stuck(chaos_run: dict[str, Any]) -> None:
    assert chaos_run["stuck"] == 0, chaos_run["examples"]
