"""The websocket transport: a thin asyncio layer over ``App``.

Binary frames in, ``App.receive`` decides, messages out. ``GET /healthz`` answers 200 without
upgrading. SIGTERM (and SIGINT) stop accepting, stop the rooms' clocks and bots, close every
connection with code 1001 and a reason, and return within the shutdown grace.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from http import HTTPStatus

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from server.app import App
from server.hub import Connection, TokenBucket
from server.settings import Settings

log = logging.getLogger(__name__)
#: websockets itself closes a connection whose frame is above this; below it, frames larger
#: than ``Settings.max_frame`` get a TOO_LARGE error and the connection stays up.
HARD_FRAME_LIMIT = 1 << 20


def _healthz(connection: ServerConnection, request: Request) -> Response | None:
    if request.path == "/healthz":
        return connection.respond(HTTPStatus.OK, "ok\n")
    return None


async def _handler(app: App, ws: ServerConnection) -> None:
    s = app.settings
    conn = Connection(ws, TokenBucket(s.rate_limit, s.rate_burst))
    app.hub.add(conn)
    try:
        async for frame in ws:
            app.receive(conn, frame)
    except ConnectionClosed:
        pass
    finally:
        app.disconnected(conn)


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
    server: Server
    async with serve(
        lambda ws: _handler(app, ws),
        s.host,
        s.port,
        process_request=_healthz,
        max_size=HARD_FRAME_LIMIT,
    ) as server:
        log.info("ddz-server listening on ws://%s:%d", s.host, s.port)
        if ready is not None:
            ready.set()
        await stop.wait()
        log.info("shutting down: closing %d connections", len(app.hub.all))
        server.close(close_connections=False)
        app.stop()
        closing = [c.ws.close(1001, "server shutting down") for c in list(app.hub.all)]
        if closing:
            await asyncio.wait(
                [asyncio.ensure_future(c) for c in closing], timeout=s.shutdown_grace
            )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), s.shutdown_grace)


def run(settings: Settings) -> None:
    """Run a server with these settings until SIGTERM or SIGINT."""
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    asyncio.run(serve_app(App(settings)))
