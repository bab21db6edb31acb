"""Hostile clients against one ddz-server: what they cost it, and what a player feels.

Starts one embedded redis-server and one ``ddz-server`` (its default limits, on 127.0.0.1),
runs three attacks one after the other, and stops both (the server's bot workers included):

a. a client that never reads, sending 1 KB frames of an unknown type as fast as it can
   (connecting again whenever it is cut off): the server's RSS over ``--reader-seconds``;
b. 1-byte invalid frames before hello, as fast as one raw socket sends them, 8,192 to a
   write, for ``--flood-seconds``; then again from an attacker that connects anew whenever
   it is closed: error replies
   received, the server's CPU seconds, and meanwhile a player's ping round trip (p50, p99;
   a ping every 60 ms);
c. ``--sockets`` websockets that never say hello: how many were accepted (and how the others
   were refused), how long the accepted ones lived (watched for ``--silent-seconds``), and
   whether ``/healthz`` and a player's hello still worked with them open;
d. one address opening private rooms for ``--rooms-seconds``, 20 connections at a time, each
   a fresh session that creates one room and drops: rooms made, refusals, Redis keys and
   memory after;
e. ``--strong-clients`` headless ``ddz`` clients from one address each asking for a strong
   practice match (instant bots) and playing it: how many got one, and the CPU seconds the
   server and its bot workers spent in ``--strong-seconds``;
f. ``--half-open-sockets`` raw sockets from ``--half-open-addresses`` loopback addresses,
   each trickling an opening request that never ends (1 KB every 100 ms, up to 60 KB),
   for ``--half-open-seconds``: how they ended, whether ``/healthz`` and a player's hello
   still worked meanwhile, and the server's RSS before, at its peak and once they are gone;
g. a fragment flood for ``--fragment-seconds``: one message sent as 1,000,000 empty
   continuation frames, then 1 MiB in 1-byte fragments, from a socket that connects again
   when closed: the close codes, the server's CPU and peak RSS, a player's ping;
h. a replay flood: a ``--replay-deals``-deal private match played out (bots, instant) with
   ``--replay-askers`` - 1 watchers, then every one of them asking for its replay 19 times a
   second for ``--replay-seconds``: replies and bytes a second, the server's CPU and peak
   RSS, a player's ping.

``--server-root`` and ``--server-python`` run another checkout's server (the figures before
a change: the attackers and the measures stay this file's).

The attackers run in processes of their own, so the player's latency is the server's, not
the attackers' event loop. Keep runs short on a shared machine::

    .venv/bin/python benchmarks/abuse.py --reader-seconds 20 --flood-seconds 10 \\
        --silent-seconds 20 --out /tmp/abuse.json
    .venv/bin/python benchmarks/abuse.py --parts bfgh --server-nofile 1024 \\
        --server-root /work/main --server-python /work/main/.venv/bin/python
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from protocol.messages import PROTOCOL_VERSION  # noqa: E402
from server.store.embedded import EmbeddedRedis  # noqa: E402

#: The player connects from another loopback address than the attackers (127.0.0.1), as a
#: player elsewhere on the internet would: the per-address cap does not count it with them.
PLAYER_ADDRESS = ("127.0.0.2", 0)
UNKNOWN_1KB = msgpack.packb({"type": "x" * 1000, "id": 1})
GARBAGE = b"\xc1"
#: The headless clients keep no session on disk (DDZ_NO_SESSION: older clients ignore it).
NO_SESSION = {**os.environ, "DDZ_NO_SESSION": "1"}


# --- the server -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (from /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Server:
    """One embedded Redis and one ddz-server, started here and stopped here."""

    def __init__(
        self,
        extra: list[str],
        nofile: int = 0,
        root: Path = ROOT,
        python: str = sys.executable,
    ) -> None:
        self.root, self.python = root, python
        self.tmp = Path(tempfile.mkdtemp(prefix="ddz-abuse-"))
        self.redis = EmbeddedRedis(self.tmp / "redis")
        self.port = free_port()
        self.extra = extra
        self.nofile = nofile
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        redis_url = self.redis.start()
        args = [self.python, "-m", "server", "--host", "127.0.0.1", "--port", str(self.port)]
        args += ["--redis-url", redis_url, "--log-level", "WARNING", *self.extra]
        log = (self.tmp / "server.log").open("wb")
        self.proc = subprocess.Popen(
            args,
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            preexec_fn=self._limit_files if self.nofile else None,
        )
        deadline = time.monotonic() + 30
        while healthz(self.url)[0] != 200:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    "ddz-server did not start: " + (self.tmp / "server.log").read_text()
                )
            time.sleep(0.2)

    def _limit_files(self) -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.nofile, self.nofile))

    def stop(self) -> None:
        if self.proc is not None:
            children = descendants(self.proc.pid)
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            for pid in children:  # bot workers left behind, by their own PIDs
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, 9)
        self.redis.stop(15)
        shutil.rmtree(self.tmp, ignore_errors=True)


def healthz(url: str) -> tuple[int, float]:
    """``/healthz``'s status (0: no answer) and seconds taken."""
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url.replace("ws://", "http://") + "/healthz", timeout=5) as r:
            return int(r.status), time.monotonic() - started
    except urllib.error.HTTPError as error:
        return int(error.code), time.monotonic() - started
    except OSError:
        return 0, time.monotonic() - started


