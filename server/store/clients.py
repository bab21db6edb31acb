"""The redis-py clients the store speaks through: one Redis, a Redis Cluster, or a primary
that Redis Sentinel manages.

The same store runs on one Redis or on a Redis Cluster (``connect`` asks the server which;
``from_url`` takes a ``redis+cluster://`` URL for one). Every script touches the keys of one
hash tag only (a room's ``{CODE}``, the queue's ``{quick}``, one session key), so each runs on
the one node that owns them; nothing uses MULTI/EXEC (redis-py's cluster transactions run
each queued command on a thread of its own), and the pipelines hold only EVAL and PUBLISH,
which a cluster pipeline sends node by node.

Or on a primary that Redis Sentinel manages, with its replicas: ``redis+sentinel://`` (or
``rediss+sentinel://``, TLS to the nodes and to the Sentinels) with the Sentinels' addresses
and the service's name, ``redis+sentinel://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]/
SERVICE[/DB]``; the credentials are the Redis nodes', the Sentinels' own go in the query
(``?sentinel_password=...&sentinel_username=...``). Each new connection asks the Sentinels
which node is the primary (redis-py's ``SentinelConnectionPool``), and the pool asks again
about once a second (``SENTINEL_CHECK``): after a failover, connections to the old primary
are dropped, not used again, so writes move to the new one within about a second even when
the old one is still up and still takes writes (a ``SENTINEL FAILOVER``: the Sentinel turns
it into a replica some ten seconds later); subscribers' links to the old one are dropped
then too, so that their owners subscribe again on the new one. Until the Sentinels name a new
primary, requests fail as ``StoreUnavailable``. Replication is asynchronous: writes the old
primary acknowledged but had not passed on yet are lost with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import ClusterPipeline, RedisCluster
from redis.asyncio.connection import AbstractConnection, Connection, SSLConnection, parse_url
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import (
    Sentinel,
    SentinelConnectionPool,
    SentinelManagedConnection,
    SentinelManagedSSLConnection,
)
from redis.backoff import ExponentialBackoff
from redis.typing import EncodableT

from server.store.errors import StoreFailure, StoreUnavailable

log = logging.getLogger(__name__)

#: Redis connections one process keeps at most; more requests than this at once queue. On a
#: cluster it bounds the requests in flight, so no node's pool is ever asked for more.
POOL_SIZE = 256
#: Seconds a request waits for a connection, to connect, and for its answer.
TIMEOUT = 2.0

#: URL schemes that say "this is a Redis Cluster" without asking it.
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
#: URL schemes of a primary that Redis Sentinel manages (the URL names the Sentinels).
SENTINEL_SCHEMES = {"redis+sentinel": "redis", "rediss+sentinel": "rediss"}
#: A Sentinel's port when the URL gives none.
SENTINEL_PORT = 26379
#: Seconds between two questions to the Sentinels, while requests flow, about which node is
#: the primary (a new connection asks anyway).
SENTINEL_CHECK = 1.0


def split_cluster_hint(url: str) -> tuple[str, bool]:
    """``redis+cluster://H:P/0`` → (``redis://H:P/0``, True); any other URL → (url, False)."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() in CLUSTER_SCHEMES:
        return f"{CLUSTER_SCHEMES[scheme.lower()]}://{rest}", True
    return url, False


