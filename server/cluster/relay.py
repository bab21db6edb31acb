"""Messages between server processes, over Redis pub/sub.

Any process may hold a player's connection; one process runs each room (it holds the room's
lease). What crosses between them goes through Redis, on three kinds of channel under the
key prefix:

- ``PREFIXplayer:PID``: what a room sends to one player (``PlayerFrame``) and which room
  they are in (``EnteredRoom``, ``LeftRoom``), published by the process that runs the room
  and heard by the process the player is connected to, which subscribes while they are
  there. Also ``Replaced`` (the player connected again elsewhere: close the older
  connection) and ``Rejoin`` (their room has a new process: ask it for a fresh snapshot).
- ``PREFIXnode:NODE``: a room change forwarded to the process NODE that runs the room
  (``Forward``), and the ``Answer`` back to the process that forwarded it.
- ``PREFIXnodes``: to every process: rooms given up by a process going down (``Adopt``),
  to take over at once.

The messages are typed (``server/cluster/messages.py``); what arrives is handed to the
``Inbox`` given at construction.

Everything published leaves through one ordered outbox (one pipelined round trip per batch),
so a player's frames and a forwarded change's answer arrive in the order they were made.
Pub/sub delivers at most once: a lost forward ends in the caller's timeout, a retryable error
for the client (a resent request is refused by its id if the first got through); a player
whose frames may have been lost (the subscriber's link dropped) is sent a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from typing import Any, Protocol

from server.cluster.messages import (
    Adopt,
    Answer,
    ClusterMessage,
    Forward,
    PlayerMessage,
    pack_message,
    unpack_message,
)
from server.store.base import ClusterStore
from server.store.errors import StoreError, StoreFailure
from server.store.health import StoreHealth

log = logging.getLogger(__name__)

#: Seconds the reader waits before listening again after its link to Redis dropped.
RELISTEN_DELAY = 0.2


class RelayTimeout(Exception):
    """The process a change was forwarded to did not answer in time."""


class Inbox(Protocol):
    """What the relay hands on: to the cluster part of this process."""

    def for_player(self, player_id: str, message: PlayerMessage) -> None:
        """Something for a player connected here."""

    def forwarded(self, message: Forward) -> None:
        """A change to a room run here, forwarded by another process."""

    def adopt(self, message: Adopt) -> None:
        """Rooms given up by a process going down."""

    def resync(self) -> None:
        """The link to Redis dropped and came back: frames may have been lost meanwhile."""


class Relay:
    """This process's end of the channels between processes; what arrives goes to
    ``inbox``, except the answers to this process's own calls."""

    def __init__(
        self,
        store: ClusterStore,
        node: str,
        timeout: float,
        inbox: Inbox,
        health: StoreHealth | None = None,
    ) -> None:
        self.store = store
        #: Told when publishing fails; while the storage is down the relay logs nothing.
        self.health = health
        self.inbox_handler = inbox
        self.node = node
        self.timeout = timeout
        self.inbox = self.node_channel(node)
        self.everyone = store.keys.everyone_channel
        self._outbox: list[tuple[str, bytes]] = []
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._calls: dict[int, asyncio.Future[Answer]] = {}
        self._ids = itertools.count(1)
        self._client: Any = None  # redis-py's Redis (or the memory store's)
        self._pubsub: Any = None  # its PubSub
        self._tasks: list[asyncio.Task[None]] = []
        self._players: set[str] = set()
        #: Held by each SUBSCRIBE and UNSUBSCRIBE: redis-py's PubSub opens its link on its
        #: first one, and two at once on a fresh PubSub open two links, the reader keeping
        #: only the last (its channels) while the other's are heard by nobody.
        self._subscribing = asyncio.Lock()
        #: Whether the reader's link is subscribed (else it subscribes again, shortly).
        self.listening = False

    def node_channel(self, node: str) -> str:
        return self.store.keys.node_channel(node)

    def player_channel(self, player_id: str) -> str:
        return self.store.keys.player_channel(player_id)

    # --- start and stop ---------------------------------------------------------------

    async def start(self) -> None:
        """Listen on this process's channels, and start sending. A Redis that does not
        answer yet (a process started during a failover) is listened to once it does: the
        reader subscribes again until it can."""
        self._client = self.store.subscriber()
        self._pubsub = self._client.pubsub(ignore_subscribe_messages=True)
        self.listening = False
        async with self._subscribing:
            try:
                await self._pubsub.subscribe(
                    self.inbox, self.everyone, *(self.player_channel(p) for p in self._players)
                )
                self.listening = True
            except Exception as exc:
                log.warning("relay: cannot listen yet: %s", exc)
        self._tasks = [
            asyncio.ensure_future(self._read()),
            asyncio.ensure_future(self._send()),
        ]

    async def flush(self, within: float = 1.0) -> None:
        """Until everything queued so far is published (for at most ``within`` seconds)."""
        if not self._tasks:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._drained(), within)

    async def stop(self, flush: float = 1.0) -> None:
        """Send what is still in the outbox (for at most ``flush`` seconds), then stop."""
        if not self._tasks:
            return
        await self.flush(flush)
        for task in self._tasks:
            task.cancel()
        _, late = await asyncio.wait(self._tasks, timeout=flush)
        if late:
            log.warning("relay: %d tasks did not stop within %g s", len(late), flush)
        self._tasks = []
        for future in self._calls.values():
            future.cancel()
        await self._close_link()
        self._pubsub = self._client = None

    async def _drained(self) -> None:
        while self._outbox or not self._idle.is_set():
            await self._idle.wait()
            await asyncio.sleep(0)

    # --- players connected here -------------------------------------------------------

    async def watch_player(self, player_id: str) -> None:
        """Hear what rooms run elsewhere send this player (they connected here). While the
        reader's link is down, the next one subscribes them."""
        if self._pubsub is None or player_id in self._players:
            return
        self._players.add(player_id)
        async with self._subscribing:
            if not self.listening or player_id not in self._players:
                return
            try:
                await self._pubsub.subscribe(self.player_channel(player_id))
            except StoreFailure as exc:  # the link is down: it subscribes them when back
                log.warning("could not subscribe for %s yet: %s", player_id, exc)

    async def unwatch_player(self, player_id: str) -> None:
        if self._pubsub is None or player_id not in self._players:
            return
        self._players.discard(player_id)
        async with self._subscribing:
            if not self.listening or player_id in self._players:
                return
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(self.player_channel(player_id))

    # --- sending ----------------------------------------------------------------------

    def to_player(self, player_id: str, message: PlayerMessage) -> None:
        self._queue(self.player_channel(player_id), message)

    def to_node(self, node: str, message: Forward | Answer) -> None:
        self._queue(self.node_channel(node), message)

    def to_everyone(self, message: Adopt) -> None:
        self._queue(self.everyone, message)

    def next_call(self) -> int:
        return next(self._ids)

    async def call(self, node: str, forward: Forward) -> Answer:
        """Send ``forward`` (made with ``next_call``'s id) to ``node`` and wait for its
        answer (``RelayTimeout``)."""
        call_id = forward.call
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        self.to_node(node, forward)
        try:
            return await asyncio.wait_for(future, self.timeout)
        except TimeoutError as exc:
            raise RelayTimeout(f"{node} did not answer in {self.timeout:g} s") from exc
        finally:
            self._calls.pop(call_id, None)

    def answer(self, forward: Forward, answer: Answer) -> None:
        """Answer a ``forward`` another process sent."""
        self.to_node(forward.reply_to, answer)

    def _queue(self, channel: str, message: ClusterMessage) -> None:
        self._outbox.append((channel, pack_message(message)))
        self._idle.clear()
        self._wake.set()

    async def _send(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._outbox:
                batch, self._outbox = self._outbox, []
                began = None if self.health is None else self.health.clock()
                try:
                    await self.store.publish_many(batch)
                except StoreError as exc:
                    if self.health is None or not self.health.failed(exc, began):
                        log.warning(
                            "relay: %d messages to other processes lost: %s", len(batch), exc
                        )
            self._idle.set()

    # --- receiving --------------------------------------------------------------------

    async def _read(self) -> None:
        while True:
            if not self.listening:
                await asyncio.sleep(RELISTEN_DELAY)
                await self._resubscribe()
                continue
            pubsub = self._pubsub
            assert pubsub is not None
            try:
                message = await pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.health is None or not self.health.quiet:
                    log.warning("relay: lost the link to Redis (%s); listening again", exc)
                self.listening = False
                continue
            if message is None or message.get("type") != "message":
                continue
            self._dispatch(message["channel"], message["data"])

    async def _resubscribe(self) -> None:
        """Listen again on every channel, on a fresh link (on a cluster, maybe to another
        node); what came meanwhile is lost, so tell the app."""
        async with self._subscribing:
            await self._close_link()
            client = self.store.subscriber()
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            self._client, self._pubsub = client, pubsub
            try:
                await pubsub.subscribe(
                    self.inbox, self.everyone, *(self.player_channel(p) for p in self._players)
                )
            except Exception as exc:
                if self.health is None or not self.health.quiet:
                    log.warning("relay: cannot listen yet: %s", exc)
                return
            self.listening = True
        self.inbox_handler.resync()

    async def _close_link(self) -> None:
        pubsub, client = self._pubsub, self._client
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
        if client is not None:
            with contextlib.suppress(Exception):
                await client.aclose()

    def _dispatch(self, channel: bytes | str, data: bytes) -> None:
        name = channel.decode() if isinstance(channel, bytes) else channel
        try:
            message = unpack_message(data)
        except Exception:
            log.warning("relay: an unreadable message on %s", name)
            return
        inbox = self.inbox_handler
        if isinstance(message, Answer):
            future = self._calls.get(message.call)
            if future is not None and not future.done():
                future.set_result(message)
        elif isinstance(message, Forward):
            inbox.forwarded(message)
        elif isinstance(message, Adopt):
            inbox.adopt(message)
        else:
            player_prefix = self.store.keys.player_channel("")
            if name.startswith(player_prefix):
                inbox.for_player(name[len(player_prefix) :], message)
