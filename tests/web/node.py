"""Running the browser's JavaScript under Node.js from a test, with JSON in and out.

The JavaScript is checked against the Python, so these tests must not pass by not running:
without ``node`` they fail and say how to get it (``NODE`` may name the binary).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
STATIC = ROOT / "server" / "web" / "static"
#: Node 18 is the first with ``node --test`` and ``Object.hasOwn`` together.
OLDEST_NODE = 18


def node_binary() -> str:
    """The node to run; the test fails (not skips) when there is none."""
    node = os.environ.get("NODE") or shutil.which("node")
    if node is None:
        pytest.fail(
            "Node.js is not installed (no `node` on PATH, NODE not set): the browser's rules "
            f"and codec are tested by running them. Install Node.js {OLDEST_NODE} or later.",
            pytrace=False,
        )
    version = subprocess.run(
        [node, "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < OLDEST_NODE:
        pytest.fail(f"Node.js {version} is too old: {OLDEST_NODE} or later", pytrace=False)
    return node


def run_node(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run node with ``args`` from the repository root; fail the test on a non-zero exit."""
    done = subprocess.run(
        [node_binary(), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(
            f"node {' '.join(args)} exited with {done.returncode}\n"
            f"--- stdout ---\n{done.stdout[-4000:]}\n--- stderr ---\n{done.stderr[-4000:]}",
            pytrace=False,
        )
    return done


def node_json(driver: str, payload: Any, tmp_path: Path, timeout: float = 60) -> Any:
    """Run ``tests/web/<driver>`` on ``payload`` (a JSON file it is given the path of) and
    return the JSON it prints."""
    source = tmp_path / "input.json"
    source.write_text(json.dumps(payload))
    done = run_node([str(HERE / driver), str(source)], timeout)
    return json.loads(done.stdout)
