"""The store's errors, and which redis-py exceptions mean "Redis could not be reached"."""

from __future__ import annotations

from redis import exceptions as redis_errors
from redis.asyncio.sentinel import MasterNotFoundError


class ReplicasBehind(Exception):
    """Fewer replicas than asked for acknowledged a batch of saves within the wait (Redis's
    ``WAIT``): the batch counts as not saved, though the primary holds it."""


StoreFailure = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.BusyLoadingError,
    OSError,
    # a cluster down or failing over (ClusterDownError, MasterDownError, "TTL exhausted")
    redis_errors.ClusterError,
    # a redirection the cluster client did not follow (AskError, MovedError) or a slot
    # being migrated (TryAgainError)
    redis_errors.AskError,
    redis_errors.TryAgainError,
    # no node reachable, a slot not covered (SlotNotCoveredError), ...
    redis_errors.RedisClusterException,
    # no Sentinel answered, or none names a primary that is up (a failover under way); a
    # ConnectionError, listed for the reader
    MasterNotFoundError,
    # the replicas asked for did not acknowledge a batch of saves in time
    ReplicasBehind,
)


class StoreError(Exception):
    """Base of the store's errors."""


class StoreUnavailable(StoreError):
    """Redis could not be reached or answered with an error: nothing was saved."""


class StoreConflict(StoreError):
    """The stored version is not the one this write was built on."""


class StoreFenced(StoreConflict):
    """A later owner of the room has written it: this process runs it no more."""
