"""Quick matches count against the same caps per client address as every other room: the
room a quick match opens is one of its first person's address's open rooms and new rooms,
and past a cap that person is told why and taken off the queue (the others wait on)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import CreateRoom, Error, Leave, Left, QuickMatch, Snapshot
from tests.server.wire import running_server, wire_client


async def test_a_quick_match_past_the_open_rooms_cap_is_refused(redis_url: str) -> None:
    settings = {"quick_match_wait": 0.2, "open_rooms_per_address": 2}
    async with (
        running_server(redis_url, **settings) as srv,
        wire_client(srv.url, "a") as (a, _),
        wire_client(srv.url, "b") as (b, _),
        wire_client(srv.url, "c") as (c, _),
    ):
        for owner in (a, b):  # the address's two open rooms
            await owner.send(CreateRoom(deals=3))
            await owner.recv_type(Snapshot, timeout=15)
        await c.send(QuickMatch())
        refusal = await c.recv_type(Error, timeout=15)
        assert refusal.code == ErrorCode.LIMIT_REACHED
        assert "open rooms" in refusal.message
        assert not [m for m in c.received if isinstance(m, Snapshot)]
        await a.send(Leave())  # one of them ends: a quick match opens again
        await a.recv_type(Left, timeout=15)
        await c.send(QuickMatch())
        snapshot = await c.recv_type(Snapshot, timeout=15)
        assert snapshot.room.mode == "quick"


async def test_quick_matches_count_among_the_new_rooms_of_an_hour(redis_url: str) -> None:
    settings = {"quick_match_wait": 0.2, "new_rooms_per_address": 2}
    async with running_server(redis_url, **settings) as srv:
        for _ in range(2):
            async with wire_client(srv.url) as (client, _):
                await client.send(QuickMatch())
                await client.recv_type(Snapshot, timeout=15)
                await client.send(Leave())
                await client.recv_type(Left, timeout=15)
        async with wire_client(srv.url) as (client, _):
            await client.send(CreateRoom(deals=3))  # the two quick rooms were this hour's two
            refusal = await client.recv_type(Error, timeout=15)
            assert refusal.code == ErrorCode.LIMIT_REACHED and "new rooms" in refusal.message
            await client.send(QuickMatch())
            refusal = await client.recv_type(Error, timeout=15)
            assert refusal.code == ErrorCode.LIMIT_REACHED and "new rooms" in refusal.message
