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


async def test_the_queue_seats_players_of_close_skill_and_the_far_one_waits() -> None:
    async with lobby(quick_match_wait=15.0) as lob:
        people = {name: await lob.hello(name) for name in ("Ann", "Bo", "Cy", "Di")}
        skills = {"Ann": 25.0, "Bo": 40.0, "Cy": 26.0, "Di": 24.0}
        for name, (_, welcome) in people.items():  # a rated past: Bo is far better
            mu = skills[name]
            await lob.app.ladder.store.apply(
                welcome.player_id, "PAST", (25.0, 8.0), (mu, 3.0), name, 0.0
            )
        for conn, _ in people.values():
            await lob.say(conn, QuickMatch())
        assert await lob.app.matcher.tick() == 1
        code = lob.room_of(people["Ann"][1].player_id)
        assert code is not None
        seated = {s.name for s in lob.app.rooms[code].room.seats}
        assert seated == {"Ann", "Cy", "Di"}
        bo = people["Bo"][1].player_id
        assert lob.room_of(bo) is None and await lob.store.is_queued(bo)
        lob.clock.now += 15  # the wait: bots fill his table
        assert await lob.app.matcher.tick() == 1
        assert lob.room_of(bo) is not None


async def test_a_quick_match_of_one_person_with_bots_keeps_no_rating_start() -> None:
    """A person alone with bots is never rated: nothing is kept to rate the match by."""
    async with lobby(quick_match_wait=15.0) as lob:
        people = [await lob.hello(name) for name in ("Ann", "Bo")]
        await lob.say(people[0][0], QuickMatch())
        lob.clock.now += 15
        assert await lob.app.matcher.tick() == 1
        alone = lob.room_of(people[0][1].player_id)
        assert alone is not None and await lob.app.ladder.store.load_start(alone) is None
        carl = await lob.hello("Cy")
        for conn, _ in (people[1], carl):  # two persons (a bot in the third seat): rated
            await lob.say(conn, QuickMatch())
        lob.clock.now += 15
        assert await lob.app.matcher.tick() == 1
        pair = lob.room_of(carl[1].player_id)
        assert pair is not None and pair == lob.room_of(people[1][1].player_id)
        start = await lob.app.ladder.store.load_start(pair)
        assert start is not None
        assert [s["pid"] is not None for s in start["seats"]] == [True, True, False]
