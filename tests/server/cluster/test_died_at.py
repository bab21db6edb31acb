"""A room taken over after its process died (kill -9) gives its running clock the time it
had left when the process died, as the process's last sign of life says, not the whole
clock it had at the room's last save (issue 34: 14 s were left of 20, and 20 came back).
Over the in-memory store, on a clock of the test's."""

from __future__ import annotations

import random

from server.cluster.directory import ALIVE_STALE
from server.rooms.room import Clocks, Room
from tests.server.cluster.harness import Node, nodes

CLOCK = 20.0


async def a_timed_room(node: Node, now: float) -> tuple[str, float]:
    """A quick match of one person and two bots run on ``node``, its first turn's clock
    running (the bots not set going): its code and that clock's deadline."""
    ann = await node.connect("Ann")
    session = node.sessions.of_player(ann)
    assert session is not None
    code = "ROOMQ"
    await node.sessions.enter(session, code)
    room = Room.quick(code, [(ann, "Ann")], Clocks(bid=CLOCK, play=CLOCK, ready=10.0))
    room.start_match(now, random.Random(1))
    runner = await node.directory.open(room)
    assert runner is not None and runner.room.match is not None
    deadline = runner.room.match.deadline
    assert deadline == now + CLOCK
    return code, deadline


def died(node: Node) -> None:
    for runner in node.directory.rooms.values():
        runner.stop()
    node.directory.rooms.clear()


async def test_another_process_gives_the_clock_what_it_had_when_its_process_died() -> None:
    async with nodes("a:1", "b:2", lease_ttl=5.0) as (_, clock, (a, b)):
        start = clock.now
        code, _ = await a_timed_room(a, start)
        await a.store.note_alive("a:1", start + 6.0)  # its last sign of life, 6 s in
        died(a)
        clock.now = start + 10.0  # its lease ran out; b takes the room over
        await b.store.note_alive("b:2", clock.now)  # (b is alive)
        await b.directory.adopt(code)
        room = b.directory.rooms[code].room
        assert room.match is not None and room.match.held is not None
        assert room.match.held == CLOCK - 6.0  # 14 s left, not the whole 20
        grace = b.directory.settings.resume_grace
        assert room.match.deadline == clock.now + grace + CLOCK - 6.0
        assert room.view_for(None, clock.now).table.restarted  # type: ignore[union-attr]


async def test_the_same_node_started_again_reads_its_previous_life() -> None:
    async with nodes("a:1", lease_ttl=5.0) as (_, clock, (a,)):
        start = clock.now
        code, _ = await a_timed_room(a, start)
        await a.store.note_alive("a:1", start + 15.0)
        died(a)
        clock.now = start + 40.0  # down 25 s (longer than the turn), started again
        await a.directory.note_start()
        await a.store.note_alive("a:1", clock.now)  # the new life's first sign
        await a.directory.adopt(code)
        room = a.directory.rooms[code].room
        assert room.match is not None and room.match.held == 5.0  # the 5 s left (the floor)


async def test_a_room_saved_after_the_last_sign_of_life_keeps_its_saved_time() -> None:
    """A process alive (its stamp fresh) handed the room over: the room's last save says."""
    async with nodes("a:1", "b:2", lease_ttl=5.0) as (_, clock, (a, b)):
        start = clock.now
        code, _ = await a_timed_room(a, start)
        await a.store.note_alive("a:1", start - 1.0)  # before the save: no death after it
        died(a)
        clock.now = start + ALIVE_STALE + 7.0
        await b.directory.adopt(code)
        room = b.directory.rooms[code].room
        assert room.match is not None and room.match.held == CLOCK
