"""Reading a client's bytes a slice at a time, so that one socket cannot stall the others.

websockets parses everything one read brings before the event loop moves on: 256 KB of
1-byte frames is 37,000 frames and about 350 ms of parsing, during which no other player is
served. ``PacedConnection`` hands the parser at most ``READ_SLICE`` bytes per turn of the
loop (a few milliseconds of work), pausing the socket until the rest is parsed. A
connection closed for flooding is cut at once (``cut``): what it still sends is not read.

Whole messages go to the handler's ``deliver`` (``start``) in order, one at a time: a task
drains the connection's inbox while it holds messages and ends when it is empty. Nothing
waits on a connection between its messages (websockets' ``recv`` keeps a chain of
coroutines and futures waiting for each connection, renewed with every message, which the
garbage collector walked again and again: at 5,000 players a process, young collections
took 31 ms every 2.3 s). The socket is paused while ``INBOX_HIGH`` messages wait.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import Event, State
from websockets.typing import Data

log = logging.getLogger(__name__)

#: Bytes parsed per turn of the event loop and connection: at most about 300 frames, 3 ms
#: (with 4096, a flood of 1-byte frames took a player's ping p99 to 17-19 ms; with 2048, 5-7).
READ_SLICE = 2048
#: Messages waiting for their turn at which a connection's socket is paused (websockets'
#: own default for its queue), and at which it reads again.
INBOX_HIGH = 16
INBOX_LOW = 4

Deliver = Callable[[Data], Awaitable[None]]


class PacedConnection(ServerConnection):
    """A server connection that parses its input ``READ_SLICE`` bytes per loop turn."""

    _rest = b""
    _eof = False
    _deaf = False
    #: Whole messages not handled yet, oldest first; the handler's ``deliver`` takes them.
    _inbox: collections.deque[Data] | None = None
    _deliver: Deliver | None = None
    _worker: asyncio.Task[None] | None = None
    _inbox_full = False
    #: The parts of a fragmented message so far, and its opcode.
    _parts: list[bytes] | None = None
    _opcode = Opcode.BINARY

    def start(self, deliver: Deliver) -> None:
        """From now on hand each whole message to ``deliver``, in order, one at a time
        (those that came before this are handed first)."""
        self._deliver = deliver
        self._work()

    async def drained(self) -> None:
        """Wait until the messages received are handled (the connection has closed)."""
        while self._worker is not None:
            await asyncio.shield(self._worker)

    def process_event(self, event: Event) -> None:
        if (
            self.request is None
            or not isinstance(event, Frame)
            or event.opcode not in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT)
        ):
            super().process_event(event)  # the handshake; pings, pongs, closes
            return
        data = event.data if isinstance(event.data, bytes) else bytes(event.data)
        if event.opcode is not Opcode.CONT:
            self._opcode = event.opcode
            if event.fin:  # a message in one frame: nearly all of them
                self._message(event.opcode, data)
                return
            self._parts = []
        if self._parts is None:  # a continuation of nothing: the protocol refuses it first
            return
        self._parts.append(data)
        if event.fin:
            payload, self._parts = b"".join(self._parts), None
            self._message(self._opcode, payload)

    def _message(self, opcode: Opcode, payload: bytes) -> None:
        if opcode is Opcode.TEXT:  # (refused by the codec: binary msgpack only)
            self._queue(payload.decode("utf-8", "replace"))
        else:
            self._queue(payload)

    def _queue(self, message: Data) -> None:
        if self._deaf:
            return
        if self._inbox is None:
            self._inbox = collections.deque()
        self._inbox.append(message)
        if len(self._inbox) >= INBOX_HIGH and not self._inbox_full:
            self._inbox_full = True
            self.transport.pause_reading()
        self._work()

    def _work(self) -> None:
        if self._worker is None and self._deliver is not None and self._inbox:
            self._worker = self.loop.create_task(self._drain(self._deliver))

    async def _drain(self, deliver: Deliver) -> None:
        inbox = self._inbox
        assert inbox is not None
        try:
            while inbox and not self._deaf:
                message = inbox.popleft()
                if self._inbox_full and len(inbox) <= INBOX_LOW:
                    self._inbox_full = False
                    if not self._rest and not self.transport.is_closing():
                        self.transport.resume_reading()
                await deliver(message)
        except ConnectionClosed:
            inbox.clear()
        except Exception:  # as websockets does for a handler that fails: close, 1011
            inbox.clear()
            log.exception("a message's handling failed; closing its connection")
            self.transport.close()
        finally:
            self._worker = None
            if not inbox:
                self._inbox = None  # (a deque is a block of 64 slots: none kept while idle)

    def data_received(self, data: bytes) -> None:
        if self._deaf:
            return
        if self._rest:  # still behind: keep the order, and stop the socket again
            self._rest += data
            self.transport.pause_reading()
            return
        if len(data) <= READ_SLICE:
            super().data_received(data)
            return
        self._rest = data[READ_SLICE:]
        self.transport.pause_reading()
        self.loop.call_soon(self._feed)
        super().data_received(data[:READ_SLICE])

    def eof_received(self) -> bool | None:  # type: ignore[override]  # True: keep it open
        if self._rest:
            self._eof = True  # after the rest is parsed
            return True  # keep the transport open until then
        return super().eof_received()

    def _feed(self) -> None:
        if self._deaf or self.transport.is_closing():
            self._rest = b""
            return
        chunk, self._rest = self._rest[:READ_SLICE], self._rest[READ_SLICE:]
        super().data_received(chunk)
        if self._rest:
            self.loop.call_soon(self._feed)
        elif self._eof:
            super().eof_received()
            self.transport.close()  # what returning None from eof_received would have done
        elif not self._inbox_full:  # else its inbox's worker resumes it when drained
            self.transport.resume_reading()

    def cut(self, code: int, reason: str) -> None:
        """Send a close frame and close the socket now, reading nothing more: for a client
        closed for flooding, whose side of the closing handshake is not worth waiting for
        (what it sent meanwhile would be read and thrown away)."""
        self._deaf = True
        self._rest = b""
        if self._inbox is not None:
            self._inbox.clear()
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(code, reason)
            self.send_data()
        self.transport.close()  # what is written goes out first; nothing more is read
