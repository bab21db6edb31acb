"""The tests' virtual-time loop: timers ring in order at once, the clock says when."""

from __future__ import annotations

import asyncio
import socket
import time

from tests.virtual_time import run_in_virtual_time


def test_a_long_sleep_takes_no_real_time_and_the_clock_moves_on_by_it() -> None:
    async def main() -> float:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await asyncio.sleep(20)
        return loop.time() - start

    began = time.monotonic()
    assert run_in_virtual_time(main()) == 20
    assert time.monotonic() - began < 1


def test_timers_ring_in_order_at_their_times() -> None:
    async def main() -> list[tuple[str, float]]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        rang: list[tuple[str, float]] = []
        done = loop.create_future()
        for name, delay in (("c", 15.0), ("a", 5.0), ("b", 10.0)):
            loop.call_later(delay, lambda n=name: rang.append((n, loop.time() - start)))
        loop.call_later(16, done.set_result, None)
        await done
        return rang

    assert run_in_virtual_time(main()) == [("a", 5.0), ("b", 10.0), ("c", 15.0)]


def test_sockets_still_answer_while_a_timer_is_set() -> None:
    """I/O is looked at before the clock jumps: what is ready comes first."""

    async def main() -> tuple[bytes, float]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        left, right = socket.socketpair()
        left.setblocking(False)
        right.setblocking(False)
        later = loop.call_later(30, lambda: None)
        right.send(b"hi")
        data = await loop.sock_recv(left, 2)
        later.cancel()
        left.close()
        right.close()
        return data, loop.time() - start

    assert run_in_virtual_time(main()) == (b"hi", 0.0)
