"""Server processes in one test, without sockets or Redis: each ``Node`` is a ``Cluster``
over a ``MemoryStore`` (all sharing one ``MemoryRedis``, its pub/sub included) with a hub
that records what its players get instead of writing to sockets."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from protocol.codec import decode_server, encode
from server.cluster import ops
from server.cluster.directory import RoomDirectory
from server.cluster.node import Cluster
from server.edge.hub import Connection, Hub
from server.lobby.sessions import Sessions
from server.metrics import Metrics
from server.players.keys import new_player_id
from server.rooms.room import Room
from server.settings import Settings
from server.store.health import StoreHealth
from server.store.memory import MemoryRedis, MemoryStore


class RecordingHub(Hub):
    """A hub whose players (``here``) get messages into ``got`` instead of sockets."""

    def __init__(self) -> None:
        super().__init__()
        self.here: set[str] = set()
        self.got: dict[str, list[BaseModel]] = defaultdict(list)

    def connected(self, player_id: str) -> bool:
        return player_id in self.here

    def connections(self, player_id: str) -> list[Connection]:
        return []

    def send_frames(self, player_id: str, frames: list[bytes]) -> None:
        if player_id in self.here:
            self.got[player_id] += [decode_server(frame) for frame in frames]

    def deliver(self, deliveries: Iterable[tuple[str, BaseModel]]) -> list[tuple[str, bytes]]:
        elsewhere = []
        for player, message in deliveries:
            if player in self.here:
                self.got[player].append(message)
            else:
                elsewhere.append((player, encode(message)))
        return elsewhere


@dataclass
class Node:
    name: str
    store: MemoryStore
    hub: RecordingHub
    sessions: Sessions
    cluster: Cluster
    closed: list[str] = field(default_factory=list)
    health: StoreHealth | None = None

    @property
    def directory(self) -> RoomDirectory:
        return self.cluster.directory

    async def connect(self, name: str) -> str:
        """A new player connected here; their id."""
        session = await self.sessions.open(name, new_player_id())
        self.hub.here.add(session.player_id)
        await self.cluster.connected(session.player_id, resumed=False)
        return session.player_id

    def room_of(self, player: str) -> str | None:
        session = self.sessions.of_player(player)
        return None if session is None else session.room


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@contextlib.asynccontextmanager
async def nodes(
    *names: str, lease_ttl: float = 30.0, forward_timeout: float = 1.0, watched: bool = False
) -> AsyncIterator[tuple[MemoryRedis, Clock, list[Node]]]:
    """Nodes over one ``MemoryRedis``; ``watched``: each with a ``StoreHealth`` (probing the
    memory store's ``down`` switch), so that its rooms pause while the store is down."""
    clock = Clock()
    redis = MemoryRedis(clock)
    settings = Settings(lease_ttl=lease_ttl, forward_timeout=forward_timeout)
    made: list[Node] = []
    for name in names:
        store = MemoryStore(redis)
        hub = RecordingHub()
        sessions = Sessions(store)
        closed: list[str] = []
        health = None
        if watched:

            async def probe() -> bool:
                return not redis.down

            health = StoreHealth(probe, clock, interval=0.01)

        async def on_closed(room: Room, closed: list[str] = closed) -> None:
            closed.append(room.code)

        cluster = Cluster(
            name,
            settings,
            store,
            hub,
            sessions,
            Metrics(lambda: 0, lambda: []),
            random.Random(7),
            clock,
            closed=on_closed,
            health=health,
        )
        await cluster.relay.start()
        made.append(Node(name, store, hub, sessions, cluster, closed, health))
    try:
        yield redis, clock, made
    finally:
        for node in made:
            node.directory.closing = True
            for runner in node.directory.rooms.values():
                runner.stop()
            await node.cluster.relay.stop(flush=0.1)
            if node.health is not None:
                node.health.close()


async def until(check: Callable[[], bool | Awaitable[bool]], timeout: float = 2.0) -> None:
    """Wait until ``check`` holds (polled as the loop turns), at most ``timeout`` s."""
    async with asyncio.timeout(timeout):
        while True:
            result = check()
            if not isinstance(result, bool):
                result = await result
            if result:
                return
            await asyncio.sleep(0.005)


async def open_room(node: Node, creator: str, name: str = "Ann") -> str:
    """A private room run on ``node``, its creator seated (and told)."""
    session = node.sessions.of_player(creator)
    assert session is not None
    for attempt in range(5):
        code = f"ROOM{attempt}"
        await node.sessions.enter(session, code)
        runner = await node.directory.open(Room.create(code, "private", 1, creator, name))
        if runner is not None:
            node.cluster.moved(code, [creator], [])
            node.cluster.deliver([(creator, runner.room.snapshot_for(creator, 0.0))])
            runner.reschedule()
            return code
    raise AssertionError("no free code")


async def join_from(node: Node, code: str, name: str = "Bo") -> str:
    """A person connected to ``node`` whose session names room ``code`` and who takes a
    seat in it, wherever the room runs; their player id."""
    player = await node.connect(name)
    session = node.sessions.of_player(player)
    assert session is not None
    await node.sessions.enter(session, code)
    await node.directory.route(code, ops.Join(player, name))
    return player


def overhear(monkeypatch: Any, cluster: Cluster) -> list[tuple[str, Any]]:
    """What ``cluster`` hears from rooms run elsewhere for its players, as it hears it (each
    player and message, in order), while it goes on handling it as ever."""
    heard: list[tuple[str, Any]] = []
    for_player = cluster.for_player

    def hear(player: str, message: Any) -> None:
        heard.append((player, message))
        for_player(player, message)

    monkeypatch.setattr(cluster, "for_player", hear)
    return heard
