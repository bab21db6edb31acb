"""The client survives the server going away: it reconnects with backoff and resumes.

Against a real ``ddz-server`` process on a fixed port, its matches in an embedded Redis in a
data directory of the test's own (or under a key prefix of its own on ``REDIS_URL``): a
practice match under ``--auto`` goes on to the end across a ``kill -9`` of the server and
across a clean SIGTERM shutdown, each followed by a restart on the same port and data; a
server that does not know the token refuses it, and the client then gives up. In process,
with a scripted link: ``unavailable`` refusals are retried, stale refusals after a resume are
waited out, and a resumed session without its room ends the way it should. And the backoff
schedule itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import secrets
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from websockets.asyncio.client import ClientConnection, connect

from client.backoff import RECONNECT, UNAVAILABLE, Backoff
from client.connection import TAKEN_OVER, Link, LinkError, RequestNumbers, open_with_retry
from client.headless import EXIT_OK, Headless, SessionEnded
from client.interactive import Interactive
from client.options import Options
from client.render import plain
from protocol.codec import decode, decode_server, encode
from protocol.errors import ErrorCode
from protocol.events import MatchEnded, TableView
from protocol.messages import (
    PROTOCOL_VERSION,
    BidRequest,
    Error,
    Hello,
    PassRequest,
    Request,
    RoomView,
    SeatBot,
    ServerMessage,
    Snapshot,
    StartPractice,
    Welcome,
)
from tests.client.helpers import room, seats, started, turn
from tests.client.procs import DDZ, DDZ_SERVER, free_port
from tests.redis_server import RedisProcess, store_args

#: Seconds a whole client run may take (a one-deal practice at "fast" takes about 10).
CLIENT_TIMEOUT = 45


# --- real processes ---------------------------------------------------------------------


class ServerProcess:
    """A ``ddz-server`` on a fixed port and a fixed store, started and stopped at will."""

    def __init__(self, port: int, store: list[str], log: Path) -> None:
        self.port = port
        self.store = store
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, store: list[str] | None = None) -> None:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [*DDZ_SERVER, "--port", str(self.port), *(store or self.store)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 15
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(
                        "the server did not start: " + self.log.read_text()
                    ) from None
                time.sleep(0.05)

    def stop(self, sig: signal.Signals) -> None:
        """Send ``sig`` and wait until the process is gone."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(sig)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[ServerProcess]:
    """A started server of this test's own; killed at the end, whatever happened."""
    server = ServerProcess(free_port(), store_args(tmp_path / "data"), tmp_path / "server.log")
    try:
        server.start()
        yield server
    finally:
        server.stop(signal.SIGKILL)


class ClientProcess:
    """A headless ``ddz`` whose stdout lines are collected as they come."""

    def __init__(self, args: list[str], stderr: Path) -> None:
        self.stderr_path = stderr
        with stderr.open("w") as err:
            self.proc = subprocess.Popen(
                [*DDZ, *args], stdout=subprocess.PIPE, stderr=err, text=True
            )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        out = cast(IO[str], self.proc.stdout)
        for line in out:
            self.lines.append(line)

    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in list(self.lines) if line.strip()]

    def wait_for(self, kind: str, count: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while sum(m["type"] == kind for m in self.messages()) < count:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"no {count} {kind!r} messages: {self.stderr()}")
            time.sleep(0.05)

    def finish(self, timeout: float = CLIENT_TIMEOUT) -> int:
        code = self.proc.wait(timeout)
        self._reader.join(5)
        return code

    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(5)


@contextlib.contextmanager
def practice_client(url: str, tmp_path: Path, *extra: str) -> Iterator[ClientProcess]:
    client = ClientProcess(
        ["--server", url, "--auto", "easy", "--json", "--reconnect-for", "20", *extra]
        + ["practice", "--deals", "1", "--speed", "fast"],
        tmp_path / "client.err",
    )
    try:
        yield client
    finally:
        client.kill()


