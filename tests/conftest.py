"""Fixtures shared by every test package: a real Redis, and a key prefix per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.redis_server import RedisProcess, external_url, unique_prefix


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``REDIS_URL`` when set, else a redis-server this test run starts and stops."""
    url = external_url()
    if url is not None:
        yield url
        return
    process = RedisProcess(tmp_path_factory.mktemp("redis"), appendonly=False).start()
    try:
        yield process.url
    finally:
        process.stop()


@pytest.fixture
def key_prefix() -> str:
    """A key prefix of this test's own."""
    return unique_prefix()


@pytest.fixture(scope="session")
def redis_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``REDIS_CLUSTER_URL`` when set, else a three-master Redis Cluster this test run starts
    (at its first use, in about two seconds) and stops."""
    from tests.redis_cluster import ClusterProcesses, external_cluster_url

    url = external_cluster_url()
    if url is not None:
        yield url
        return
    cluster = ClusterProcesses(data_dir=tmp_path_factory.mktemp("redis-cluster")).start()
    try:
        yield cluster.url
    finally:
        cluster.stop()