# --- attackers (each in a process of its own) -------------------------------------------------


async def _non_reader(url: str, seconds: float) -> dict[str, int]:
    """Send 1 KB unknown-type frames, read nothing; connect again when cut off."""
    stats = Counter[str]()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            async with connect(url, max_queue=1, open_timeout=5, close_timeout=0.1) as ws:
                stats["connections"] += 1
                ws.transport.pause_reading()  # never reads: the kernel buffers fill up
                while time.monotonic() < deadline:
                    await asyncio.wait_for(
                        ws.send(UNKNOWN_1KB), max(deadline - time.monotonic(), 0.01)
                    )
                    stats["frames"] += 1
        except (ConnectionClosed, OSError, InvalidHandshake, TimeoutError):
            stats["cut_off"] += 1
            await asyncio.sleep(0.05)
    return dict(stats)


#: A raw client's upgrade request (the server checks the key's form, not its value).
UPGRADE = (
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
#: 8,192 masked binary frames of the one byte 0xC1 (never valid msgpack), written at once.
GARBAGE_BLOCK = (b"\x82\x81\x00\x00\x00\x00" + GARBAGE) * 8192


async def _count_frames(reader: asyncio.StreamReader, stats: Counter[str]) -> None:
    """Count the server's frames until it closes; note its close code and reason."""
    while True:
        head = await reader.readexactly(2)
        size = head[1] & 0x7F
        if size == 126:
            size = int.from_bytes(await reader.readexactly(2), "big")
        elif size == 127:
            size = int.from_bytes(await reader.readexactly(8), "big")
        payload = await reader.readexactly(size)
        if head[0] & 0x0F == 0x8:
            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            stats[f"closed {code} {payload[2:].decode(errors='replace')}"] += 1
            return
        stats["replies"] += 1


async def _garbage(url: str, seconds: float, reconnect: bool = True) -> dict[str, int]:
    """1-byte invalid frames before hello from a raw socket, in 48 KB writes, as fast as the
    server takes them; replies counted; connect again when closed (``reconnect``)."""
    stats = Counter[str]()
    host, port = url.removeprefix("ws://").split(":")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection(host, int(port))
        except OSError:
            await asyncio.sleep(0.05)
            continue
        stats["connections"] += 1
        writer.write(UPGRADE)
        status = (await reader.readuntil(b"\r\n\r\n")).split(b" ", 2)[1].decode()
        if status != "101":
            stats[f"refused {status}"] += 1
            writer.close()
            await asyncio.sleep(0.05)
            continue
        counting = asyncio.ensure_future(_count_frames(reader, stats))
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while time.monotonic() < deadline and not counting.done():
                writer.write(GARBAGE_BLOCK)
                await writer.drain()
                stats["frames_written"] += 8192
        with contextlib.suppress(asyncio.IncompleteReadError, OSError, TimeoutError):
            await asyncio.wait_for(counting, 1)
        counting.cancel()
        writer.close()
        if not reconnect:
            break
    return dict(stats)


HALF_OPEN_HEAD = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "


async def _half_open(url: str, seconds: float, sockets: int, addresses: int) -> dict[str, int]:
    """``sockets`` raw sockets from ``addresses`` loopback addresses (127.0.0.10 on), each
    trickling a request head that never ends: 1 KB every 100 ms, up to 60 KB."""
    stats = Counter[str]()
    host, port = url.removeprefix("ws://").split(":")
    deadline = time.monotonic() + seconds
    gate = asyncio.Semaphore(200)

    async def one(i: int) -> None:
        source = f"127.0.0.{10 + i % addresses}"
        try:
            async with gate:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(host, int(port), local_addr=(source, 0)), 10
                )
        except (OSError, TimeoutError):
            stats["connect failed"] += 1
            return
        stats["connected"] += 1
        sent = 0
        ended = asyncio.ensure_future(reader.read(200))
        try:
            writer.write(HALF_OPEN_HEAD)
            while time.monotonic() < deadline and not ended.done():
                if sent < 60 * 1024:
                    writer.write(b"y" * 1024)
                    sent += 1024
                await asyncio.wait([ended], timeout=0.1)
            if ended.done():
                answer = ended.result()
                stats[f"answered {answer.split(b' ', 2)[1].decode()}" if answer else "cut"] += 1
            else:
                stats["open at the end"] += 1
        except (OSError, asyncio.IncompleteReadError):
            stats["reset"] += 1
        finally:
            ended.cancel()
            writer.close()

    await asyncio.gather(*(one(i) for i in range(sockets)))
    return dict(stats)


