"""Connections and delivery: who is connected as which player, and sending messages to them.

A message for many players is encoded once. What one change sends a connection (often a
play and the next turn) goes out in one socket write, not one write per message, and never
blocks on a slow reader (as ``websockets.broadcast``). A message for a player not connected
to this process goes to
``elsewhere`` (the relay publishes it for the process they are connected to). Each
connection has a token bucket that refuses floods.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable

from pydantic import BaseModel
from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import State

from protocol.codec import encode

log = logging.getLogger(__name__)


class TokenBucket:
    """``rate`` requests a second on average, up to ``burst`` at once."""

    def __init__(self, rate: float, burst: int, clock: float | None = None) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic() if clock is None else clock

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    """One websocket and the player it speaks for, once it has said hello."""

    def __init__(self, ws: ServerConnection, bucket: TokenBucket, address: str = "") -> None:
        self.ws = ws
        self.bucket = bucket
        #: The client's address (the peer's, or the one a trusted proxy named): the unit
        #: that per-address limits count.
        self.address = address
        self.player_id: str | None = None

    def send(self, message: BaseModel) -> None:
        """Queue one message; like every send here it never blocks, so order is kept."""
        broadcast([self.ws], encode(message))


class Hub:
    """The connections of this process, by player. ``observe`` sees every message delivered
    (the metrics count timeouts and takeovers there)."""

    def __init__(self, observe: Callable[[Iterable[BaseModel]], None] | None = None) -> None:
        self._by_player: dict[str, set[Connection]] = defaultdict(set)
        self.all: set[Connection] = set()
        self.observe = observe
        #: Told (player id, message, its frame) for each player not connected here.
        self.elsewhere: Callable[[str, BaseModel, bytes], None] | None = None

    def add(self, conn: Connection) -> None:
        self.all.add(conn)

    def bind(self, conn: Connection, player_id: str) -> list[Connection]:
        """Attach ``conn`` to a player; return the player's older connections (to close)."""
        older = list(self._by_player[player_id])
        self._by_player[player_id] = {conn}
        conn.player_id = player_id
        return older

    def remove(self, conn: Connection) -> bool:
        """Forget ``conn``; True when its player has no connection left here."""
        self.all.discard(conn)
        pid = conn.player_id
        if pid is None:
            return False
        conns = self._by_player.get(pid)
        if conns is None:
            return False
        conns.discard(conn)
        if not conns:
            del self._by_player[pid]
            return True
        return False

    def connected(self, player_id: str) -> bool:
        return bool(self._by_player.get(player_id))

    def connections(self, player_id: str) -> list[Connection]:
        return list(self._by_player.get(player_id, ()))

    def send_frame(self, player_id: str, frame: bytes) -> None:
        """Send an encoded frame (relayed from another process) to a player's sockets."""
        conns = self._by_player.get(player_id)
        if conns:
            broadcast([c.ws for c in conns], frame)

    def deliver(self, deliveries: Iterable[tuple[str, BaseModel]]) -> None:
        """Send each message to its players' connections, in order, encoding each message
        once and writing each connection's share at once."""
        deliveries = list(deliveries)
        if self.observe is not None:
            self.observe(message for _, message in deliveries)
        frames: dict[int, bytes] = {}
        queued: dict[ServerConnection, list[bytes]] = {}
        for player_id, message in deliveries:
            frame = frames.get(id(message))
            if frame is None:
                frame = frames[id(message)] = encode(message)
            conns = self._by_player.get(player_id)
            if not conns:
                if self.elsewhere is not None:
                    self.elsewhere(player_id, message, frame)
                continue
            for conn in conns:
                queued.setdefault(conn.ws, []).append(frame)
        for ws, its_frames in queued.items():
            send_frames(ws, its_frames)


def send_frames(ws: ServerConnection, frames: list[bytes]) -> None:
    """Queue binary ``frames`` on ``ws`` in order, in one write to its socket.

    Like ``websockets.broadcast``, it never waits (the transport buffers for a slow reader),
    skips a connection that is closing, and logs rather than raises a failed write. Each
    write is a system call, and most changes send a connection two or three messages."""
    if len(frames) == 1:
        broadcast([ws], frames[0])
        return
    if ws.protocol.state is not State.OPEN or ws.send_in_progress is not None:
        return
    try:
        for frame in frames:
            ws.protocol.send_binary(frame)
        ws.transport.write(b"".join(ws.protocol.data_to_send()))
    except Exception as exc:  # as broadcast: one connection's failure stops no other
        log.warning("skipped a send: failed to write messages: %s", exc)
