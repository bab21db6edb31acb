"""One person, one place, even when two of their connections ask at once: a room created
on one connection while a second connection (on the same process or another) resumes the
same token and joins another room seats them in one room at most, every time.

Issue 11, item 9: create_room in flight on one connection while a second connection
resumed the token and joined: seated in both rooms in 6 of 30 tries, one room left
waiting for ever."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol.messages import PROTOCOL_VERSION, CreateRoom, Hello, JoinRoom, Snapshot
from server.rooms.stored import room_from_stored
from tests.redis_server import unique_prefix
from tests.server.wire import RunningServer, WireClient, running_server, wire_client

TRIES = 30
#: Tries run side by side (another process, then the same one, in turn).
AT_ONCE = 5


@contextlib.asynccontextmanager
async def two_processes(redis_url: str) -> AsyncIterator[tuple[RunningServer, RunningServer]]:
    prefix = unique_prefix()
    # Sixty rooms from one address in a few seconds: the per-address caps are not on trial.
    uncapped = {"open_rooms_per_address": 0, "new_rooms_per_address": 0}
    async with (
        running_server(redis_url, key_prefix=prefix, **uncapped) as a,
        running_server(redis_url, key_prefix=prefix, **uncapped) as b,
    ):
        yield a, b


async def drain(client: WireClient, seconds: float) -> None:
    """Read whatever comes for ``seconds`` (the connection may be closed as replaced)."""
    with contextlib.suppress(TimeoutError, ConnectionClosed):
        async with asyncio.timeout(seconds):
            while True:
                await client.recv(seconds)


async def rooms_holding(servers: tuple[RunningServer, ...], player: str) -> list[str]:
    """The codes of the open rooms, as stored, that seat or show ``player``."""
    store = servers[0].app.store
    found = []
    for code in await store.active_rooms():
        data = await store.load_room(code)
        room = None if data is None else room_from_stored(data)
        if room is not None and room.closed is None and room.is_member(player):
            found.append(code)
    return found


async def one_try(
    first: RunningServer, second: RunningServer, servers: tuple[RunningServer, ...]
) -> list[str]:
    async with wire_client(first.url, "host") as (host, _):
        await host.send(CreateRoom())
        code = (await host.recv_type(Snapshot)).room.code
        async with wire_client(first.url, "ann") as (ann, welcome), connect(second.url) as ws:
            again = WireClient(ws)
            hello = Hello(name="ann", version=PROTOCOL_VERSION, token=welcome.token)
            await asyncio.gather(
                ann.send(CreateRoom()),
                again.send(hello),
                again.send(JoinRoom(code=code)),
            )
            await asyncio.gather(drain(ann, 0.5), drain(again, 0.5))
            return await rooms_holding(servers, welcome.player_id)


async def test_two_connections_of_one_person_never_seat_them_in_two_rooms(
    redis_url: str,
) -> None:
    async with two_processes(redis_url) as (a, b):
        counts: list[int] = []
        # a few tries at once (each its own people): each waits half a second for what its
        # requests set going, and thirty of those one after another took 15 s
        for start in range(0, TRIES, AT_ONCE):
            seconds = [b if i % 2 == 0 else a for i in range(start, start + AT_ONCE)]
            found = await asyncio.gather(*(one_try(a, second, (a, b)) for second in seconds))
            counts += [len(codes) for codes in found]
        seated_twice = sum(n > 1 for n in counts)
        assert seated_twice == 0, f"seated in two rooms in {seated_twice} of {TRIES} tries"
        assert counts == [1] * TRIES  # and in one: whichever request came second was refused
