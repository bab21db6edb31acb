"""How long to wait between retries: exponential backoff with a cap and a little jitter.

One schedule serves every retry of the client: reconnecting after a dropped connection
(headless and interactive alike) and resending a request the server refused as
``unavailable`` (it could not save it: nothing was applied, try again).

``Backoff(first=0.2, cap=3.0).delays()`` yields about 0.2, 0.4, 0.8, 1.6, 3.0, 3.0, ... seconds,
each shortened by a random fraction of at most ``jitter`` so that many clients dropped by one
server restart do not all knock again in the same instant. A delay never exceeds ``cap``
until ``fast_for`` seconds have been waited; then the delays grow on up to ``later_cap``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    """A retry schedule: ``first`` seconds, times ``factor`` after each try, at most ``cap``
    while less than ``fast_for`` seconds were waited in all, then at most ``later_cap``
    (``cap`` when None); each delay is cut by a random fraction in ``[0, jitter)``."""

    first: float = 0.2
    cap: float = 3.0
    factor: float = 2.0
    jitter: float = 0.2
    fast_for: float = math.inf
    later_cap: float | None = None

    def __post_init__(self) -> None:
        later = self.cap if self.later_cap is None else self.later_cap
        if not (
            0 < self.first <= self.cap <= later
            and self.factor >= 1
            and 0 <= self.jitter < 1
            and self.fast_for >= 0
        ):
            raise ValueError(f"not a backoff schedule: {self!r}")

    def delays(self, rand: Callable[[], float] = random.random) -> Iterator[float]:
        """The delays, without end; ``rand`` gives the jitter's fraction in ``[0, 1)``."""
        later = self.cap if self.later_cap is None else self.later_cap
        base = self.first
        waited = 0.0
        while True:
            delay = base * (1.0 - self.jitter * rand())
            yield delay
            waited += delay
            base = min(self.cap if waited < self.fast_for else later, base * self.factor)


#: Reconnecting after the connection dropped (the server restarts, crashes, or the net fails):
#: within a second while the server was there a moment ago, so a seat on turn is back before
#: the clock given back to it runs (the server's ``resume_grace``); further apart after 45 s,
#: as the browser table does.
RECONNECT = Backoff(first=0.2, cap=1.0, fast_for=45.0, later_cap=8.0)
#: Resending a request the server refused as ``unavailable`` (it cannot write to Redis).
UNAVAILABLE = Backoff(first=0.3, cap=3.0)
#: Seconds a dropped session keeps trying to resume (``--reconnect-for``).
DEFAULT_RECONNECT_FOR = 60.0
