"""Across a restart the seat on turn loses none of its clock to the time its person takes to
come back: the clock given back counts from their return, within the grace (``resume_grace``).
Real sockets, real Redis, the server stopped and started again."""

from __future__ import annotations

import asyncio

from protocol.events import TurnStarted
from protocol.messages import CreateRoom, ReadyRequest, SeatBot, Snapshot
from tests.redis_server import unique_prefix
from tests.server.wire import running_server, wire_client

#: The person comes back this long after the room is back, well within the grace.
RETURN_AFTER = 2.0


async def test_the_clock_counts_from_the_persons_return_within_the_grace(redis_url: str) -> None:
    prefix = unique_prefix()
    timing = {"bid_timeout": 6.0, "play_timeout": 6.0, "ready_timeout": 6.0, "resume_grace": 5.0}
    async with running_server(redis_url, key_prefix=prefix, **timing) as srv:
        async with wire_client(srv.url) as (client, welcome):
            await client.send(CreateRoom(deals=3))
            snapshot: Snapshot = await client.recv_type(Snapshot)
            for _ in range(2):
                await client.send(SeatBot(level="easy"))
            await client.send(ReadyRequest())
            turn: TurnStarted = await client.recv_type(TurnStarted)
            while turn.seat != 0:  # the person's turn (the bots answer within a second)
                turn = await client.recv_type(TurnStarted)
            code = snapshot.room.code
            runner = srv.app.rooms[code]
    # what the seat had left when the room was last saved, as the server stopped
    stopped = runner.room
    assert stopped.match is not None and stopped.match.deadline is not None
    assert stopped.saved_at is not None
    left = stopped.match.deadline - stopped.saved_at
    assert 0 < left <= 6.0
    async with running_server(redis_url, key_prefix=prefix, **timing) as srv:
        room = srv.app.rooms[code].room
        assert room.match is not None and room.match.held is not None  # waiting for them
        await asyncio.sleep(RETURN_AFTER)  # the person is not back yet: the outage goes on
        async with wire_client(srv.url, token=welcome.token) as (client, again):
            assert again.resumed and again.room == code
            back: Snapshot = await client.recv_type(Snapshot)
            table = back.room.table
            assert table is not None and table.turn is not None and table.turn.seat == 0
            assert table.turn.deadline is not None
            # the whole time the seat had, counted from its return (not from the room's)
            assert table.turn.deadline - table.turn.server_time >= left - 0.01
            assert room.match.held is None
            assert room.match.deadline == table.turn.deadline
