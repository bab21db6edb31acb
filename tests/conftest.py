"""Fixtures shared by every test package: a real Redis, and a key prefix per test; each
test's layer marker (``tests/layers.py``); and a check at the end of the run that it left no
process behind."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator

import pytest

from tests import processes
from tests.layers import LAYERS, mark_layers
from tests.redis_server import RedisProcess, external_url, unique_prefix

#: Seconds the end-of-run check gives processes still stopping (a Redis told to shut down
#: by its dead server, a pool worker) before it names them.
LEFT_BEHIND_WAIT = 5.0
#: The children of the test process itself that end with it: the bot pool of the servers
#: run in-process (``running_server``) and multiprocessing's resource tracker.
OWN_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.spawn")

_MARKER = pytest.StashKey[str]()

# Every server the tests start (in-process or as a process, the chaos run's included) starts
# the strong bots' two worker interpreters at the first strong decision, not with the server:
# few tests seat a strong bot, and a warm pool costs each server start two interpreters.
# The tests of the pool itself and of the server's children ask for ``warm`` explicitly.
os.environ.setdefault("DDZ_BOT_POOL_START", "lazy")
# Nor do they mine the matches they close for puzzles (seconds of a core per deal, in the
# background, beside every other test's work: the tests of mining ask for it), and their
# review process runs at the server's priority: niced under the suite's load, it waited for
# idle CPU, and a review test's time was the machine's load (the mining test took 113 s at
# a load of 13; its self-play job is 3.4 s of CPU alone).
os.environ.setdefault("DDZ_PUZZLE_MINE_SECONDS", "0")
os.environ.setdefault("DDZ_REVIEW_NICENESS", "0")


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_MARKER] = processes.mark_session()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test gets its layer's marker (unit, integration, slow or browser), so that
    ``-m unit`` runs the fast layer alone; and the modules are put in the order the
    parallel run takes them (``module_order``)."""
    mark_layers(items)
    layer: dict[str, int] = {}
    for item in items:
        layers = [LAYERS.index(m.name) for m in item.iter_markers() if m.name in LAYERS]
        module = item.nodeid.split("::")[0]
        layer[module] = max(layer.get(module, 0), *layers)
    rank = {module: at for at, module in enumerate(module_order(layer))}
    items.sort(key=lambda item: rank[item.nodeid.split("::")[0]])


def module_order(layer: dict[str, int]) -> list[str]:
    """The modules (with their layer's index, in collection order) in the order pytest-xdist
    hands them to its workers (``--no-loadscope-reorder``; whole modules, ``loadfile``): the
    browser, slow and integration layers interleaved evenly, each in its own order, then the
    unit layer. The browser tests keep the cores busy (Chromium), the slow and integration
    ones mostly wait (on servers, failovers, clocks): run side by side, the waits overlap the
    work. Taken one layer after another, the cores stood half idle through the waiting ones
    and the run took 306 s; the unit layer's short modules last fill the end of the run."""
    by_layer: dict[int, list[str]] = {}
    for module, index in layer.items():
        by_layer.setdefault(index, []).append(module)
    unit = LAYERS.index("unit")
    spread = [
        ((at + 0.5) / len(modules), -index, module)
        for index, modules in by_layer.items()
        if index != unit
        for at, module in enumerate(modules)
    ]
    return [module for *_, module in sorted(spread)] + by_layer.get(unit, [])


def _parallel_worker(config: pytest.Config) -> bool:
    """Whether this process is one of pytest-xdist's workers (the controller checks for
    what the workers left, once they have ended)."""
    return hasattr(config, "workerinput")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when it leaves a process behind: a server, redis-server, bot-pool
    worker or client it started (its own children, or re-parented to init once their
    parent died), told from other runs' by the environment marker every child inherits.
    They are named, then killed. In a parallel run the controller does this after its
    workers have ended, for every worker's marker (a worker's own result would not reach
    the run's exit status)."""
    marker = session.config.stash.get(_MARKER, None)
    if marker is None or _parallel_worker(session.config):
        return
    me = os.getpid()
    candidates = set(processes.marked(marker, family=True)) | set(processes.descendants(me))
    candidates = {
        pid
        for pid in candidates
        if not (
            processes.parent(pid) == me
            and any(h in processes.command_line(pid) for h in OWN_HELPERS)
        )
    }
    left = processes.wait_gone(sorted(candidates), LEFT_BEHIND_WAIT)
    if not left:
        return
    named = [f"  {pid}: {processes.command_line(pid)}" for pid in left]
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    text = "the test run left processes behind (now killed):\n" + "\n".join(named)
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line(text, red=True)
    else:
        print(text)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


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
