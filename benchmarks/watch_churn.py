"""Watch churn: watchers who watch a room and drop, many times, while a match runs there.

Issue 11, item 5: a watcher whose connection ended stayed in the room for ever, so the
room's stored state grew with every one (rewritten at every save), every change was
published to each of them, and the players' moves slowed down. This measures it:

1. start a redis-server and one ``ddz-server`` on loopback ports of their own;
2. a person starts a practice match against two instant bots and plays ``--moves`` moves,
   each timed from sending it to hearing the server's event for it (p50/p99);
3. ``--n`` times: a new connection says hello, watches the room, and closes (the person
   waits on their turn meanwhile);
4. the room's stored state (``HSTRLEN`` of its ``s`` field and ``MEMORY USAGE`` of the
   key), the PUBLISH calls made during the churn (``INFO commandstats``), then the person
   plays ``--moves`` moves again, timed, and the PUBLISH calls they caused.

Everything it starts is stopped at the end. Run from the repository root::

    .venv/bin/python benchmarks/watch_churn.py --n 2000 --moves 40
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection, connect

from client.auto import AutoPlayer
from client.table import TableState
from protocol.codec import decode_server, encode
from protocol.events import BidMade, CardsPlayed, Passed
from protocol.messages import (
    PROTOCOL_VERSION,
    BidRequest,
    Error,
    Hello,
    PassRequest,
    PlayRequest,
    Request,
    RoomClosed,
    Snapshot,
    StartPractice,
    Watch,
    Welcome,
)
from server.store.embedded import redis_server_binary

PREFIX = "churn:"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def redis_and_server(max_watchers: int) -> AsyncIterator[tuple[str, str]]:
    """A redis-server and a ddz-server on loopback, stopped at the end of the block."""
    redis_port, port = free_port(), free_port()
    with tempfile.TemporaryDirectory() as data:
        redis = await asyncio.create_subprocess_exec(
            redis_server_binary(), "--port", str(redis_port), "--bind", "127.0.0.1",
            "--dir", data, "--save", "", "--appendonly", "no",
            stdout=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
        server = None
        try:
            await _wait_port(redis_port)
            server = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(port),
                "--redis-url", redis_url, "--key-prefix", PREFIX,
                "--max-watchers", str(max_watchers), "--log-level", "WARNING",
                *_no_address_caps(),
                stdout=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
            await _wait_port(port)
            yield redis_url, f"ws://127.0.0.1:{port}"
        finally:
            for proc in (server, redis):
                if proc is not None and proc.returncode is None:
                    proc.terminate()
                    try:
                        await asyncio.wait_for(proc.wait(), 20)
                    except TimeoutError:
                        proc.kill()
                        await proc.wait()


def _no_address_caps() -> list[str]:
    """Every connection here comes from 127.0.0.1: switch the per-address caps off (those
    this server knows)."""
    from server.settings import Settings

    names: tuple[str, ...] = ("new_sessions_per_address", "max_connections_per_address")
    names += ("failed_joins_per_address", "open_rooms_per_address")
    known = vars(Settings())
    return [arg for n in names if n in known for arg in ("--" + n.replace("_", "-"), "0")]


async def _wait_port(port: int) -> None:
    for _ in range(400):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


class Player:
    """The person at the table: folds every message into their table, and times each of
    their moves when asked to play."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: TableState | None = None
        self.auto = AutoPlayer.for_level("easy")
        self.next_id = 1
        self.changed = asyncio.Event()
        self.pending: tuple[int, int, float] | None = None  # request id, seat, sent at
        self.latencies: list[float] = []
        self.closed = False

    async def send(self, request: Request) -> int:
        rid = self.next_id
        self.next_id += 1
        await self.ws.send(encode(request.model_copy(update={"id": rid})))
        return rid

    async def read(self) -> None:
        async for frame in self.ws:
            message = decode_server(frame)
            if isinstance(message, Snapshot):
                self.state = TableState.from_snapshot(message)
            elif self.state is not None:
                self.state = self.state.apply(message)
            if isinstance(message, RoomClosed):
                self.closed = True
            self._answered(message)
            self.changed.set()

    def _answered(self, message: Any) -> None:
        if self.pending is None:
            return
        rid, seat, sent = self.pending
        mine = isinstance(message, BidMade | CardsPlayed | Passed) and message.seat == seat
        if mine or (isinstance(message, Error) and message.request_id == rid):
            self.latencies.append(time.perf_counter() - sent)
            self.pending = None

    async def play(self, moves: int, timeout: float = 120) -> list[float]:
        """Play until ``moves`` moves of mine were answered (or the match ended)."""
        self.latencies = []
        async with asyncio.timeout(timeout):
            while len(self.latencies) < moves and not self.closed:
                try:
                    await asyncio.wait_for(self.changed.wait(), 1.0)
                except TimeoutError:  # a decision the player thinks it made (a redeal)
                    if self.state is not None:
                        self.auto.forget(self.state)
                    self.pending = None
                self.changed.clear()
                state = self.state
                if state is None or self.pending is not None:
                    continue
                request = self.auto.next_request(state)
                if request is None:
                    continue
                if isinstance(request, BidRequest | PassRequest | PlayRequest):
                    seat = state.my_seat if state.my_seat is not None else -1
                    self.pending = (self.next_id, seat, time.perf_counter())
                await self.send(request)
        return self.latencies


