"""A player who connects again while their room's process cannot be reached: they get the
room as stored and a retryable refusal at once, and their return is tried again until the
room's process takes it, so that it sends them its moves again (a room sends nothing to a
seat it sees away). Two server processes on the test run's Redis."""

from __future__ import annotations

import asyncio

import pytest

from protocol.errors import ErrorCode
from protocol.messages import CreateRoom, Error, JoinRoom, Snapshot
from server.cluster.messages import Answer, Forward
from server.cluster.relay import RelayTimeout
from tests.redis_server import unique_prefix
from tests.server.wire import RunningServer, running_server, wire_client


async def test_a_return_its_rooms_process_did_not_take_is_tried_until_it_does(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = unique_prefix()
    async with (
        running_server(redis_url, key_prefix=prefix) as a,
        running_server(redis_url, key_prefix=prefix) as b,
    ):
        async with wire_client(a.url, "host") as (host, _):
            await host.send(CreateRoom())
            code = (await host.recv_type(Snapshot)).room.code
            async with wire_client(b.url, "ann") as (ann, welcome):
                await ann.send(JoinRoom(code=code))
                assert (await ann.recv_type(Snapshot)).room.your_seat == 1
            await until_connected(a, code, 1, False)

            relay = b.app.cluster.relay
            call = relay.call
            lost = 3

            async def lossy(node: str, forward: Forward) -> Answer:
                nonlocal lost
                if forward.op.kind == "back" and lost > 0:
                    lost -= 1
                    raise RelayTimeout("lost on the way")
                return await call(node, forward)

            monkeypatch.setattr(relay, "call", lossy)
            async with wire_client(b.url, "ann", token=welcome.token) as (ann, again):
                assert again.resumed and again.room == code
                stored = await ann.recv_type(Snapshot)  # the room as stored, at once
                assert stored.room.your_seat == 1
                refused = await ann.recv_type(Error)
                assert refused.code == ErrorCode.UNAVAILABLE

                fresh = await ann.recv_type(Snapshot)  # from the room's process, later
                assert fresh.room.your_seat == 1 and lost == 0
                await until_connected(a, code, 1, True)


async def until_connected(server: RunningServer, code: str, seat: int, connected: bool) -> None:
    """Until the room, run on ``server``, sees the seat's person connected (or away)."""
    async with asyncio.timeout(5):
        while server.app.rooms[code].room.seats[seat].connected != connected:
            await asyncio.sleep(0.01)
