"""``StoreHealth``: whether this process's storage answers, one object per process.

Every part that calls Redis tells it what came of a call: ``failed`` (Redis could not be
reached: ``StoreUnavailable``) or ``answered``. The first failure marks the storage down
(from when the failed call began) and says so in one log line; from then a light probe
(``probe``: a PING) asks a few times a second, and the first answer, the probe's or any
call's, marks it back (one more line). A refusal from Redis (a version conflict, a fenced
write) is an answer: the storage is up.

While it is down the rooms are paused (``server/cluster/directory.py``): their clocks
stop, their bots wait, their people are told, and requests are refused with
``storage_unavailable``. The parts that retry on their own (the relay, the quick-match
matcher, the lease keeper) tell it of a failure and log it only when it is not the
outage's (``failed`` says), or ask ``quiet``, so an outage is two
lines in the log, not one per attempt.

When did it go down? A Redis that stops answering (stopped, hung, cut off by the network)
is noticed only when a call's reply is overdue, seconds later, and the call that notices may
have begun well after the stall did. So while the storage is up a heartbeat (``start``:
the same PING, as often as the probe) keeps when Redis last answered, and an outage counts
from that moment: the clocks the rooms give back (``Room.pause_over``) are the time each
had then, not the time left once the outage was noticed. (The heartbeat only keeps the
time of its answers: it marks nothing down.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from server.store.errors import StoreConflict, StoreError

log = logging.getLogger(__name__)

#: Seconds between two probes while the storage is down.
PROBE_INTERVAL = 0.25

#: Told when the storage went down (the time it did, on the health's clock).
OnDown = Callable[[float], None]
#: Told when it is back (when it went down, and now).
OnBack = Callable[[float, float], None]


class StoreHealth:
    """Down since when, or up. ``probe`` answers whether the storage answers (it does not
    raise); ``clock`` is the rooms' wall clock (their deadlines are on it)."""

    def __init__(
        self,
        probe: Callable[[], Awaitable[bool]],
        clock: Callable[[], float] = time.time,
        interval: float = PROBE_INTERVAL,
    ) -> None:
        self.probe = probe
        self.clock = clock
        self.interval = interval
        #: When the storage went down; None while it answers.
        self.down_since: float | None = None
        #: Outages since the process started.
        self.outages = 0
        #: When Redis last answered (the heartbeat's, or any call told ``answered``), on
        #: ``clock``; None before the first answer.
        self.last_answer: float | None = None
        self._beating: asyncio.Task[None] | None = None
        self._on_down: list[OnDown] = []
        self._on_back: list[OnBack] = []
        self._probing: asyncio.Task[None] | None = None
        self._up = asyncio.Event()
        self._up.set()

    @property
    def down(self) -> bool:
        return self.down_since is not None

    @property
    def quiet(self) -> bool:
        """Whether a part that retries on its own should keep its failure out of the log
        (the outage was said once already)."""
        return self.down_since is not None

    def watch(self, on_down: OnDown, on_back: OnBack) -> None:
        """Be told of each outage and of each return."""
        self._on_down.append(on_down)
        self._on_back.append(on_back)

    def failed(self, exc: StoreError, since: float | None = None) -> bool:
        """A call failed with ``exc`` (begun at ``since``, else now). Marks the storage down
        (from when Redis last answered, if known, else from ``since``) unless Redis
        answered (a conflict, a fencing refusal) or it is down already. True when the
        failure is the outage's (said in the log already: the caller says nothing more)."""
        if isinstance(exc, StoreConflict):
            return False
        if self.down_since is not None:
            return True
        now = self.clock()
        began = now if since is None else min(since, now)
        # from the last answer, when one is known: the stall began after it
        last = self.last_answer
        self.down_since = down = began if last is None else min(last, now)
        self._up.clear()
        self.outages += 1
        log.warning("storage down (%s): rooms paused until it answers", exc)
        with contextlib.suppress(RuntimeError):  # no loop: nothing to probe with
            self._probing = asyncio.get_running_loop().create_task(self._probe())
        for told in list(self._on_down):
            told(down)
        return True

    def answered(self) -> None:
        """A call was answered: the storage is back if it was down."""
        self.last_answer = self.clock()
        if self.down_since is not None:
            self._back()

    def start(self) -> None:
        """Start the heartbeat: while the storage is up, PING every ``interval`` and keep
        when Redis answered (``last_answer``). A PING that fails marks nothing: the parts'
        own calls say when the storage is down."""
        if self._beating is None:
            self._beating = asyncio.get_running_loop().create_task(self._beat())

    async def _beat(self) -> None:
        while True:
            await self._up.wait()
            if await self.probe():
                self.last_answer = self.clock()
            await asyncio.sleep(self.interval)

    def _back(self) -> None:
        since, now = self.down_since, self.clock()
        if since is None:
            return
        self.down_since = None
        self._up.set()
        if self._probing is not None and self._probing is not asyncio.current_task():
            self._probing.cancel()
        self._probing = None
        log.warning("storage back after %.1f s: rooms resume", max(now - since, 0.0))
        for told in list(self._on_back):
            told(since, now)

    async def up(self) -> None:
        """Until the storage answers (at once when it does)."""
        await self._up.wait()

    async def _probe(self) -> None:
        while self.down_since is not None:
            await asyncio.sleep(self.interval)
            if await self.probe():
                self.last_answer = self.clock()
                self._back()
                return

    def close(self) -> None:
        """Stop probing and the heartbeat (the process is going down)."""
        if self._probing is not None:
            self._probing.cancel()
            self._probing = None
        if self._beating is not None:
            self._beating.cancel()
            self._beating = None
