"""Puzzles mined in the background (issue 33): from every closed match with a person in it,
and, at start-up when asked, from a journal export and from self-play deals of the bots.

The mining itself (``server.analysis.mining``: a review of each finished deal under
``--puzzle-mine-seconds`` of solver, then the puzzles' filter) runs in the review process
(``server/lobby/reviews.py``'s ``Reviewer``: one worker, at a lower CPU priority than the
server and the strong bots' workers), never on the event loop and never in the bots' pool.
It yields to reviews: a mining job is sent to the worker only while no review is waiting
or running there, one at a time, so a review asked meanwhile waits for one job at most.

Closed rooms come as the bookkeeping settles them (``Miner`` is a ``RoomApplier``: it only
queues the room, and never fails a settle); the queue is bounded (``QUEUE_MAX``, the oldest
dropped: puzzles are a bonus, not a record). What a job found is stored: each puzzle once
(``PuzzleStore.add_puzzle``, no names), the puzzle marked as their own for the people of
the side that missed it, and each person's turning points. Start-up mining
(``--puzzle-seed-deals``) plays and mines the bots' matches three deals a job, behind the
rooms' jobs, from a random seed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from server.analysis.mining import mine_match, mine_self_play
from server.lobby.reviews import Reviewer
from server.lobby.stores import PuzzleStore, RecordStore
from server.players.puzzle_rating import seed as seed_rating
from server.players.puzzle_rating import shown
from server.rooms.room import Room
from server.store.errors import StoreError
from server.store.puzzles import PuzzleEntry

log = logging.getLogger(__name__)

#: Closed rooms waiting to be mined; past it the oldest is dropped.
QUEUE_MAX = 64
#: Deals of one start-up self-play job.
SEED_DEALS_PER_JOB = 3
#: The bots whose self-play is mined: the easy ones miss more, so their deals hold more.
SEED_LEVEL = "easy"


class Miner:
    """Mines closed rooms and start-up self-play in the review worker (see the module),
    each deal under ``seconds`` of the solver and, when given, ``nodes`` positions.
    ``run``: how a job runs (the review worker's executor; a test may run it here)."""

    def __init__(
        self,
        store: RecordStore,
        puzzles: PuzzleStore,
        reviewer: Reviewer,
        seconds: float,
        clock: Callable[[], float],
        run: Callable[..., Awaitable[Any]] | None = None,
        nodes: int | None = None,
    ) -> None:
        self.store = store
        self.puzzles = puzzles
        self.reviewer = reviewer
        self.seconds = seconds
        self.nodes = nodes
        self.clock = clock
        self._run = run
        self._rooms: deque[tuple[str, dict[int, str]]] = deque(maxlen=QUEUE_MAX)
        self._exported: deque[list[dict[str, Any]]] = deque()
        self._seeds: deque[int] = deque()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: Jobs done, jobs failed and puzzles newly stored (for logs and tests).
        self.jobs = 0
        self.failed = 0
        self.found = 0

    # --- what to mine ----------------------------------------------------------------

    async def apply(self, room: Room) -> None:
        """A closed room settled (``RoomApplier``): queue it when a person played in it."""
        people = {
            seat: s.player_id
            for seat, s in enumerate(room.seats)
            if s.kind == "person" and s.player_id is not None
        }
        if people and self.seconds > 0:
            self.queue_room(room.code, people)

    def queue_room(self, code: str, people: dict[int, str]) -> None:
        if any(code == queued for queued, _ in self._rooms):
            return
        self._rooms.append((code, people))
        self._wake.set()

    def queue_exported(self, journal: list[dict[str, Any]]) -> None:
        """An exported match's journal, mined as a closed room's is but marked for nobody."""
        self._exported.append(journal)
        self._wake.set()

    def queue_seed(self, deals: int, seed: int) -> None:
        """Self-play of ``deals`` deals from ``seed`` on, a job per ``SEED_DEALS_PER_JOB``."""
        for n in range(0, deals, SEED_DEALS_PER_JOB):
            self._seeds.append(seed + n)
        self._wake.set()

    # --- the loop ------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._loop())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            if not self._rooms and not self._exported and not self._seeds:
                self._wake.clear()
                await self._wake.wait()
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:  # a job that failed is dropped; the loop goes on
                self.failed += 1
                log.exception("a puzzle mining job failed")

    async def step(self) -> int:
        """Mine the next queued room (else the next exported match, else the next
        self-play job); the puzzles new."""
        if self._rooms:
            code, people = self._rooms.popleft()
            return await self.keep(await self._mine(await self.store.read_log(code)), people, code)
        if self._exported:
            return await self.keep(await self._mine(self._exported.popleft()), {}, None)
        if self._seeds:
            seed = self._seeds.popleft()
            found = await self._job(
                partial(mine_self_play, nodes=self.nodes),
                SEED_DEALS_PER_JOB,
                seed,
                self.seconds,
                SEED_LEVEL,
            )
            return await self.keep(found, {}, None)
        return 0

    async def _mine(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        """A match's journal mined (``mine_match``) as a job of the review worker."""
        return await self._job(partial(mine_match, nodes=self.nodes), records, self.seconds)

    async def _job(self, fn: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
        if self._run is not None:
            result: dict[str, Any] = await self._run(fn, *args)
            return result
        await self.reviewer.wait_idle()
        loop = asyncio.get_running_loop()
        self.reviewer.in_flight += 1  # (a review asked meanwhile counts it in its queue)
        try:
            result = await loop.run_in_executor(self.reviewer.executor(), fn, *args)
        finally:
            self.reviewer.done()
        return result

    # --- what was found -------------------------------------------------------------------

    async def keep(self, found: dict[str, Any], people: dict[int, str], code: str | None) -> int:
        """Store a job's puzzles and marks; how many puzzles were new."""
        now = self.clock()
        new = 0
        own: dict[str, list[str]] = {}
        for p in found["puzzles"]:
            rating = seed_rating(p["min_plays"])
            entry = PuzzleEntry(p["key"], p["side"], p["answer"], p["min_plays"], now)
            try:
                new += await self.puzzles.add_puzzle(p["id"], entry, rating, shown(rating))
            except StoreError as exc:
                log.info("a mined puzzle was not stored: %s", exc)
                continue
            for seat in p["seats"]:
                if seat in people:
                    own.setdefault(people[seat], []).append(p["id"])
        turning: dict[str, list[str]] = {}
        if code is not None:
            for t in found["turning"]:
                person = people.get(t["seat"])
                if person is not None:
                    turning.setdefault(person, []).append(f"{code}:{t['deal']}:{t['index']}")
        try:
            for person, ids in own.items():
                await self.puzzles.note_own(person, ids)
            for person, marks in turning.items():
                await self.puzzles.note_turning(person, marks, now)
        except StoreError as exc:
            log.info("a mined match's marks were not stored: %s", exc)
        self.found += new
        self.jobs += 1  # (done once stored: who waits for the job reads what it found)
        if new:
            log.info("%d new puzzles (%d mined so far here)", new, self.found)
        return new
