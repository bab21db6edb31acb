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

A lock the storage did not let go (it was away when the request ended, or the answer to
taking it was lost: Redis may hold it all the same) is given up again in the background as
soon as the storage answers, so a person is not refused ``busy`` for the rest of its TTL
after an outage.
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
#: First and longest pause between tries at giving up the locks the storage did not let go
#: (doubling while it does not answer), in seconds.
RELEASE_PAUSE, LONGEST_RELEASE_PAUSE = 0.05, 1.0


class PlayerLocks:
    """The lobby locks of every player, kept in the store."""

    def __init__(self, store: LockStore, ttl: float = LOCK_TTL, wait: float = LOCK_WAIT) -> None:
        self.store = store
        self.ttl = ttl
        self.wait = wait
        #: The locks the storage did not let go, by (key, holder): when each runs out anyway
        #: (``time.monotonic``), and how many more times to give it up.
        self.unreleased: dict[tuple[str, str], tuple[float, int]] = {}
        self._releasing: asyncio.Task[None] | None = None

    @contextlib.asynccontextmanager
    async def hold(self, player_id: str) -> AsyncIterator[None]:
        """Hold ``player_id``'s lock for the block; RoomError(BUSY) if another request of
        theirs keeps it longer than ``wait`` seconds."""
        key = self.store.keys.lobby_lock(player_id)
        holder = secrets.token_hex(8)
        deadline = time.monotonic() + self.wait
        pause = FIRST_PAUSE
        while True:
            taken_at = time.monotonic()
            try:
                if await self.store.take_lock(key, holder, self.ttl):
                    break
            except StoreError:  # (taken, maybe: the answer may be what was lost)
                self._release_later(key, holder, taken_at, in_doubt=True)
                raise
            if time.monotonic() >= deadline:
                raise RoomError(ErrorCode.BUSY, "another request of yours is under way: retry")
            await asyncio.sleep(pause * random.uniform(0.5, 1.5))
            pause = min(pause * 2, LONGEST_PAUSE)
        try:
            yield
        finally:
            try:
                await self.store.release_lock(key, holder)
            except StoreError as exc:
                log.info("could not release the lobby lock of %s yet: %s", player_id, exc)
                self._release_later(key, holder, taken_at)

    def _release_later(
        self, key: str, holder: str, taken_at: float, in_doubt: bool = False
    ) -> None:
        """Give the lock up once the storage answers (it runs out ``ttl`` after
        ``taken_at`` in any case). A take ``in_doubt`` is given up twice, the second time
        after the first is answered: its command may wait in a stopped Redis's socket and
        run in the same turn as the first release, after it."""
        self.unreleased[(key, holder)] = (taken_at + self.ttl, 2 if in_doubt else 1)
        if self._releasing is None or self._releasing.done():
            self._releasing = asyncio.ensure_future(self._release_unreleased())

    async def _release_unreleased(self) -> None:
        """Try the locks not let go again, backing off while the storage does not answer,
        until each is given up or has run out."""
        pause = RELEASE_PAUSE
        while self.unreleased:
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_RELEASE_PAUSE)
            for (key, holder), (expiry, times) in list(self.unreleased.items()):
                if expiry > time.monotonic():
                    try:
                        await self.store.release_lock(key, holder)
                    except StoreError:
                        break  # still away: the others wait with it
                    if times > 1:
                        self.unreleased[(key, holder)] = (expiry, times - 1)
                        continue
                del self.unreleased[(key, holder)]
            else:
                pause = RELEASE_PAUSE

    def close(self) -> None:
        """Stop trying to give up the locks not let go (they run out on their own)."""
        if self._releasing is not None:
            self._releasing.cancel()