def _fragments(empty: int) -> tuple[bytes, bytes]:
    """A message's first frame (1 byte, not final) and a block of 8,192 continuations:
    empty ones (``empty``), else of one byte each."""
    first = b"\x02\x81\x00\x00\x00\x00x"
    one = b"\x00\x80\x00\x00\x00\x00" if empty else b"\x00\x81\x00\x00\x00\x00x"
    return first, one * 8192


async def _fragment_flood(url: str, seconds: float) -> dict[str, int]:
    """One message as 1,000,000 empty continuation frames, then one of 1 MiB in 1-byte
    fragments, in turn, reconnecting when closed."""
    stats = Counter[str]()
    host, port = url.removeprefix("ws://").split(":")
    deadline = time.monotonic() + seconds
    empty = True
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection(host, int(port))
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.write(UPGRADE)
        status = (await reader.readuntil(b"\r\n\r\n")).split(b" ", 2)[1].decode()
        if status != "101":
            stats[f"refused {status}"] += 1
            writer.close()
            await asyncio.sleep(0.05)
            continue
        stats["connections"] += 1
        first, block = _fragments(empty)
        total = 1_000_000 if empty else 1 << 20
        counting = asyncio.ensure_future(_count_frames(reader, stats))
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            writer.write(first)
            sent = 0
            while sent < total and time.monotonic() < deadline and not counting.done():
                writer.write(block)
                await writer.drain()
                sent += 8192
            stats["fragments_written"] += sent
        with contextlib.suppress(asyncio.IncompleteReadError, OSError, TimeoutError):
            await asyncio.wait_for(counting, 2)
        counting.cancel()
        writer.close()
        empty = not empty
    return dict(stats)


def _run_attacker(kind: str, url: str, seconds: float, out: Any, options: Any) -> None:
    if kind == "non_reader":
        out.put(asyncio.run(_non_reader(url, seconds)))
    elif kind == "half_open":
        out.put(asyncio.run(_half_open(url, seconds, *options)))
    elif kind == "fragments":
        out.put(asyncio.run(_fragment_flood(url, seconds)))
    elif kind == "replays":
        out.put(asyncio.run(_replay_askers(url, seconds, *options)))
    else:
        out.put(asyncio.run(_garbage(url, seconds, reconnect=kind == "garbage_reconnecting")))


def start_attacker(kind: str, url: str, seconds: float, options: Any = ()) -> tuple[Any, Any]:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    args = (kind, url, seconds, queue, options)
    proc = ctx.Process(target=_run_attacker, args=args, daemon=True)
    proc.start()
    return proc, queue


