"""Chaos run: real processes playing timed matches while servers, Redis and clients fail.

Three ``ddz-server`` processes share a Redis primary with one replica, watched by three
Sentinels (``redis+sentinel://``), all real binaries on 127.0.0.1 (``chaos_cluster.py``).
Headless clients (``ddz --auto normal --json``, each with a saved session of its own, at a
lower CPU priority than the servers and Redis: ``--client-nice``) play
private 3-deal rooms with clocks: three people, or one person and two bots, and watchers;
the people of one room connect to different servers, so their requests are forwarded. For
``--duration`` seconds matches keep starting (about ``--clients`` clients at a time) and, at
random moments (``--seed``), one of (``--each-fault-once``: each once, one after the other,
and no more matches start once they are over):

- a server killed with ``-9`` and started again on its port after 0.5-5 s;
- the Redis primary killed with ``-9``: the Sentinels promote the replica (a failover); the
  old node comes back as the new replica;
- a Redis node (the primary or the replica) stopped with SIGSTOP for 0.5-3 s;
- a client killed with ``-9`` and started again after 0.2-3 s: it resumes its seat with its
  session token.

Then every client is given time to finish, and each match's journal (``ddz:room:{CODE}:log``)
is replayed and held to what each of its clients saw (``chaos_check.py``): versions, plays,
totals. It prints the faults survived and the counts (actions seen, lost, doubled; matches
unfinished; clients stuck; processes left after the end), and exits 1 on any of those. A
client that ends without the result because it was away when its match ended (dropped, or
reconnecting after its server died) is counted apart (``away_at_end``), not as stuck; so is a
watcher whose every try to watch (or to watch anew, back in no room after a drop) was
refused (the storage down, its server killed) until its match had ended and it was told
there is no such room (``watched_too_late``). One
that gave up while its match went on (as the first of its clients to see the end saw it),
or a creator that ended without a room, is stuck.

The servers save with ``--redis-wait-replicas 1`` and the nodes sync ``appendfsync always``
by default: the level whose promise is "nothing anyone saw is lost" through a failover.
``--wait-replicas 0 --appendfsync everysec`` runs the default level (which may lose the last
writes to a failover; the counts say whether it did). Run from the repository root::

    .venv/bin/python benchmarks/chaos.py --duration 60 --clients 30 --seed 1
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from chaos_check import Journal, Message, end_totals, judge, read_journal
from chaos_cluster import RedisGroup, ServerGroup, alive, dying_with_us

from client.headless import EXIT_CONNECT
from server.store.redis_store import RedisStore

PREFIX = "chaos:"
DDZ = [sys.executable, "-m", "client.cli"]
#: Seconds every client has, by default, after the last match started and the last fault
#: ended, to finish (a 3-deal match takes well under a minute).
FINISH_GRACE = 300.0
STARTED = time.monotonic()
#: The clients' CPU priority below the servers' and Redis's (``nice``): a player's machine
#: does not share the servers' cores, here it does. With 300 clients starting on two
#: cores at the same priority, a server killed and started again did not listen for
#: minutes, and its clients gave up.
CLIENT_NICE = 10


def log(text: str) -> None:
    """A progress line on stderr."""
    print(f"[chaos {time.monotonic() - STARTED:6.1f}s] {text}", file=sys.stderr, flush=True)


@dataclass
class Client:
    """One headless person or watcher, over its incarnations (a drop ends one)."""

    name: str
    role: str  # "creator", "joiner", "watcher"
    server: str
    args: list[str]
    state_dir: Path
    messages: list[Message] = field(default_factory=list)
    #: When each message came (``time.monotonic``), beside ``messages``.
    times: list[float] = field(default_factory=list)
    #: Each incarnation: when it started and ended, and why.
    runs: list[Incarnation] = field(default_factory=list)
    process: asyncio.subprocess.Process | None = None
    incarnations: int = 0
    exit_codes: list[int] = field(default_factory=list)
    dropped: int = 0
    reader: asyncio.Task[None] | None = None
    dealt: asyncio.Event = field(default_factory=asyncio.Event)
    errors: dict[str, int] = field(default_factory=dict)
    connect_tries: int = 0
    #: Set at the end of the run: no more starts.
    retired: bool = False
    #: Being dropped and started again.
    dropping: bool = False
    #: How much lower than the servers' and Redis's its CPU priority is (``nice``).
    nice: int = CLIENT_NICE

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    @property
    def ended(self) -> bool:
        """Its last process ended and no other is coming (a start refused by a server
        that was down is tried again)."""
        return self.reader is not None and self.reader.done()

    async def start(self) -> None:
        env = {**os.environ, "XDG_STATE_HOME": str(self.state_dir), "DDZ_NAME": self.name}
        with (self.state_dir / "stderr.log").open("ab") as stderr:
            self.process = await asyncio.create_subprocess_exec(
                *dying_with_us(DDZ),
                "--server",
                self.server,
                "--auto",
                "normal",
                "--json",
                "--reconnect-for",
                "120",
                *self.args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                env=env,
                preexec_fn=functools.partial(os.nice, self.nice),
            )
        self.incarnations += 1
        run = Incarnation(time.monotonic())
        self.runs.append(run)
        self.reader = asyncio.ensure_future(self._read(self.process, run))

    async def _read(self, process: asyncio.subprocess.Process, run: Incarnation) -> None:
        assert process.stdout is not None
        before = len(self.messages)
        while line := await process.stdout.readline():
            with contextlib.suppress(ValueError):
                message: Message = json.loads(line)
                self.messages.append(message)
                self.times.append(time.monotonic())
                if message.get("type") == "deal_started":
                    self.dealt.set()
                elif message.get("type") == "error":
                    refusal = str(message.get("code"))
                    self.errors[refusal] = self.errors.get(refusal, 0) + 1
        status = await process.wait()
        run.ended = time.monotonic()
        self.exit_codes.append(status)
        unreached = status == EXIT_CONNECT and len(self.messages) == before
        if unreached and self.connect_tries < 20 and not self.retired:
            # the server was down when it first tried (a kill; a dropped client started
            # again while its server was down): a person tries again
            self.connect_tries += 1
            run.retried = True
            await asyncio.sleep(1)
            await self.start()

    async def wait(self) -> None:
        while self.reader is not None and not self.reader.done():
            await asyncio.shield(self.reader)  # (a retried start replaces the reader)

    async def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.runs[-1].killed = True
            self.process.kill()
        await self.wait()

    def write_record(self, code: str) -> None:
        """Its messages (each with ``at``: seconds since the run started, as the log lines
        say) in ``messages.jsonl``, and its incarnations in ``runs.json``, to read beside
        the servers' logs."""
        lines = "".join(
            json.dumps({"at": round(at - STARTED, 3), **m}) + "\n"
            for m, at in zip(self.messages, self.times, strict=True)
        )
        (self.state_dir / "messages.jsonl").write_text(lines)
        runs = [
            {
                "started": round(r.started - STARTED, 3),
                "ended": None if r.ended is None else round(r.ended - STARTED, 3),
                "killed": r.killed,
                "retried": r.retried,
            }
            for r in self.runs
        ]
        record: dict[str, Any] = {"room": code, "role": self.role, "server": self.server}
        record |= {"runs": runs, "exit_codes": self.exit_codes}
        (self.state_dir / "runs.json").write_text(json.dumps(record, indent=1))

    def saw_end_at(self) -> float | None:
        """When it got its match's result, if it did."""
        for message, at in zip(self.messages, self.times, strict=True):
            if end_totals(message) is not None:
                return at
        return None

    def away_at(self, moment: float) -> bool:
        """Whether it was away from its room at ``moment``: it said hello again after it
        (it came back to find the room over: it was reconnecting then), or the run had
        killed it (a drop) and not yet started it again."""
        welcomes = (at for m, at in zip(self.messages, self.times, strict=True) if _welcome(m))
        if any(at >= moment for at in welcomes):
            return True
        before = [run for run in self.runs if run.started <= moment]
        if not before:
            return True  # (started after it)
        last = before[-1]
        if last.ended is None or last.ended > moment:
            return False  # running then, its last hello before: in its room
        return last.killed or last.retried  # not back yet (not: it had given up)

    def came_too_late(self, ended_at: float | None) -> bool:
        """A watcher that was not shown its room since it last came without one (each try
        to watch refused: the storage down, its server killed; a watcher whose connection
        dropped is out of the room, and watches anew) and was told there is no such room
        once its match had ended: the right answer to a watch that comes after the end,
        not a stuck client."""
        if self.role != "watcher" or ended_at is None or not self.messages:
            return False
        anew = max(
            (i for i, m in enumerate(self.messages) if _welcome(m) and not m.get("room")),
            default=0,
        )
        if any(m.get("type") == "snapshot" for m in self.messages[anew:]):
            return False
        last, at = self.messages[-1], self.times[-1]
        return last.get("type") == "error" and last.get("code") == "no_room" and at >= ended_at

    def code(self) -> str | None:
        for message in self.messages:
            room = message.get("room")
            if isinstance(room, dict) and room.get("code"):
                return str(room["code"])
        return None


