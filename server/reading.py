"""Reading a client's bytes a slice at a time, so that one socket cannot stall the others.

websockets parses everything one read brings before the event loop moves on: 256 KB of
1-byte frames is 37,000 frames and about 350 ms of parsing, during which no other player is
served. ``PacedConnection`` hands the parser at most ``READ_SLICE`` bytes per turn of the
loop (a few milliseconds of work), pausing the socket until the rest is parsed. A
connection closed for flooding is cut at once (``cut``): what it still sends is not read.
"""

from __future__ import annotations

from websockets.asyncio.server import ServerConnection
from websockets.protocol import State

#: Bytes parsed per turn of the event loop and connection: at most about 300 frames, 3 ms
#: (with 4096, a flood of 1-byte frames took a player's ping p99 to 17-19 ms; with 2048, 5-7).
READ_SLICE = 2048


class PacedConnection(ServerConnection):
    """A server connection that parses its input ``READ_SLICE`` bytes per loop turn."""

    _rest = b""
    _eof = False
    _deaf = False

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
        elif not self.recv_messages.paused:  # else its reader resumes it when drained
            self.transport.resume_reading()

    def cut(self, code: int, reason: str) -> None:
        """Send a close frame and close the socket now, reading nothing more: for a client
        closed for flooding, whose side of the closing handshake is not worth waiting for
        (what it sent meanwhile would be read and thrown away)."""
        self._deaf = True
        self._rest = b""
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(code, reason)
            self.send_data()
        self.transport.close()  # what is written goes out first; nothing more is read