def join_attacker(proc: Any, queue: Any, seconds: float) -> dict[str, int]:
    try:
        result: dict[str, int] = queue.get(timeout=seconds + 30)
    finally:
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
    return result


# --- a player --------------------------------------------------------------------------------


async def player_pings(url: str, seconds: float, every: float = 0.06) -> list[float]:
    """Round trips (ms) of a player's pings, one every ``every`` seconds."""
    rtts: list[float] = []
    async with connect(url, local_addr=PLAYER_ADDRESS) as ws:
        await ws.send(
            msgpack.packb({"type": "hello", "id": 1, "name": "p", "version": PROTOCOL_VERSION})
        )
        await asyncio.wait_for(ws.recv(), 10)
        deadline, rid = time.monotonic() + seconds, 1
        while time.monotonic() < deadline:
            rid += 1
            started = time.perf_counter()
            await ws.send(msgpack.packb({"type": "ping", "id": rid}))
            while True:
                reply = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10))
                if reply.get("request_id") == rid:
                    break
            rtts.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(every)
    return rtts


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


async def player_hello(url: str) -> str:
    try:
        async with connect(url, open_timeout=5, local_addr=PLAYER_ADDRESS) as ws:
            await ws.send(
                msgpack.packb({"type": "hello", "id": 1, "name": "p", "version": PROTOCOL_VERSION})
            )
            reply = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 5))
            return str(reply.get("type"))
    except InvalidStatus as exc:
        return f"refused {exc.response.status_code}"
    except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake) as exc:
        return f"failed: {type(exc).__name__}"


# --- the parts --------------------------------------------------------------------------------


def part_a(server: Server, seconds: float) -> dict[str, Any]:
    assert server.proc is not None
    pid = server.proc.pid
    before = rss_mb(pid)
    proc, queue = start_attacker("non_reader", server.url, seconds)
    samples, deadline = [before], time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(1)
        samples.append(rss_mb(pid))
    stats = join_attacker(proc, queue, seconds)
    return {
        "seconds": seconds,
        "rss_mb_before": round(before, 1),
        "rss_mb_peak": round(max(samples), 1),
        "rss_mb_end": round(samples[-1], 1),
        "rss_growth_mb": round(max(samples) - before, 1),
        "attacker": stats,
    }


async def part_b(server: Server, seconds: float, reconnect: bool) -> dict[str, Any]:
    assert server.proc is not None
    pid = server.proc.pid
    quiet = await player_pings(server.url, 2.0)
    kind = "garbage_reconnecting" if reconnect else "garbage"
    proc, queue = start_attacker(kind, server.url, seconds)
    await asyncio.sleep(1.0)  # the attacker's interpreter starting
    cpu0, started = cpu_seconds(pid), time.monotonic()
    pings = asyncio.ensure_future(player_pings(server.url, max(seconds - 2.0, 1.0)))
    await asyncio.sleep(max(seconds - 2.0, 1.0))  # the CPU is measured over this window
    cpu, window = cpu_seconds(pid) - cpu0, time.monotonic() - started
    rtts = await pings
    stats = await asyncio.to_thread(join_attacker, proc, queue, seconds)
    return {
        "seconds": seconds,
        "reconnecting": reconnect,
        "attacker": stats,
        "server_cpu_seconds": round(cpu, 2),
        "server_cpu_window_seconds": round(window, 2),
        "ping_ms_quiet": {"p50": quantile(quiet, 0.5), "p99": quantile(quiet, 0.99)},
        "ping_ms_under_flood": {
            "p50": quantile(rtts, 0.5),
            "p99": quantile(rtts, 0.99),
            "max": round(max(rtts), 2) if rtts else None,
            "pings": len(rtts),
        },
    }


