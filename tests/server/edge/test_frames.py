"""Frames as RFC 6455 section 5 has them, read and written without a socket: a client's
masked frame is read whole or not at all, in each of the three length forms; a server's frame
is what websockets' own client reads."""

from __future__ import annotations

import pytest
from websockets.frames import Frame as WsFrame
from websockets.frames import Opcode
from websockets.streams import StreamReader

from server.edge import frames
from server.edge.frames import FrameError, read_frame


def client_frame(opcode: Opcode, payload: bytes, *, fin: bool = True) -> bytes:
    """What websockets' client would send: masked."""
    return WsFrame(opcode, payload, fin).serialize(mask=True)


def server_read(data: bytes) -> WsFrame:
    """What websockets' client reads of a server's frame."""
    reader = StreamReader()
    reader.feed_data(data)
    parser = WsFrame.parse(reader.read_exact, mask=False)
    with pytest.raises(StopIteration) as done:
        next(parser)
    frame: WsFrame = done.value.value
    return frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 70_000])
def test_a_masked_frame_of_each_length_form_is_read_whole(size: int) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    data = b"junk" + client_frame(Opcode.BINARY, payload) + b"next"
    got = read_frame(data, 4, 1 << 20)
    assert got is not None
    frame, end = got
    assert frame == frames.Frame(True, frames.BINARY, payload)
    assert data[end:] == b"next"


def test_a_frame_not_whole_yet_is_not_read() -> None:
    data = client_frame(Opcode.BINARY, b"x" * 300)
    for cut in range(len(data)):
        assert read_frame(data[:cut], 0, 1 << 20) is None
    assert read_frame(data, 0, 1 << 20) is not None


def test_a_fragment_says_it_is_not_the_last() -> None:
    got = read_frame(client_frame(Opcode.TEXT, b"he", fin=False), 0, 100)
    assert got is not None
    assert got[0] == frames.Frame(False, frames.TEXT, b"he")


def test_a_frame_over_the_limit_is_refused_from_its_header() -> None:
    header_only = client_frame(Opcode.BINARY, b"x" * 5000)[:8]  # 2 + 2 length + 4 mask
    with pytest.raises(FrameError) as refused:
        read_frame(header_only, 0, 4096)
    assert refused.value.code == frames.TOO_BIG


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536])
def test_a_servers_frame_reads_back_as_sent(size: int) -> None:
    payload = b"y" * size
    assert server_read(frames.binary_frame(payload)) == WsFrame(Opcode.BINARY, payload)


def test_a_close_frame_carries_its_code_and_reason_and_reads_back() -> None:
    sent = server_read(frames.close_frame(frames.POLICY, "too fast"))
    assert sent.opcode is Opcode.CLOSE
    assert frames.read_close(bytes(sent.data)) == (frames.POLICY, "too fast")
    assert server_read(frames.close_frame(frames.NO_STATUS)).data == b""
    assert frames.read_close(b"") == (frames.NO_STATUS, "")


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (b"\x03", frames.PROTOCOL_ERROR),  # one byte: no whole code
        (b"\x03\xed", frames.PROTOCOL_ERROR),  # 1005: for reporting only
        (b"\x0b\xb7", frames.PROTOCOL_ERROR),  # 2999: unassigned
        (b"\x03\xe8\xff", frames.INVALID_DATA),  # a reason that is not UTF-8
    ],
)
def test_a_bad_close_frame_is_refused(payload: bytes, code: int) -> None:
    with pytest.raises(FrameError) as refused:
        frames.read_close(payload)
    assert refused.value.code == code


def test_a_long_close_reason_is_cut_to_fit_a_control_frame() -> None:
    sent = server_read(frames.close_frame(frames.POLICY, "x" * 500))
    assert len(sent.data) == 125
