"""The messages between server processes, typed (pydantic) and encoded with the project's
codec (``encode_binary``, ``decode_as``). Every message names its kind in ``t``.

On a node's channel (``PREFIXnode:NODE``): ``Forward``, a player's change to a room that
node runs, and ``Answer``, what became of a ``Forward``. On every node's (``PREFIXnodes``):
``Adopt``, rooms given up by a process going down. On a player's (``PREFIXplayer:PID``),
heard by the process the player is connected to: ``PlayerFrames``, what one change of a
room sends them (``PlayerFrame``, one message, from a process of the previous version);
``EnteredRoom`` and ``LeftRoom``, which room they are in; ``Replaced``, they connected
again elsewhere; ``Rejoin``, their room has a new process (ask it for a snapshot).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from protocol.codec import decode_as, encode_binary
from protocol.errors import ErrorCode

OpKind = Literal["request", "join", "watch", "again", "leave", "back", "gone"]


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OpData(_Message):
    """A ``RoomOp`` on its way to the room's process; ``frame``: the game request, encoded
    (checked again on arrival like any frame), or empty."""

    kind: OpKind
    player: str
    name: str = ""
    frame: bytes = b""
    node: str = ""


class Forward(_Message):
    """A change to room ``code`` asked by a player of node ``reply_to``; answered there."""

    t: Literal["forward"] = "forward"
    call: int
    reply_to: str
    code: str
    op: OpData


class Answer(_Message):
    """What became of forward ``call``: done, refused (``error``), or ``moved`` (the room
    runs here no more: ask again)."""

    t: Literal["answer"] = "answer"
    call: int
    outcome: Literal["done", "refused", "moved"]
    error: ErrorCode | None = None
    message: str = ""


class Adopt(_Message):
    """Rooms whose process went down cleanly: take them over at once."""

    t: Literal["adopt"] = "adopt"
    codes: list[str]


class PlayerFrames(_Message):
    """The encoded messages one change of a room sends the player, in order: one message
    between processes per player and change, however many it sent them."""

    t: Literal["frames"] = "frames"
    frames: list[bytes]


class PlayerFrame(_Message):
    """One encoded message a room sends the player, as a process of the previous version
    sends it (read, never sent: a rolling upgrade's old and new processes run together)."""

    t: Literal["frame"] = "frame"
    frame: bytes


class EnteredRoom(_Message):
    """The player is in room ``code`` now (seated or watching)."""

    t: Literal["entered"] = "entered"
    code: str


class LeftRoom(_Message):
    """The player is in room ``code`` no more (left, gone as a watcher, or it closed)."""

    t: Literal["left"] = "left"
    code: str


class Replaced(_Message):
    """The player connected again at node ``node``: close their older connections."""

    t: Literal["replaced"] = "replaced"
    node: str


class Rejoin(_Message):
    """Room ``code`` has a new process: ask it for a fresh snapshot."""

    t: Literal["rejoin"] = "rejoin"
    code: str


PlayerMessage = Annotated[
    PlayerFrames | PlayerFrame | EnteredRoom | LeftRoom | Replaced | Rejoin,
    Field(discriminator="t"),
]
ClusterMessage = Annotated[
    Forward
    | Answer
    | Adopt
    | PlayerFrames
    | PlayerFrame
    | EnteredRoom
    | LeftRoom
    | Replaced
    | Rejoin,
    Field(discriminator="t"),
]

_ADAPTER: TypeAdapter[ClusterMessage] = TypeAdapter(ClusterMessage)


def pack_message(message: ClusterMessage) -> bytes:
    return encode_binary(message)


def unpack_message(data: bytes) -> ClusterMessage:
    """A message from another process; ProtocolError when it is not one."""
    return decode_as(_ADAPTER, data)