@dataclass(frozen=True)
class SentinelTarget:
    """A ``redis+sentinel://`` URL read: where the Sentinels are, the service they watch,
    the options of the connections to its nodes and of those to the Sentinels."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    #: db, credentials, TLS and the URL's query options, for the primary's connections
    options: dict[str, Any] = field(default_factory=dict)
    #: TLS and ``sentinel_username`` / ``sentinel_password``, for the Sentinels'
    sentinel_options: dict[str, Any] = field(default_factory=dict)


def _sentinel_address(text: str) -> tuple[str, int]:
    """``host``, ``host:port``, ``[v6]`` or ``[v6]:port`` → (host, port)."""
    host, port = text, ""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest and not rest.startswith(":"):
            raise ValueError(f"bad Sentinel address {text!r}")
        port = rest[1:]
    elif ":" in text:
        host, _, port = text.rpartition(":")
    if not host or (port and not port.isdigit()):
        raise ValueError(f"bad Sentinel address {text!r}")
    return unquote(host), int(port) if port else SENTINEL_PORT


def split_sentinel_url(url: str) -> SentinelTarget | None:
    """``redis+sentinel://[[USER]:PASSWORD@]H1[:P1][,H2[:P2]...]/SERVICE[/DB][?OPTIONS]``
    read (the port is 26379 when left out); None for any other URL. USER and PASSWORD are
    the Redis nodes' (the Sentinels' are the query options ``sentinel_username`` and
    ``sentinel_password``); the other query options are redis-py's URL options, for the
    nodes. ``rediss+sentinel://`` speaks TLS to the nodes and to the Sentinels."""
    scheme, sep, _ = url.partition("://")
    base = SENTINEL_SCHEMES.get(scheme.lower()) if sep else None
    if base is None:
        return None
    parts = urlsplit(url)
    userinfo, _, hosts = parts.netloc.rpartition("@")
    sentinels = tuple(_sentinel_address(h.strip()) for h in hosts.split(",") if h.strip())
    names = [unquote(p) for p in parts.path.split("/") if p]
    if not sentinels or not 1 <= len(names) <= 2:
        raise ValueError(
            "a Sentinel URL is redis+sentinel://[:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]"
            f"/SERVICE[/DB], not {url!r}"
        )
    if len(names) == 2 and not names[1].isdigit():
        raise ValueError(f"the database of a Sentinel URL is a number, not {names[1]!r}")
    # redis-py reads the rest as it would from a one-node URL (credentials, db, TLS, query)
    auth = f"{userinfo}@" if userinfo else ""
    db = f"/{names[1]}" if len(names) == 2 else ""
    query = f"?{parts.query}" if parts.query else ""
    options: dict[str, Any] = dict(parse_url(f"{base}://{auth}sentinel{db}{query}"))
    options.pop("host", None)
    options.pop("port", None)
    sentinel_options: dict[str, Any] = {}
    if options.pop("connection_class", None) is SSLConnection:
        options["ssl"] = True
        sentinel_options["ssl"] = True
        sentinel_options.update({k: v for k, v in options.items() if k.startswith("ssl_")})
    for name in ("username", "password"):
        value = options.pop(f"sentinel_{name}", None)
        if value is not None:
            sentinel_options[name] = value
    return SentinelTarget(sentinels, names[0], options, sentinel_options)


def with_address(url: str, host: str, port: int) -> str:
    """The URL with its host and port replaced (credentials, database, options kept)."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    netloc = f"{userinfo}@{address}" if userinfo else address
    return urlunsplit(parts._replace(netloc=netloc))


#: Whether the running task holds a cluster place already (a pipeline's redirected command
#: runs through ``execute_command`` inside the pipeline's place, and must not wait for one).
_holding_place = contextvars.ContextVar("holding_place", default=False)


class WaitingCluster(RedisCluster):
    """A ``RedisCluster`` whose requests and pipelines wait (up to ``TIMEOUT``) for one of
    ``POOL_SIZE`` places rather than fail: a cluster node's pool refuses a connection past
    its size (``MaxConnectionsError``, after which redis-py closes every node's
    connections), where the single Redis's ``BlockingConnectionPool`` waits."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._places = asyncio.Semaphore(POOL_SIZE)

    @contextlib.asynccontextmanager
    async def place(self) -> AsyncIterator[None]:
        """Hold one of the places for a request (a pipeline holds one for all its nodes)."""
        if _holding_place.get():
            yield
            return
        if self._places.locked():
            try:
                async with asyncio.timeout(TIMEOUT):
                    await self._places.acquire()
            except TimeoutError:
                raise redis_errors.ConnectionError("no cluster connection available") from None
        else:
            await self._places.acquire()
        held = _holding_place.set(True)
        try:
            yield
        finally:
            _holding_place.reset(held)
            self._places.release()

    async def execute_command(self, *args: EncodableT, **kwargs: Any) -> Any:
        async with self.place():
            return await super().execute_command(*args, **kwargs)

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> ClusterPipeline:
        if shard_hint:
            return super().pipeline(transaction, shard_hint)  # refused by redis-py
        # (redis-py builds its ClusterPipeline the same way; its stubs call it abstract)
        return WaitingPipeline(self, transaction)  # type: ignore[abstract]


