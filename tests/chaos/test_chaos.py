"""A short chaos run (``benchmarks/chaos.py``): three servers on a Sentinel-managed Redis, a
few dozen headless clients, and every kind of fault at least once; nothing a client saw may
be missing from its match's journal or delivered twice, every match ends, and no process is
left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAOS = ROOT / "benchmarks" / "chaos.py"


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_short_chaos_run_loses_nothing(tmp_path: Path) -> None:
    out = tmp_path / "chaos.json"
    # fmt: off
    command = [
        sys.executable, str(CHAOS), "--duration", "45", "--clients", "15", "--seed", "7",
        "--fault-every", "5", "--out", str(out),
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
    text = output.decode(errors="replace")
    assert out.exists(), text[-3000:]
    counts = json.loads(out.read_text())
    faults = counts["faults"]
    assert faults["server_kills"] >= 1 and faults["failovers"] >= 1, counts
    assert faults["redis_pauses"] >= 1 and faults["client_drops"] >= 1, counts
    assert not faults["fault_errors"], counts
    assert counts["matches"] >= 2 and counts["actions_seen"] > 100, counts
    for count in ("lost", "doubled", "unfinished", "stuck", "processes_left"):
        assert counts[count] == 0, (count, counts["examples"])
    assert process.returncode == 0, text[-3000:]
