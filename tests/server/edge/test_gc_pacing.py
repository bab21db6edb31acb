"""The server collects garbage on a clock (``server.edge.gc_pacing``): young collections every
``--gc-interval`` seconds, a middle one every tenth, a full one every 300th; CPython's
automatic collector is off meanwhile and back on after."""

from __future__ import annotations

import asyncio
import gc
import urllib.request
from pathlib import Path
from typing import Any

from server.edge.gc_pacing import FULL_EVERY, MIDDLE_EVERY, GcPacer
from tests.redis_server import free_port, unique_prefix
from tests.server.procs import ServerProcess


def test_young_collections_with_a_middle_one_every_tenth_and_a_full_one_every_300th() -> None:
    generations = [GcPacer.generation(tick) for tick in range(1, FULL_EVERY + 1)]
    assert generations[: MIDDLE_EVERY - 1] == [0] * (MIDDLE_EVERY - 1)
    assert generations[MIDDLE_EVERY - 1] == 1
    assert generations.count(1) == FULL_EVERY // MIDDLE_EVERY - 1
    assert generations.count(2) == 1 and generations[-1] == 2


async def test_the_pacer_collects_on_its_clock_with_the_automatic_collector_off() -> None:
    seen: list[int] = []
    tenth = asyncio.Event()

    def witness(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            seen.append(info["generation"])
            if len(seen) >= MIDDLE_EVERY:
                tenth.set()

    pacer = GcPacer(0.005)
    gc.callbacks.append(witness)
    try:
        pacer.start()
        assert not gc.isenabled()
        await asyncio.wait_for(tenth.wait(), 10)
    finally:
        pacer.stop()
        gc.callbacks.remove(witness)
    assert gc.isenabled()
    assert seen[: MIDDLE_EVERY - 1] == [0] * (MIDDLE_EVERY - 1)
    assert seen[MIDDLE_EVERY - 1] == 1


def young_collections(port: int) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    line = next(
        x for x in text.splitlines() if x.startswith('ddz_gc_pause_seconds_count{generation="0"}')
    )
    return float(line.split()[-1])


async def test_an_idle_server_process_collects_on_its_clock(redis_url: str, tmp_path: Path) -> None:
    """Nothing allocates in an idle server, so the automatic collector would not run: the
    young collections the metrics count are the pacer's."""
    store = ["--redis-url", redis_url, "--key-prefix", unique_prefix()]
    flags = ("--gc-interval", "0.02", "--metrics-on-game-port")
    server = ServerProcess(free_port(), store, tmp_path / "server.log", *flags)
    await server.start()
    try:
        first = await asyncio.to_thread(young_collections, server.port)
        for _ in range(500):
            if await asyncio.to_thread(young_collections, server.port) >= first + 20:
                break
            await asyncio.sleep(0.02)
        assert await asyncio.to_thread(young_collections, server.port) >= first + 20
    finally:
        await server.stop()
