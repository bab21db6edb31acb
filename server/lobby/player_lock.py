"""One lobby request at a time per person, across connections and server processes.

A person may have two connections at once (a resumed token while the first has not
dropped yet), on one process or two sharing the Redis. Their lobby requests (start
practice, create, join, watch, quick match, leave the queue, leave, rematch) each check
that the person is free and then seat them: two at once could both pass the check and
seat one person in two rooms, leaving one of them waiting for ever. So each holds a
short Redis lock per player id while it runs: ``SET NX PX`` with a random value,
given up by a compare-and-delete script (never someone else's), waited for with a bounded
retry, and refused with a retryable ``busy`` error if not had in time. The lock expires on
its own if its process dies holding it. Who holds it re-reads the session from the store
first (the other request may have seated them meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import AsyncIterator

from protocol.errors import ErrorCode
from server.lobby.stores import LockStore
from server.rooms.room import RoomError
from server.store.errors import StoreError

log = logging.getLogger(__name__)

#: Seconds a lock lives if never given up (its process died): longer than any lobby
#: request takes (a forwarded join waits ``forward_timeout``, 3 s by default).
LOCK_TTL = 15.0
#: Seconds a request waits for the lock before it is refused as busy.
LOCK_WAIT = 5.0
#: First and longest pause between tries, in seconds (doubling, with jitter).
FIRST_PAUSE, LONGEST_PAUSE = 0.005, 0.1


class PlayerLocks:
    """The lobby locks of every player, kept in the store."""

    def __init__(self, store: LockStore, ttl: float = LOCK_TTL, wait: float = LOCK_WAIT) -> None:
        self.store = store
        self.ttl = ttl
        self.wait = wait

    @contextlib.asynccontextmanager
    async def hold(self, player_id: str) -> AsyncIterator[None]:
        """Hold ``player_id``'s lock for the block; RoomError(BUSY) if another request of
        theirs keeps it longer than ``wait`` seconds."""
        key = self.store.keys.lobby_lock(player_id)
        holder = secrets.token_hex(8)
        deadline = time.monotonic() + self.wait
        pause = FIRST_PAUSE
        while not await self.store.take_lock(key, holder, self.ttl):
            if time.monotonic() >= deadline:
                raise RoomError(ErrorCode.BUSY, "another request of yours is under way: retry")
            await asyncio.sleep(pause * random.uniform(0.5, 1.5))
            pause = min(pause * 2, LONGEST_PAUSE)
        try:
            yield
        finally:
            try:
                await self.store.release_lock(key, holder)
            except StoreError as exc:  # it expires on its own
                log.info("could not release the lobby lock of %s: %s", player_id, exc)