async def part_c(server: Server, sockets: int, seconds: float) -> dict[str, Any]:
    opened: dict[int, float] = {}
    lifetimes: list[float] = []
    outcomes = Counter[str]()
    gate = asyncio.Semaphore(200)
    stop, all_tried = asyncio.Event(), asyncio.Event()
    tried = 0

    def attempted() -> None:
        nonlocal tried
        tried += 1
        if tried == sockets:
            all_tried.set()

    async def one(i: int) -> None:
        async with gate:
            try:
                ws = await connect(server.url, open_timeout=10, close_timeout=0.5)
            except InvalidStatus as exc:
                outcomes[f"refused {exc.response.status_code}"] += 1
                return
            except (OSError, TimeoutError, InvalidHandshake) as exc:
                outcomes[f"failed {type(exc).__name__}"] += 1
                return
            finally:
                attempted()
        outcomes["accepted"] += 1
        opened[i] = time.monotonic()
        closed = asyncio.ensure_future(ws.wait_closed())
        await asyncio.wait(
            [closed, asyncio.ensure_future(stop.wait())], return_when="FIRST_COMPLETED"
        )
        if closed.done():
            lifetimes.append(time.monotonic() - opened[i])
            outcomes[f"closed {ws.close_code} {ws.close_reason}"] += 1
        else:
            outcomes["still open at the end"] += 1
            await ws.close()

    started = time.monotonic()
    tasks = [asyncio.ensure_future(one(i)) for i in range(sockets)]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(all_tried.wait(), seconds)
    opening_done = time.monotonic() - started
    health = await asyncio.to_thread(healthz, server.url)
    hello = await player_hello(server.url)
    await asyncio.sleep(max(seconds - (time.monotonic() - started), 0))
    stop.set()
    await asyncio.gather(*tasks)
    return {
        "sockets": sockets,
        "watched_seconds": seconds,
        "outcomes": dict(outcomes),
        "lifetime_s": {
            "min": round(min(lifetimes), 2) if lifetimes else None,
            "median": round(statistics.median(lifetimes), 2) if lifetimes else None,
            "max": round(max(lifetimes), 2) if lifetimes else None,
        },
        "healthz_while_open": {"status": health[0], "seconds": round(health[1], 3)},
        "player_hello_while_open": hello,
        "seconds_to_try_all": round(opening_done, 2),
    }


def redis_figures(server: Server) -> dict[str, int]:
    """The Redis's key count and memory in use (bytes)."""
    import redis

    client = redis.Redis.from_url(server.redis.url)
    try:
        info: Any = client.info("memory")
        return {"keys": int(client.dbsize()), "used_memory": int(info["used_memory"])}
    finally:
        client.close()


async def _one_room(url: str, stats: Counter[str]) -> None:
    """A fresh session that creates a private room and drops the connection."""
    try:
        async with connect(url, open_timeout=5, close_timeout=0.1) as ws:
            hello = {"type": "hello", "id": 1, "name": "r", "version": PROTOCOL_VERSION}
            await ws.send(msgpack.packb(hello))
            reply = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 5))
            if reply.get("type") != "welcome":
                stats[f"hello refused {reply.get('code')}"] += 1
                return
            await ws.send(msgpack.packb({"type": "create_room", "id": 2, "deals": 3}))
            reply = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 5))
            if reply.get("type") == "snapshot":
                stats["rooms"] += 1
            else:
                stats[f"create refused {reply.get('code')}"] += 1
    except InvalidStatus as exc:
        stats[f"refused {exc.response.status_code}"] += 1
    except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake):
        stats["failed"] += 1


async def part_d(server: Server, seconds: float, parallel: int = 20) -> dict[str, Any]:
    before = redis_figures(server)
    stats = Counter[str]()
    deadline = time.monotonic() + seconds

    async def worker() -> None:
        while time.monotonic() < deadline:
            await _one_room(server.url, stats)

    await asyncio.gather(*(worker() for _ in range(parallel)))
    after = redis_figures(server)
    return {
        "seconds": seconds,
        **dict(stats),
        "redis_keys_before": before["keys"],
        "redis_keys_after": after["keys"],
        "redis_mb_added": round((after["used_memory"] - before["used_memory"]) / 2**20, 2),
    }


