"""Room changes a player asks for, and applying them to a room run here.

A ``RoomOp`` is what a player's process asks of the player's room, one small value per
kind: a game request (``Ask``), to take a seat (``Join``), to watch (``Watch``), to take a
seat in it as a rematch (``Again``), to leave it (``Leave``), to be marked back with a fresh
snapshot (``Back``) or gone (``Gone``). The process that runs the room applies it with
``apply_op``; any other process forwards it there through the relay first (``to_data``,
``from_data``: the ``OpData`` between processes). It is the same code either way, so a
room behaves alike for a player connected to its own process and for one connected
elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol.codec import ProtocolError, decode, encode
from protocol.errors import ErrorCode
from protocol.messages import Request
from server.cluster.messages import OpData
from server.rooms.change import Change
from server.rooms.room import Delivery, Room, RoomError
from server.runner import RoomRunner


@dataclass(frozen=True, slots=True)
class Ask:
    """A game request (a bid, a play, ready, chat...); it travels encoded, and is checked
    again on arrival like any frame."""

    player: str
    request: Request


@dataclass(frozen=True, slots=True)
class Join:
    """Take an empty seat under ``name``."""

    player: str
    name: str


@dataclass(frozen=True, slots=True)
class Watch:
    """Watch the room."""

    player: str


@dataclass(frozen=True, slots=True)
class Again:
    """Take the seat held for the player in this rematch room, ready."""

    player: str
    name: str


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave the room (a bot plays a seat's cards from now)."""

    player: str


@dataclass(frozen=True, slots=True)
class Back:
    """The player connected again: a fresh snapshot, the others told."""

    player: str


@dataclass(frozen=True, slots=True)
class Gone:
    """The player's connection ended (a watcher leaves the room)."""

    player: str


RoomOp = Ask | Join | Watch | Again | Leave | Back | Gone


def to_data(op: RoomOp, node: str) -> OpData:
    """``op`` asked by a player connected to process ``node``, to send to the room's."""
    match op:
        case Ask(player, request):
            return OpData(kind="request", player=player, frame=encode(request), node=node)
        case Join(player, name):
            return OpData(kind="join", player=player, name=name, node=node)
        case Again(player, name):
            return OpData(kind="again", player=player, name=name, node=node)
        case Watch(player):
            return OpData(kind="watch", player=player, node=node)
        case Leave(player):
            return OpData(kind="leave", player=player, node=node)
        case Back(player):
            return OpData(kind="back", player=player, node=node)
        case Gone(player):
            return OpData(kind="gone", player=player, node=node)


def from_data(data: OpData, max_frame: int) -> RoomOp:
    """The op another process sent (its asker's process is ``data.node``); RoomError when
    its request is not one."""
    player = data.player
    match data.kind:
        case "request":
            return Ask(player, _request(data.frame, max_frame))
        case "join":
            return Join(player, data.name)
        case "again":
            return Again(player, data.name)
        case "watch":
            return Watch(player)
        case "leave":
            return Leave(player)
        case "back":
            return Back(player)
        case "gone":
            return Gone(player)


def _request(frame: bytes, max_frame: int) -> Request:
    if not frame:
        raise RoomError(ErrorCode.MALFORMED, "no request")
    try:
        message = decode(frame, max_frame)
    except ProtocolError as exc:
        raise RoomError(exc.code, exc.message) from exc
    if not isinstance(message, Request):
        raise RoomError(ErrorCode.MALFORMED, "not a room request")
    return message


async def apply_op(
    runner: RoomRunner,
    op: RoomOp,
    node: str,
    clock: Callable[[], float],
    max_watchers: int = 0,
) -> None:
    """Apply ``op``, asked through process ``node``, to a room this process runs: save,
    then deliver (to players here and, through the hub, to those connected elsewhere).
    Raises the room's refusal. A ``Watch`` past ``max_watchers`` (this process's cap; 0:
    none) is refused; a ``Gone`` takes a watcher out of the room.

    The runner remembers through which process each player last came in; a ``Gone`` from
    another process (one that saw an old connection drop after the player had connected
    again elsewhere) is stale and changes nothing. An ``Ask`` from a person whose seat is
    marked disconnected (their return not taken yet: refused for a moment, tried again) is
    their return too: they get their snapshot, then what the request causes."""
    match op:
        case Ask(player, request):
            if runner.room.away(player):
                # Their return has not reached the room yet (it is tried again), but their
                # request has: they are here. Back first, or nothing it causes reaches them.
                runner.via[player] = node
                await _back(runner, player, clock)
            await runner.request(player, request)
        case Join() | Watch() | Again():
            runner.via[op.player] = node
            await _enter(runner, op, clock(), max_watchers)
        case Leave(player):
            await runner.change(lambda room: room.leave(player))
        case Back(player):
            runner.via[player] = node
            await _back(runner, player, clock)
        case Gone(player):
            if runner.via.get(player, node) != node:
                return
            await runner.change(lambda room: room.gone(player))
            if not runner.room.is_member(player):
                runner.via.pop(player, None)  # a watcher gone for good


async def _enter(
    runner: RoomRunner, op: Join | Watch | Again, now: float, max_watchers: int
) -> None:
    """Seat or show the player in the room; they get its snapshot first."""
    player = op.player

    def enter(room: Room) -> Change:
        match op:
            case Watch():
                change = Change(room.watch(player, max_watchers))
            case Again(_, name):  # the snapshot shows a match it started: not again
                change = room.again(player, name, now, runner.rng)
                change.deliveries = [(p, m) for p, m in change.deliveries if p != player]
            case Join(_, name):
                change = Change(room.join(player, name, now))
        change.deliveries.insert(0, (player, room.snapshot_for(player, now)))
        return change

    await runner.change(enter)


async def _back(runner: RoomRunner, player: str, clock: Callable[[], float]) -> None:
    """A returning player gets their snapshot (showing them connected) and the others
    learn they are back. If that cannot be saved they still get the snapshot, of the room as
    saved. One who has left (a session that missed the news) is refused: a bot plays the
    seat's cards now."""
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
        # the room as saved: a change in doubt (its save under way while the storage is
        # down) may be undone, and must not be shown (their own join, perhaps)
        saved = runner.as_saved()
        if saved.is_member(player):
            runner.outlet.deliver([(player, saved.snapshot_for(player, clock()))])
        raise
