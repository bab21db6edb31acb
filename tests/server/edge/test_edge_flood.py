"""What a flood leaves behind: refused frames keep nothing alive for the garbage collector
to walk, and a connection closed for flooding makes its address wait before its next
upgrade, a wait that grows with each such close and fades when the floods stop."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
import weakref
from pathlib import Path
from types import FrameType

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

import server
from protocol.codec import encode
from protocol.errors import Refusal
from protocol.messages import Ping
from server.edge.flood import FLOOD_WAIT_FIRST, FLOOD_WAIT_LONGEST, FloodRecord
from tests.server.wire import running_server, wire_client


async def test_refused_frames_leave_no_cyclic_garbage(redis_url: str) -> None:
    # a reconnecting flood's young collections took over 100 ms: each refusal left a cycle
    # (its error, held by its traceback, which held the frame that named it)
    settings = {"flood_close_after": 0, "rate_limit": 1e6, "rate_burst": 1_000_000}
    async with running_server(redis_url, **settings) as srv, wire_client(srv.url) as (client, _):
        for _ in range(5):  # (warm: first uses build caches)
            await client.send_raw(b"\xc1")
            await client.recv()
        gc.collect()
        gc.disable()
        try:
            for _ in range(200):
                await client.send_raw(b"\xc1")
            for _ in range(200):
                await client.recv()
            left = refusal_garbage()
        finally:
            gc.enable()
    assert left == [], f"{len(left)} refusals' objects in cycles after 200 refused frames"


def refusal_garbage() -> list[object]:
    """What a full collection finds in cycles of a refusal's making: refusal errors, and the
    frames of the server's own code. Only those: a count of everything failed one CI run
    on 1,412 objects this test did not make (Playwright's, from a browser test run earlier
    by the same pytest worker, found unreachable within the window)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        server_code = str(Path(server.__file__).parent)
        return [
            o
            for o in gc.garbage
            if isinstance(o, Refusal)
            or (isinstance(o, FrameType) and o.f_code.co_filename.startswith(server_code))
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


async def test_a_connection_closed_for_flooding_is_freed_without_the_collector(
    redis_url: str,
) -> None:
    # its websocket and its handler named each other: every closed connection waited in a
    # cycle for the next collection
    settings = {"flood_close_after": 5, "rate_limit": 1e6, "rate_burst": 1_000_000}
    async with running_server(redis_url, **settings) as srv:
        gc.collect()
        gc.disable()
        try:
            async with connect(srv.url) as ws:
                async with asyncio.timeout(5):
                    while not srv.app.hub.all:
                        await asyncio.sleep(0.01)
                gone = weakref.ref(next(iter(srv.app.hub.all)))
                for _ in range(6):
                    await ws.send(b"\xc1")
                with contextlib.suppress(ConnectionClosed):
                    async with asyncio.timeout(5):
                        while True:
                            await ws.recv()
            async with asyncio.timeout(5):
                while srv.app.hub.all:
                    await asyncio.sleep(0.01)
                while gone() is not None:  # (its end's last steps)
                    await asyncio.sleep(0.01)
        finally:
            gc.enable()


def test_an_address_waits_longer_after_each_flood_close_and_is_forgotten() -> None:
    record = FloodRecord(first=0.25, longest=4.0, memory=60.0)
    assert record.wait("a", 0.0) == 0.0  # never flooded: never waits
    record.closed("a", 0.0)
    assert record.wait("a", 0.0) == 0.25
    assert record.wait("a", 0.1) == pytest.approx(0.15)  # the wait runs from the close
    assert record.wait("b", 0.0) == 0.0  # another address is not touched
    for n in range(2, 10):
        record.closed("a", 1.0)
        assert record.wait("a", 1.0) == min(4.0, 0.25 * 2 ** (n - 1))
    assert record.wait("a", 1.0) == 4.0  # at most the longest
    assert record.wait("a", 62.0) == 0.0  # forgotten
    assert len(record) == 0
    record.closed("a", 100.0)
    assert record.wait("a", 100.0) == 0.25  # counting again from one


def test_the_record_keeps_a_bounded_number_of_addresses() -> None:
    record = FloodRecord(kept=3)
    for n in range(10):
        record.closed(f"10.0.0.{n}", float(n))
    assert len(record) == 3
    assert record.wait("10.0.0.0", 10.0) == 0.0 and record.wait("10.0.0.9", 9.0) > 0


async def _flood_once(url: str) -> None:
    async with connect(url) as ws:
        for _ in range(6):
            await ws.send(b"\xc1")
        with contextlib.suppress(ConnectionClosed):
            async with asyncio.timeout(5):
                while True:
                    await ws.recv()


async def _handshake_seconds(url: str, source: str) -> float:
    started = time.monotonic()
    async with connect(url, local_addr=(source, 0)) as ws:
        await ws.send(encode(Ping(id=1)))
        await ws.recv()  # (no hello yet: an error, but answered)
    return time.monotonic() - started


async def test_a_reconnecting_flood_waits_before_each_upgrade_and_a_neighbour_still_gets_in(
    redis_url: str,
) -> None:
    settings = {"flood_close_after": 5, "rate_limit": 1e6, "rate_burst": 1_000_000}
    async with running_server(redis_url, **settings) as srv:
        await _flood_once(srv.url)
        await _flood_once(srv.url)  # (waits FLOOD_WAIT_FIRST first)
        async with asyncio.timeout(5):
            while srv.app.hub.all:  # (its end handled: the close is on record before)
                await asyncio.sleep(0.005)
        # behind the same address, timed first from its close (see the next test)
        seen = time.monotonic()
        await _handshake_seconds(srv.url, "127.0.0.1")
        assert 2 * FLOOD_WAIT_FIRST * 0.8 < time.monotonic() - seen < FLOOD_WAIT_LONGEST + 2
        assert await _handshake_seconds(srv.url, "127.0.0.2") < FLOOD_WAIT_FIRST  # elsewhere


async def test_a_connection_that_breaks_the_protocol_makes_its_address_wait(
    redis_url: str,
) -> None:
    # a fragment flood reconnecting after each 1009 cost parsing without a token spent
    async with running_server(redis_url) as srv:
        async with connect(srv.url) as ws:
            ws.transport.write(b"\x82\x01x")  # unmasked: 1002
            with contextlib.suppress(ConnectionClosed):
                async with asyncio.timeout(5):
                    while True:
                        await ws.recv()
        async with asyncio.timeout(5):
            while srv.app.hub.all:  # (its end handled: the close is on record before)
                await asyncio.sleep(0.005)
        # The wait counts from the close, so the address's handshake is timed first, from
        # the moment its end was seen: timed after the neighbour's, on a loaded machine
        # (beside two CPU hogs) a third of the wait had already passed.
        seen = time.monotonic()
        await _handshake_seconds(srv.url, "127.0.0.1")
        assert time.monotonic() - seen >= FLOOD_WAIT_FIRST * 0.8
        assert await _handshake_seconds(srv.url, "127.0.0.2") < FLOOD_WAIT_FIRST