class WaitingPipeline(ClusterPipeline):
    """A cluster pipeline that runs in one place of its ``WaitingCluster``."""

    cluster_client: WaitingCluster

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> Any:
        async with self.cluster_client.place():
            return await super().execute(raise_on_error, allow_redirections)


class SharedSentinel(Sentinel):
    """redis-py's ``Sentinel``, whose callers asking at once which node is the primary share
    one question to the Sentinels: a burst of new connections (up to ``POOL_SIZE``) asks
    once, not once each."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._asking: dict[str, asyncio.Future[Any]] = {}

    async def discover_master(self, service_name: str) -> Any:
        asking = self._asking.get(service_name)
        if asking is None:
            asking = asyncio.ensure_future(super().discover_master(service_name))
            self._asking[service_name] = asking
            asking.add_done_callback(lambda done: self._asked(service_name, done))
        # shielded: a caller that gives up does not cancel the question for the others
        return await asyncio.shield(asking)

    def _asked(self, service_name: str, done: asyncio.Future[Any]) -> None:
        if self._asking.get(service_name) is done:
            del self._asking[service_name]
        if not done.cancelled():
            done.exception()  # retrieved: no "never retrieved" warning when nobody waited


class WaitingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """redis-py's ``SentinelConnectionPool`` (each new connection asks the Sentinels for the
    primary), waiting like ``BlockingConnectionPool`` (up to ``timeout``) for one of its
    ``max_connections`` rather than refuse. And two things it does not do: it asks the
    Sentinels again at most every ``SENTINEL_CHECK`` seconds while connections are taken
    (so pooled ones learn of a failover: redis-py only asks when it opens a connection), and
    a connection to a node that is no longer the primary is dropped when it comes back, not
    used again. Without them, pooled connections would go on writing to an old primary that
    is still up (a manual failover) until the Sentinel demotes it and kills its clients,
    about ten seconds on: writes that the new primary never sees. ``on_moved`` is told when
    the primary has moved (the store drops its subscribers' links)."""

    def __init__(self, service_name: str, sentinel_manager: Sentinel, **kwargs: Any) -> None:
        super().__init__(service_name, sentinel_manager, **kwargs)  # type: ignore[no-untyped-call]
        self._checked = time.monotonic()
        #: The check under way, if any (held here so it is not collected mid-flight).
        self._checking: asyncio.Future[None] | None = None
        #: Called (awaited) with the new primary's address when the Sentinels name another
        #: primary than before.
        self.on_moved: Callable[[tuple[str, int]], Awaitable[None]] | None = None
        #: Whether a move is said in the log (one pool of the store's says it).
        self.log_moves = True
        self._primary: tuple[str, int] | None = None

    async def get_master_address(self) -> Any:
        address = await super().get_master_address()  # type: ignore[no-untyped-call]
        # (read and set with no await between: of callers asking at once, one tells)
        known, self._primary = self._primary, (address[0], int(address[1]))
        if known is not None and known != self._primary:
            if self.log_moves:
                log.warning(
                    "the Redis primary of %r moved from %s:%d to %s:%d",
                    self.service_name,
                    *known,
                    *self._primary,
                )
            if self.on_moved is not None:
                await self.on_moved(self._primary)
        return address

    async def get_connection(self, command_name: Any = None, *keys: Any, **options: Any) -> Any:
        if (
            self.is_master
            and self._checking is None
            and time.monotonic() - self._checked >= SENTINEL_CHECK
        ):
            # beside the request, not before it: slow Sentinels must not stall a request
            self._checking = asyncio.ensure_future(self._check_primary())
        return await super().get_connection()  # type: ignore[no-untyped-call]

    async def _check_primary(self) -> None:
        """Ask the Sentinels for the primary; when it moved, the idle connections are
        dropped (``get_master_address``). A Sentinel that does not answer, or names no
        primary (a failover under way), leaves things as they are: the requests tell."""
        try:
            await self.get_master_address()
        except (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError) as exc:
            log.debug("Sentinel check: %s", exc)
        finally:
            self._checked = time.monotonic()
            self._checking = None

    async def release(self, connection: Any) -> None:
        primary = self.master_address
        if (
            self.is_master
            and primary is not None
            and (connection.host, connection.port) != tuple(primary)
        ):
            await connection.disconnect()  # to a former primary: opened afresh next time
        await super().release(connection)


#: Times a request is sent again after its connection failed (``_timeouts``).
TRIES = 3


class Unsent(redis_errors.ConnectionError):
    """A request that found its connection already closed, before a byte of it was
    written: Redis never saw it. (Redis dropped the link while it lay in the pool: a
    restart, or a Sentinel turning the node into a replica, which drops its clients.)"""


class _FailsUnsent(AbstractConnection):
    """A connection whose request fails with ``Unsent`` when the link is found closed
    before it is written, so that a client that never sends a request twice may send this
    one again."""

    async def _send_packed_command(self, command: Iterable[bytes]) -> None:
        writer = self._writer
        if writer is None or writer.transport.is_closing():
            raise Unsent("Connection closed by the server before write")
        await super()._send_packed_command(command)


_UNSENT_CHECKED: dict[str, type[AbstractConnection]] = {}


def _unsent_checked(base: type[AbstractConnection]) -> type[AbstractConnection]:
    """``base`` (a plain, TLS, Unix socket or Sentinel-managed connection) as a
    ``_FailsUnsent``: one class for each."""
    name = f"UnsentChecked{base.__name__}"
    if name not in _UNSENT_CHECKED:
        _UNSENT_CHECKED[name] = type(name, (_FailsUnsent, base), {})
    return _UNSENT_CHECKED[name]


def _timeouts(tries: int) -> dict[str, Any]:
    """Every client's socket timeouts, and its retries (with backoff) of a request whose
    connection failed: a pooled connection that Redis dropped (a restart) is reconnected.
    A retry sends the request again whole, even when Redis had it already (a reply late
    past the timeout, a Redis stopped for a moment): ``tries`` is 0 for the commands that
    must not run twice (the store's ``once`` client), which are sent again only when they
    were never written (``Unsent``: ``_once``)."""
    return {
        "socket_timeout": TIMEOUT,
        "socket_connect_timeout": TIMEOUT,
        "retry": Retry(ExponentialBackoff(cap=0.2, base=0.01), tries),
    }


def _once(connection_class: type[AbstractConnection]) -> dict[str, Any]:
    """The options of a client whose requests must not run twice: each is sent again only
    when it was never written (``Unsent``), which a Sentinel's failover makes likely (it
    drops the old primary's clients) and a slow machine likelier. Any other failure is the
    caller's to handle: a reply lost may have been a write done."""
    return {
        "socket_timeout": TIMEOUT,
        "socket_connect_timeout": TIMEOUT,
        "retry": Retry(ExponentialBackoff(cap=0.2, base=0.01), TRIES, supported_errors=(Unsent,)),
        "connection_class": _unsent_checked(connection_class),
    }


def single_client(url: str, tries: int = TRIES) -> Redis:
    # A burst past the pool's size waits for a connection instead of failing (redis-py's
    # plain pool refuses with "Too many connections", which the load test hit).
    if tries == 0:
        base = parse_url(url).get("connection_class", Connection)
        options = _once(base)
    else:
        options = {
            **_timeouts(tries),
            "retry_on_error": [redis_errors.ConnectionError, redis_errors.TimeoutError],
        }
    pool = BlockingConnectionPool.from_url(
        url, max_connections=POOL_SIZE, timeout=TIMEOUT, **options
    )
    return Redis(connection_pool=pool)


def cluster_client(url: str) -> WaitingCluster:
    # No I/O here: the client finds the nodes and their slots at its first request. Failed
    # requests (a node down, the cluster failing over) are tried again up to 3 times, each
    # on a freshly read slot map; MOVED and ASK redirections are followed.
    return WaitingCluster(
        **{
            **_url_options(url),
            "max_connections": POOL_SIZE,
            **_timeouts(3),
        }
    )


def sentinel_for(target: SentinelTarget) -> SharedSentinel:
    # No I/O here. Each Sentinel is given up on fast (one retry, for a pooled connection it
    # dropped): redis-py then asks the next one.
    return SharedSentinel(
        list(target.sentinels),
        sentinel_kwargs={
            **_timeouts(1),
            **target.sentinel_options,
        },
    )


def sentinel_client(sentinel: Sentinel, target: SentinelTarget, tries: int = TRIES) -> Redis:
    # The primary's client: the same pool size, timeouts and retries as single_client's.
    # A retried request (its connection dropped, the primary gone or demoted: redis-py turns
    # a READONLY answer into a ConnectionError) reconnects to whichever node the Sentinels
    # name by then.
    if tries == 0:
        ssl = target.options.get("ssl", False)
        options = _once(SentinelManagedSSLConnection if ssl else SentinelManagedConnection)
    else:
        options = {
            **_timeouts(tries),
            "retry_on_error": [redis_errors.ConnectionError, redis_errors.TimeoutError],
        }
    client: Redis = sentinel.master_for(
        target.service,
        redis_class=Redis,
        connection_pool_class=WaitingSentinelPool,
        **{"max_connections": POOL_SIZE, "timeout": TIMEOUT, **options, **target.options},
    )
    return client


async def await_primary(redis: Redis, target: SentinelTarget, wait: float | None) -> None:
    """Until the primary the Sentinels name answers a PING; every second, for up to
    ``wait`` seconds (None: for as long as it takes), then ``StoreUnavailable``."""
    where = ",".join(f"{host}:{port}" for host, port in target.sentinels)
    deadline = None if wait is None else time.monotonic() + wait
    while True:
        try:
            await redis.ping()
            return
        except StoreFailure as exc:
            if deadline is not None and time.monotonic() + 1.0 > deadline:
                raise StoreUnavailable(
                    f"no primary of {target.service!r} answers (Sentinels {where}): {exc}"
                ) from exc
            log.warning("waiting for the primary of %r to answer: %s", target.service, exc)
        await asyncio.sleep(1.0)


def _url_options(url: str) -> dict[str, Any]:
    """``RedisCluster.from_url``'s reading of the URL (a TLS URL becomes ``ssl=True``)."""
    options = dict(parse_url(url))
    if options.pop("connection_class", None) is SSLConnection:
        options["ssl"] = True
    return options


async def is_cluster(url: str, wait: float | None, interval: float = 1.0) -> bool:
    """Ask the Redis at ``url`` whether it is a cluster node (``INFO cluster``). While it
    does not answer, ask again every ``interval`` seconds for up to ``wait`` seconds (None:
    for as long as it takes), then give up with ``StoreUnavailable``."""
    if url.startswith("unix:"):
        return False  # a cluster is spoken to over TCP only
    started = time.monotonic()
    deadline = None if wait is None else started + wait
    waited = False
    while True:
        probe = Redis.from_url(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
        try:
            info: Any = await probe.info("cluster")
            if waited:
                log.warning("Redis answers, after %.0f s", time.monotonic() - started)
            return str(info.get("cluster_enabled", 0)) == "1"
        except StoreFailure as exc:
            if deadline is not None and time.monotonic() + interval > deadline:
                raise StoreUnavailable(f"Redis at {url} does not answer: {exc}") from exc
            if not waited:  # (one line for the whole wait, not one a second)
                log.warning("waiting for Redis to answer (asking every %g s): %s", interval, exc)
                waited = True
        finally:
            await probe.aclose()
        await asyncio.sleep(interval)
