"""A client's websocket as an asyncio ``Protocol``, and the server that accepts them.

Why not websockets' asyncio server: each of its connections kept futures, a keepalive task, a
message assembler and the handler's task waiting on it (13-15 KB a connection here, and
chains the garbage collector walked again and again), and read every frame through a chain
of generators. Here a connection is this one object beside its socket: the handshake's HTTP
is websockets' (``Request.parse``; ``ServerProtocol.accept`` builds the 101 or the refusal),
the frames are ``server.edge.frames``', the keepalive pings are one sweep for all connections.

Reading is paced: at most ``READ_SLICE`` bytes of frames are parsed per turn of the event
loop and connection, the socket paused until the rest is parsed, so that a burst of tiny
frames from one client does not stall every other. Whole messages go to the connection's
``Handler`` in order, one at a time, from a task that lives while its inbox holds messages
(nothing waits on an idle connection); the socket is paused while ``INBOX_HIGH`` wait.

What a client can make a connection hold is bounded: its request head (``MAX_REQUEST``, within
``HEAD_TIMEOUT`` of its first byte; the listener may refuse a socket before reading anything,
``Listener.arrived``), a message (``max_size`` in at most ``MAX_FRAGMENTS`` frames), and
bytes arriving in pieces are appended to one buffer, never joined again and again. A
connection failed for breaking the protocol or flooding ends its side after its close frame
and drops what still comes for ``LINGER`` seconds, so the client sees a close, not a reset.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import ssl
from enum import Enum
from http import HTTPStatus
from typing import Protocol, cast

from websockets.http11 import Request, Response
from websockets.server import ServerProtocol
from websockets.streams import StreamReader

from server.edge import frames
from server.edge.frames import Frame, FrameError, read_frame
from server.edge.heap import HeapTrimmer

log = logging.getLogger(__name__)

#: Bytes of frames parsed per turn of the event loop and connection: at most about 300
#: frames, 3 ms (with 4096, a flood of 1-byte frames took a player's ping p99 to 17-19 ms;
#: with 2048, 5-7).
READ_SLICE = 2048
#: Messages waiting for their turn at which a connection's socket is paused, and at which it
#: reads again.
INBOX_HIGH = 16
INBOX_LOW = 4
#: Seconds a client has to complete its opening handshake, and to answer a close frame.
OPEN_TIMEOUT = 10.0
CLOSE_TIMEOUT = 10.0
#: Seconds from a connection's first byte to the end of its request's head: a browser sends
#: it in one packet; a socket trickling it holds a file descriptor for nothing.
HEAD_TIMEOUT = 5.0
#: Seconds a connection failed for abuse (or refused) is still read, and what it sends
#: dropped, after its close frame or answer is sent: a client answering a close frame a
#: moment later gets a clean end, not a connection reset (what the kernel sends for bytes
#: that arrive at, or wait unread in, a closed socket).
LINGER = 1.0
#: Seconds between keepalive pings; a connection that sent nothing at all (not even the
#: pong) from one ping to the next is closed as gone.
KEEPALIVE = 20.0
#: The connections are pinged in this many parts, spread over the keepalive interval.
KEEPALIVE_PARTS = 20
#: The longest opening request (its request line and headers): a browser's is under 2 KB.
MAX_REQUEST = 16 * 1024
#: The most frames one message may come in (websockets' own bound): past it, 1009. Each
#: fragment is a list slot and a frame parsed, whatever its size.
MAX_FRAGMENTS = 4096

Message = bytes | str
#: Builds plain HTTP answers (``reject`` keeps no state of its own).
_HTTP = ServerProtocol()


class State(Enum):
    CONNECTING = 0
    OPEN = 1
    CLOSING = 2
    CLOSED = 3


class Handler(Protocol):
    """What the server does with one open connection's messages."""

    async def message(self, data: Message) -> None: ...

    async def closed(self) -> None:
        """The socket is gone and every message received before is handled."""


