"""A lean pipelined connection to one Redis, for the commands of the hot path.

redis-py's asyncio client spends about 70 us of CPU on a command beside the system calls
(a connection from the pool, the retry wrapper, a timeout context per read, its command
packing and parsing layers; ``benchmarks/redis_calls.py``). The room saves and the relay's
publishes are one or two commands per game action, so they go through a ``RedisLine``
instead: one connection of its own, commands packed by hiredis, every batch written in one
system call, replies read by hiredis's parser and handed back in order.

What it keeps of a client's duties: it connects (``redis://`` or ``unix://``, with the
URL's user, password and database) when first used and again after the link was lost; a
lost link, or replies overdue by ``timeout`` seconds (the link is then cut), fail every
command waiting with redis-py's ``ConnectionError`` or ``TimeoutError``, which the store
already reads as "not reached" (``server/store/errors.py``). A command is never sent twice.
An error reply is returned in its place as redis-py's ``ResponseError`` (``NoScriptError``
for ``NOSCRIPT``), as a redis-py pipeline run with ``raise_on_error=False`` returns it.
Other URLs (TLS, a cluster, Sentinel) keep redis-py (``line_for`` gives None).
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Sequence
from typing import Any, cast
from urllib.parse import unquote, urlparse

import hiredis
from redis import exceptions as redis_errors

#: Commands a caller hands in: each a sequence of arguments (bytes, str, int, float).
Command = Sequence[Any]


def line_for(url: str, timeout: float) -> RedisLine | None:
    """A ``RedisLine`` to the Redis at ``url`` when it is a plain ``redis://`` or
    ``unix://`` address, else None."""
    parsed = urlparse(url)
    if parsed.scheme not in ("redis", "unix"):
        return None
    query = dict(part.split("=", 1) for part in parsed.query.split("&") if "=" in part)
    db = int(query.get("db", parsed.path.strip("/") if parsed.scheme == "redis" else 0) or 0)
    username = unquote(parsed.username) if parsed.username else None
    password = unquote(parsed.password) if parsed.password else None
    if parsed.scheme == "unix":
        return RedisLine(None, 0, parsed.path, db, username, password, timeout)
    return RedisLine(
        parsed.hostname or "localhost", parsed.port or 6379, None, db, username, password, timeout
    )


def _reply_error(message: str) -> redis_errors.ResponseError:
    if message.startswith("NOSCRIPT"):
        return redis_errors.NoScriptError(message)
    return redis_errors.ResponseError(message)


class _Link(asyncio.Protocol):
    """One connection: writes packed commands, answers their futures in order."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader()
        #: Each command's future, with when it was written, oldest first.
        self.waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        self.lost: Exception | None = None
        self._watch: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's are not subclasses)

    def send(self, commands: Sequence[Command]) -> list[asyncio.Future[Any]]:
        if self.lost is not None or self.transport is None or self.transport.is_closing():
            raise redis_errors.ConnectionError(f"Redis link lost: {self.lost}")
        loop = asyncio.get_running_loop()
        now = time.monotonic()
        futures = [loop.create_future() for _ in commands]
        self.transport.write(b"".join(hiredis.pack_command(tuple(c)) for c in commands))
        self.waiting.extend((future, now) for future in futures)
        if self._watch is None:
            self._watch = loop.call_later(self.timeout, self._check_overdue)
        return futures

    def _check_overdue(self) -> None:
        self._watch = None
        if not self.waiting or self.transport is None:
            return
        overdue = self.waiting[0][1] + self.timeout - time.monotonic()
        if overdue <= 0:
            self._fail(redis_errors.TimeoutError(f"no reply from Redis in {self.timeout} s"))
            self.transport.abort()
            return
        self._watch = asyncio.get_running_loop().call_later(overdue, self._check_overdue)

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while self.waiting:
            reply = self.reader.gets()
            if reply is False:
                return
            future, _ = self.waiting.popleft()
            if isinstance(reply, hiredis.ReplyError):
                reply = _reply_error(str(reply))
            if not future.done():
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(redis_errors.ConnectionError(f"Redis closed the link: {exc}"))

    def _fail(self, error: Exception) -> None:
        if self.lost is None:
            self.lost = error
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        while self.waiting:
            future, _ = self.waiting.popleft()
            if not future.done():
                future.set_exception(error)


async def _replies(futures: list[asyncio.Future[Any]]) -> list[Any]:
    """The futures' results, in order. They fail together (a lost link fails every one):
    the first failure is raised, the others' are marked as seen."""
    try:
        return [await future for future in futures]
    except BaseException:
        for future in futures:
            if future.done() and not future.cancelled():
                future.exception()
        raise