async def hello(ws: ClientConnection, name: str) -> Welcome:
    await ws.send(encode(Hello(id=1, name=name, version=PROTOCOL_VERSION)))
    while True:
        message = decode_server(await ws.recv())
        if isinstance(message, Welcome):
            return message
        if isinstance(message, Error):
            raise RuntimeError(f"hello refused: {message.message}")


async def watch_and_drop(url: str, code: str, i: int) -> str:
    """One watcher: hello, watch, close. Returns "ok" or the refusal's code."""
    async with connect(url) as ws:
        await hello(ws, f"w{i}")
        await ws.send(encode(Watch(id=2, code=code)))
        while True:
            message = decode_server(await asyncio.wait_for(ws.recv(), 10))
            if isinstance(message, Snapshot):
                return "ok"
            if isinstance(message, Error):
                return str(message.code)


async def publishes(r: aioredis.Redis) -> int:
    stats = await r.info("commandstats")
    return int(stats.get("cmdstat_publish", {}).get("calls", 0))


def quantiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {"n": 0}
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    ms = 1000.0
    return {"n": len(ordered), "p50_ms": statistics.median(ordered) * ms, "p99_ms": p99 * ms}


async def stored(r: aioredis.Redis, code: str) -> dict[str, int]:
    key = f"{PREFIX}room:{{{code}}}:state"
    size = await r.hstrlen(key, "s")
    memory = await r.memory_usage(key)
    return {"state_bytes": int(size), "memory_usage": int(memory or 0)}


async def main(args: argparse.Namespace) -> dict[str, Any]:
    async with redis_and_server(args.max_watchers) as (redis_url, url):
        r = aioredis.from_url(redis_url)
        async with connect(url, max_queue=None, ping_interval=None) as ws:
            await hello(ws, "player")
            player = Player(ws)
            reader = asyncio.ensure_future(player.read())
            await player.send(StartPractice(deals=9, level="easy", speed="instant"))
            while player.state is None:
                await player.changed.wait()
            code = player.state.room.code
            before = quantiles(await player.play(args.moves))
            size_before = await stored(r, code)
            published = await publishes(r)
            outcomes: dict[str, int] = {}
            started = time.perf_counter()
            for i in range(args.n):
                outcome = await watch_and_drop(url, code, i)
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
            churn_seconds = time.perf_counter() - started
            await asyncio.sleep(0.5)  # the last drops reach the room
            churn_publishes = await publishes(r) - published
            size_after = await stored(r, code)
            published = await publishes(r)
            after = quantiles(await player.play(args.moves))
            move_publishes = await publishes(r) - published
            reader.cancel()
        await r.aclose()
    return {
        "n": args.n,
        "max_watchers": args.max_watchers,
        "watch_outcomes": outcomes,
        "churn_seconds": round(churn_seconds, 2),
        "stored_before": size_before,
        "stored_after": size_after,
        "publish_calls_during_churn": churn_publishes,
        "publish_calls_during_moves_after": move_publishes,
        "move_latency_before": before,
        "move_latency_after": after,
    }


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="watchers who watch and drop")
    parser.add_argument("--moves", type=int, default=40, help="timed moves before and after")
    parser.add_argument(
        "--max-watchers", type=int, default=0, help="the server's cap (0: none, to see the leak)"
    )
    return parser.parse_args()


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(parse_args())), indent=2))
