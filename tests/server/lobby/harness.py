"""The lobby of one server process over the in-memory twins of its stores: no Redis, no
sockets. Its connections are ``FakeConn`` (what the app answers them is kept), its hub
keeps what rooms deliver per player, and one fake clock runs the app and the store."""

from __future__ import annotations

import contextlib
import random
from collections import defaultdict
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from protocol.codec import decode_server, encode
from protocol.messages import PROTOCOL_VERSION, Error, Hello, Request, Welcome
from server.app import App
from server.edge.flood import FloodGuard, TokenBucket
from server.edge.hub import Hub
from server.settings import Settings
from server.store.memory import MemoryRedis
from server.store.memory_lobby import MemoryAddresses, MemoryServerStore

#: Every cap per client address off (a test turns on the one it checks).
NO_CAPS: dict[str, Any] = {
    "new_sessions_per_address": 0,
    "open_rooms_per_address": 0,
    "new_rooms_per_address": 0,
    "failed_joins_per_address": 0,
    "strong_bots_per_address": 0,
}
HOME = "192.0.2.1"


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class LobbyHub(Hub):
    """A hub whose players' messages from rooms are kept in ``got``, by player."""

    def __init__(self) -> None:
        super().__init__()
        self.got: dict[str, list[BaseModel]] = defaultdict(list)

    def deliver(self, deliveries: Iterable[tuple[str, BaseModel]]) -> list[tuple[str, bytes]]:
        elsewhere = []
        for player, message in deliveries:
            if self.connected(player):
                self.got[player].append(message)
            else:
                elsewhere.append((player, encode(message)))
        return elsewhere

    def send_frames(self, player_id: str, frames: list[bytes]) -> None:
        if self.connected(player_id):
            self.got[player_id] += [decode_server(frame) for frame in frames]


class FakeWs:
    """The socket under a ``FakeConn``: what is written on it (frames encoded once, as a
    replay is sent) is read back into the connection's ``sent``."""

    def __init__(self, sent: list[BaseModel]) -> None:
        self.closed: int | None = None
        self.sent = sent

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = code

    def write(self, data: bytes) -> None:
        at = 0
        while at < len(data):
            length, at = data[at + 1] & 0x7F, at + 2
            if length == 126:
                length, at = int.from_bytes(data[at : at + 2]), at + 2
            elif length == 127:
                length, at = int.from_bytes(data[at : at + 8]), at + 8
            self.sent.append(decode_server(data[at : at + length]))
            at += length


class FakeConn:
    """A client's connection as the app sees it; ``sent``: what the app answered it."""

    def __init__(self, address: str = HOME) -> None:
        self.sent: list[BaseModel] = []
        self.ws = FakeWs(self.sent)
        self.guard = FloodGuard(TokenBucket(1000.0, 1000), 0)
        self.address = address
        self.player_id: str | None = None
        self.dropped: str | None = None

    @property
    def bucket(self) -> TokenBucket:
        return self.guard.bucket

    def send(self, message: BaseModel) -> None:
        self.sent.append(message)

    def check_backlog(self) -> None:
        """Nothing waits unsent here."""


@dataclass
class LobbyProcess:
    app: App
    hub: LobbyHub
    store: MemoryServerStore
    clock: Clock

    async def say(self, conn: FakeConn, request: Request) -> BaseModel:
        """Send a request; the app's direct answer to it (the last thing sent this
        connection)."""
        before = len(conn.sent)
        await self.app.receive(conn, encode(request))  # type: ignore[arg-type]
        assert len(conn.sent) > before, "no answer"
        return conn.sent[-1]

    async def refused(self, conn: FakeConn, request: Request) -> Error:
        answer = await self.say(conn, request)
        assert isinstance(answer, Error), answer
        return answer

    async def send(self, conn: FakeConn, request: Request) -> None:
        """Send a request that gets no direct answer (its room tells its players)."""
        before = len(conn.sent)
        await self.app.receive(conn, encode(request))  # type: ignore[arg-type]
        assert conn.sent[before:] == [], conn.sent[before:]

    async def hello(
        self, name: str, token: str | None = None, address: str = HOME, key: str | None = None
    ) -> tuple[FakeConn, Welcome]:
        conn = FakeConn(address)
        self.app.hub.add(conn)  # type: ignore[arg-type]
        hello = Hello(name=name, version=PROTOCOL_VERSION, token=token, player_key=key)
        welcome = await self.say(conn, hello)
        assert isinstance(welcome, Welcome), welcome
        return conn, welcome

    def room_of(self, player: str) -> str | None:
        return self.app.sessions.room_of(player)

    def last(self, player: str, kind: type[BaseModel]) -> Any:
        """The last message of ``kind`` a room delivered the player."""
        found = [m for m in self.hub.got[player] if isinstance(m, kind)]
        assert found, f"{player} got no {kind.__name__}"
        return found[-1]


@contextlib.asynccontextmanager
async def lobby(**settings: Any) -> AsyncIterator[LobbyProcess]:
    """One process's lobby (``settings`` over ``NO_CAPS``), taking connections."""
    clock = Clock()
    store = MemoryServerStore(MemoryRedis(clock))
    hub = LobbyHub()
    app = App(
        Settings(**{**NO_CAPS, **settings}),
        store,
        random.Random(3),
        clock,
        hub,
        addresses=MemoryAddresses(store),
    )
    await app.cluster.start()
    app.accepting = True
    try:
        yield LobbyProcess(app, hub, store, clock)
    finally:
        await app.matcher.stop()
        await app.cluster.stop()