class Listener(Protocol):
    """The server's side of the opening handshake and of each connection's life."""

    def arrived(self, ws: WebSocket) -> tuple[HTTPStatus, str] | None:
        """A socket is up, nothing read yet: None to read its request, else the status
        and text to refuse it with at once."""

    async def answer(self, ws: WebSocket, request: Request) -> Response | None:
        """A plain HTTP response (no upgrade), or None to open the websocket."""

    def opened(self, ws: WebSocket) -> Handler: ...

    def lost(self, ws: WebSocket) -> None:
        """``ws``'s socket is gone (whether or not it was ever upgraded)."""


class WebSocket(asyncio.Protocol):
    """One client's connection: its handshake, its frames, its inbox, its closing."""

    __slots__ = (
        "_data",
        "_deaf",
        "_eof",
        "_fragments",
        "_handler",
        "_inbox",
        "_inbox_full",
        "_lost",
        "_opcode",
        "_paced",
        "_parts",
        "_scanned",
        "_server",
        "_size",
        "_timer",
        "_worker",
        "broke",
        "heard",
        "part",
        "remote_address",
        "state",
        "transport",
    )

    transport: asyncio.Transport

    def __init__(self, server: WebSocketServer) -> None:
        self._server = server
        self.remote_address: tuple[str, int] | None = None
        self.state = State.CONNECTING
        #: Whether anything came since the last keepalive ping; when it is pinged.
        self.heard = True
        self.part = 0  # (given by the server when the socket is up)
        #: The close code of the protocol rule the client broke (1002, 1007, 1009), if it did.
        self.broke: int | None = None
        #: Received, not parsed yet: the bytes of one read, or a bytearray that reads are
        #: appended to (a frame arriving in pieces is joined in linear time).
        self._data: bytes | bytearray = b""
        self._scanned = 0  # bytes of the request's head looked through for its end
        self._paced = False  # behind by more than a slice: the rest parsed next turn
        self._eof = False
        self._deaf = False  # read nothing more
        self._parts: list[bytes] | None = None  # a fragmented message so far
        self._opcode = frames.BINARY
        self._size = 0
        self._fragments = 0
        self._inbox: collections.deque[Message] | None = None
        self._inbox_full = False
        self._worker: asyncio.Task[None] | None = None
        self._handler: Handler | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._lost: asyncio.Future[None] | None = None

    # -- the socket's events

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is not a subclass)
        peer = self.transport.get_extra_info("peername")
        self.remote_address = (str(peer[0]), int(peer[1])) if peer else None
        self._server.track(self)
        refusal = self._server.listener.arrived(self)
        if refusal is not None:  # counted from its first byte: refused before it asks
            self._refuse(*refusal)
            return
        self._timer = self._server.loop.call_later(self._server.head_timeout, self._head_late)

    def _head_late(self) -> None:
        """The head's deadline: abort a connection still sending its request; one being
        answered has the rest of the opening handshake's time."""
        self._timer = None
        if self.state is not State.CONNECTING:
            return
        if self._worker is None:
            self.transport.abort()
            return
        rest = max(self._server.open_timeout - self._server.head_timeout, 0.0)
        self._timer = self._server.loop.call_later(rest, self.transport.abort)

    def data_received(self, data: bytes) -> None:
        if self._deaf:
            return  # (lingering: dropped)
        if not self._data:
            self._data = data
        elif isinstance(self._data, bytearray):
            self._data += data
        else:
            self._data = bytearray(self._data) + data
        if self.state is State.CONNECTING:
            if self._worker is None:  # (else its request is being answered)
                self._request()
        elif self._paced:  # still behind: keep the order, and stop the socket again
            self.transport.pause_reading()
        else:
            self._parse()

    def eof_received(self) -> bool | None:
        if self.state is State.CONNECTING and self._worker is not None:
            self._eof = True  # a client may half-close once it has asked: answer it first
            return True
        if self._paced:
            self._eof = True  # after the rest is parsed
            return True  # keep the transport open until then
        return None  # the client is gone without a closing handshake: close

    def connection_lost(self, exc: Exception | None) -> None:
        answering = self.state is State.CONNECTING and self._worker is not None
        self.state = State.CLOSED
        self._data = b""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._server.forget(self)
        if not answering:  # (else once its answer is given: it may count it in first)
            self._server.listener.lost(self)
        if self._lost is not None and not self._lost.done():
            self._lost.set_result(None)
        if self._handler is not None and self._worker is None:
            self._server.finish(self._handler)
            self._handler = None  # (it names this connection: no cycle left to collect)
        # else the worker hands its last messages over, then finishes

    # -- the opening handshake

    def _request(self) -> None:
        end = self._data.find(b"\r\n\r\n", max(self._scanned - 3, 0))
        if end < 0:
            self._scanned = len(self._data)
            if len(self._data) > MAX_REQUEST:
                self._refuse(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request too large\n")
            return
        if end + 4 > MAX_REQUEST:
            self._refuse(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request too large\n")
            return
        head, self._data = bytes(self._data[: end + 4]), bytes(self._data[end + 4 :])
        reader = StreamReader()
        reader.feed_data(head)
        parser = Request.parse(reader.read_line)
        try:
            next(parser)
        except StopIteration as done:
            request: Request = done.value
        except Exception as exc:
            log.debug("refused an invalid HTTP request: %s", exc)
            self._refuse(HTTPStatus.BAD_REQUEST, "invalid HTTP request\n")
            return
        else:  # (the head is whole: the parser cannot be waiting for more)
            self._refuse(HTTPStatus.BAD_REQUEST, "invalid HTTP request\n")
            return
        self.transport.pause_reading()  # until it is answered
        self._worker = self._server.loop.create_task(self._answer(request))

    async def _answer(self, request: Request) -> None:
        try:
            response = await self._server.listener.answer(self, request)
        except Exception:
            log.exception("answering an HTTP request failed")
            response = self.respond(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error\n")
        finally:
            self._worker = None
        if self.state is not State.CONNECTING:  # lost meanwhile
            self._server.listener.lost(self)
            return
        if response is None:
            response = ServerProtocol().accept(request)
        if response.status_code != 101 and "X-Content-Type-Options" not in response.headers:
            response.headers["X-Content-Type-Options"] = "nosniff"
        self.transport.write(response.serialize())
        if response.status_code != 101 or self._eof:
            self.state = State.CLOSING
            self._deaf = True
            self._data = b""
            self._linger()
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.state = State.OPEN
        self._handler = self._server.listener.opened(self)
        self._server.opened(self)
        self.transport.resume_reading()
        if self._data:  # frames sent with the request
            self._parse()

    def respond(self, status: HTTPStatus, text: str) -> Response:
        """A plain-text HTTP response that closes the connection (websockets' own), with
        ``nosniff`` as every answer here."""
        response = _HTTP.reject(status, text)
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    def _refuse(self, status: HTTPStatus, text: str) -> None:
        self.transport.write(self.respond(status, text).serialize())
        self.state = State.CLOSING
        self._deaf = True
        self._data = b""
        self._linger()

    def _linger(self) -> None:
        """End our side (what is written goes first), read and drop what the client still
        sends until it closes its side, or ``LINGER`` seconds: no reset for a client that
        answers a moment later."""
        transport = self.transport
        if transport.is_closing():
            return
        if self._eof or not transport.can_write_eof():  # (the client has closed its side)
            transport.close()
            return
        self._paced = False
        transport.write_eof()
        transport.resume_reading()
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._server.loop.call_later(LINGER, transport.close)

    # -- frames in

    def _parse(self) -> None:
        """Parse the frames received, a slice at a time; pace the socket while behind."""
        data, at = self._data, 0
        max_size = self._server.max_size
        try:
            while at < len(data):
                if at >= READ_SLICE:  # a slice parsed: the rest on the next turn
                    self._data = _rest(data, at)
                    if not self._paced:
                        self._paced = True
                        self.transport.pause_reading()
                        self._server.loop.call_soon(self._parse_more)
                    return
                got = read_frame(data, at, max_size)
                if got is None:
                    break
                frame, at = got
                self._frame(frame)
                if self._deaf:
                    return
        except FrameError as exc:
            self.broke = exc.code
            self.fail(exc.code, exc.reason)
            return
        self._data = _rest(data, at)
        if self._paced:
            self._paced = False
            if self._eof:
                self.transport.close()  # the client had gone: what returning None does
            else:
                self._read_again()

    def _parse_more(self) -> None:
        if self._deaf or self.transport.is_closing():
            self._data = b""
            return
        self._paced = False
        self._parse()
        if self._paced:
            return
        if self._eof:
            self.transport.close()
        else:
            self._read_again()

    def _frame(self, frame: Frame) -> None:
        self.heard = True
        opcode = frame.opcode
        if opcode == frames.BINARY or opcode == frames.TEXT:
            if self._parts is not None:
                raise FrameError(frames.PROTOCOL_ERROR, "expected a continuation frame")
            if frame.fin:
                self._message(opcode, frame.payload)
            else:
                self._opcode, self._parts, self._size = opcode, [frame.payload], len(frame.payload)
                self._fragments = 1
        elif opcode == frames.CONT:
            if self._parts is None:
                raise FrameError(frames.PROTOCOL_ERROR, "unexpected continuation frame")
            self._size += len(frame.payload)
            self._fragments += 1
            if self._size > self._server.max_size:
                raise FrameError(frames.TOO_BIG, "message over the size limit")
            if self._fragments > MAX_FRAGMENTS:
                raise FrameError(frames.TOO_BIG, "message in too many fragments")
            self._parts.append(frame.payload)
            if frame.fin:
                payload, self._parts = b"".join(self._parts), None
                self._message(self._opcode, payload)
        elif opcode == frames.PING:
            if self.state is State.OPEN:
                self.transport.write(frames.frame(frames.PONG, frame.payload))
        elif opcode == frames.CLOSE:
            code, _ = frames.read_close(frame.payload)
            if self.state is State.OPEN:  # answer it; the server closes the socket first
                self.transport.write(frames.close_frame(code))
            self.state = State.CLOSING
            self._deaf = True
            self._data = b""
            self.transport.close()
        # a pong only says the client is there (``heard``)

    def _message(self, opcode: int, payload: bytes) -> None:
        if self.state is not State.OPEN:
            return  # (closing: what comes before the client's close frame is not handled)
        message: Message = payload
        if opcode == frames.TEXT:  # (refused by the codec: binary msgpack only)
            try:
                message = payload.decode()
            except UnicodeDecodeError as exc:
                raise FrameError(frames.INVALID_DATA, "invalid UTF-8 in a text message") from exc
        if self._inbox is None:
            self._inbox = collections.deque()
        self._inbox.append(message)
        if len(self._inbox) >= INBOX_HIGH and not self._inbox_full:
            self._inbox_full = True
            self.transport.pause_reading()
        if self._worker is None:
            self._worker = self._server.loop.create_task(self._drain())

    def _read_again(self) -> None:
        if not (self._paced or self._inbox_full or self._deaf or self.transport.is_closing()):
            self.transport.resume_reading()

    async def _drain(self) -> None:
        inbox, handler = self._inbox, self._handler
        assert inbox is not None and handler is not None
        try:
            while inbox and not self._deaf:
                message = inbox.popleft()
                if self._inbox_full and len(inbox) <= INBOX_LOW:
                    self._inbox_full = False
                    self._read_again()
                await handler.message(message)
        except Exception:  # as websockets does for a handler that fails: close, 1011
            inbox.clear()
            log.exception("a message's handling failed; closing its connection")
            self.fail(frames.INTERNAL_ERROR, "internal error")
        finally:
            self._worker = None
            if not inbox:
                self._inbox = None  # (a deque is a block of 64 slots: none kept while idle)
        if self.state is State.CLOSED:
            self._handler = None
            await self._server.finished(handler)

    # -- frames out

    @property
    def open(self) -> bool:
        return self.state is State.OPEN

    def write(self, wire: bytes) -> None:
        """Write frames (``frames.binary_frame``'s bytes) as they are, if the connection is
        open; never waits (the transport buffers what the client has not read)."""
        if self.state is State.OPEN:
            self.transport.write(wire)

    def buffered(self) -> int:
        """Bytes written and not yet sent."""
        return self.transport.get_write_buffer_size()

    def ping(self) -> None:
        if self.state is State.OPEN:
            self.transport.write(frames.frame(frames.PING, b""))

    def close(
        self, code: int = frames.NORMAL, reason: str = "", timeout: float = CLOSE_TIMEOUT
    ) -> None:
        """Start the closing handshake: send a close frame; the socket is closed when the
        client answers, or after ``timeout`` seconds."""
        if self.state is State.CONNECTING:
            self.transport.close()
        if self.state is not State.OPEN:
            return
        self.transport.write(frames.close_frame(code, reason))
        self.state = State.CLOSING
        self._timer = self._server.loop.call_later(timeout, self.transport.abort)

    def fail(self, code: int, reason: str) -> None:
        """Send a close frame and end our side now, parsing nothing more: for a client that
        broke the protocol or flooded, whose side of the closing handshake is not worth
        parsing. What it still sends is read and dropped for ``LINGER`` seconds at most,
        until it closes (``_linger``)."""
        log.debug("closing a connection (%d): %s", code, reason)
        if self.state is State.OPEN:
            self.transport.write(frames.close_frame(code, reason))
        if self.state is not State.CLOSED:
            self.state = State.CLOSING
        self._deaf = True
        self._data = b""
        self._parts = None
        if self._inbox is not None:
            self._inbox.clear()
        self._linger()

    def abort(self) -> None:
        """Close the socket at once, dropping what is not sent."""
        self.transport.abort()

    async def wait_closed(self) -> None:
        """Wait until the socket is gone."""
        if self.state is State.CLOSED:
            return
        if self._lost is None:
            self._lost = self._server.loop.create_future()
        await asyncio.shield(self._lost)


def _rest(data: bytes | bytearray, at: int) -> bytes | bytearray:
    """What is left of ``data`` from ``at``: a bytearray's front is dropped in place (no
    copy of the rest), a read's rest copied once into one that later reads extend."""
    if at >= len(data):
        return b""
    if not at:
        return data
    if isinstance(data, bytearray):
        del data[:at]
        return data
    return bytearray(memoryview(data)[at:])


class WebSocketServer:
    """Accepts websocket connections for a ``Listener``, keeps them alive with pings, and
    closes them all at shutdown."""

    def __init__(
        self,
        listener: Listener,
        *,
        max_size: int,
        keepalive: float = KEEPALIVE,
        open_timeout: float = OPEN_TIMEOUT,
        head_timeout: float = HEAD_TIMEOUT,
    ) -> None:
        self.listener = listener
        #: The longest message (and frame) read; a longer one closes its connection (1009).
        self.max_size = max_size
        #: Seconds between keepalive pings (0: none).
        self.keepalive = keepalive
        #: Seconds a client has to complete its opening handshake.
        self.open_timeout = open_timeout
        #: Seconds from its first byte a client has to send its request's head.
        self.head_timeout = min(head_timeout, open_timeout)
        self.loop = asyncio.get_running_loop()
        #: The connections whose socket is up, in their keepalive parts.
        self._parts: list[set[WebSocket]] = [set() for _ in range(KEEPALIVE_PARTS)]
        self._unfinished: set[Handler] = set()
        self._finishing: set[asyncio.Task[None]] = set()
        self._all_finished = asyncio.Event()
        self._all_finished.set()
        self._next_part = 0
        self._server: asyncio.Server | None = None
        #: Gives the heap's free pages back once many sockets went.
        self.heap = HeapTrimmer()
        self._pinger: asyncio.Task[None] | None = None

    async def start(
        self, host: str, port: int, *, backlog: int = 511, tls: ssl.SSLContext | None = None
    ) -> None:
        """Listen on ``host``:``port``; with ``tls``, every connection is TLS first (its
        handshake bounded as the request's head is)."""
        self._server = await self.loop.create_server(
            lambda: WebSocket(self),
            host,
            port,
            backlog=backlog,
            reuse_address=True,
            ssl=tls,
            ssl_handshake_timeout=self.head_timeout if tls is not None else None,
        )
        if self.keepalive > 0:
            self._pinger = self.loop.create_task(self._keep_alive())

    @property
    def port(self) -> int:
        """The port listened on (the one the system chose for port 0)."""
        assert self._server is not None
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    def opened(self, ws: WebSocket) -> None:
        assert ws._handler is not None
        self._unfinished.add(ws._handler)
        self._all_finished.clear()

    def finish(self, handler: Handler) -> None:
        """Run ``handler.closed()`` in a task of its own."""
        task = self.loop.create_task(self.finished(handler))
        self._finishing.add(task)
        task.add_done_callback(self._finishing.discard)

    async def finished(self, handler: Handler) -> None:
        try:
            await handler.closed()
        except Exception:
            log.exception("a connection's end failed to be handled")
        finally:
            self._unfinished.discard(handler)
            if not self._unfinished:
                self._all_finished.set()

    async def _keep_alive(self) -> None:
        # in parts, one a turn: 20,000 pings written at once would stall the loop ~100 ms
        part = 0
        while True:
            await asyncio.sleep(self.keepalive / KEEPALIVE_PARTS)
            self.sweep(part)
            self.heap.maybe_trim()  # (many sockets gone: their buffers' pages back)
            part = (part + 1) % KEEPALIVE_PARTS

    @property
    def connections(self) -> set[WebSocket]:
        """Every connection whose socket is up."""
        return set().union(*self._parts)

    def track(self, ws: WebSocket) -> None:
        """``ws``'s socket is up: it goes in the next keepalive part, each in turn."""
        ws.part = self._next_part
        self._next_part = (self._next_part + 1) % KEEPALIVE_PARTS
        self._parts[ws.part].add(ws)

    def forget(self, ws: WebSocket) -> None:
        self._parts[ws.part].discard(ws)
        self.heap.went()

    def sweep(self, part: int) -> None:
        """Close each open connection of ``part`` that sent nothing since its last ping,
        and ping the others."""
        for ws in list(self._parts[part]):
            if ws.state is not State.OPEN:
                continue
            if not ws.heard and not ws._inbox:  # (a close frame it would not read: not waited for)
                if ws.buffered():
                    ws.abort()
                else:
                    ws.fail(frames.INTERNAL_ERROR, "keepalive ping timeout")
                continue
            ws.heard = False
            ws.ping()

    def stop_accepting(self) -> None:
        if self._server is not None:
            self._server.close()
        if self._pinger is not None:
            self._pinger.cancel()

    def close_all(self, code: int, reason: str, timeout: float = CLOSE_TIMEOUT) -> None:
        for ws in list(self.connections):
            ws.close(code, reason, timeout)

    async def wait_closed(self) -> None:
        """Wait until every connection is gone and its end handled."""
        while self.connections:
            await next(iter(self.connections)).wait_closed()
        await self._all_finished.wait()
        if self._finishing:
            await asyncio.wait(self._finishing)