@dataclass
class Incarnation:
    """One incarnation of a client: its process from start to end."""

    started: float
    ended: float | None = None
    #: The run killed it (a drop, or the end of the run).
    killed: bool = False
    #: It could not reach its server at all, and is started again.
    retried: bool = False


def _welcome(message: Message) -> bool:
    return message.get("type") == "welcome"


@dataclass
class Match:
    code: str
    kind: str
    clients: list[Client]


@dataclass
class Faults:
    server_kills: int = 0
    failovers: int = 0
    failover_seconds: list[float] = field(default_factory=list)
    redis_pauses: int = 0
    client_drops: int = 0
    failed: list[str] = field(default_factory=list)


class Run:
    def __init__(self, opts: argparse.Namespace, root: Path) -> None:
        self.opts = opts
        self.root = root
        self.rng = random.Random(opts.seed)
        self.redis = RedisGroup(root, opts.appendfsync)
        extra = [
            "--log-level", opts.server_log_level, "--lease-ttl", str(opts.lease_ttl),
            "--bot-speed", "fast",
            "--bid-timeout", "10", "--play-timeout", "10", "--ready-timeout", "3",
            "--resume-grace", "3", "--idle-room-timeout", "120", "--finished-ttl", "86400",
            "--max-connections-per-address", "0", "--open-rooms-per-address", "0",
            "--new-rooms-per-address", "0", "--new-sessions-per-address", "0",
            "--failed-joins-per-address", "0", "--strong-bots-per-address", "0",
        ]  # fmt: skip
        if opts.wait_replicas:
            extra += ["--redis-wait-replicas", str(opts.wait_replicas)]
            extra += ["--redis-wait-timeout-ms", "1000"]
        store = ["--redis-url", self.redis.url, "--key-prefix", PREFIX]
        self.servers = ServerGroup(root, opts.servers, store, extra)
        self.matches: list[Match] = []
        self.faults = Faults()
        self.serial = 0
        self.redis_busy = asyncio.Lock()
        #: Clients being started (counted as live), and those still running at the end.
        self._starting = 0
        self.stuck: list[Client] = []
        #: Creators that ended without a room (refused for good): stuck as well.
        self.gave_up: list[str] = []
        #: Servers that ended on their own during the run (not killed by it).
        self.servers_died: list[str] = []

    # --- clients and matches ----------------------------------------------------------

    def _client(self, role: str, server: int, args: list[str]) -> Client:
        self.serial += 1
        name = f"p{self.serial}"
        state = self.root / "clients" / name
        state.mkdir(parents=True)
        return Client(name, role, self.servers.url(server), args, state, nice=self.opts.client_nice)

    def live_clients(self) -> int:
        return sum(c.running for m in self.matches for c in m.clients) + self._starting

    async def start_match(self) -> None:
        people = self.rng.random() < 0.6
        first = self.rng.randrange(len(self.servers.ports))
        watchers = self.rng.randrange(0, 3)
        self._starting += (3 if people else 1) + watchers
        try:
            create = ["create", "--deals", "3"]
            if not people:
                create += ["--bots", "normal", "--speed", self.opts.bot_speed]
            creator = self._client("creator", first, create)
            await creator.start()
            code = None
            deadline = time.monotonic() + 180  # (a loaded machine starts Python slowly)
            while code is None and time.monotonic() < deadline and not creator.ended:
                await asyncio.sleep(0.05)
                code = creator.code()
            if code is None:
                gave_up = creator.ended  # (else: not started in time, a loaded machine)
                await creator.kill()
                note = (
                    f"{creator.name}: no room created (exit {creator.exit_codes}, see"
                    f" {creator.state_dir}/stderr.log)"
                )
                (self.gave_up if gave_up else self.faults.failed).append(note)
                return
            clients = [creator]
            for i in range(2 if people else 0):
                joiner = self._client("joiner", first + 1 + i, ["join", code])
                await joiner.start()
                clients.append(joiner)
            for _ in range(watchers):
                watcher = self._client("watcher", self.rng.randrange(3), ["watch", code])
                await watcher.start()
                clients.append(watcher)
            self.matches.append(Match(code, "people" if people else "bots", clients))
        finally:
            self._starting -= (3 if people else 1) + watchers

    async def keep_playing(self, over: asyncio.Event) -> None:
        starting: set[asyncio.Task[None]] = set()
        while not over.is_set():
            if self.live_clients() < self.opts.clients:
                task = asyncio.ensure_future(self.start_match())
                starting.add(task)
                task.add_done_callback(starting.discard)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(over.wait(), 0.3)
        if starting:
            await asyncio.wait(starting, timeout=240)

    # --- faults -----------------------------------------------------------------------

    def fault_kinds(self) -> list[Callable[[], Awaitable[None]]]:
        return [self.kill_server, self.kill_primary, self.pause_redis, self.drop_client]

    async def each_fault_once(self) -> None:
        """Each kind of fault once, in a random order, one after the other: each begins as
        the one before is over (a server back, a failover done), so that a short run has
        them all in as little time as they take."""
        kinds = self.fault_kinds()
        await self._playing()
        for fault in self.rng.sample(kinds, len(kinds)):
            log(f"fault: {fault.__name__}")
            await self._guarded(fault)

    async def _playing(self) -> None:
        """Until a match has been dealt (faults before any play would test nothing)."""
        deadline = time.monotonic() + 120  # (a slow machine may take a while to start)
        while not self._dealt_clients() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)

    async def make_faults(self, until: float) -> None:
        pending: set[asyncio.Task[None]] = set()
        kinds = self.fault_kinds()
        # each kind once first, in a random order, so that a short run has them all
        first = self.rng.sample(kinds, len(kinds))
        await asyncio.sleep(self.rng.uniform(3, 6))
        redis_faults = (self.kill_primary, self.pause_redis)
        while time.monotonic() < until:
            fault = first.pop() if first else self.rng.choice(kinds)
            if fault in redis_faults and self.redis_busy.locked():
                # one Redis fault at a time: this one later, another kind now
                first.insert(0, fault)
                fault = self.rng.choice([self.kill_server, self.drop_client])
            log(f"fault: {fault.__name__}")
            task = asyncio.ensure_future(self._guarded(fault))
            pending.add(task)
            task.add_done_callback(pending.discard)
            if first:  # (the first round at about the mean's pace: a short run has each kind)
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.opts.fault_every)
            else:
                await asyncio.sleep(self.rng.expovariate(1 / self.opts.fault_every))
        if pending:
            _, late = await asyncio.wait(pending, timeout=180)
            self.faults.failed += [f"a fault still under way after 180 s: {t}" for t in late]

    async def _guarded(self, fault: Any) -> None:
        try:
            await fault()
        except Exception as exc:
            self.faults.failed.append(f"{fault.__name__}: {exc}")

    async def kill_server(self) -> None:
        up = [p for p in self.servers.ports if self.servers.processes[p].poll() is None]
        if not up:
            return
        port = self.rng.choice(up)
        self.servers.kill(port)
        self.faults.server_kills += 1
        await asyncio.sleep(self.rng.uniform(0.5, 5))
        self.servers.start(port)

    async def kill_primary(self) -> None:
        async with self.redis_busy:
            took = await asyncio.to_thread(self.redis.kill_primary)
            log(f"failover took {took:.1f} s")
            self.faults.failovers += 1
            self.faults.failover_seconds.append(round(took, 1))

    async def pause_redis(self) -> None:
        async with self.redis_busy:
            primary = self.redis.primary()
            if primary is None:
                return
            port = primary if self.rng.random() < 0.7 else self.redis.replica()
            await asyncio.to_thread(self.redis.pause, port, self.rng.uniform(0.5, 3))
            self.faults.redis_pauses += 1

    def _dealt_clients(self) -> list[Client]:
        return [
            c
            for m in self.matches
            for c in m.clients
            if c.running and c.dealt.is_set() and not c.dropping
        ]

    async def drop_client(self) -> None:
        # a client whose match has started (a creator dropped before its bots are seated
        # would wait for them)
        # (a slow machine may take a while to start the first matches)
        deadline = time.monotonic() + 120
        while not (live := self._dealt_clients()):
            if time.monotonic() > deadline:
                return
            await asyncio.sleep(0.5)
        client = self.rng.choice(live)
        client.dropping = True  # (no second drop of it meanwhile: two would run at once)
        await client.kill()
        client.dropped += 1
        self.faults.client_drops += 1
        await asyncio.sleep(self.rng.uniform(0.2, 3))
        if client.role == "creator":  # back into its room, not a new one
            client.args = ["join", client.code() or ""]
        await client.start()
        client.dropping = False

    # --- the run ----------------------------------------------------------------------

    async def play(self) -> None:
        over = asyncio.Event()

        async def faults() -> None:
            if self.opts.each_fault_once:
                await self.each_fault_once()
            else:
                await self.make_faults(time.monotonic() + self.opts.duration)
            over.set()

        await asyncio.gather(self.keep_playing(over), faults())
        log("faults over; waiting for the matches to end")
        deadline = time.monotonic() + self.opts.finish_grace
        everyone = [c for m in self.matches for c in m.clients]
        while any(c.running for c in everyone) and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        self.stuck = [c for c in everyone if c.running]
        for client in everyone:
            client.retired = True
            await client.kill()

    async def journals(self) -> dict[str, Journal]:
        store = await RedisStore.connect(self.redis.url, 60, 60, prefix=PREFIX, wait=30)
        try:
            return {m.code: read_journal(await store.read_log(m.code)) for m in self.matches}
        finally:
            await store.close()


