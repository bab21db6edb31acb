"""The codec: messages as msgpack maps in binary websocket frames.

``encode(message) -> bytes`` and ``decode(data) -> message``. Decoding raises exactly one
error type, ``ProtocolError``, for every bad input: too large (``TOO_LARGE``), not msgpack or
not a map or fields of the wrong shape (``MALFORMED``), or a ``type`` this protocol does not
know (``UNKNOWN_TYPE``). The error carries the request id when the frame had a readable one,
so the sender learns which request was refused, and quotes the client's input cut short
(``quoted``).
"""

from __future__ import annotations

import threading
from typing import Any, Literal, TypeVar, get_args

import msgpack
from pydantic import BaseModel, TypeAdapter, ValidationError

from protocol.errors import QUOTE_LIMIT, ErrorCode, Refusal, quoted
from protocol.messages import (
    CLIENT_ADAPTER,
    SERVER_ADAPTER,
    ClientMessage,
    ServerMessage,
)

#: Frames above this many bytes are refused before they are parsed.
DEFAULT_MAX_FRAME = 16 * 1024

T = TypeVar("T")

Direction = Literal["to_server", "to_client"]


class ProtocolError(Refusal):
    """A frame that is not a valid message; ``code`` says how, ``request_id`` which request."""

    def __init__(self, code: ErrorCode, message: str, request_id: int | None = None) -> None:
        super().__init__(code, message)
        self.request_id = request_id


def _fields(value: Any) -> Any:
    """What msgpack cannot pack itself: a nested model, as its fields."""
    if isinstance(value, BaseModel):
        return value.__dict__
    raise TypeError(f"a message holds a {type(value).__name__}, which the codec does not encode")


class _Packers(threading.local):
    """A msgpack packer per thread (a packer's buffer is its own: it is not shared)."""

    def __init__(self) -> None:
        self.packer = msgpack.Packer(default=_fields, use_bin_type=True)


_PACKERS = _Packers()


def encode(message: BaseModel) -> bytes:
    """One message as a msgpack map.

    The protocol's models hold plain data only (numbers, text, booleans, None, lists and
    nested models: no bytes, no dict keys but text), so a model's fields as it holds them
    pack to the very bytes of ``model_dump(mode="json")`` (a test holds every message
    kind to that), at a quarter of its cost: this runs for every event sent."""
    packed: bytes = _PACKERS.packer.pack(message.__dict__)
    return packed


def _known_types(union: Any) -> frozenset[str]:
    """The ``type`` of each message of a union (``Annotated[A | B | ..., discriminator]``),
    read from the models' fields: not from the adapter's JSON schema, which took a fifth of
    the protocol's import, at every start of a server or a client."""
    (members, *_) = get_args(union)
    return frozenset(model.model_fields["type"].default for model in get_args(members))


_TYPES: dict[Direction, frozenset[str]] = {
    "to_server": _known_types(ClientMessage),
    "to_client": _known_types(ServerMessage),
}


def _unpack(data: bytes | str, max_size: int) -> dict[str, Any]:
    if isinstance(data, str):
        raise ProtocolError(
            ErrorCode.MALFORMED, "text frames are not accepted: send binary msgpack"
        )
    if len(data) > max_size:
        raise ProtocolError(ErrorCode.TOO_LARGE, f"frame of {len(data)} bytes exceeds {max_size}")
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception as exc:
        raise ProtocolError(ErrorCode.MALFORMED, "frame is not valid msgpack") from exc
    if not isinstance(obj, dict):
        raise ProtocolError(ErrorCode.MALFORMED, "a message is a msgpack map")
    return obj


def _request_id(obj: dict[str, Any]) -> int | None:
    rid = obj.get("id")
    return rid if isinstance(rid, int) and not isinstance(rid, bool) and rid >= 0 else None


def _validate(adapter: TypeAdapter[Any], obj: dict[str, Any], rid: int | None) -> Any:
    try:
        return adapter.validate_python(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        if len(where) > QUOTE_LIMIT:  # a field name the client made up
            where = quoted(where)
        raise ProtocolError(
            ErrorCode.MALFORMED, f"bad {obj['type']} message: {where}: {first['msg']}", rid
        ) from exc


def _checked(
    data: bytes | str, direction: Direction, max_size: int
) -> tuple[dict[str, Any], int | None]:
    obj = _unpack(data, max_size)
    rid = _request_id(obj)
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in _TYPES[direction]:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {quoted(kind)}", rid)
    return obj, rid


def decode(data: bytes | str, max_size: int = DEFAULT_MAX_FRAME) -> ClientMessage:
    """A client's frame as a message; ProtocolError when it is not one."""
    obj, rid = _checked(data, "to_server", max_size)
    message: ClientMessage = _validate(CLIENT_ADAPTER, obj, rid)
    return message


def decode_server(data: bytes | str, max_size: int = 1 << 20) -> ServerMessage:
    """A server's frame as a message (the client's side of the codec)."""
    obj, rid = _checked(data, "to_client", max_size)
    message: ServerMessage = _validate(SERVER_ADAPTER, obj, rid)
    return message


def frame_type(data: bytes) -> str | None:
    """The ``type`` an encoded message says it is, unchecked otherwise (None: not a
    message); for a server that passes frames on without reading them."""
    try:
        obj = msgpack.unpackb(data, raw=False)
    except Exception:
        return None
    kind = obj.get("type") if isinstance(obj, dict) else None
    return kind if isinstance(kind, str) else None


def encode_binary(message: BaseModel) -> bytes:
    """As ``encode``, with bytes fields kept as msgpack binary (frames inside messages
    between server processes)."""
    packed: bytes = msgpack.packb(message.model_dump(), use_bin_type=True)
    return packed


def decode_as(adapter: TypeAdapter[T], data: bytes, max_size: int = 1 << 20) -> T:
    """Bytes from ``encode_binary`` as one of ``adapter``'s types; ProtocolError if not."""
    obj = _unpack(data, max_size)
    try:
        return adapter.validate_python(obj)
    except ValidationError as exc:
        first = exc.errors()[0]["msg"]
        raise ProtocolError(ErrorCode.MALFORMED, f"not a message: {first}") from exc
