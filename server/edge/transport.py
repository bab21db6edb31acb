"""The websocket transport: a thin asyncio layer over ``App``.

Binary frames in, ``App.receive`` decides, messages out. ``GET /healthz`` answers 200 without
upgrading (503 while Redis does not answer), from the moment the process listens, before
the stored rooms are back; ``/metrics`` is served on ``--metrics-port`` (its own address),
and here only when asked (``--metrics-on-game-port``: behind a proxy that keeps it
internal), else nowhere. Only GET and HEAD are answered (HEAD without a body; anything else
405). A new connection past the caps is refused before the upgrade
(``server.edge.admission``), as is one from a page other than this server's own or one
listed in ``--allowed-origins`` (``Origin: null`` too; no ``Origin``, as the terminal client
and bots send, is not a page); an address whose connections were closed
for flooding or for breaking the protocol waits before its next upgrade
(``server.edge.flood.FloodRecord``); one that has not said hello within ``hello_timeout`` is
closed (1008, "no hello within N s"). SIGTERM and SIGINT (Ctrl-C), even one that comes while the
process starts, stop accepting, stop the rooms' clocks and bots, hand the rooms to other
processes, close every connection with code 1001 and a reason, and return within the
shutdown grace; the children (embedded Redis, bot workers) never see the terminal's
Ctrl-C, and die with the process even when it is killed (``server.children``). With
``--tls-cert`` and ``--tls-key`` the port speaks https and wss, and SIGHUP reads the
certificate again (``server.edge.tls``).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import logging
import signal
import ssl
import time
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import TypeVar

from prometheus_client import CONTENT_TYPE_LATEST
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.app import App
from server.edge.admission import Admission, connection_cap, origin_allowed, parse_origins
from server.edge.flood import FloodRecord, TokenBucket
from server.edge.frames import GOING_AWAY
from server.edge.gc_pacing import GcPacer
from server.edge.hub import Connection
from server.edge.tls import Certificates, describe
from server.edge.websocket import Handler, WebSocket, WebSocketServer
from server.settings import Settings
from server.store.addresses import AddressStore
from server.store.clients import TIMEOUT as REPLY_TIMEOUT
from server.store.embedded import EmbeddedRedis
from server.store.errors import StoreUnavailable
from server.store.group_commit import ReplicaWait
from server.store.redis_store import RedisStore
from server.web import serve as web

log = logging.getLogger(__name__)
DEFAULTS = Settings()
#: The transport closes a connection whose frame is above this (1009); below it, frames larger
#: than ``Settings.max_frame`` get a TOO_LARGE error and the connection stays up.
HARD_FRAME_LIMIT = 1 << 20
#: Seconds an upgrade asked while the app starts (it listens first) waits for the app to take
#: players, rather than be refused at once; a start slower than that is refused as before
#: (503 "starting: retry").
STARTING_WAIT = 5.0
T = TypeVar("T")


class _Listener:
    """The app's side of each connection: plain HTTP answers beside the websocket
    (``/healthz``: 200 while Redis answers, 503 when it does not, so that a balancer or an
    upgrade script sends no player here; ``/metrics``; the browser table), the caps before
    the upgrade, then a ``_Client`` for each websocket opened."""

    def __init__(self, app: App, admission: Admission) -> None:
        self.app = app
        self.admission = admission
        self._starting: asyncio.Future[None] | None = None
        self.floods = FloodRecord()
        self.origins = parse_origins(app.settings.allowed_origins)
        #: Whether this listener speaks TLS (the scheme of this server's own page).
        self.tls = bool(app.settings.tls_cert)

    def arrived(self, ws: WebSocket) -> tuple[HTTPStatus, str] | None:
        refusal = self.admission.arrived(ws)
        if refusal is None:
            return None
        self.app.metrics.refused_connections.labels(refusal.why).inc()
        return refusal.status, refusal.text

    async def answer(self, ws: WebSocket, request: Request) -> Response | None:
        if request.method not in web.METHODS:
            return web.method_not_allowed()
        response = await self._answer(ws, request)
        if response is None and request.method != "GET":  # (an upgrade asked with HEAD)
            return web.method_not_allowed()
        return None if response is None else web.for_method(request.method, response)

    async def _answer(self, ws: WebSocket, request: Request) -> Response | None:
        app = self.app
        if request.path == "/healthz":
            return await healthz(app, ws)
        if request.path == "/metrics" and app.settings.metrics_on_game_port:
            return metrics(app)  # (else the page's 404: served on --metrics-port, or nowhere)
        page = web.answer(request)  # the browser table: GET / and its assets, else 404
        if page is not None:
            return page
        if not app.accepting and not await self._taking_players(STARTING_WAIT):
            # starting: nothing yet to hear from other processes
            return ws.respond(HTTPStatus.SERVICE_UNAVAILABLE, "starting: retry\n")
        scheme = self.admission.scheme(ws, request, self.tls)
        if not origin_allowed(request.headers, self.origins, scheme):
            app.metrics.refused_connections.labels("origin").inc()
            return ws.respond(HTTPStatus.FORBIDDEN, "this page's origin may not connect here\n")
        wait = self.floods.wait(self.admission.address(ws, request), time.monotonic())
        if wait > 0:  # its connections were closed for flooding: later, not never
            await asyncio.sleep(wait)
        refusal = self.admission.admit(ws, request)
        if refusal is None:
            return None
        app.metrics.refused_connections.labels(refusal.why).inc()
        return ws.respond(refusal.status, refusal.text)

    async def _taking_players(self, within: float) -> bool:
        """Whether the app takes players within ``within`` seconds: a player who knocks
        while it starts is let in the moment it does (one watcher for them all), not
        refused and left to its retry's wait."""
        if self._starting is None or self._starting.done():
            self._starting = asyncio.ensure_future(_until(lambda: self.app.accepting, within))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._starting), within)
        return self.app.accepting

    def opened(self, ws: WebSocket) -> _Client:
        return _Client(self.app, ws, self.admission.address_of(ws), self.floods)

    def lost(self, ws: WebSocket) -> None:
        self.admission.release(ws)