def report(run: Run, journals: dict[str, Journal], left: list[int], took: float) -> dict[str, Any]:
    seen = lost = doubled = unfinished = missed_end = too_late = 0
    notes: list[str] = []
    stuck = len(run.stuck)
    examples: list[str] = []
    errors: dict[str, int] = {}
    for match in run.matches:
        journal = journals[match.code]
        ends = [at for c in match.clients if (at := c.saw_end_at()) is not None]
        ended_at = min(ends, default=None)
        if journal.totals is None:
            unfinished += 1
            examples.append(f"{match.code}: unfinished ({journal.closed or journal.error})")
        for client in match.clients:
            for code, n in client.errors.items():
                errors[code] = errors.get(code, 0) + n
            verdict = judge(client.messages, journal)
            seen += verdict.seen
            lost += len(verdict.lost)
            doubled += len(verdict.doubled)
            examples += [f"{match.code} {client.name}: {e}" for e in verdict.lost + verdict.doubled]
            # a client that ends without the result, while its match did end, was stuck
            # unless it was away (dropped, or reconnecting after its server died) when the
            # match ended (as the first of its clients to hear of it heard): then it comes
            # back to a closed room. One that gave up before is stuck.
            if client in run.stuck or verdict.saw_end:
                continue
            welcomes = sum(m.get("type") == "welcome" for m in client.messages)
            last = [m.get("type") for m in client.messages[-3:]]
            if ended_at is not None:
                away = client.away_at(ended_at)
            else:  # (nobody heard the end: who was away when is not known)
                away = bool(client.dropped or welcomes > 1)
            if journal.totals is not None and away:
                missed_end += 1
                notes.append(f"{match.code} {client.name}: away at the end; last {last}")
            elif journal.totals is not None and client.came_too_late(ended_at):
                too_late += 1
                notes.append(f"{match.code} {client.name}: came to watch after the end; {last}")
            else:
                stuck += 1
                examples.append(f"{match.code} {client.name}: ended {client.exit_codes}, {last}")
    for client in run.stuck:
        last = [m.get("type") for m in client.messages[-3:]]
        examples.append(f"{client.name} ({client.role}) still running; last {last}")
    stuck += len(run.gave_up)
    examples += run.gave_up + run.servers_died
    faults = run.faults
    return {
        "seconds": round(took),
        "seed": run.opts.seed,
        "level": {"wait_replicas": run.opts.wait_replicas, "appendfsync": run.opts.appendfsync},
        "faults": {
            "server_kills": faults.server_kills,
            "failovers": faults.failovers,
            "failover_seconds": faults.failover_seconds,
            "redis_pauses": faults.redis_pauses,
            "client_drops": faults.client_drops,
            "fault_errors": faults.failed,
        },
        "matches": len(run.matches),
        "clients": sum(len(m.clients) for m in run.matches),
        "actions_seen": seen,
        "lost": lost,
        "doubled": doubled,
        "unfinished": unfinished,
        "stuck": stuck,
        "processes_left": len(left),
        "servers_died": len(run.servers_died),
        "away_at_end": missed_end,
        "watched_too_late": too_late,
        "refusals_seen": errors,
        "examples": examples[:20],
        "notes": notes[:20],
    }


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60, help="seconds of play and faults")
    parser.add_argument(
        "--each-fault-once",
        action="store_true",
        help="instead of --duration: each kind of fault once, one after the other, as soon as"
        " a match is dealt; then the matches finish (the test suite's short run)",
    )
    parser.add_argument("--clients", type=int, default=30, help="clients at a time (about)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--client-nice",
        type=int,
        default=CLIENT_NICE,
        help="the clients' nice value (the servers and Redis run at the caller's)",
    )
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument(
        "--bot-speed",
        default="fast",
        choices=("instant", "fast", "normal", "slow"),
        help="the bots' speed in the rooms of one person and two bots",
    )
    parser.add_argument(
        "--fault-every", type=float, default=6.0, help="mean seconds between faults"
    )
    parser.add_argument(
        "--lease-ttl", type=float, default=10.0, help="the servers' --lease-ttl (seconds)"
    )
    parser.add_argument(
        "--finish-grace",
        type=float,
        default=FINISH_GRACE,
        help="seconds the clients have to finish after the faults end; one still running"
        " then is stuck",
    )
    parser.add_argument("--wait-replicas", type=int, default=1, choices=(0, 1))
    parser.add_argument("--appendfsync", default="always", choices=("always", "everysec"))
    parser.add_argument(
        "--server-log-level", default="WARNING", help="the servers' --log-level (INFO: more)"
    )
    parser.add_argument("--out", type=Path, help="write the counts here as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the logs' directory")
    return parser.parse_args(argv)