def assert_resumed_to_the_end(client: ClientProcess) -> None:
    messages = client.messages()
    types = [m["type"] for m in messages]
    welcomes = [m for m in messages if m["type"] == "welcome"]
    assert [w["resumed"] for w in welcomes] == [False, True], client.stderr()
    assert welcomes[0]["player_id"] == welcomes[1]["player_id"]
    snapshots = [m for m in messages if m["type"] == "snapshot"]
    # one at the start and one on the return; a room brought back while its player says
    # hello may send one more, of the same room (a snapshot is the whole room: harmless)
    assert len(snapshots) >= 2
    assert all(welcomes[1]["room"] == s["room"]["code"] for s in snapshots)
    assert types[-1] == "match_end"
    deal_ends = [m for m in messages if m["type"] == "deal_end"]
    assert deal_ends and all(sum(d["score"]["scores"]) == 0 for d in deal_ends)
    assert sum(messages[-1]["totals"]) == 0


class RestartRun:
    """One practice match under ``--auto``, watched by a ``watch`` client, on a server of
    its own that is stopped with ``sig`` once a few cards were played, and started again on
    the same port and data a second later. It runs in a thread of its own, so that both
    kinds of stop take the time of one. The bots play at once, and the player holds still
    (SIGSTOP) until the watcher is in, from the third play until the signal is sent, and
    from the restart until the watcher is back, so that the match is still on when the
    server stops and when both return, by design: the bots only play up to the player's
    turn. (The
    match was three deals at the "fast" speed, about 10 s, for the same end, and took 24 s
    of a loaded run.)"""

    def __init__(self, sig: signal.Signals, tmp: Path) -> None:
        self.sig = sig
        self.server = ServerProcess(free_port(), store_args(tmp / "data"), tmp / "server.log")
        self.tmp = tmp
        self.client: ClientProcess | None = None
        self.watcher: ClientProcess | None = None
        self.code: int | None = None
        self.watcher_code: int | None = None
        self.error: BaseException | None = None
        self.cancelled = False
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self.server.start()
            client = ClientProcess(
                ["--server", self.server.url, "--auto", "easy", "--json", "--reconnect-for"]
                + ["20", "practice", "--deals", "3", "--speed", "instant"],
                self.tmp / "client.err",
            )
            self.client = client
            client.wait_for("snapshot", 1)
            client.proc.send_signal(signal.SIGSTOP)  # the match waits for the watcher
            try:
                code = next(m for m in client.messages() if m["type"] == "snapshot")
                watcher = ClientProcess(
                    ["--server", self.server.url, "--json", "--name", "eye"]
                    + ["--reconnect-for", "20", "watch", code["room"]["code"]],
                    self.tmp / "watcher.err",
                )
                self.watcher = watcher
                watcher.wait_for("snapshot", 1)
            finally:
                client.proc.send_signal(signal.SIGCONT)
            client.wait_for("played", 3)
            client.proc.send_signal(signal.SIGSTOP)
            try:
                self.server.stop(self.sig)
            finally:
                client.proc.send_signal(signal.SIGCONT)  # it finds its server gone
            time.sleep(1.0)
            if not self.cancelled:
                # back, the player holds still until the watcher is back too (at once, the
                # bots could end the match before the watcher had returned to see its end)
                client.proc.send_signal(signal.SIGSTOP)
                try:
                    self.server.start()
                    watcher.wait_for("welcome", 2)
                finally:
                    client.proc.send_signal(signal.SIGCONT)
                self.code = client.finish()
                self.watcher_code = watcher.finish()
        except BaseException as exc:
            self.error = exc

    def result(self) -> tuple[ClientProcess, ClientProcess]:
        """Wait for the run; its player and its watcher, which have exited."""
        self.thread.join(2 * CLIENT_TIMEOUT)
        if self.error is not None:
            raise self.error
        assert self.client is not None and self.watcher is not None, "the run did not start"
        assert self.watcher_code is not None, "the run did not finish"
        return self.client, self.watcher

    def clean_up(self) -> None:
        self.cancelled = True
        for _ in range(2):  # again once the thread is gone: it may have started one more
            for proc in (self.client, self.watcher):
                if proc is not None:
                    proc.kill()
            self.server.stop(signal.SIGKILL)
            self.thread.join(30)


