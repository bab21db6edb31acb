"""The server's randomness: the operating system's, a block of bytes at a time.

Decks and room codes must be unpredictable, so they come from ``os.urandom``, as
``secrets.SystemRandom`` would give them; but ``SystemRandom`` asks the system once per
draw, and a shuffle of 54 cards is 53 draws (53 system calls: 41 us a shuffle here, 11 us
with this). ``OsRandom`` reads the system's bytes ``BLOCK`` at a time and draws from
them as ``random`` draws from its bits (the fewest bits that hold every value below the
bound; a draw at or above the bound thrown away), so every outcome stays exactly as likely.
A child process made by ``fork`` starts with no bytes: it never replays its parent's.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

#: Bytes read from the system at a time (a shuffle takes about 60).
BLOCK = 512

_LIVE: weakref.WeakSet[OsRandom] = weakref.WeakSet()


class OsRandom:
    """A ``RandomSource`` (``shuffle``, ``randrange``) on the system's random bytes."""

    def __init__(self) -> None:
        self._bytes = b""
        self._at = 0
        _LIVE.add(self)

    def randrange(self, stop: int, /) -> int:
        """A whole number from 0 to ``stop - 1``, each as likely."""
        if stop <= 0:
            raise ValueError(f"empty range for randrange({stop})")
        return self._below(stop)

    def shuffle(self, x: list[Any], /) -> None:
        """Shuffle ``x`` in place (Fisher-Yates): each order as likely."""
        below = self._below
        for i in range(len(x) - 1, 0, -1):
            j = below(i + 1)
            x[i], x[j] = x[j], x[i]

    def _below(self, n: int) -> int:
        bits = (n - 1).bit_length()
        if bits == 0:
            return 0
        mask = (1 << bits) - 1
        if bits <= 8:  # one byte a draw (every draw of a shuffle)
            while True:
                if self._at >= len(self._bytes):
                    self._bytes, self._at = os.urandom(BLOCK), 0
                value = self._bytes[self._at] & mask
                self._at += 1
                if value < n:
                    return value
        size = (bits + 7) // 8
        while True:
            if self._at + size > len(self._bytes):
                self._bytes, self._at = os.urandom(max(BLOCK, size)), 0
            value = int.from_bytes(self._bytes[self._at : self._at + size], "little") & mask
            self._at += size
            if value < n:
                return value

    def __reduce__(self) -> tuple[type[OsRandom], tuple[()]]:
        """A copy (a pickle, a process's argument) is a new source: it carries no bytes."""
        return (OsRandom, ())

    def _forget(self) -> None:
        self._bytes, self._at = b"", 0


def _after_fork() -> None:
    for source in list(_LIVE):
        source._forget()


os.register_at_fork(after_in_child=_after_fork)