def part_e(server: Server, clients: int, seconds: float) -> dict[str, Any]:
    """Headless clients that each want a strong practice match, played by an easy bot."""
    assert server.proc is not None
    ddz = [sys.executable, "-m", "client.cli", "--server", server.url, "--auto", "easy"]
    ddz += ["--json", "--reconnect-for", "0"]
    ddz += ["practice", "--deals", "9", "--level", "strong", "--speed", "instant"]
    spent_before = cpu_seconds(server.proc.pid) + sum(
        cpu_seconds(c) for c in descendants(server.proc.pid)
    )
    procs = [
        subprocess.Popen(
            ddz, cwd=ROOT, env=NO_SESSION, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        for _ in range(clients)
    ]
    time.sleep(seconds)  # the window the CPU is measured over: a duration, not a wait
    spent = cpu_seconds(server.proc.pid) + sum(cpu_seconds(c) for c in descendants(server.proc.pid))
    got = 0
    for proc in procs:
        proc.terminate()
        out, _ = proc.communicate(timeout=15)
        got += b'"type":"snapshot"' in out or b'"type": "snapshot"' in out
    return {
        "clients": clients,
        "seconds": seconds,
        "got_a_strong_room": got,
        "server_and_workers_cpu_seconds": round(spent - spent_before, 2),
    }


class RssWatch:
    """The server's RSS sampled every 0.2 s in a thread, until stopped: the peak."""

    def __init__(self, pid: int) -> None:
        import threading

        self.pid, self.samples = pid, [rss_mb(pid)]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            with contextlib.suppress(OSError):
                self.samples.append(rss_mb(self.pid))

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        return {
            "rss_mb_before": round(self.samples[0], 1),
            "rss_mb_peak": round(max(self.samples), 1),
            "rss_mb_end": round(self.samples[-1], 1),
        }


async def part_f(server: Server, sockets: int, addresses: int, seconds: float) -> dict[str, Any]:
    assert server.proc is not None
    pid = server.proc.pid
    watch = RssWatch(pid)
    cpu0 = cpu_seconds(pid)
    proc, queue = start_attacker("half_open", server.url, seconds, (sockets, addresses))
    await asyncio.sleep(min(seconds / 2, 5.0))  # the sockets opening and trickling
    health = await asyncio.to_thread(healthz, server.url)
    hello = await player_hello(server.url)
    stats = await asyncio.to_thread(join_attacker, proc, queue, seconds)
    await asyncio.sleep(6.0)  # their sockets gone: is the memory given back?
    return {
        "sockets": sockets,
        "addresses": addresses,
        "seconds": seconds,
        "attacker": stats,
        "healthz_meanwhile": {"status": health[0], "seconds": round(health[1], 3)},
        "player_hello_meanwhile": hello,
        "server_cpu_seconds": round(cpu_seconds(pid) - cpu0, 2),
        **watch.stop(),
    }


async def flood_with_pings(server: Server, kind: str, seconds: float) -> dict[str, Any]:
    """An attacker of ``kind`` for ``seconds``, and meanwhile a player's pings, the
    server's CPU and its RSS."""
    assert server.proc is not None
    pid = server.proc.pid
    watch = RssWatch(pid)
    proc, queue = start_attacker(kind, server.url, seconds)
    await asyncio.sleep(1.0)  # the attacker's interpreter starting
    cpu0, started = cpu_seconds(pid), time.monotonic()
    rtts = await player_pings(server.url, max(seconds - 2.0, 1.0))
    cpu, window = cpu_seconds(pid) - cpu0, time.monotonic() - started
    stats = await asyncio.to_thread(join_attacker, proc, queue, seconds)
    return {
        "seconds": seconds,
        "attacker": stats,
        "server_cpu_seconds": round(cpu, 2),
        "server_cpu_window_seconds": round(window, 2),
        "ping_ms": {"p50": quantile(rtts, 0.5), "p99": quantile(rtts, 0.99), "n": len(rtts)},
        **watch.stop(),
    }


async def _hello(url: str, name: str, token: str | None = None) -> tuple[Any, str]:
    """A connection that said hello (resuming ``token``'s session), and its token."""
    # (no keepalive of its own, no bound on what waits unread: a watcher reads nothing while
    # the match is played)
    ws = await connect(
        url, open_timeout=10, max_size=None, ping_interval=None, max_queue=None, close_timeout=1
    )
    hello = {"type": "hello", "id": 1, "name": name, "version": PROTOCOL_VERSION}
    if token is not None:
        hello["token"] = token
    await ws.send(msgpack.packb(hello))
    welcome = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10))
    return ws, str(welcome.get("token"))


