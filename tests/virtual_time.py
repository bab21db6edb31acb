"""An asyncio event loop on a clock the test controls: time moves on only when the loop has
nothing else to do, straight to its next timer. A 20 s clock runs out at once, in order,
with ``loop.time()`` saying 20 s later; sockets and pipes still work (they are polled
without waiting while a timer is due). For tests of timers in code that schedules them on
its loop (``call_later``, ``asyncio.sleep``), which would otherwise wait real seconds."""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

T = TypeVar("T")


class _Skipping(selectors.BaseSelector):
    """A selector that, asked to wait for a timer, looks without waiting and, with nothing
    ready, moves its loop's clock on by the wait instead."""

    def __init__(self, real: selectors.BaseSelector, loop: VirtualTimeLoop) -> None:
        self._real = real
        self._loop = loop

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._real.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.modify(fileobj, events, data)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None:  # no timer set: wait for I/O as any loop does
            return self._real.select(None)
        ready = self._real.select(0)
        if not ready and timeout > 0:
            self._loop.now += timeout
        return ready

    def close(self) -> None:
        self._real.close()

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self._real.get_map()


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose ``time()`` is virtual (see the module)."""

    def __init__(self) -> None:
        #: The loop's clock, in seconds; only the loop moves it on.
        self.now = 1000.0
        super().__init__(_Skipping(selectors.DefaultSelector(), self))

    def time(self) -> float:
        return self.now


def run_in_virtual_time(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to its end on a ``VirtualTimeLoop`` of its own (closed after)."""
    loop = VirtualTimeLoop()
    try:
        return loop.run_until_complete(main)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
