"""The quick-match queue, shared through Redis by every server process.

A player joins with ``QuickMatch`` and leaves with ``LeaveQueue`` (or by disconnecting),
queued with their skill. Each process runs a matcher that, a few times a second, reads the
longest waiting (at most ``QUEUE_READ``), forms tables of close skill from them
(``server/lobby/matching.py``: the window widens as they wait, and bots fill the seats of
whoever waited the configured time), and takes each table off the queue in one script that
takes all of its players or none. Two processes may form the same table: one takes it, the
other's take finds someone gone and takes nothing. Whichever process takes a match runs its
room; no person is ever taken twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from server.lobby.matching import Waiter, form_tables
from server.lobby.stores import QueueStore
from server.store.errors import StoreError

log = logging.getLogger(__name__)
#: The longest waiting players the matcher reads each look: the tables are formed among
#: them (the rest wait for a later look).
QUEUE_READ = 1000
#: The skill of one queued without any (an entry of an older release): a new player's.
UNKNOWN_SKILL = 25.0
#: Seconds ``stop`` waits for the matching loop to end.
STOP_WAIT = 2.0

Entry = dict[str, str]
OpenMatch = Callable[[list[tuple[str, Entry]]], Awaitable[None]]


class QuickMatcher:
    """Takes matches off the shared queue and hands each to ``open_match``."""

    def __init__(
        self,
        store: QueueStore,
        wait: float,
        open_match: OpenMatch,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.wait = wait
        self.open_match = open_match
        self.clock = clock
        #: Seconds between looks at the queue: often enough that a full table starts at
        #: once and a lone player gets bots close to the wait.
        self.interval = max(0.02, min(0.25, wait / 10))
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def tick(self) -> int:
        """Take every match that is ready now; return how many were opened."""
        queued = await self.store.waiting(QUEUE_READ)
        waiting = [
            Waiter(pid, joined, UNKNOWN_SKILL if skill is None else skill)
            for pid, joined, skill in queued
        ]
        opened = 0
        for table in form_tables(waiting, self.clock(), self.wait):
            players = await self.store.take_players([w.player_id for w in table])
            if players:
                await self.open_match(players)
                opened += 1
        return opened

    async def run(self) -> None:
        while not self._stopping:
            try:
                await self.tick()
            except StoreError as exc:
                log.warning("quick match: %s", exc)
            except Exception:
                log.exception("quick match: a match could not be opened")
            await asyncio.sleep(self.interval)

    def start(self) -> None:
        self._task = asyncio.ensure_future(self.run())

    async def stop(self) -> None:
        """Stop matching. The loop ends at its next step even if a cancellation is lost
        inside a Redis call (a CI run once hung at shutdown waiting for it), and the wait
        for it is bounded."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping = True
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=STOP_WAIT)
        if not done:
            log.warning("quick match: the matcher did not stop within %g s", STOP_WAIT)
        elif not task.cancelled() and task.exception() is not None:
            log.warning("quick match: the matcher ended with %r", task.exception())