async def healthz(app: App, ws: WebSocket) -> Response:
    """200 while Redis answers, else 503 (during an outage, saying since how long the rooms
    have been paused). While the storage is up it asks Redis each time, and tells the
    process's health what it found; once it is known down it answers 503 at once (a
    stopped Redis would hold each PING for its timeouts, seconds), and the health's probe,
    four times a second, says "back" as soon as Redis is. Its own PING waits no longer than
    a reply may take (``REPLY_TIMEOUT``), not for the client's retries."""
    if not app.health.down:
        answered = False
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(REPLY_TIMEOUT):
                answered = await app.store.ping()
        if answered:
            app.health.answered()
            return ws.respond(HTTPStatus.OK, "ok\n")
        app.health.failed(StoreUnavailable(f"no answer to PING in {REPLY_TIMEOUT:g} s"))
    since = app.health.down_since
    down = 0.0 if since is None else max(app.health.clock() - since, 0.0)
    text = f"redis unreachable for {down:.1f} s: rooms paused\n"
    return ws.respond(HTTPStatus.SERVICE_UNAVAILABLE, text)


def metrics(app: App) -> Response:
    """The Prometheus exposition of ``app``'s metrics."""
    body = app.metrics.exposition()
    headers = Headers(
        [
            ("Content-Type", CONTENT_TYPE_LATEST),
            ("Content-Length", str(len(body))),
            ("X-Content-Type-Options", "nosniff"),
        ]
    )
    return Response(HTTPStatus.OK, "OK", headers, body)


class _MetricsListener:
    """The metrics' own address (``--metrics-port``): ``/metrics`` and ``/healthz``,
    nothing else, no websocket."""

    def __init__(self, app: App) -> None:
        self.app = app

    def arrived(self, ws: WebSocket) -> tuple[HTTPStatus, str] | None:
        return None

    async def answer(self, ws: WebSocket, request: Request) -> Response | None:
        if request.method not in web.METHODS:
            return web.method_not_allowed()
        if request.path == "/metrics":
            response = metrics(self.app)
        elif request.path == "/healthz":
            response = await healthz(self.app, ws)
        else:
            response = ws.respond(HTTPStatus.NOT_FOUND, "not found\n")
        return web.for_method(request.method, response)

    def opened(self, ws: WebSocket) -> Handler:
        raise AssertionError("the metrics' address opens no websocket")

    def lost(self, ws: WebSocket) -> None:
        pass


