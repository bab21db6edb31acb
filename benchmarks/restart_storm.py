"""Benchmark a restart with many stored rooms: how long until ``/healthz`` answers, how long
recovery takes, and how many room leases the server loses while it recovers.

Run from the repository root::

    .venv/bin/python benchmarks/restart_storm.py --rooms 20000

It starts its own redis-server on a free 127.0.0.1 port (no persistence, in a temporary
directory), writes ``--rooms`` timed quick-match rooms of three people straight into it
through the store's own save path, with leases held by the node name the server will have
(as after a ``kill -9``: the restarted process takes its rooms back at once), then starts a
``ddz-server`` on them. The clocks are long (10 minutes), so no timer fires while it
measures. It reads ``/healthz`` every 20 ms from the spawn on, waits for the log's
"recovered N rooms", then watches for two lease TTLs more and counts the log's
"lease lost" lines. The server gets SIGTERM and Redis is stopped at the end, whatever
happens. ``--source DIR`` runs the server from another checkout (to compare with a
commit before a change: ``git archive COMMIT | tar -x -C DIR``; add ``--old-format`` for
one from before rooms kept ``saved_at``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from server.rooms.room import Clocks, Room
from server.rooms.stored import room_to_data
from server.store.base import RoomWrite
from server.store.codec import pack
from server.store.embedded import redis_server_binary
from server.store.redis_store import RedisStore

PREFIX = "storm:"
CLOCK = 600.0
#: Saves in flight at once while the rooms are written.
WRITERS = 200


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_redis(data_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    args = [
        redis_server_binary(),
        "--port", str(port),
        "--bind", "127.0.0.1",
        "--dir", str(data_dir),
        "--save", "",
        "--appendonly", "no",
    ]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, port


async def write_rooms(url: str, n: int, node: str, lease_ttl: float, old: bool = False) -> None:
    store = await RedisStore.connect(url, 3600, 3600, prefix=PREFIX, wait=10)
    rng = random.Random(1)
    clocks = Clocks(bid=CLOCK, play=CLOCK, ready=CLOCK)
    codes = [f"S{i:05d}" for i in range(n)]
    try:
        for start in range(0, n, WRITERS):
            batch = codes[start : start + WRITERS]

            async def one(code: str) -> None:
                people = [(f"{code}-p{i}", f"p{i}") for i in range(3)]
                room = Room.quick(code, people, clocks)
                room.start_match(time.time(), rng)
                room.saved(time.time())
                fields = room_to_data(room)
                if old:  # a server from before rooms kept it would refuse the field
                    del fields["saved_at"]
                data = pack(fields)
                await store.save_room(RoomWrite(code, -1, room.version, data, room.take_journal()))

            await asyncio.gather(*(one(code) for code in batch))
            await store.acquire_leases(batch, node, lease_ttl)
    finally:
        await store.close()


def healthz(port: int) -> int | None:
    """The status of ``GET /healthz``, or None when nothing answers within a second."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.settimeout(1)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            head = s.recv(64).decode(errors="replace")
    except OSError:
        return None
    found = re.match(r"HTTP/1\.1 (\d+)", head)
    return int(found.group(1)) if found else None


def measure(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="ddz-storm-") as tmp:
        redis, redis_port = start_redis(Path(tmp))
        server: subprocess.Popen[bytes] | None = None
        try:
            url = f"redis://127.0.0.1:{redis_port}/0"
            port = free_port()
            node = f"{socket.gethostname()}:{port}"
            started = time.monotonic()
            asyncio.run(write_rooms(url, args.rooms, node, args.lease_ttl, args.old_format))
            print(f"wrote {args.rooms} rooms in {time.monotonic() - started:.1f} s")
            log = Path(tmp) / "server.log"
            env = dict(os.environ)
            source = Path(args.source).resolve() if args.source else Path.cwd()
            env["PYTHONPATH"] = str(source)  # (and run there: -m puts the cwd first)
            command = [sys.executable, "-m", "server", "--host", "127.0.0.1"]
            command += ["--port", str(port), "--redis-url", url, "--key-prefix", PREFIX]
            command += ["--lease-ttl", str(args.lease_ttl), "--log-level", "INFO"]
            with log.open("wb") as out:
                spawned = time.monotonic()
                server = subprocess.Popen(command, stdout=out, stderr=out, env=env, cwd=source)
            first_health: float | None = None
            recovered: float | None = None
            deadline = spawned + args.timeout
            while time.monotonic() < deadline and server.poll() is None:
                if first_health is None and healthz(port) is not None:
                    first_health = time.monotonic() - spawned
                if recovered is None and "recovered " in log.read_text(errors="replace"):
                    recovered = time.monotonic() - spawned
                if first_health is not None and recovered is not None:
                    break
                time.sleep(0.02)
            if recovered is not None:
                time.sleep(2 * args.lease_ttl)  # a lease taken early would have run out
            text = log.read_text(errors="replace")
            lost = text.count("lease lost")
            count = re.search(r"recovered (\d+) rooms", text)
            print(f"first /healthz answer: {_seconds(first_health)} after spawn")
            print(f"recovery ('recovered N rooms' in the log): {_seconds(recovered)} after spawn")
            print(f"rooms recovered: {count.group(1) if count else '?'}")
            print(f"'lease lost' lines: {lost}")
            if server.poll() is not None:
                print(text[-3000:])
        finally:
            if server is not None and server.poll() is None:
                server.terminate()
                try:
                    server.wait(30)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
            redis.terminate()
            redis.wait(10)


def _seconds(value: float | None) -> str:
    return "never" if value is None else f"{value:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=20_000)
    parser.add_argument("--lease-ttl", type=float, default=10.0)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait at most")
    parser.add_argument("--source", help="run the server from this source tree instead")
    parser.add_argument(
        "--old-format",
        action="store_true",
        help="write rooms without saved_at, for a --source from before rooms kept it",
    )
    measure(parser.parse_args())


if __name__ == "__main__":
    main()
