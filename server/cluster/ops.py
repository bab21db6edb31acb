"""Room changes a player asks for, and applying them to a room run here.

A ``RoomOp`` is what a player's process asks of the player's room: a game request, to join
or watch it, to take a seat in it as a rematch (``again``), to leave it, to be marked back
(with a fresh snapshot) or gone. The process that runs the room applies it with
``apply_op``; any other process forwards it there through the relay first. It is the same
code either way, so a room behaves alike for a player connected to its own process and for
one connected elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol.codec import ProtocolError, decode, encode
from protocol.errors import ErrorCode
from protocol.messages import Request
from server.cluster.messages import OpData, OpKind
from server.rooms.room import Delivery, Room, RoomError
from server.runner import RoomRunner


@dataclass(slots=True)  # (not frozen: a frozen dataclass is built three times slower)
class RoomOp:
    kind: OpKind
    player: str
    #: The player's name (to take a seat with).
    name: str = ""
    #: The game request (``request`` only); it travels encoded, and is checked again on
    #: arrival like any frame.
    request: Request | None = None
    #: The process the player is connected to, which asks.
    node: str = ""

    def to_data(self) -> OpData:
        frame = b"" if self.request is None else encode(self.request)
        return OpData(
            kind=self.kind, player=self.player, name=self.name, frame=frame, node=self.node
        )

    @classmethod
    def from_data(cls, data: OpData, max_frame: int) -> RoomOp:
        """The op another process sent; RoomError when its request is not one."""
        request = None
        if data.frame:
            try:
                message = decode(data.frame, max_frame)
            except ProtocolError as exc:
                raise RoomError(exc.code, exc.message) from exc
            if not isinstance(message, Request):
                raise RoomError(ErrorCode.MALFORMED, "not a room request")
            request = message
        return cls(data.kind, data.player, data.name, request, data.node)


async def apply_op(
    runner: RoomRunner, op: RoomOp, clock: Callable[[], float], max_watchers: int = 0
) -> None:
    """Apply ``op`` to a room this process runs: save, then deliver (to players here and,
    through the hub, to those connected elsewhere). Raises the room's refusal. A ``watch``
    past ``max_watchers`` (this process's cap; 0: none) is refused; a ``gone`` takes a
    watcher out of the room.

    The runner remembers through which process each player last came in; a ``gone`` from
    another process (one that saw an old connection drop after the player had connected
    again elsewhere) is stale and changes nothing."""
    player = op.player
    if op.kind in ("join", "watch", "again", "back"):
        runner.via[player] = op.node
    elif op.kind == "gone" and runner.via.get(player, op.node) != op.node:
        return
    if op.kind == "request":
        if op.request is None:
            raise RoomError(ErrorCode.MALFORMED, "no request")
        await runner.request(player, op.request)
    elif op.kind in ("join", "watch", "again"):
        now = clock()

        def enter(room: Room) -> list[Delivery]:
            if op.kind == "watch":
                out = room.watch(player, max_watchers)
            elif op.kind == "again":  # the snapshot shows a match it started: not again
                out = [
                    (p, m) for p, m in room.again(player, op.name, now, runner.rng) if p != player
                ]
            else:
                out = room.join(player, op.name, now)
            return [(player, room.snapshot_for(player, now)), *out]

        await runner.change(enter)
    elif op.kind == "leave":
        await runner.change(lambda room: room.leave(player))
    elif op.kind == "back":
        await _back(runner, player, clock)
    else:
        await runner.change(lambda room: room.gone(player))
        if not runner.room.is_member(player):
            runner.via.pop(player, None)  # a watcher gone for good


async def _back(runner: RoomRunner, player: str, clock: Callable[[], float]) -> None:
    """A returning player gets their snapshot (showing them connected) and the others
    learn they are back. If that cannot be saved they still get the snapshot. One who has
    left (a session that missed the news) is refused: a bot plays the seat's cards now."""
    if not runner.room.is_member(player):
        raise RoomError(ErrorCode.NO_ROOM, "you are not in this room")

    def back(room: Room) -> list[Delivery]:
        now = clock()
        out = room.back(player, now)
        others = [(p, m) for p, m in out if p != player]
        return [(player, room.snapshot_for(player, now)), *others]

    try:
        await runner.change(back)
    except RoomError:
        runner.outlet.deliver([(player, runner.room.snapshot_for(player, clock()))])
        raise