@pytest.fixture(scope="module")
def restart_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, RestartRun]]:
    """The kill -9 and the SIGTERM run, started together; every process is gone after."""
    runs = {
        "kill-9": RestartRun(signal.SIGKILL, tmp_path_factory.mktemp("kill9")),
        "sigterm": RestartRun(signal.SIGTERM, tmp_path_factory.mktemp("sigterm")),
    }
    try:
        for run in runs.values():
            run.thread.start()
        yield runs
    finally:
        for run in runs.values():
            run.clean_up()


@pytest.mark.parametrize("stop", ["kill-9", "sigterm"])
def test_a_match_goes_on_across_a_server_restart(
    restart_runs: dict[str, RestartRun], stop: str
) -> None:
    """kill -9 (a crash) or SIGTERM (a clean shutdown) mid-match, and a restart a second
    later: the player (and a watcher) resume by themselves, to the end of the match."""
    run = restart_runs[stop]
    client, watcher = run.result()
    assert run.code == 0, client.stderr()
    assert_resumed_to_the_end(client)
    assert "reconnecting" in client.stderr()
    # A watcher of the match resumes the same way, and sees no hand but its own (none).
    assert run.watcher_code == 0, watcher.stderr()
    assert_resumed_to_the_end(watcher)
    watched = watcher.messages()
    assert all(m["room"]["your_seat"] is None for m in watched if m["type"] == "snapshot")
    assert all(m.get("hand") is None for m in watched if m["type"] == "deal_started")


def test_a_token_the_restarted_server_does_not_know_ends_the_session(
    server_process: ServerProcess, tmp_path: Path
) -> None:
    with practice_client(server_process.url, tmp_path) as client:
        client.wait_for("snapshot", 1)
        server_process.stop(signal.SIGKILL)
        server_process.start(store_args(tmp_path / "other-data"))  # an empty store
        assert client.finish() == 1
        assert "bad_token" in client.stderr() or "unknown or expired" in client.stderr()
        assert [m["resumed"] for m in client.messages() if m["type"] == "welcome"] == [False]


def test_a_client_gives_up_after_reconnect_for(
    server_process: ServerProcess, tmp_path: Path
) -> None:
    with practice_client(server_process.url, tmp_path, "--reconnect-for", "1") as client:
        client.wait_for("snapshot", 1)
        server_process.stop(signal.SIGKILL)
        started_at = time.monotonic()
        assert client.finish() == 1
        assert time.monotonic() - started_at < 5
        assert "gave up after 1 s" in client.stderr()


def test_a_hello_refused_as_unavailable_is_tried_again(tmp_path: Path) -> None:
    """The server is up but its Redis is not: the hello is refused (``storage_unavailable``) until
    Redis is back, then the match is played."""
    redis = RedisProcess(tmp_path / "redis").start()
    server = ServerProcess(free_port(), ["--redis-url", redis.url], tmp_path / "server.log")
    client: ClientProcess | None = None
    try:
        server.start()
        redis.stop()
        client = ClientProcess(
            ["--server", server.url, "--auto", "easy", "--json", "--reconnect-for", "20"]
            + ["practice", "--deals", "1", "--speed", "instant"],
            tmp_path / "client.err",
        )
        # Redis stays down until the client has been refused at least once (the server's
        # store retries a dropped link for a moment before it refuses)
        deadline = time.monotonic() + 20
        while "[storage_unavailable]; trying again" not in client.stderr():
            assert time.monotonic() < deadline, client.stderr()
            assert client.proc.poll() is None, client.stderr()
            time.sleep(0.05)
        assert client.messages() == []
        redis.start()
        assert client.finish() == 0, client.stderr()
        types = [m["type"] for m in client.messages()]
        assert types.count("welcome") == 1 and types[-1] == "match_end"
    finally:
        if client is not None:
            client.kill()
        server.stop(signal.SIGKILL)
        redis.stop(kill=True)


