"""``RecentWrites``: the journal records of one room's writes of the last minute, kept by
the process that made them, so that a Redis that comes back with less than it acknowledged
can be given them again.

Redis answers a write before it is on disk (the append-only file is synced every second)
and before an asynchronous replica has it, so a crash or a failover can lose the last
acknowledged writes, which players have already been shown. Redis keeps a prefix of the
writes it took (each room's write is one script, replicated and logged whole), so what a
room lost is exactly its writes above the version it now holds: ``since(version)`` gives
their records, in order, for the write-back (``RoomRunner.write_back``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from server.store.base import JournalRecord

#: Seconds of writes kept: well above what a Redis synced every second, or a replica a
#: little behind, can lose.
KEEP_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Written:
    """One write: from version ``expected`` to ``version`` at ``at``, with its records."""

    expected: int
    version: int
    at: float
    journal: list[JournalRecord]


class RecentWrites:
    """The writes of one room in the last ``keep`` seconds, oldest first."""

    def __init__(self, keep: float = KEEP_SECONDS) -> None:
        self.keep = keep
        self._writes: deque[Written] = deque()

    def add(self, expected: int, version: int, at: float, journal: list[JournalRecord]) -> None:
        """A write was acknowledged at ``at``; writes older than the window are let go."""
        writes = self._writes
        writes.append(Written(expected, version, at, list(journal)))
        while writes and writes[0].at < at - self.keep:
            writes.popleft()

    def since(self, version: int, upto: int) -> tuple[list[JournalRecord], bool]:
        """The records of every kept write above ``version``, in order, and whether they are
        all the records from ``version`` to ``upto`` (the version last saved): False when
        the oldest write kept came after ``version`` (the window was not long enough), or
        when none was kept though ``upto`` is above it (versions this process did not
        write: a room it took over as the store held it)."""
        lost = [w for w in self._writes if w.version > version]
        whole = lost[0].expected <= version if lost else upto <= version
        return [record for w in lost for record in w.journal], whole
