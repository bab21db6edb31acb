"""The quick-match queue: joining and leaving it, and the rooms of the matches taken off
it, on the in-memory stores (the matcher is ticked by hand, on the fake clock)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import CreateRoom, LeaveQueue, Queued, QueueLeft, QuickMatch, Snapshot
from tests.server.lobby.harness import lobby


async def test_joining_and_leaving_the_queue_are_answered_once_each() -> None:
    async with lobby(quick_match_wait=15.0) as lob:
        conn, ann = await lob.hello("Ann")
        queued = await lob.say(conn, QuickMatch())
        assert isinstance(queued, Queued) and queued.waiting == 1 and queued.wait == 15.0
        assert (await lob.refused(conn, QuickMatch())).code == ErrorCode.ALREADY_QUEUED
        assert (await lob.refused(conn, CreateRoom())).code == ErrorCode.ALREADY_QUEUED
        assert isinstance(await lob.say(conn, LeaveQueue()), QueueLeft)
        assert (await lob.refused(conn, LeaveQueue())).code == ErrorCode.NOT_QUEUED
        assert not await lob.store.is_queued(ann.player_id)


async def test_three_waiting_people_are_seated_together_at_once() -> None:
    async with lobby() as lob:
        people = [await lob.hello(name) for name in ("Ann", "Bo", "Cy")]
        for conn, _ in people:
            await lob.say(conn, QuickMatch())
        assert await lob.app.matcher.tick() == 1
        (code,) = {lob.room_of(welcome.player_id) for _, welcome in people}
        assert code is not None
        room = lob.app.rooms[code].room
        assert [s.kind for s in room.seats] == ["person"] * 3 and room.match is not None
        for _, welcome in people:
            assert lob.last(welcome.player_id, Snapshot).room.code == code
            assert not await lob.store.is_queued(welcome.player_id)


async def test_one_who_waited_the_whole_wait_plays_with_bots() -> None:
    async with lobby(quick_match_wait=15.0) as lob:
        conn, ann = await lob.hello("Ann")
        await lob.say(conn, QuickMatch())
        assert await lob.app.matcher.tick() == 0  # not yet
        lob.clock.now += 15
        assert await lob.app.matcher.tick() == 1
        code = lob.room_of(ann.player_id)
        assert code is not None
        assert [s.kind for s in lob.app.rooms[code].room.seats] == ["person", "bot", "bot"]


async def test_leaving_the_connection_takes_the_person_off_the_queue() -> None:
    async with lobby() as lob:
        conn, ann = await lob.hello("Ann")
        await lob.say(conn, QuickMatch())
        await lob.app.disconnected(conn)  # type: ignore[arg-type]
        assert not await lob.store.is_queued(ann.player_id)