async def test_a_random_token_is_refused(server: str) -> None:
    async with connect(server) as ws:
        hello = Hello(id=1, name="mallory", version=PROTOCOL_VERSION, token=secrets.token_hex(32))
        await ws.send(encode(hello))
        reply = decode_server(await asyncio.wait_for(ws.recv(), 5))
    assert isinstance(reply, Error)
    assert reply.code == ErrorCode.BAD_TOKEN and reply.request_id == 1


async def test_reopening_with_a_bad_token_is_not_retried(server: str) -> None:
    numbers = RequestNumbers()
    numbers.next()
    started_at = time.monotonic()
    with pytest.raises(LinkError) as caught:
        await open_with_retry(server, "ann", "no-such-token", numbers, within=10)
    assert caught.value.code == ErrorCode.BAD_TOKEN
    assert time.monotonic() - started_at < 2
    assert numbers.last == 2  # the hello went on from the numbering, not from 1


async def test_an_unreachable_server_is_retried_until_time_is_up() -> None:
    url = f"ws://127.0.0.1:{free_port()}"
    waits: list[float] = []
    started_at = time.monotonic()
    with pytest.raises(LinkError, match=r"gave up after 0\.6 s"):
        await open_with_retry(
            url, "ann", "token", RequestNumbers(), 0.6, notice=lambda _e, d: waits.append(d)
        )
    assert 0.5 < time.monotonic() - started_at < 2.5
    assert len(waits) >= 1 and sum(waits) <= 0.6
    with pytest.raises(LinkError, match="cannot connect"):
        await open_with_retry(url, "ann", None, RequestNumbers(), 5, retry_unreachable=False)


async def test_a_rooms_message_before_the_welcome_is_passed_over() -> None:
    """A room taken over while the server answers a hello calls its people back, and its
    snapshot may reach the connection before the welcome: the hello still succeeds (the
    snapshot that follows the welcome brings the room)."""
    from websockets.asyncio.server import ServerConnection, serve

    async def answer(ws: ServerConnection) -> None:
        hello = decode(await ws.recv())
        assert isinstance(hello, Hello)
        await ws.send(encode(Snapshot(room=room())))
        await ws.send(encode(welcome(resumed=True, room_code="ABCDE")))
        await ws.wait_closed()

    async with serve(answer, "127.0.0.1", 0) as listening:
        port = listening.sockets[0].getsockname()[1]
        link = await Link.open(f"ws://127.0.0.1:{port}", "ann", token="t0k")
        try:
            assert link.welcome.resumed and link.welcome.room == "ABCDE"
        finally:
            await link.close()


async def test_the_interactive_client_resumes_and_gives_up_on_a_bad_token(server: str) -> None:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        client = Interactive(Options(server=server, name="me", reconnect_for=5))
        first = await Link.open(server, "me", numbers=client.numbers)
        client.link = first
        await first.close()
        assert await client.reconnect()
        assert client.link is not first and client.link.welcome.resumed
        assert client.link.welcome.player_id == first.welcome.player_id
        assert client.numbers.last == 2  # the second hello went on from the first
        await client.link.close()
        client.link = ScriptedLink(welcome())  # a token this server never gave
        started_at = time.monotonic()
        assert not await client.reconnect()
        assert time.monotonic() - started_at < 2


# --- the backoff schedule ---------------------------------------------------------------


def take(delays: Iterator[float], n: int) -> list[float]:
    return [next(delays) for _ in range(n)]


def test_the_backoff_doubles_up_to_its_cap() -> None:
    schedule = Backoff(first=0.2, cap=3.0, jitter=0.0)
    assert take(schedule.delays(), 7) == pytest.approx([0.2, 0.4, 0.8, 1.6, 3.0, 3.0, 3.0])


def test_the_jitter_only_shortens_a_delay() -> None:
    schedule = Backoff(first=0.2, cap=3.0, jitter=0.2)
    assert take(schedule.delays(lambda: 0.0), 3) == pytest.approx([0.2, 0.4, 0.8])
    assert take(schedule.delays(lambda: 0.5), 3) == pytest.approx([0.18, 0.36, 0.72])
    nominals = [0.2, 0.4, 0.8, 1.6] + [3.0] * 46
    for delay, nominal in zip(take(schedule.delays(), 50), nominals, strict=True):
        assert 0.8 * nominal <= delay <= nominal


