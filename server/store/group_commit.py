"""Group commit: the room saves asked for in one turn of the event loop go to Redis as one
pipelined round trip, and each caller still waits for its own save's answer.

At saturation most of a save's cost is redis-py's per-command machinery (a connection from
the pool, timeouts, the retry wrapper, a write and a read system call), not the bytes. A
``GroupCommit`` collects the ``EVALSHA`` of every save asked for before the loop gets round
to it, sends them in one non-transactional pipeline, and answers each caller's future with
its own reply (a script's error reply, such as a stale owner's ``FENCED``, is that caller's
alone). Nothing about a save's meaning changes: each is the same atomic script, each caller
awaits its answer before it delivers anything, and one room never has two saves in flight
(its runner holds the room's lock across the save).

One batch is in flight at a time: what is asked for meanwhile forms the next batch, sent as
soon as the answer to this one is in (the more load, the bigger the batches). A script
Redis has forgotten (a restart, ``SCRIPT FLUSH``) is loaded again and its commands retried
once. (On a Redis Cluster the script's text goes with every call instead: redis-py's cluster
pipeline refuses ``EVALSHA``.) On a single Redis the batches go on a ``RedisLine``
(``server/store/line.py``): the same commands, without redis-py's per-command layers.

With a ``ReplicaWait`` (``--redis-wait-replicas``), each batch ends with ``WAIT replicas
timeout`` on the same connection, so it returns once that many replicas hold every write of
the batch. Fewer within the timeout and the whole batch fails (``ReplicasBehind``): each
caller reverts and sends nothing, as when Redis does not answer. The primary keeps the writes;
a later save of such a room finds its version moved on and reloads it, and a resent request is
refused by its request id, so nothing is applied twice and nothing delivered rests on the
primary alone. (Not on a Redis Cluster: its pipeline spreads the calls over the nodes'
connections, and ``WAIT`` counts only the writes made on its own connection.)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

from server.store.errors import ReplicasBehind
from server.store.line import RedisLine

#: One queued script call: its keys, its arguments, and the future its caller awaits.
Call = tuple[Sequence[str], Sequence[Any], "asyncio.Future[Any]"]


@dataclass(frozen=True)
class ReplicaWait:
    """Wait for ``replicas`` replicas to acknowledge each batch, at most ``timeout_ms``."""

    replicas: int
    timeout_ms: int

    def __post_init__(self) -> None:
        if self.replicas < 1 or self.timeout_ms < 1:
            raise ValueError("a replica wait needs at least 1 replica and 1 ms")

    def command(self) -> tuple[str, int, int]:
        return ("WAIT", self.replicas, self.timeout_ms)

    def check(self, reply: Any) -> None:
        """Raise ``ReplicasBehind`` unless ``reply`` (WAIT's) counts enough replicas."""
        if isinstance(reply, Exception):
            raise ReplicasBehind(f"WAIT failed: {reply}")
        if int(reply) < self.replicas:
            raise ReplicasBehind(
                f"{reply} of {self.replicas} replicas acknowledged within {self.timeout_ms} ms"
            )


class GroupCommit:
    """Runs one Lua script for many callers, batched per loop turn (see the module)."""

    def __init__(
        self,
        redis: Redis | RedisCluster,
        script: str,
        on_batch: Callable[[int], None] | None = None,
        line: RedisLine | None = None,
        replica_wait: ReplicaWait | None = None,
    ) -> None:
        if replica_wait is not None and isinstance(redis, RedisCluster):
            raise ValueError("waiting for replicas is not supported on a Redis Cluster")
        self.redis = redis
        #: The replicas each batch waits for, if any.
        self.replica_wait = replica_wait
        #: The lean connection the batches go on, when there is one (a single Redis).
        self.line = line
        self.script = script
        self.sha: str = redis.register_script(script).sha
        # redis-py's cluster pipeline refuses EVALSHA: there the script's text goes along
        self._by_sha = not isinstance(redis, RedisCluster)
        #: Told the size of every batch sent (the tests' witness of the batching).
        self.on_batch = on_batch
        self._queued: list[Call] = []
        self._scheduled = False
        self._in_flight: asyncio.Task[None] | None = None

    def call(self, keys: Sequence[str], args: Sequence[Any]) -> Awaitable[Any]:
        """Queue the script on ``keys`` and ``args``; the awaitable gives its reply, or
        raises its error reply (``ResponseError``) or why the batch failed."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queued.append((keys, args, future))
        if not self._scheduled and self._in_flight is None:
            self._scheduled = True
            loop.call_soon(self._start)
        return future

    def _start(self) -> None:
        self._scheduled = False
        if self._in_flight is not None or not self._queued:
            return
        batch, self._queued = self._queued, []
        self._in_flight = asyncio.ensure_future(self._send(batch))
        self._in_flight.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._in_flight = None
        if self._queued and not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._start)

    async def _send(self, live: list[Call]) -> None:
        # Every save asked for is sent, even one whose caller was cancelled meanwhile (a
        # shutdown stops the bots): its room already holds the change and its journal
        # records were taken for this write, so a save dropped here would let the room's
        # next save carry the change's state without them. (As with one redis-py command,
        # which, once written, is applied whoever waits for it.)
        try:
            replies = await self._pipeline(live)
            forgotten = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
            if forgotten:
                await self.redis.script_load(self.script)
                again = await self._pipeline([live[i] for i in forgotten])
                for i, reply in zip(forgotten, again, strict=True):
                    replies[i] = reply
        except asyncio.CancelledError:
            for _, _, future in live:
                future.cancel()
            raise
        except Exception as exc:
            for _, _, future in live:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_, _, future), reply in zip(live, replies, strict=True):
            if future.done():
                continue
            if isinstance(reply, Exception):
                future.set_exception(reply)
            else:
                future.set_result(reply)

    async def _pipeline(self, calls: list[Call]) -> list[Any]:
        """The calls' replies, in order; raises ``ReplicasBehind`` when the replicas
        waited for did not acknowledge them."""
        if self.on_batch is not None:
            self.on_batch(len(calls))
        wait = self.replica_wait
        if self.line is not None:  # (a single Redis: never a cluster)
            sha = self.sha
            commands: list[tuple[Any, ...]] = [
                ("EVALSHA", sha, len(keys), *keys, *args) for keys, args, _ in calls
            ]
            if wait is not None:
                commands.append(wait.command())
            replies: list[Any] = await self.line.execute(commands)
        else:
            async with self.redis.pipeline(transaction=False) as pipe:
                for keys, args, _ in calls:
                    if self._by_sha:
                        pipe.evalsha(self.sha, len(keys), *keys, *args)
                    else:
                        pipe.eval(self.script, len(keys), *keys, *args)
                if wait is not None:
                    pipe.execute_command(*wait.command())
                replies = await pipe.execute(raise_on_error=False)
        if wait is not None:
            wait.check(replies.pop())
        return replies

    async def close(self) -> None:
        """Send what is queued and wait for every batch out: each save asked for is owed
        its write (see ``_send``) and its caller an answer."""
        while self._queued or (self._in_flight is not None and not self._in_flight.done()):
            if self._in_flight is None or self._in_flight.done():
                self._in_flight = None  # (its done callback may not have run yet)
                self._start()
            task = self._in_flight
            assert task is not None
            with contextlib.suppress(Exception):
                await asyncio.shield(task)
