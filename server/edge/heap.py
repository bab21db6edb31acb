"""Giving the C heap's free pages back to the system after many sockets went.

Bytes a client sent and the server held (request heads, unfinished messages) are malloc'd
in blocks of a few KB, and once thousands of such sockets are gone glibc keeps their pages:
3,000 sockets holding unfinished request heads left the process 25 MB larger after they had
all closed. ``malloc_trim(0)`` returns the free pages inside the heap too; ``HeapTrimmer``
calls it once ``TRIM_AFTER`` sockets went since the last time, at most every
``TRIM_INTERVAL`` seconds (it walks the heap: not for every socket). Where the C library has
no ``malloc_trim`` (not glibc), it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import time
from collections.abc import Callable

#: Sockets gone since the last trim after which the next one is worth it.
TRIM_AFTER = 256
#: The fewest seconds between two trims.
TRIM_INTERVAL = 5.0


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


class HeapTrimmer:
    """Counts sockets gone; ``maybe_trim`` gives the heap's free pages back when enough
    went and the last trim is old enough."""

    def __init__(
        self,
        after: int = TRIM_AFTER,
        interval: float = TRIM_INTERVAL,
        trim: Callable[[int], int] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.after, self.interval, self.clock = after, interval, clock
        self.trim = trim if trim is not None else _malloc_trim()
        self.gone = 0
        self.last = float("-inf")
        self.trims = 0

    def went(self) -> None:
        """One socket is gone."""
        self.gone += 1

    def maybe_trim(self) -> bool:
        """Trim if it is worth it now; whether it did."""
        now = self.clock()
        if self.trim is None or self.gone < self.after or now - self.last < self.interval:
            return False
        self.trim(0)
        self.gone, self.last = 0, now
        self.trims += 1
        return True
