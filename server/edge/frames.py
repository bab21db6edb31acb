"""Websocket frames as a server reads and writes them (RFC 6455 section 5), sans-I/O.

A client's frames are masked; a server's are not. No extension is ever negotiated here, so
the reserved bits are always 0 and a message for many players is framed once
(``binary_frame``) and written as is to each. ``read_frame`` takes one frame off the front
of the bytes received so far, or says it needs more; a frame the protocol forbids raises
``FrameError`` with the close code to fail the connection with.
"""

from __future__ import annotations

from typing import NamedTuple

from websockets.exceptions import ProtocolError
from websockets.frames import Close

try:  # websockets' C helper; its pure-Python twin where it was not built
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover (the wheel ships it)
    from websockets.utils import apply_mask

CONT, TEXT, BINARY = 0x0, 0x1, 0x2
CLOSE, PING, PONG = 0x8, 0x9, 0xA
OPCODES = frozenset((CONT, TEXT, BINARY, CLOSE, PING, PONG))

#: Close codes (RFC 6455 7.4.1).
NORMAL, GOING_AWAY, PROTOCOL_ERROR = 1000, 1001, 1002
NO_STATUS, INVALID_DATA, POLICY, TOO_BIG, INTERNAL_ERROR = 1005, 1007, 1008, 1009, 1011


class FrameError(Exception):
    """A client broke the protocol: fail the connection with ``code``."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class Frame(NamedTuple):
    fin: bool
    opcode: int
    payload: bytes


def read_frame(data: bytes | bytearray, start: int, max_size: int) -> tuple[Frame, int] | None:
    """The client frame at ``data[start:]`` and where the next one starts, or None while it
    is not whole. A payload over ``max_size`` is refused from its header, before it comes."""
    have = len(data) - start
    if have < 2:
        return None
    first, second = data[start], data[start + 1]
    if first & 0x70:
        raise FrameError(PROTOCOL_ERROR, "reserved bits must be 0")
    opcode = first & 0x0F
    if opcode not in OPCODES:
        raise FrameError(PROTOCOL_ERROR, f"invalid opcode: {opcode}")
    if not second & 0x80:
        raise FrameError(PROTOCOL_ERROR, "a client's frames must be masked")
    fin = bool(first & 0x80)
    length = second & 0x7F
    at = start + 2
    if length == 126:
        if have < 4:
            return None
        length = int.from_bytes(data[at : at + 2], "big")
        at += 2
    elif length == 127:
        if have < 10:
            return None
        length = int.from_bytes(data[at : at + 8], "big")
        at += 8
    if opcode >= CLOSE:
        if length > 125:
            raise FrameError(PROTOCOL_ERROR, "control frame too long")
        if not fin:
            raise FrameError(PROTOCOL_ERROR, "fragmented control frame")
    if length > max_size:
        raise FrameError(TOO_BIG, f"frame over the size limit ({length} > {max_size} bytes)")
    end = at + 4 + length
    if len(data) < end:
        return None
    payload = apply_mask(data[at + 4 : end], data[at : at + 4]) if length else b""
    return Frame(fin, opcode, payload), end


def frame(opcode: int, payload: bytes) -> bytes:
    """One final, unmasked frame: what a server sends."""
    size = len(payload)
    if size < 126:
        header = bytes((0x80 | opcode, size))
    elif size < 1 << 16:
        header = bytes((0x80 | opcode, 126)) + size.to_bytes(2, "big")
    else:
        header = bytes((0x80 | opcode, 127)) + size.to_bytes(8, "big")
    return header + payload


def binary_frame(payload: bytes) -> bytes:
    """``payload`` as one final, unmasked binary frame: the same bytes for every connection
    (no extension is negotiated here), so a message for many is framed once."""
    return frame(BINARY, payload)


def close_frame(code: int, reason: str = "") -> bytes:
    """A close frame; ``NO_STATUS`` is sent as an empty one (RFC 6455 7.1.5)."""
    if code == NO_STATUS:
        return frame(CLOSE, b"")
    cut = reason.encode()[:123].decode("utf-8", "ignore").encode()  # whole characters
    return frame(CLOSE, code.to_bytes(2, "big") + cut)


def read_close(payload: bytes) -> tuple[int, str]:
    """The code and reason of a client's close frame (``NO_STATUS`` when it has none), as
    websockets reads and checks them (a code a peer may not send, a reason not UTF-8)."""
    try:
        close = Close.parse(payload)
    except ProtocolError as exc:
        raise FrameError(PROTOCOL_ERROR, str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise FrameError(INVALID_DATA, "close reason is not UTF-8") from exc
    return int(close.code), close.reason