async def _replay_askers(
    url: str, seconds: float, code: str, tokens: list[str], rate: float
) -> dict[str, int]:
    """Each session of ``tokens`` on a connection of its own, asking for ``code``'s replay
    ``rate`` times a second; replies counted (a replay is the only long one)."""
    stats = Counter[str]()
    conns = [(await _hello(url, "again", token))[0] for token in tokens]
    ask = msgpack.packb({"type": "get_replay", "id": 7, "code": code})

    async def drain(ws: Any) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                if len(frame) > 1000:
                    stats["replays"] += 1
                    stats["replay_bytes"] += len(frame)
                else:
                    stats["short replies"] += 1

    async def asker(ws: Any) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            with contextlib.suppress(ConnectionClosed):
                await ws.send(ask)
                stats["asked"] += 1
            await asyncio.sleep(1 / rate)

    readers = [asyncio.ensure_future(drain(ws)) for ws in conns]
    started = time.monotonic()
    await asyncio.gather(*(asker(ws) for ws in conns))
    stats["window_ms"] = int((time.monotonic() - started) * 1000)
    await asyncio.sleep(0.5)
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*(ws.close() for ws in conns), return_exceptions=True)
    return dict(stats)


async def _create_room(ws: Any, deals: int) -> Any:
    """Create a private room of ``deals`` deals: its first snapshot."""
    from protocol.codec import decode_server
    from protocol.messages import Snapshot

    await ws.send(msgpack.packb({"type": "create_room", "id": 2, "deals": deals}))
    while True:
        message = decode_server(await asyncio.wait_for(ws.recv(), 10))
        if isinstance(message, Snapshot):
            return message


async def _play_out(ws: Any, snapshot: Any) -> None:
    """Seat two bots in my room and play its match out with an easy policy."""
    from client.auto import AutoPlayer
    from client.table import TableState
    from protocol.codec import decode_server, encode
    from protocol.events import MatchEnded
    from protocol.messages import Error, SeatBot, Snapshot

    auto, state, rid = AutoPlayer.for_level("easy"), TableState.from_snapshot(snapshot), 10
    await ws.send(encode(SeatBot(id=3, level="easy")))
    await ws.send(encode(SeatBot(id=4, level="easy")))
    async with asyncio.timeout(300):
        while True:
            message = decode_server(await ws.recv())
            if isinstance(message, Snapshot):
                state = TableState.from_snapshot(message)
            else:
                state = state.apply(message)
            if isinstance(message, MatchEnded):
                return
            if isinstance(message, Error):
                if message.code in ("rate_limited", "unavailable"):
                    await asyncio.sleep(0.2)  # refused unapplied: decide again shortly
                auto.forget(state)
            request = auto.next_request(state)
            if request is not None:
                rid += 1
                await ws.send(encode(request.model_copy(update={"id": rid})))