async def main(opts: argparse.Namespace) -> int:
    root = Path(tempfile.mkdtemp(prefix="ddz-chaos-"))
    run = Run(opts, root)
    started = time.monotonic()
    journals: dict[str, Journal] = {}
    try:
        await asyncio.to_thread(run.redis.start)
        await asyncio.to_thread(run.servers.start_all)
        await run.play()
        await asyncio.to_thread(run.redis.wait_in_sync, 60)
        journals = await run.journals()
    finally:
        run.servers_died = run.servers.died()  # (before the run stops them)
        children = run.servers.descendants()
        run.servers.stop()
        run.redis.stop()
        # every process started here was waited for (reaped) once it ended, so one not
        # ended is one whose wait gave up; the servers' own children by pid and start time
        unreaped = [p for p in run.servers.started + run.redis.started if p.poll() is None]
        deadline = time.monotonic() + 10  # (a server's children end a moment after it)
        while (late := [c for c in children if alive(c)]) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [p.pid for p in unreaped] + [pid for pid, _ in late]
    counts = report(run, journals, left, time.monotonic() - started)
    for pid in left:
        with contextlib.suppress(OSError):
            counts["examples"].append(f"left: {pid} {Path(f'/proc/{pid}/cmdline').read_bytes()!r}")
    failed = ("lost", "doubled", "unfinished", "stuck", "processes_left", "servers_died")
    ok = not any(counts[k] for k in failed) and bool(run.matches)
    if opts.keep or not ok:
        for match in run.matches:
            for client in match.clients:
                client.write_record(match.code)
    else:
        shutil.rmtree(root, ignore_errors=True)
    text = json.dumps(counts, indent=1)
    print(text)
    if opts.out is not None:
        opts.out.write_text(text)
    if opts.keep or not ok:
        print(f"logs in {root}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        sys.exit(asyncio.run(main(parse())))