def test_after_fast_for_seconds_the_delays_grow_on_to_the_later_cap() -> None:
    schedule = Backoff(first=0.5, cap=1.0, jitter=0.0, fast_for=3.0, later_cap=8.0)
    assert take(schedule.delays(), 9) == pytest.approx([0.5, 1, 1, 1, 2, 4, 8, 8, 8])


def test_the_clients_schedules() -> None:
    assert (UNAVAILABLE.first, UNAVAILABLE.cap) == (0.3, 3.0)
    # a reconnect tries within a second for the first 45 s, however many tries failed
    waited, delays = 0.0, RECONNECT.delays()
    while waited < 45.0:
        delay = next(delays)
        assert delay <= 1.0, f"a wait of {delay:.2f} s after {waited:.1f} s"
        waited += delay
    assert RECONNECT.first <= 0.2
    # then further apart, at most 8 s
    later = take(delays, 10)
    assert max(later) <= 8.0 and later[-1] > 4.0


@pytest.mark.parametrize(
    "args",
    [
        {"first": 0.0},
        {"first": 5.0, "cap": 1.0},
        {"factor": 0.5},
        {"jitter": 1.0},
        {"cap": 3.0, "later_cap": 1.0},
        {"fast_for": -1.0},
    ],
)
def test_a_schedule_that_makes_no_sense_is_refused(args: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Backoff(**args)


# --- the headless driver over a scripted link --------------------------------------------


class ScriptedLink(Link):
    """A link whose server is the test: ``sent`` has what the client sent, ``feed`` what
    it will receive; ``drop()`` ends the connection as the server's death would."""

    def __init__(self, welcome: Welcome, numbers: RequestNumbers | None = None) -> None:
        if numbers is None:
            numbers = RequestNumbers()
            numbers.next()  # the hello
        super().__init__(cast(ClientConnection, None), numbers, welcome)
        self.sent: list[Request] = []
        self.inbox: asyncio.Queue[ServerMessage | None] = asyncio.Queue()

    def feed(self, *messages: ServerMessage | None) -> None:
        for message in messages:
            self.inbox.put_nowait(message)

    async def send(self, request: Request) -> int:
        rid = self.numbers.next()
        self.sent.append(request.model_copy(update={"id": rid}))
        return rid

    async def receive(self) -> ServerMessage:
        message = await self.inbox.get()
        if message is None:
            from websockets.exceptions import ConnectionClosedError

            raise ConnectionClosedError(None, None)
        return message

    async def close(self) -> None:
        return None

    async def next_sent(self, count: int = 1) -> list[Request]:
        """Wait until ``count`` more requests were sent; returns them."""
        start = len(self.sent)
        for _ in range(200):
            if len(self.sent) >= start + count:
                return self.sent[start : start + count]
            await asyncio.sleep(0.01)
        raise AssertionError(f"nothing sent after {self.sent}")


def welcome(resumed: bool = False, room_code: str | None = None) -> Welcome:
    return Welcome(token="t0k", player_id="p1", name="ann", resumed=resumed, room=room_code)


OPTS = Options(server="ws://nowhere", name="ann", mode="practice", auto="easy", json=True)
QUICK = Backoff(first=0.01, cap=0.02)


def headless(link: Link) -> tuple[Headless, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return Headless(link, OPTS, out, err, retry_schedule=QUICK), out, err


def a_match_end() -> MatchEnded:
    return MatchEnded(totals=[0, 0, 0], winners=[0, 1, 2], deal_scores=[[0, 0, 0]])


async def test_unavailable_setup_and_actions_are_tried_again() -> None:
    link = ScriptedLink(welcome())
    driver, _out, err = headless(link)
    task = asyncio.create_task(driver.run())
    (setup,) = await link.next_sent()
    assert isinstance(setup, StartPractice) and setup.id == 2  # the hello was 1
    link.feed(Error(code=ErrorCode.UNAVAILABLE, message="retry", request_id=setup.id))
    (again,) = await link.next_sent()
    assert isinstance(again, StartPractice) and again.id == 3
    link.feed(Snapshot(room=room()), started(), turn(0, 0))
    (bid,) = await link.next_sent()
    assert isinstance(bid, BidRequest | PassRequest) and bid.version == 0
    link.feed(Error(code=ErrorCode.UNAVAILABLE, message="retry", request_id=bid.id))
    (bid_again,) = await link.next_sent()
    assert isinstance(bid_again, BidRequest | PassRequest) and bid_again.version == 0
    assert bid_again.id == bid.id + 1
    link.feed(a_match_end())
    assert await asyncio.wait_for(task, 5) == EXIT_OK
    assert err.getvalue().count("[unavailable]") == 2


async def test_a_setup_refused_as_busy_is_sent_again() -> None:
    """Another request of ours still holds our lobby lock (its connection dropped, or its
    server died holding it): the setup waits and goes again, it is not the end."""
    link = ScriptedLink(welcome())
    driver, _out, err = headless(link)
    task = asyncio.create_task(driver.run())
    (setup,) = await link.next_sent()
    link.feed(Error(code=ErrorCode.BUSY, message="under way: retry", request_id=setup.id))
    (again,) = await link.next_sent()
    assert isinstance(again, StartPractice) and again.id == setup.id + 1
    link.feed(Snapshot(room=room()), a_match_end())
    assert await asyncio.wait_for(task, 5) == EXIT_OK
    assert "[busy]" in err.getvalue()


async def test_a_setup_that_took_effect_though_refused_waits_for_its_room() -> None:
    """The first try seated us but was answered as unavailable: the second is refused as
    already seated, and the room's snapshot follows (the server brings us back)."""
    link = ScriptedLink(welcome())
    driver, _out, err = headless(link)
    task = asyncio.create_task(driver.run())
    (setup,) = await link.next_sent()
    link.feed(Error(code=ErrorCode.UNAVAILABLE, message="retry", request_id=setup.id))
    (again,) = await link.next_sent()
    link.feed(Error(code=ErrorCode.ALREADY_SEATED, message="seated", request_id=again.id))
    await asyncio.sleep(0.05)
    assert not task.done()
    link.feed(Snapshot(room=room()), a_match_end())
    assert await asyncio.wait_for(task, 5) == EXIT_OK
    assert "waiting for the room" in err.getvalue()


async def test_a_first_setup_refused_as_already_seated_ends_the_session() -> None:
    link = ScriptedLink(welcome())
    driver, _out, _err = headless(link)
    task = asyncio.create_task(driver.run())
    (setup,) = await link.next_sent()
    link.feed(Error(code=ErrorCode.ALREADY_SEATED, message="seated", request_id=setup.id))
    with pytest.raises(SessionEnded):
        await asyncio.wait_for(task, 5)


async def test_a_rooms_set_up_the_match_moved_past_is_not_a_refused_move() -> None:
    """Two snapshots of a created room came before its bots sat (a fresh one after an
    outage): each seats the bots, and the second pair is refused once the match has
    started. That is not a move refused: the session goes on."""
    opts = Options(
        server="ws://nowhere", name="ann", mode="create", auto="easy", json=True, bots="easy"
    )
    link = ScriptedLink(welcome())
    driver = Headless(link, opts, io.StringIO(), io.StringIO(), retry_schedule=QUICK)
    task = asyncio.create_task(driver.run())
    await link.next_sent()  # the create
    empty = room().model_copy(update={"seats": seats("me", "empty", "empty")})
    link.feed(Snapshot(room=empty))
    first = await link.next_sent(2)
    link.feed(Snapshot(room=empty))
    second = await link.next_sent(2)
    assert all(isinstance(r, SeatBot) for r in first + second)
    link.feed(Snapshot(room=room()), started(), turn(0, 0))
    (bid,) = await link.next_sent()  # our turn: decided
    assert isinstance(bid, BidRequest | PassRequest)
    for request in second:
        link.feed(Error(code=ErrorCode.WRONG_PHASE, message="started", request_id=request.id))
    await asyncio.sleep(0.05)
    assert not task.done() and link.sent[-1] == bid  # nothing else sent, nothing ended
    link.feed(a_match_end())
    assert await asyncio.wait_for(task, 5) == EXIT_OK


async def test_a_turn_the_picture_cannot_explain_waits_for_the_next_snapshot() -> None:
    """The bidding's end was lost on the way (between servers): our turn to play comes to
    a picture with no landlord. The bot cannot decide on it; the session waits for the
    snapshot that follows instead of ending."""
    link = ScriptedLink(welcome())
    driver, _out, err = headless(link)
    assert driver.auto is not None

    def lost(state: object) -> None:  # (as the normal bot says of a play with no landlord)
        raise ValueError("no landlord yet: nothing to play")

    driver.auto.next_request = lost  # type: ignore[method-assign,assignment]
    task = asyncio.create_task(driver.run())
    await link.next_sent()  # the practice
    link.feed(Snapshot(room=room()), started(), turn(0, 5, action="play", may_pass=False))
    await asyncio.sleep(0.05)
    assert not task.done() and "waiting for the next" in err.getvalue()
    link.feed(a_match_end())
    assert await asyncio.wait_for(task, 5) == EXIT_OK


async def test_an_unavailable_setup_after_its_snapshot_is_not_sent_again() -> None:
    """The server opened the room (its snapshot came) but could not note it in the session:
    the setup took effect, so sending it again would only be refused."""
    link = ScriptedLink(welcome())
    driver, _out, _err = headless(link)
    task = asyncio.create_task(driver.run())
    (setup,) = await link.next_sent()
    link.feed(
        Snapshot(room=room()),
        Error(code=ErrorCode.UNAVAILABLE, message="retry", request_id=setup.id),
    )
    await asyncio.sleep(0.1)
    assert link.sent == [setup]
    link.feed(a_match_end())
    assert await asyncio.wait_for(task, 5) == EXIT_OK


async def test_a_resumed_session_decides_again_and_waits_out_stale_refusals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = ScriptedLink(welcome())
    second = ScriptedLink(welcome(resumed=True, room_code="ABCDE"), first.numbers)
    opened: list[tuple[str | None, int]] = []

    async def reopen(url: str, name: str, token: str | None, numbers: RequestNumbers,
                     within: float, **_: object) -> Link:  # fmt: skip
        opened.append((token, numbers.last))
        numbers.next()  # the hello
        return second

    monkeypatch.setattr("client.connection.open_with_retry", reopen)
    driver, out, _err = headless(first)
    task = asyncio.create_task(driver.run())
    await first.next_sent()
    first.feed(Snapshot(room=room()), started(), turn(0, 0))
    (bid,) = await first.next_sent()
    first.feed(None)  # the connection drops before the answer
    # The server never got the bid: the same turn is on again, and decided afresh.
    second.feed(Snapshot(room=room()), started(), turn(0, 0))
    (again,) = await second.next_sent()
    assert opened == [("t0k", bid.id)]  # resumed with the token, past the lost bid
    assert again.id == bid.id + 2 and getattr(again, "version", None) == 0
    second.feed(Error(code=ErrorCode.STALE, message="moved on", request_id=again.id))
    second.feed(Error(code=ErrorCode.NOT_YOUR_TURN, message="no", request_id=again.id))
    second.feed(a_match_end())
    assert await asyncio.wait_for(task, 5) == EXIT_OK
    welcomes = [json.loads(x) for x in out.getvalue().splitlines() if '"welcome"' in x]
    assert [w["resumed"] for w in welcomes] == [False, True]


@pytest.mark.parametrize("in_room", [False, True])
async def test_a_resumed_session_without_its_room(
    monkeypatch: pytest.MonkeyPatch, in_room: bool
) -> None:
    """Without a room: the setup is sent again if it never took effect, else it is the end."""
    first = ScriptedLink(welcome())
    second = ScriptedLink(welcome(resumed=True), first.numbers)

    async def reopen(*_args: object, **_kwargs: object) -> Link:
        return second

    monkeypatch.setattr("client.connection.open_with_retry", reopen)
    driver, _out, _err = headless(first)
    task = asyncio.create_task(driver.run())
    await first.next_sent()
    if in_room:
        first.feed(Snapshot(room=room()))
    first.feed(None)
    if in_room:
        with pytest.raises(SessionEnded, match="room is gone"):
            await asyncio.wait_for(task, 5)
        return
    (setup,) = await second.next_sent()
    assert isinstance(setup, StartPractice)
    second.feed(Snapshot(room=room()), a_match_end())
    assert await asyncio.wait_for(task, 5) == EXIT_OK


def over_room() -> RoomView:
    """The room as it stands once its match is over (its bots finished it meanwhile)."""
    table = TableView.model_validate(
        {
            "viewer_seat": 0,
            "phase": "over",
            "deal_no": 3,
            "deals_total": 3,
            "hand": [],
            "card_counts": [0, 4, 9],
            "first_bidder": 0,
            "forced_bid": False,
            "bids": [],
            "landlord": 0,
            "base": 3,
            "kitty": None,
            "plays": [],
            "passes": [],
            "last_play": None,
            "passes_in_row": 0,
            "turn": None,
            "multiplier": 1,
            "totals": [12, -6, -6],
            "deal_scores": [[6, -3, -3], [-6, 3, 3], [12, -6, -6]],
            "last_deal": None,
            "ready": [False, False, False],
            "bot_control": [True, False, False],
            "winners": [0],
            "version": 99,
        }
    )
    return room().model_copy(update={"table": table})


@pytest.mark.parametrize("json_mode", [False, True])
async def test_a_match_its_bots_finished_while_we_were_away_is_said_to_have_ended(
    monkeypatch: pytest.MonkeyPatch, json_mode: bool
) -> None:
    """Issue 34: resumed after a restart into a room whose bots had finished the match, the
    client exited 0 without a word of its end."""
    first = ScriptedLink(welcome())
    second = ScriptedLink(welcome(resumed=True, room_code="ABCDE"), first.numbers)

    async def reopen(*_args: object, **_kwargs: object) -> Link:
        return second

    monkeypatch.setattr("client.connection.open_with_retry", reopen)
    out, err = io.StringIO(), io.StringIO()
    opts = Options(server="ws://nowhere", name="ann", mode="practice", auto="easy", json=json_mode)
    driver = Headless(first, opts, out, err, retry_schedule=QUICK)
    task = asyncio.create_task(driver.run())
    await first.next_sent()
    first.feed(Snapshot(room=room()), started())
    first.feed(None)  # the server goes down; its bots finish the match meanwhile
    second.feed(Snapshot(room=over_room()))
    assert await asyncio.wait_for(task, 5) == EXIT_OK
    assert "ended while we were away: +12 -6 -6" in err.getvalue()
    if not json_mode:
        assert "match over: me (you) wins   totals: me (you) +12" in out.getvalue()


async def test_the_interactive_client_taken_over_by_its_player_elsewhere_stops(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34: two clients of one key took the player from each other for ever."""
    said: list[str] = []
    monkeypatch.setattr("client.interactive.say", lambda fragments: said.append(plain(fragments)))
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        client = Interactive(Options(server=server, name="me", reconnect_for=5))
        first = await Link.open(server, "me", numbers=client.numbers)
        key = first.welcome.player_key
        assert key is not None
        client.link = first
        loop = asyncio.create_task(client.receive_loop())
        elsewhere = await Link.open(server, "me", player_key=key)  # the same player, again
        try:
            await asyncio.wait_for(loop, 5)
            assert client.done and client.link is first  # no new link: it did not fight back
            assert TAKEN_OVER in said
            assert elsewhere.welcome.player_id == first.welcome.player_id
        finally:
            await elsewhere.close()