async def part_h(server: Server, deals: int, askers: int, seconds: float) -> dict[str, Any]:
    """A finished match's replay asked for 19 times a second by each of ``askers``
    connections that played or watched it (resumed in a process of their own)."""
    assert server.proc is not None
    pid = server.proc.pid
    host, host_token = await _hello(server.url, "host")
    snapshot = await _create_room(host, deals)
    code = snapshot.room.code
    watchers = [await _hello(server.url, f"w{n}") for n in range(askers - 1)]
    for ws, _ in watchers:
        await ws.send(msgpack.packb({"type": "watch", "id": 2, "code": code}))
    played = time.monotonic()
    await _play_out(host, snapshot)
    played = time.monotonic() - played
    tokens = [host_token, *(token for _, token in watchers)]
    for ws in [host, *(ws for ws, _ in watchers)]:
        await ws.close()
    watch = RssWatch(pid)
    proc, queue = start_attacker("replays", server.url, seconds, (code, tokens, 19.0))
    await asyncio.sleep(2.0)  # the askers' interpreter starting and saying hello
    cpu0, started = cpu_seconds(pid), time.monotonic()
    rtts = await player_pings(server.url, max(seconds - 3.0, 1.0))
    cpu, window = cpu_seconds(pid) - cpu0, time.monotonic() - started
    stats = await asyncio.to_thread(join_attacker, proc, queue, seconds)
    asked_window = max(stats.get("window_ms", 1), 1) / 1000
    return {
        "deals": deals,
        "played_in_seconds": round(played, 1),
        "askers": askers,
        "seconds": seconds,
        "asked": stats.get("asked", 0),
        "replays_a_second": round(stats.get("replays", 0) / asked_window, 1),
        "replay_mb_a_second": round(stats.get("replay_bytes", 0) / asked_window / 1e6, 2),
        "short_replies": stats.get("short replies", 0),
        "server_cpu_seconds": round(cpu, 2),
        "server_cpu_window_seconds": round(window, 2),
        "ping_ms": {"p50": quantile(rtts, 0.5), "p99": quantile(rtts, 0.99), "n": len(rtts)},
        **watch.stop(),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reader-seconds", type=float, default=20.0)
    p.add_argument("--flood-seconds", type=float, default=10.0)
    p.add_argument("--sockets", type=int, default=2000)
    p.add_argument("--silent-seconds", type=float, default=20.0)
    p.add_argument("--rooms-seconds", type=float, default=20.0)
    p.add_argument("--strong-clients", type=int, default=48)
    p.add_argument("--strong-seconds", type=float, default=30.0)
    p.add_argument("--half-open-sockets", type=int, default=1100)
    p.add_argument("--half-open-addresses", type=int, default=1)
    p.add_argument("--half-open-seconds", type=float, default=15.0)
    p.add_argument("--fragment-seconds", type=float, default=15.0)
    p.add_argument("--replay-deals", type=int, default=9)
    p.add_argument("--replay-askers", type=int, default=51)
    p.add_argument("--replay-seconds", type=float, default=15.0)
    p.add_argument("--parts", default="abcdefgh", help="which parts to run")
    p.add_argument("--server-root", type=Path, default=ROOT, help="the checkout to serve")
    p.add_argument("--server-python", default=sys.executable, help="its interpreter")
    p.add_argument("--server-args", default="", help="more ddz-server flags")
    p.add_argument(
        "--server-nofile", type=int, default=0, help="run the server with this open-file limit"
    )
    p.add_argument("--out", help="write the figures here as JSON")
    args = p.parse_args(argv)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # 2,000 sockets of our own
    extra = args.server_args.split()
    if "h" in args.parts and "--bot-speed" not in extra:
        extra += ["--bot-speed", "instant"]  # (the replay's match played out at once)
    server = Server(extra, args.server_nofile, args.server_root, args.server_python)
    server.start()
    results: dict[str, Any] = {}
    try:
        if "a" in args.parts:
            results["a_non_reader"] = part_a(server, args.reader_seconds)
            print(json.dumps(results["a_non_reader"]), flush=True)
        if "b" in args.parts:
            for again in (False, True):
                name = "b_garbage_flood" + ("_reconnecting" if again else "")
                results[name] = asyncio.run(part_b(server, args.flood_seconds, again))
                print(json.dumps(results[name]), flush=True)
        if "c" in args.parts:
            results["c_silent_sockets"] = asyncio.run(
                part_c(server, args.sockets, args.silent_seconds)
            )
            print(json.dumps(results["c_silent_sockets"]), flush=True)
        if "d" in args.parts:
            results["d_room_flood"] = asyncio.run(part_d(server, args.rooms_seconds))
            print(json.dumps(results["d_room_flood"]), flush=True)
        if "e" in args.parts:
            results["e_strong_bots"] = part_e(server, args.strong_clients, args.strong_seconds)
            print(json.dumps(results["e_strong_bots"]), flush=True)
        if "f" in args.parts:
            results["f_half_open"] = asyncio.run(
                part_f(
                    server, args.half_open_sockets, args.half_open_addresses, args.half_open_seconds
                )
            )
            print(json.dumps(results["f_half_open"]), flush=True)
        if "g" in args.parts:
            results["g_fragments"] = asyncio.run(
                flood_with_pings(server, "fragments", args.fragment_seconds)
            )
            print(json.dumps(results["g_fragments"]), flush=True)
        if "h" in args.parts:
            results["h_replays"] = asyncio.run(
                part_h(server, args.replay_deals, args.replay_askers, args.replay_seconds)
            )
            print(json.dumps(results["h_replays"]), flush=True)
    finally:
        server.stop()
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
