"""Memory per idle connection: a ``ddz-server`` against a bare ``websockets`` server.

    .venv/bin/python benchmarks/connection_memory.py [--counts 500,2500,4500]

Opens idle connections in steps and reads the server process's RSS after each step; the
slope between the last two steps is the memory one more connection costs. Three servers,
one after the other, each on uvloop: a ``ddz-server`` (each connection says hello and stays
in the lobby; its own redis-server is started), a bare ``websockets`` echo server as the
server configures websockets (keepalive pings every 20 s), and the same without keepalive.
What a player in a room costs beyond the connection is ``loadtest.py``'s to measure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect

from protocol.codec import encode
from protocol.messages import PROTOCOL_VERSION, Hello
from server.store.embedded import redis_server_binary

BARE_SERVER = """
import asyncio, sys
import uvloop
from websockets.asyncio.server import serve

async def echo(ws):
    async for message in ws:
        await ws.send(message)

async def main(port, ping):
    async with serve(echo, "127.0.0.1", port, compression=None, ping_interval=ping):
        await asyncio.Future()

uvloop.run(main(int(sys.argv[1]), None if sys.argv[2] == "none" else 20.0))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def slope(pid: int, port: int, counts: list[int], hello: bool) -> str:
    """Open connections up to each count, then the RSS; the KB per connection between the
    last two counts."""
    conns: list[ClientConnection] = []

    async def one(i: int) -> None:
        ws = await connect(f"ws://127.0.0.1:{port}", compression=None)
        if hello:
            await ws.send(encode(Hello(name=f"p{i}", version=PROTOCOL_VERSION)))
        else:
            await ws.send(b"x")
        await ws.recv()
        conns.append(ws)

    points: list[tuple[int, float]] = []
    try:
        for count in counts:
            while len(conns) < count:
                batch = min(100, count - len(conns))
                await asyncio.gather(*(one(len(conns) + k) for k in range(batch)))
            await asyncio.sleep(2)
            points.append((len(conns), rss_mb(pid)))
    finally:
        for ws in conns:
            await ws.close()
    (n1, r1), (n2, r2) = points[-2], points[-1]
    steps = ", ".join(f"{n}: {r:.1f} MB" for n, r in points)
    return f"{(r2 - r1) * 1024 / (n2 - n1):5.1f} KB per connection ({steps})"


async def measure(counts: list[int], bare: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        redis_port = free_port()
        redis = subprocess.Popen(
            [redis_server_binary(), "--port", str(redis_port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        port = free_port()
        exe = Path(sys.executable).with_name("ddz-server")
        # fmt: off
        args = [
            str(exe), "--host", "127.0.0.1", "--port", str(port),
            "--redis-url", f"redis://127.0.0.1:{redis_port}/0", "--data-dir", tmp,
            "--log-level", "WARNING",
            "--max-connections-per-address", "0", "--new-sessions-per-address", "0",
        ]
        # fmt: on
        server = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            await wait_for_port(port)
            measured = await slope(server.pid, port, counts, True)
            print(f"ddz-server, hello'd, in the lobby:   {measured}")
        finally:
            server.terminate()
            server.wait()
            redis.terminate()
            redis.wait()
    for ping in ("20", "none") if bare else ():
        port = free_port()
        plain = subprocess.Popen([sys.executable, "-c", BARE_SERVER, str(port), ping])
        try:
            await wait_for_port(port)
            label = f"bare websockets, keepalive {ping:>4}:"
            print(f"{label:37s}{await slope(plain.pid, port, counts, False)}")
        finally:
            plain.terminate()
            plain.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--counts", default="500,2500,4500")
    parser.add_argument("--skip-bare", action="store_true", help="measure ddz-server only")
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * counts[-1])), hard))
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    asyncio.run(measure(counts, not args.skip_bare))


if __name__ == "__main__":
    main()
