"""The solver's time for puzzle answers, per client address, in this process.

Each answer to a puzzle move is a search (bounded in positions, ``ANSWER_NODES``) run in a
thread. One address has at most one answer being computed at a time (a second move while
the first is answered is refused ``BUSY``), and at most ``SECONDS`` of the solver's CPU time
in any ``WINDOW`` seconds (past it, ``RATE_LIMITED`` until the window has room): whatever
one address sends, it cannot keep a core busy. A refusal changes nothing (the attempt stays
where it was). Counted here, not in the store: the CPU spared is this process's.
"""

from __future__ import annotations

import collections
import math
import time
from collections.abc import Callable

from protocol.errors import ErrorCode
from server.analysis.puzzle_play import PuzzleError

#: Seconds of solver CPU time one address may use in a window, and the window's seconds:
#: a sixth of a core at most, about a hundred ordinary answers a minute.
SECONDS = 10.0
WINDOW = 60.0


class AnswerBudget:
    """Which addresses are having a puzzle move answered, and the solver time each spent
    in the last ``window`` seconds."""

    def __init__(
        self,
        seconds: float = SECONDS,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self.window = window
        self.clock = clock
        self._busy: set[str] = set()
        self._spent: dict[str, collections.deque[tuple[float, float]]] = {}

    def begin(self, address: str) -> None:
        """Take the address's turn for an answer, or refuse (a ``PuzzleError`` raised)."""
        if address in self._busy:
            raise PuzzleError(
                ErrorCode.BUSY, "your last puzzle move is still being answered: wait for it"
            )
        spent = self._recent(address)
        used = sum(seconds for _, seconds in spent)
        if used >= self.seconds:
            # the window has room again once enough of the oldest answers have left it
            wait = self.window
            for at, seconds in spent:
                used -= seconds
                if used < self.seconds:
                    wait = max(at + self.window - self.clock(), 0.0)
                    break
            raise PuzzleError(
                ErrorCode.RATE_LIMITED,
                f"too many puzzle moves from your address: retry in {math.ceil(wait)} s",
            )
        self._busy.add(address)

    def end(self, address: str, seconds: float) -> None:
        """The address's answer is done, having taken ``seconds`` of the solver's CPU."""
        self._busy.discard(address)
        if seconds > 0:
            self._spent.setdefault(address, collections.deque()).append((self.clock(), seconds))

    def _recent(self, address: str) -> collections.deque[tuple[float, float]]:
        spent = self._spent.get(address)
        if spent is None:
            return collections.deque()
        since = self.clock() - self.window
        while spent and spent[0][0] <= since:
            spent.popleft()
        if not spent:
            del self._spent[address]
        return spent
