"""Garbage collection on a clock instead of on CPython's allocation count.

CPython starts a young collection when the tracked objects allocated since the last one,
minus those freed, pass a threshold. A server in its steady state frees old objects about as
fast as it makes new ones (a turn's timer and last play replace the previous turn's), so
that count rises slowly while the young generation fills with everything made since: at
10,000 players a process, young collections came every ~4 s and took ~20 ms, and the middle
one, every ~90 s, walked all that survived them and took 180-220 ms. Every request in
flight waits for a collection: at 20,000 players on two processes that was the whole tail
(p99 210-770 ms; with collection off, 44 ms: ``benchmarks/LOADTEST.md``).

So the server process switches the automatic collector off and runs it itself: the young
generation every ``interval`` seconds (each walks only what was made since and still
lives), the middle one every ``MIDDLE_EVERY`` young ones, and the whole heap every
``FULL_EVERY`` (cycles that reached the old generation: a closed connection's objects, a
refused request's traceback, are collected within minutes). The metrics see each pause as
before (``ddz_gc_pause_seconds{generation}``).
"""

from __future__ import annotations

import asyncio
import gc

#: Young collections per middle-generation one (CPython's automatic default: 10).
MIDDLE_EVERY = 10
#: Young collections per full one: 5 minutes at the default interval.
FULL_EVERY = 300


class GcPacer:
    """Runs the garbage collector every ``interval`` seconds while started (see the
    module); the automatic collector is off meanwhile, and back on after ``stop``."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        #: Young collections so far: which generation the next one takes.
        self.ticks = 0
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        gc.disable()
        self._schedule()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        gc.enable()

    def _schedule(self) -> None:
        self._timer = asyncio.get_running_loop().call_later(self.interval, self._collect)

    def _collect(self) -> None:
        self.ticks += 1
        gc.collect(self.generation(self.ticks))
        self._schedule()

    @staticmethod
    def generation(tick: int) -> int:
        """The generation the ``tick``-th collection takes (with all younger ones)."""
        if tick % FULL_EVERY == 0:
            return 2
        return 1 if tick % MIDDLE_EVERY == 0 else 0
