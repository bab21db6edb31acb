"""The review of a finished match (``GetReview``, issue 33) for who may replay it.

The right is the replay's (``Room.check_replay``: played or watched, and the room closed):
the review shows every hand. A stranger is refused as for a replay, told no more than of a
room that does not exist.

A review is computed once per match and kept in Redis with the room (``put_review``: the
key expires with the room's state). Computing it is the exact solver's work, about
``--review-seconds`` of one core per deal, and the estimates before its reach, under a
second more (``server.analysis.review``), so it runs off the
event loop in a process of its own (``Reviewer``: one worker, started on first use, at a
lower CPU priority than the server and the strong bots' workers), not in the bots' pool:
a review holds a worker for tens of seconds, which would make every strong decision
queued behind it fall back to the normal bot. Reviews wait in that worker's queue (at
most ``QUEUE_MAX``); each one computed counts against the asker's address
(``LobbyLimits.new_review``), and an address has at most one in progress in this process,
so one address cannot keep the core busy.

The right and the limits are checked as the request comes (a refusal answers it); a
review being computed is sent from a task once ready, so the asker's connection goes on
meanwhile (its other requests are answered).
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import Error, GetReview, ReviewData
from server.analysis.review import Budget, review_match, reviews_to_data
from server.children import die_with_parent, ignore_interrupts
from server.edge.flood import reply_cost
from server.edge.hub import Connection, send_frames
from server.lobby.base import Lobby, Route, Routes
from server.lobby.codes import normalize
from server.lobby.sessions import Session
from server.rooms.room import RoomError
from server.rooms.stored import room_from_stored
from server.settings import Settings

log = logging.getLogger(__name__)

#: Reviews waiting or running in the worker at once; past it a request is refused (busy).
QUEUE_MAX = 4


def _warm(parent: int, niceness: int) -> None:
    """Worker start: die with the server, leave Ctrl-C to it, yield the CPU to it."""
    die_with_parent(parent)
    ignore_interrupts()
    os.nice(niceness)
    import server.analysis.review  # noqa: F401


def compute(records: list[dict[str, Any]], seconds: float) -> bytes:
    """In the worker: the match's review as JSON bytes, each deal under ``seconds``."""
    reviews = review_match(records, Budget(seconds=seconds, nodes=None))
    return json.dumps(reviews_to_data(reviews), separators=(",", ":")).encode()


class Reviewer:
    """The one review process (started on first use, stopped by ``shutdown``), ``niceness``
    below the server (``--review-niceness``'s default: decisions and messages go first)."""

    def __init__(self, seconds: float, niceness: int = Settings.review_niceness) -> None:
        self.seconds = seconds
        self.niceness = niceness
        self._executor: ProcessPoolExecutor | None = None
        self.in_flight = 0
        #: Set while nothing waits or runs in the worker (background mining waits for it).
        self._idle: asyncio.Event | None = None

    def executor(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_warm,
                initargs=(os.getpid(), self.niceness),
            )
        return self._executor

    async def review(self, records: list[dict[str, Any]]) -> bytes:
        loop = asyncio.get_running_loop()
        self.in_flight += 1
        try:
            return await loop.run_in_executor(self.executor(), compute, records, self.seconds)
        finally:
            self.done()

    def done(self) -> None:
        """A job of the worker's is over."""
        self.in_flight -= 1
        if self.in_flight == 0 and self._idle is not None:
            self._idle.set()

    async def wait_idle(self) -> None:
        """Until nothing waits or runs in the worker."""
        while self.in_flight:
            if self._idle is None:
                self._idle = asyncio.Event()
            self._idle.clear()
            await self._idle.wait()

    def shutdown(self) -> None:
        """Stop the review process at once, a job in it too. A review or a mining job runs
        for seconds (one of a long match, on a loaded machine, outlasted the 20 s a server
        is given to stop): waiting for it would hold the process's exit, and the work is
        not lost for good (an asker asks again, another process reviews it; mining is
        best-effort)."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # (ProcessPoolExecutor has no public way to end a running job before Python 3.14's
        # terminate_workers: its workers by the attribute CPython keeps them in; a worker
        # ended makes the pool broken, and its shutdown then waits for nothing)
        processes: dict[int, multiprocessing.process.BaseProcess] = (
            getattr(executor, "_processes", None) or {}
        )
        for process in list(processes.values()):
            process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)


class Reviews:
    def __init__(self, lobby: Lobby, reviewer: Reviewer) -> None:
        self.lobby = lobby
        self.reviewer = reviewer
        #: Reviews being computed here, by room code (a second asker waits for the first).
        self._computing: dict[str, asyncio.Future[bytes]] = {}
        #: Addresses with a review being computed here.
        self._addresses: set[str] = set()
        #: Reviews on their way to an asker once computed.
        self._sending: set[asyncio.Task[None]] = set()

    def routes(self) -> Routes:
        return {GetReview: Route(self.get_review)}

    async def get_review(self, conn: Connection, session: Session, request: GetReview) -> None:
        """Check the asker's right and limits now (a refusal answers the request); send the
        review when it is ready: at once when kept, else from a task once computed, so the
        connection's other requests are not held up meanwhile. The asker is charged for its
        size."""
        code = normalize(request.code)
        job = await self.start(session.player_id, code, conn.address)
        if job.done():
            self._send(conn, code, job.result())
            return
        task = asyncio.ensure_future(self._send_when_done(conn, code, request.id, job))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send_when_done(
        self, conn: Connection, code: str, rid: int | None, job: asyncio.Future[bytes]
    ) -> None:
        try:
            review = await asyncio.shield(job)
        except Exception:
            log.exception("the review of %s failed", code)
            message = "the review could not be made: retry in a minute"
            conn.send(Error(code=ErrorCode.UNAVAILABLE, message=message, request_id=rid))
            return
        self._send(conn, code, review)

    @staticmethod
    def _send(conn: Connection, code: str, review: bytes) -> None:
        payload = encode(ReviewData(code=code, **json.loads(review)))
        conn.bucket.spend(reply_cost(len(payload)))
        send_frames(conn, [payload])

    async def start(self, player: str, code: str, address: str) -> asyncio.Future[bytes]:
        """The review's JSON data (a future: done when kept, else being computed) for a
        player who may replay room ``code``'s match; refused (raised) otherwise."""
        store = self.lobby.store
        data = await store.load_room(code)
        if data is None:
            raise RoomError(ErrorCode.NO_ROOM, f"no match of yours in room {code}")
        room = room_from_stored(data)
        room.check_replay(player, watched=await store.has_watched(code, player))
        loop = asyncio.get_running_loop()
        kept = await store.review(code)
        if kept is not None:
            done: asyncio.Future[bytes] = loop.create_future()
            done.set_result(kept)
            return done
        running = self._computing.get(code)
        if running is not None:
            return running
        if address in self._addresses:
            raise RoomError(
                ErrorCode.BUSY, "a review you asked for is being made: ask again when it is done"
            )
        if self.reviewer.in_flight >= QUEUE_MAX:
            raise RoomError(ErrorCode.BUSY, "reviews are at capacity: retry in a minute")
        await self.lobby.limits.new_review(address)
        records = await store.read_log(code)
        job = asyncio.ensure_future(self._compute(code, address, records))
        self._computing[code] = job
        self._addresses.add(address)
        return job

    async def _compute(self, code: str, address: str, records: list[dict[str, Any]]) -> bytes:
        try:
            review = await self.reviewer.review(records)
            await self.lobby.store.put_review(code, review)
            return review
        finally:
            del self._computing[code]
            self._addresses.discard(address)
