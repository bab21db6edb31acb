"""Connections and delivery: who is connected as which player, and sending messages to them.

A message for many players is encoded once. What one change sends a connection (often a
play and the next turn) goes out in one socket write, not one write per message, and never
blocks on a slow reader (as ``websockets.broadcast``). What is for a player not connected
to this process is handed back, encoded (the cluster part publishes it for the process
they are connected to). Each connection has a flood guard (``server.edge.flood``).

Since no send waits, the transport buffers what a client does not read, so every send
here ends in ``Connection.check_backlog``: a connection holding more than its
``send_buffer_limit`` of unsent output is aborted (it does not read, so a close frame would
not reach it either), never buffered for.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence

from pydantic import BaseModel

from protocol.codec import encode
from server.edge.flood import FloodGuard, TokenBucket
from server.edge.frames import POLICY, binary_frame
from server.edge.websocket import WebSocket

log = logging.getLogger(__name__)


#: Seconds a connection closed for abuse has to answer the close frame before it is cut.
DROP_CLOSE_TIMEOUT = 2.0


class Connection:
    """One websocket and the player it speaks for, once it has said hello."""

    def __init__(
        self,
        ws: WebSocket,
        bucket: TokenBucket,
        address: str = "",
        *,
        send_buffer_limit: int = 0,
        flood_close_after: int = 0,
    ) -> None:
        self.ws = ws
        self.guard = FloodGuard(bucket, flood_close_after)
        #: The client's address (the peer's, or the one a trusted proxy named): the unit
        #: that per-address limits count.
        self.address = address
        self.player_id: str | None = None
        #: Bytes of unsent output past which the connection is aborted (0: no bound).
        self.send_buffer_limit = send_buffer_limit
        #: Why the server dropped this connection (a metric's label), once it has.
        self.dropped: str | None = None

    @property
    def bucket(self) -> TokenBucket:
        return self.guard.bucket

    def send(self, message: BaseModel) -> None:
        """Queue one message; like every send here it never blocks, so order is kept."""
        send_frames(self, [encode(message)])

    def check_backlog(self) -> None:
        """Abort the connection if its unsent output is past the limit: a client that does
        not read must not make the server hold its output without bound."""
        limit = self.send_buffer_limit
        if limit and self.dropped is None and self.ws.buffered() > limit:
            log.debug("dropped a connection from %s: it does not read", self.address)
            self.dropped = "send_buffer"
            self.ws.abort()

    def drop(self, why: str, reason: str, *, cut: bool = False) -> None:
        """Close the connection for abuse with 1008 (``why`` labels the metric, ``reason``
        is the close reason the client reads), waiting ``DROP_CLOSE_TIMEOUT`` at most for
        its side of the closing handshake; ``cut``: not at all, and reading nothing more
        (a flood)."""
        if self.dropped is not None:
            return
        # debug: a flood of drops must not become a flood of log lines (the metric counts)
        log.debug("dropped a connection from %s: %s", self.address, reason)
        self.dropped = why
        if cut:
            self.ws.fail(POLICY, reason)
        else:
            self.ws.close(POLICY, reason, DROP_CLOSE_TIMEOUT)


class Hub:
    """The connections of this process, by player. ``observe`` sees every message delivered,
    once however many players it goes to (the metrics count timeouts and takeovers there)."""

    def __init__(self, observe: Callable[[BaseModel], None] | None = None) -> None:
        self._by_player: dict[str, set[Connection]] = defaultdict(set)
        self.all: set[Connection] = set()
        self.observe = observe

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

    def send_frames(self, player_id: str, frames: list[bytes]) -> None:
        """Send encoded messages (relayed from another process) to a player's sockets, in
        one write to each."""
        conns = self._by_player.get(player_id)
        if conns:
            wire = [binary_frame(frame) for frame in frames]
            for conn in conns:
                write_framed(conn, wire)

    def deliver(self, deliveries: Sequence[tuple[str, BaseModel]]) -> list[tuple[str, bytes]]:
        """Send each message to its players' connections, in order, encoding and framing
        each message once (known by its id while the caller holds them) and writing each
        connection's share at once. Returns what is for players not connected here: (player
        id, encoded message), in order."""
        observe, by_player = self.observe, self._by_player
        encoded: dict[int, tuple[bytes, bytes]] = {}
        queued: dict[Connection, list[bytes]] = {}
        elsewhere: list[tuple[str, bytes]] = []
        for player_id, message in deliveries:
            both = encoded.get(id(message))
            if both is None:  # (a message for many players is one object: seen once)
                if observe is not None:
                    observe(message)
                payload = encode(message)
                both = encoded[id(message)] = (payload, binary_frame(payload))
            conns = by_player.get(player_id)
            if not conns:
                elsewhere.append((player_id, both[0]))
                continue
            for conn in conns:
                wire = queued.get(conn)
                if wire is None:
                    queued[conn] = [both[1]]
                else:
                    wire.append(both[1])
        for conn, wire in queued.items():
            write_framed(conn, wire)
        return elsewhere


def send_frames(conn: Connection, frames: list[bytes]) -> None:
    """Queue binary messages ``frames`` (encoded, not framed) on ``conn`` in order, in one
    write to its socket (see ``write_framed``)."""
    write_framed(conn, [binary_frame(frame) for frame in frames])


def write_framed(conn: Connection, wire: list[bytes]) -> None:
    """Write websocket frames (``binary_frame``'s bytes) on ``conn`` in order, in one write
    to its socket.

    Like ``websockets.broadcast``, it never waits (the transport buffers for a slow reader)
    and skips a connection that is not open; each write is a system call, and most changes
    send a connection two or three messages. Then the connection's backlog is checked
    against its limit."""
    ws = conn.ws
    if conn.dropped == "send_buffer":
        return  # aborted: its transport takes no more
    try:
        ws.write(wire[0] if len(wire) == 1 else b"".join(wire))  # (skipped if not open)
    except Exception as exc:  # as broadcast: one connection's failure stops no other
        log.warning("skipped a send: failed to write messages: %s", exc)
    conn.check_backlog()
