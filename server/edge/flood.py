"""What one connection's frames cost, and when a connection is flooding.

Every frame takes a token from the connection's bucket before it is read at all (decoding
is work too: a flood of garbage must not be cheaper than a flood of requests). A frame
refused for want of a token is answered once per burst: the first gets ``rate_limited``,
the rest nothing until a token comes back. Refused frames (over the rate, or malformed)
are counted in a fixed window of ``FLOOD_WINDOW`` seconds from the first; ``close_after``
of them in one window means the connection is flooding, and it is closed (1008). Each such
close makes the connection's address wait before its next upgrade (``FloodRecord``).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from enum import Enum

#: Seconds in which ``close_after`` refused frames close a connection. With the defaults
#: (200 refusals, 20 requests a second) a client must be refused 20 times a second on
#: average, far above what a client with a bug and backoff does.
FLOOD_WINDOW = 10.0


#: Bytes of a reply that cost its request one token more (a replay's ~37 KB: 9 more), and
#: the most tokens one reply adds: a request costs its connection what it makes the
#: server send, not one token whatever it asks for.
REPLY_BYTES_PER_TOKEN = 4096
REPLY_COST_MOST = 10
#: Tokens more a history request costs (Redis reads and a reply of every entry).
HISTORY_COST = 4


def reply_cost(size: int) -> int:
    """Tokens more a request whose reply is ``size`` bytes costs."""
    return min(REPLY_COST_MOST, size // REPLY_BYTES_PER_TOKEN)


class TokenBucket:
    """``rate`` requests a second on average, up to ``burst`` at once."""

    def __init__(self, rate: float, burst: int, clock: float | None = None) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic() if clock is None else clock

    def _refill(self, now: float | None) -> None:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, now: float | None = None) -> bool:
        self._refill(now)
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def spend(self, tokens: float, now: float | None = None) -> None:
        """Take ``tokens`` more for a request that cost more than one, into debt down to
        ``-burst``: the requests after it wait until the bucket has refilled."""
        self._refill(now)
        self.tokens = max(self.tokens - tokens, -float(self.burst))


class Verdict(Enum):
    """What to do with a refused frame."""

    ANSWER = "answer"  # tell the client why
    SILENT = "silent"  # it was told already: say nothing
    CLOSE = "close"  # the connection is flooding: close it


class FloodGuard:
    """One connection's bucket and its count of refused frames (``close_after`` 0: never
    closed for it)."""

    def __init__(self, bucket: TokenBucket, close_after: int, window: float = FLOOD_WINDOW):
        self.bucket = bucket
        self.close_after = close_after
        self.window = window
        self.refused = 0
        self.since = 0.0
        #: The client was told it is over the rate, and has had no token since.
        self.told = False

    def charge(self, now: float) -> bool:
        """Take a token for one frame; False: refuse it unread (see ``over_rate``)."""
        if self.bucket.take(now):
            self.told = False
            return True
        return False

    def over_rate(self, now: float) -> Verdict:
        """A frame refused for want of a token: answered the first time of a burst."""
        if self.refuse(now):
            return Verdict.CLOSE
        if self.told:
            return Verdict.SILENT
        self.told = True
        return Verdict.ANSWER

    def refuse(self, now: float) -> bool:
        """Count one refused frame; True when this one makes the connection a flood."""
        if now - self.since > self.window:
            self.since, self.refused = now, 0
        self.refused += 1
        return 0 < self.close_after <= self.refused


#: The wait before an address's next upgrade after one of its connections was closed for
#: flooding; each further such close doubles it, up to ``FLOOD_WAIT_LONGEST``.
FLOOD_WAIT_FIRST = 0.25
FLOOD_WAIT_LONGEST = 4.0
#: Seconds after its last flood close that an address's record is forgotten.
FLOOD_MEMORY = 60.0
#: Addresses remembered at most (the oldest forgotten first): a bound on the memory a
#: flood from many addresses can take here.
FLOODERS_KEPT = 10_000


class FloodRecord:
    """Addresses whose connections were closed for flooding, and how long each must wait
    before its next upgrade: a reconnecting flood pays a growing wait for each connection
    it burns, while an address that only reconnects never waits. The wait delays, it never
    refuses: a player behind the same address (a school's or a carrier's NAT) still gets
    in, seconds later."""

    def __init__(
        self,
        first: float = FLOOD_WAIT_FIRST,
        longest: float = FLOOD_WAIT_LONGEST,
        memory: float = FLOOD_MEMORY,
        kept: int = FLOODERS_KEPT,
    ) -> None:
        self.first, self.longest, self.memory, self.kept = first, longest, memory, kept
        #: address -> (flood closes in a row, the time of the last)
        self._closes: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._closes)

    def closed(self, address: str, now: float) -> None:
        """One of ``address``'s connections was closed for flooding."""
        count, last = self._closes.pop(address, (0, now))
        if now - last > self.memory:
            count = 0
        self._closes[address] = (count + 1, now)
        while len(self._closes) > self.kept:
            self._closes.popitem(last=False)

    def wait(self, address: str, now: float) -> float:
        """Seconds ``address``'s next upgrade waits (0: none)."""
        got = self._closes.get(address)
        if got is None:
            return 0.0
        count, last = got
        if now - last > self.memory:
            del self._closes[address]
            return 0.0
        wait: float = min(self.longest, self.first * 2.0 ** min(count - 1, 32))
        return max(0.0, last + wait - now)