class _Client:
    """One open websocket: its ``Connection`` in the hub, its hello timeout; each message
    to ``App.receive``; ``App.disconnected`` at its end."""

    __slots__ = ("app", "conn", "floods", "timer")

    def __init__(self, app: App, ws: WebSocket, address: str, floods: FloodRecord) -> None:
        s = app.settings
        self.app = app
        self.floods = floods
        self.conn = Connection(
            ws,
            TokenBucket(s.rate_limit, s.rate_burst),
            address,
            send_buffer_limit=s.send_buffer_limit,
            flood_close_after=s.flood_close_after,
        )
        app.hub.add(self.conn)
        self.timer: asyncio.TimerHandle | None = None
        if s.hello_timeout > 0:
            self.timer = asyncio.get_running_loop().call_later(
                s.hello_timeout, _no_hello, self.conn, s.hello_timeout
            )

    async def message(self, data: bytes | str) -> None:
        await self.app.receive(self.conn, data)

    async def closed(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.conn.dropped is not None:
            self.app.metrics.dropped_connections.labels(self.conn.dropped).inc()
        if self.conn.dropped == "flood" or self.conn.ws.broke is not None:
            # flooded, or broke the protocol (a fragment flood, frames no client sends):
            # its address waits before its next upgrade
            self.floods.closed(self.conn.address, time.monotonic())
        await self.app.disconnected(self.conn)


async def _until(test: Callable[[], bool], within: float, every: float = 0.02) -> None:
    """Return once ``test()`` holds, or after ``within`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    while not test() and loop.time() < end:
        await asyncio.sleep(every)


def _no_hello(conn: Connection, timeout: float) -> None:
    if conn.player_id is None and conn.ws.open:
        conn.drop("hello_timeout", f"no hello within {timeout:g} s")


async def serve_app(
    app: App, ready: asyncio.Event | None = None, stop: asyncio.Event | None = None
) -> None:
    """Serve until ``stop`` is set (or SIGTERM/SIGINT), then shut down within the grace.

    It listens first and starts the app (recovery of the stored rooms) while serving, so
    ``/healthz`` answers at once; ``ready`` is set once the app has started. A stop asked
    during the start ends it there and shuts down the same way."""
    stop = stop or asyncio.Event()
    watch_signals(stop)
    s = app.settings
    cap = connection_cap(s.max_connections, explicit=s.max_connections != DEFAULTS.max_connections)
    admission = Admission(cap, s.max_connections_per_address, s.trusted_proxies)
    # Messages are small msgpack maps and no extension is negotiated: a deflate context per
    # connection would cost tens of KB of memory each (~70 KB a player in the load test).
    server = WebSocketServer(_Listener(app, admission), max_size=HARD_FRAME_LIMIT)
    certificates = load_certificates(s)
    tls = None if certificates is None else certificates.context
    await listen(server, s.host, s.port, "--port / DDZ_PORT", tls)
    if certificates is not None:  # certificates renew: SIGHUP reads the files again
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, certificates.reload)
    scrape: WebSocketServer | None = None
    if s.metrics_port:
        scrape = WebSocketServer(_MetricsListener(app), max_size=1024, keepalive=0)
        await listen(scrape, s.metrics_host, s.metrics_port, "--metrics-port / DDZ_METRICS_PORT")
        log.info("metrics on http://%s:%d/metrics", s.metrics_host, s.metrics_port)
    try:
        kind = type(asyncio.get_running_loop()).__module__.split(".")[0]
        page = f"{'https' if tls else 'http'}://{browsable(s.host)}:{s.port}/"
        log.info(
            "ddz-server listening on port %d: open %s in a browser (event loop: %s)",
            s.port,
            page,
            kind,
        )
        if await _started(app, stop) and ready is not None:
            ready.set()
        await stop.wait()
        log.info("shutting down: closing %d connections", len(app.hub.all))
    finally:
        server.stop_accepting()
        if scrape is not None:
            scrape.stop_accepting()
        if certificates is not None:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)
    try:  # stop the rooms and hand them over; a step that hangs must not keep us up
        await asyncio.wait_for(app.close(), s.shutdown_grace)
    except TimeoutError:
        log.warning("the rooms were not all handed over within %g s", s.shutdown_grace)
    server.close_all(GOING_AWAY, "server shutting down", s.shutdown_grace)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(server.wait_closed(), s.shutdown_grace)


def load_certificates(settings: Settings) -> Certificates | None:
    """The listener's TLS certificate (``--tls-cert``, ``--tls-key``), or None for plain
    http and ws; files that do not load end the process with one line that says why."""
    if not settings.tls_cert:
        return None
    try:
        return Certificates(settings.tls_cert, settings.tls_key)
    except (OSError, ssl.SSLError) as exc:
        raise SystemExit(f"ddz-server: --tls-cert / --tls-key: {describe(exc)}") from None


async def listen(
    server: WebSocketServer, host: str, port: int, setting: str, tls: ssl.SSLContext | None = None
) -> None:
    """Start ``server`` on ``host``:``port``; a port that cannot be had ends the process
    with one line that says so and names the ``setting`` to change (no traceback)."""
    try:
        await server.start(host, port, tls=tls)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            why = f"port {port} on {host} is in use (another ddz-server?)"
        else:
            why = f"cannot listen on {host}:{port}: {exc.strerror or exc}"
        raise SystemExit(f"ddz-server: {why}: choose another with {setting}") from None


def browsable(host: str) -> str:
    """The host to put in a URL for a server listening on ``host``: a wildcard address is
    this machine's loopback, an IPv6 address is bracketed."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


async def _started(app: App, stop: asyncio.Event) -> bool:
    """Start the app, unless ``stop`` is set first (then the start is cancelled): whether
    it started. A start that fails shuts the app down and raises."""
    starting = asyncio.ensure_future(app.start())
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([starting, stopping], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if not starting.done():
        log.info("stopping before the start was over")
        starting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await starting
        return False
    if starting.exception() is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(app.close(), app.settings.shutdown_grace)
        starting.result()  # raises
    return True


def open_store(settings: Settings, url: str) -> RedisStore:
    return RedisStore.from_url(
        url, settings.finished_ttl, settings.session_ttl, prefix=settings.key_prefix
    )


#: Set by SIGTERM or SIGINT before the event loop handles them (``run`` listens from its
#: first line, so a signal during the start is a clean stop too, never a traceback).
_signalled = False


def _early_signal(signum: int, frame: object) -> None:
    global _signalled
    _signalled = True


def watch_signals(stop: asyncio.Event) -> None:
    """SIGTERM and SIGINT (Ctrl-C) set ``stop``: both are the same clean shutdown. One that
    came before the loop ran (``run``) sets it at once."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    if _signalled:
        stop.set()


async def _unless_stopped(job: Awaitable[T], stop: asyncio.Event) -> T | None:
    """``job``'s result, or None when ``stop`` is set first (the job is then cancelled)."""
    task = asyncio.ensure_future(job)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([task, stopping], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return None


async def _run(settings: Settings, url: str) -> None:
    stop = asyncio.Event()
    watch_signals(stop)
    # connect, not open_store: it waits for Redis and asks whether it is a Redis Cluster
    replicas = settings.redis_wait_replicas
    connecting = RedisStore.connect(
        url,
        settings.finished_ttl,
        settings.session_ttl,
        prefix=settings.key_prefix,
        replica_wait=ReplicaWait(replicas, settings.redis_wait_timeout_ms) if replicas else None,
    )
    try:
        store = await _unless_stopped(connecting, stop)
    except ValueError as exc:  # a setting this Redis cannot honour (WAIT on a Cluster)
        log.error("%s", exc)
        raise SystemExit(2) from exc
    if store is None:
        return
    pacer = GcPacer(settings.gc_interval) if settings.gc_interval > 0 else None
    if pacer is not None:
        pacer.start()
    try:
        await _unless_stopped(wait_for_store(store), stop)
        if not stop.is_set():
            await serve_app(App(settings, store, addresses=AddressStore(store)), stop=stop)
    finally:
        if pacer is not None:
            pacer.stop()
        await store.close()


async def wait_for_store(store: RedisStore, interval: float = 1.0) -> None:
    """Wait until Redis answers (it may be starting or loading its file): one log line
    when it does not, one when it answers."""
    if await store.ping():
        return
    started = time.monotonic()
    log.warning("waiting for Redis to answer (asking every %g s)", interval)
    while not await store.ping():
        await asyncio.sleep(interval)
    log.warning("Redis answers, after %.0f s", time.monotonic() - started)


#: Allocations between young-generation collections (CPython's default is 700), and
#: young collections per older one (default 10, 10), where the automatic collector runs (the
#: load generator; the server with ``--gc-interval 0``, else ``server.edge.gc_pacing``). A full
#: collection walks every live object: with thousands of connections it took 140-160 ms,
#: often enough that the load test's p99 at 3,000 players was 67-86 ms; with these, 4.7 ms
#: (benchmarks/LOADTEST.md).
GC_THRESHOLDS = (20_000, 20, 20)


def tune_gc() -> None:
    """Fewer, cheaper garbage collections: the objects alive after start-up (modules,
    schemas) are frozen out of every later collection, and automatic collections run less
    often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop to run on: ``uvloop`` (libuv's loop, which spends less CPU per socket
    write and timer) or ``asyncio`` (None: the standard library's)."""
    if name == "asyncio":
        return None
    try:
        import uvloop
    except ImportError as exc:
        raise SystemExit("uvloop is not installed here: run with --event-loop asyncio") from exc
    return uvloop.new_event_loop


def run(settings: Settings) -> None:
    """Run a server with these settings until SIGTERM or SIGINT. Without a Redis URL, an
    embedded Redis keeps its data in ``settings.data_dir``."""
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    for sig in (signal.SIGTERM, signal.SIGINT):  # until the loop handles them (_run)
        signal.signal(sig, _early_signal)
    load_certificates(settings)  # files that do not load: said now, before Redis starts
    embedded: EmbeddedRedis | None = None
    if settings.redis_url:
        url = settings.redis_url
    else:
        embedded = EmbeddedRedis(settings.data_dir, settings.redis_appendfsync)
        url = embedded.start()
        embedded.supervise()
        log.info("embedded Redis at %s (data in %s)", url, embedded.data_dir)
    try:
        tune_gc()
        with asyncio.Runner(loop_factory=loop_factory(settings.event_loop)) as runner:
            runner.run(_run(settings, url))
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):  # the closed loop set the defaults back
            signal.signal(sig, _early_signal)
        if embedded is not None:
            embedded.stop()
