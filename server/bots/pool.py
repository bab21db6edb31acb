"""Bot decisions off the event loop: the strong bot searches for up to a second per
decision, so it runs in a process pool and one room's search never holds up another room's
messages.

``BotPool.choose(level, view)`` is what the runner awaits. Cheap levels (easy, normal)
decide inline, as before. Pooled levels (``POOLED_LEVELS``) run ``decide(policy, view)`` in
a ``ProcessPoolExecutor`` that the app owns (one ``BotPool`` per server process, built from
its ``Settings``: ``--bot-workers``, ``--bot-queue-limit``), with a few workers. The time
budget is wall clock from the moment ``choose`` is called: the worker is handed an
absolute ``time.monotonic()`` deadline (the clock is shared by the processes of one
machine), so time spent queueing behind another room's decision is taken off the search;
if the answer is still not back a little after the budget, or the pool fails, the decision
falls back to a cheap level inline, so a table never waits on the pool.

The queue is bounded: at most ``queue_limit`` decisions wait or run at once. A decision
that finds it full is made inline at the fallback level (the table never waits), and
``busy()`` tells the lobby to refuse new strong rooms and seats meanwhile.

Workers are started with ``spawn`` (a fresh interpreter, no copy of the server's event
loop, sockets or threads) and import the bots when they start; ``warm_up`` starts them ahead
of the first decision. Each dies with the server, even one killed with SIGKILL
(``server.children.start_worker``: the first thing a worker does, before it imports the
search code, so a worker still starting when the server is killed ends then too), and
ignores Ctrl-C, which is the server's to handle. The ``spawn`` context's one helper
process, multiprocessing's resource tracker, ignores both signals itself and ends once
every process holding its pipe (the server and the workers) is gone: with them.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, runtime_checkable

from protocol.events import TableView
from protocol.messages import Request
from server.bots.base import BotPolicy, decide, policy_for
from server.children import start_worker

log = logging.getLogger(__name__)

#: Levels whose decisions run in the pool.
POOLED_LEVELS = frozenset({"strong"})
#: Seconds a pooled decision may take, queueing and transfer included.
DEFAULT_BUDGET = 1.0
#: Seconds of the budget kept back for the answer's way back from the worker.
RETURN_MARGIN = 0.05
#: Seconds past the budget the loop waits for a late answer before it falls back.
GRACE = 0.2
#: The level that decides inline when the pool is late or broken.
FALLBACK_LEVEL = "normal"

PolicyFactory = Callable[[], BotPolicy]
"""Makes a policy in the worker; must be picklable (a class, or ``functools.partial``)."""


@runtime_checkable
class HasDeadline(Protocol):
    """A policy that can be told the absolute ``time.monotonic()`` it must answer by."""

    deadline: float | None


class _Pool(ProcessPoolExecutor):
    """A pool whose workers start with SIGINT blocked (the mask is inherited through
    ``exec``): a Ctrl-C at the server's terminal, which reaches its whole process group,
    cannot interrupt a worker still importing, before ``start_worker`` ignores it for good."""

    def _spawn_process(self) -> None:
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            super()._spawn_process()  # type: ignore[misc]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _ping() -> int:
    return os.getpid()


def _decide(
    level: str, factory: PolicyFactory | None, view: TableView, deadline: float
) -> Request | None:
    """In a worker: the level's (or the factory's) policy decides, by ``deadline``."""
    policy = policy_for(level) if factory is None else factory()
    if isinstance(policy, HasDeadline):
        policy.deadline = deadline
    return decide(policy, view)


def _needs_search(view: TableView) -> bool:
    """Whether the view asks its seat for a bid or a play (anything else is instant)."""
    turn = view.turn
    return turn is not None and turn.seat == view.viewer_seat and view.phase != "between_deals"


class BotPool:
    """The strong bots' process pool: ``workers`` processes (0: up to 2), at most
    ``queue_limit`` decisions waiting or running at once (0: no bound). Its workers start
    on first use (or ``warm_up``) and stop at ``shutdown`` (a later decision starts them
    again)."""

    def __init__(self, workers: int = 0, queue_limit: int = 0) -> None:
        self.workers = workers or min(2, os.cpu_count() or 1)
        self.queue_limit = max(0, queue_limit)
        self._executor: ProcessPoolExecutor | None = None
        #: Pooled decisions submitted and not finished (waiting or running in a worker).
        self._in_flight = 0
        self._in_flight_lock = threading.Lock()

    def in_flight(self) -> int:
        """Pooled decisions waiting or running now."""
        return self._in_flight

    def busy(self) -> bool:
        """Whether the queue is full: a new decision would be made inline at the fallback
        level, so new strong rooms and seats are refused."""
        return self.queue_limit > 0 and self._in_flight >= self.queue_limit

    def executor(self) -> ProcessPoolExecutor:
        """The pool, started on first use."""
        if self._executor is None:
            self._executor = _Pool(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                # (in a light module: the worker imports it before it asks to die with us)
                initializer=start_worker,
                initargs=(os.getpid(), "server.bots.strong"),
            )
        return self._executor

    def shutdown(self) -> None:
        """Stop the pool's workers (a later ``choose`` starts a new pool)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    async def warm_up(self) -> list[int]:
        """Start the workers and wait until each has imported the bots; their pids."""
        loop = asyncio.get_running_loop()
        pool = self.executor()
        jobs = [loop.run_in_executor(pool, _ping) for _ in range(self.workers)]
        return list(await asyncio.gather(*jobs))

    def _submit(self, *args: Any) -> asyncio.Future[Request | None]:
        """Submit a decision and count it in flight until its worker is done with it (not
        until the caller stops waiting: a late decision still holds a worker)."""
        job = self.executor().submit(_decide, *args)
        with self._in_flight_lock:
            self._in_flight += 1
        job.add_done_callback(self._done)  # at once if it is done already
        return asyncio.wrap_future(job)

    def _done(self, _job: object) -> None:
        with self._in_flight_lock:
            self._in_flight -= 1

    async def choose(
        self,
        level: str,
        view: TableView,
        factory: PolicyFactory | None = None,
        budget: float = DEFAULT_BUDGET,
    ) -> Request | None:
        """The request the seat's bot sends now (None: the table does not wait for it).

        A pooled level (or any ``factory``) decides in the process pool within ``budget``
        seconds of this call; others decide inline."""
        if factory is None and level not in POOLED_LEVELS:
            return decide(policy_for(level), view)
        if not _needs_search(view):
            return decide(policy_for(FALLBACK_LEVEL), view)
        if self.busy():
            log.info("the bot pool's queue is full (%d); deciding inline", self._in_flight)
            return decide(policy_for(FALLBACK_LEVEL), view)
        started = time.monotonic()
        deadline = started + budget - RETURN_MARGIN
        try:
            job = self._submit(level, factory, view, deadline)
            return await asyncio.wait_for(job, timeout=budget + GRACE)
        except TimeoutError:
            log.warning("a %s decision took over %.2f s; deciding inline", level, budget + GRACE)
        except BrokenProcessPool:
            log.exception("the bot pool broke; starting a new one")
            self._executor = None
        except Exception:
            log.exception("a %s decision failed in the pool; deciding inline", level)
        return decide(policy_for(FALLBACK_LEVEL), view)
