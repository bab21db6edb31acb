"""The websocket transport: a thin asyncio layer over ``App``.

Binary frames in, ``App.receive`` decides, messages out. ``GET /healthz`` answers 200 without
upgrading (503 while Redis does not answer). SIGTERM (and SIGINT) stop accepting, stop the
rooms' clocks and bots, hand the rooms to other processes, close every connection with code
1001 and a reason, and return within the shutdown grace.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from prometheus_client import CONTENT_TYPE_LATEST
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from server.app import App
from server.hub import Connection, TokenBucket
from server.settings import Settings
from server.store.embedded import EmbeddedRedis
from server.store.redis_store import RedisStore
from server.web import serve as web

log = logging.getLogger(__name__)
#: websockets itself closes a connection whose frame is above this; below it, frames larger
#: than ``Settings.max_frame`` get a TOO_LARGE error and the connection stays up.
HARD_FRAME_LIMIT = 1 << 20


def _http(app: App) -> Callable[[ServerConnection, Request], Awaitable[Response | None]]:
    """Plain HTTP answers beside the websocket: ``/healthz`` (200 while Redis answers, 503
    when it does not: a balancer or an upgrade script should not send players here) and
    ``/metrics``."""

    async def answer(connection: ServerConnection, request: Request) -> Response | None:
        if request.path == "/healthz":
            if not await app.store.ping():
                return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "redis unreachable\n")
            return connection.respond(HTTPStatus.OK, "ok\n")
        if request.path == "/metrics":
            body = app.metrics.exposition()
            headers = Headers(
                [("Content-Type", CONTENT_TYPE_LATEST), ("Content-Length", str(len(body)))]
            )
            return Response(HTTPStatus.OK, "OK", headers, body)
        return web.answer(request)  # the browser table: GET / and its assets, else 404

    return answer


async def _handler(app: App, ws: ServerConnection) -> None:
    s = app.settings
    peer = ws.remote_address
    address = str(peer[0]) if peer else ""
    conn = Connection(ws, TokenBucket(s.rate_limit, s.rate_burst), address)
    app.hub.add(conn)
    try:
        async for frame in ws:
            await app.receive(conn, frame)
    except ConnectionClosed:
        pass
    finally:
        await app.disconnected(conn)


async def serve_app(
    app: App, ready: asyncio.Event | None = None, stop: asyncio.Event | None = None
) -> None:
    """Serve until ``stop`` is set (or SIGTERM/SIGINT), then shut down within the grace."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    s = app.settings
    await app.start()
    server: Server
    async with serve(
        lambda ws: _handler(app, ws),
        s.host,
        s.port,
        process_request=_http(app),
        max_size=HARD_FRAME_LIMIT,
        # Messages are small msgpack maps; a deflate context per connection would cost
        # tens of KB of memory each (the load test measured ~70 KB a player with it).
        compression=None,
    ) as server:
        kind = type(asyncio.get_running_loop()).__module__.split(".")[0]
        log.info("ddz-server listening on ws://%s:%d (event loop: %s)", s.host, s.port, kind)
        if ready is not None:
            ready.set()
        await stop.wait()
        log.info("shutting down: closing %d connections", len(app.hub.all))
        server.close(close_connections=False)
        try:  # stop the rooms and hand them over; a step that hangs must not keep us up
            await asyncio.wait_for(app.close(), s.shutdown_grace)
        except TimeoutError:
            log.warning("the rooms were not all handed over within %g s", s.shutdown_grace)
        closing = [c.ws.close(1001, "server shutting down") for c in list(app.hub.all)]
        if closing:
            await asyncio.wait(
                [asyncio.ensure_future(c) for c in closing], timeout=s.shutdown_grace
            )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), s.shutdown_grace)


def open_store(settings: Settings, url: str) -> RedisStore:
    return RedisStore.from_url(
        url, settings.finished_ttl, settings.session_ttl, prefix=settings.key_prefix
    )


async def _run(settings: Settings, url: str) -> None:
    # connect, not open_store: it waits for Redis and asks whether it is a Redis Cluster
    store = await RedisStore.connect(
        url, settings.finished_ttl, settings.session_ttl, prefix=settings.key_prefix
    )
    try:
        await wait_for_store(store)
        await serve_app(App(settings, store))
    finally:
        await store.close()


async def wait_for_store(store: RedisStore, interval: float = 1.0) -> None:
    """Wait until Redis answers (it may be starting or loading its file)."""
    while not await store.ping():
        log.warning("waiting for Redis to answer")
        await asyncio.sleep(interval)


#: Allocations between young-generation collections (CPython's default is 700), and
#: young collections per older one (default 10, 10). A full collection walks every live
#: object: with thousands of connections it took 140-160 ms, often enough that the load
#: test's p99 at 3,000 players was 67-86 ms; with these, 4.7 ms (benchmarks/LOADTEST.md).
GC_THRESHOLDS = (20_000, 20, 20)


def tune_gc() -> None:
    """Fewer, cheaper garbage collections: the objects alive after start-up (modules,
    schemas) are frozen out of every later collection, and collections run less often."""
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
    embedded: EmbeddedRedis | None = None
    if settings.redis_url:
        url = settings.redis_url
    else:
        embedded = EmbeddedRedis(settings.data_dir)
        url = embedded.start()
        log.info("embedded Redis at %s (data in %s)", url, embedded.data_dir)
    try:
        tune_gc()
        with asyncio.Runner(loop_factory=loop_factory(settings.event_loop)) as runner:
            runner.run(_run(settings, url))
    finally:
        if embedded is not None:
            embedded.stop()