class RedisLine:
    """Pipelined commands to one Redis on a connection of their own (see the module)."""

    def __init__(
        self,
        host: str | None,
        port: int,
        path: str | None,
        db: int,
        username: str | None,
        password: str | None,
        timeout: float,
    ) -> None:
        self.host, self.port, self.path = host, port, path
        self.db, self.username, self.password = db, username, password
        self.timeout = timeout
        self._link: _Link | None = None
        self._connecting = asyncio.Lock()

    async def execute(self, commands: Sequence[Command]) -> list[Any]:
        """Each command's reply, in order (an error reply as its ``ResponseError``).
        Raises redis-py's ``ConnectionError`` or ``TimeoutError`` when Redis was not
        reached or did not answer in time: then any of them may or may not have run."""
        link = self._link
        if link is None or link.lost is not None:
            link = await self._connect()
        return await _replies(link.send(commands))

    async def _connect(self) -> _Link:
        async with self._connecting:
            if self._link is not None and self._link.lost is None:
                return self._link
            loop = asyncio.get_running_loop()
            link = _Link(self.timeout)
            try:
                async with asyncio.timeout(self.timeout):
                    if self.path is not None:
                        await loop.create_unix_connection(lambda: link, self.path)
                    else:
                        await loop.create_connection(lambda: link, self.host or "", self.port)
                    hello: list[Command] = []
                    if self.password is not None:
                        auth = [self.username, self.password] if self.username else [self.password]
                        hello.append(("AUTH", *auth))
                    if self.db:
                        hello.append(("SELECT", self.db))
                    if hello:
                        for reply in await _replies(link.send(hello)):
                            if isinstance(reply, Exception):
                                raise redis_errors.ConnectionError(f"Redis refused: {reply}")
            except (OSError, TimeoutError) as exc:
                if link.transport is not None:
                    link.transport.abort()
                raise redis_errors.ConnectionError(f"cannot reach Redis: {exc}") from exc
            except BaseException:
                if link.transport is not None:
                    link.transport.abort()
                raise
            self._link = link
            return link

    async def close(self) -> None:
        link, self._link = self._link, None
        if link is not None and link.transport is not None:
            link.transport.close()


class LineScript:
    """A Lua script run on a ``RedisLine``, called as redis-py's ``Script`` is
    (``await script(keys=[...], args=[...])``): by its SHA, by its text when Redis has
    forgotten it; an error reply raised as redis-py's ``ResponseError``."""

    def __init__(self, line: RedisLine, text: str, sha: str) -> None:
        self.line, self.text, self.sha = line, text, sha

    async def many(self, calls: Sequence[tuple[Sequence[Any], Sequence[Any]]]) -> list[Any]:
        """The script on each ``(keys, args)``, in one round trip (two when Redis had
        forgotten it): each reply, an error reply as its ``ResponseError``."""
        sha, text = self.sha, self.text
        replies = await self.line.execute(
            [("EVALSHA", sha, len(keys), *keys, *args) for keys, args in calls]
        )
        forgotten = [i for i, r in enumerate(replies) if isinstance(r, redis_errors.NoScriptError)]
        if forgotten:
            again = await self.line.execute(
                [("EVAL", text, len(calls[i][0]), *calls[i][0], *calls[i][1]) for i in forgotten]
            )
            for i, reply in zip(forgotten, again, strict=True):
                replies[i] = reply
        return replies

    async def __call__(self, keys: Sequence[Any] = (), args: Sequence[Any] = ()) -> Any:
        (reply,) = await self.line.execute([("EVALSHA", self.sha, len(keys), *keys, *args)])
        if isinstance(reply, redis_errors.NoScriptError):
            (reply,) = await self.line.execute([("EVAL", self.text, len(keys), *keys, *args)])
        if isinstance(reply, redis_errors.ResponseError):
            raise reply
        return reply
