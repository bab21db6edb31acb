"""A room run by one process, its players connected to another: their requests are
forwarded to the room's process and what the room sends them comes back through Redis.
Refusals reach the sender, typed, and change nothing; a player who connects again to
another process has their older connection closed; leaving from elsewhere frees them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis import exceptions as redis_errors
from websockets.exceptions import ConnectionClosed

from protocol.errors import ErrorCode
from protocol.events import DealStarted
from protocol.messages import (
    CreateRoom,
    Error,
    JoinRoom,
    Leave,
    LeaveQueue,
    Left,
    PlayRequest,
    Queued,
    QuickMatch,
    ReadyRequest,
    SeatBot,
    SeatsChanged,
    Snapshot,
)
from server.cluster import ops
from server.cluster.messages import Adopt, Forward, PlayerFrames, PlayerMessage
from server.cluster.relay import Relay
from server.rooms.room import RoomError
from server.rooms.stored import room_to_data
from server.store.redis_store import RedisStore
from tests.redis_server import unique_prefix
from tests.server.wire import RunningServer, running_server, wire_client


@contextlib.asynccontextmanager
async def two_processes(redis_url: str) -> AsyncIterator[tuple[RunningServer, RunningServer]]:
    prefix = unique_prefix()
    async with (
        running_server(redis_url, key_prefix=prefix) as a,
        running_server(redis_url, key_prefix=prefix) as b,
    ):
        yield a, b


async def test_a_refusal_from_the_rooms_process_reaches_the_sender_and_changes_nothing(
    redis_url: str,
) -> None:
    async with two_processes(redis_url) as (a, b):
        async with wire_client(a.url, "host") as (host, _), wire_client(b.url, "ann") as (ann, _):
            await host.send(CreateRoom())
            code = (await host.recv_type(Snapshot)).room.code
            await ann.send(JoinRoom(code=code))
            snapshot = await ann.recv_type(Snapshot)
            assert snapshot.room.code == code and snapshot.room.your_seat == 1
            assert code in a.app.rooms and code not in b.app.rooms
            before = room_to_data(a.app.rooms[code].room)
            rid = await ann.send(PlayRequest(ranks=[3]))  # no match yet
            error = await ann.recv_type(Error)
            assert error.request_id == rid and error.code == ErrorCode.WRONG_PHASE
            assert room_to_data(a.app.rooms[code].room) == before


async def test_a_room_code_no_process_knows_is_refused(redis_url: str) -> None:
    async with two_processes(redis_url) as (_, b), wire_client(b.url) as (ann, _):
        await ann.send(JoinRoom(code="ZZZZZ"))
        assert (await ann.recv_type(Error)).code == ErrorCode.NO_ROOM


async def test_connecting_again_to_another_process_replaces_the_older_connection(
    redis_url: str,
) -> None:
    async with two_processes(redis_url) as (a, b):
        async with wire_client(a.url, "host") as (host, _):
            await host.send(CreateRoom())
            code = (await host.recv_type(Snapshot)).room.code
            async with wire_client(b.url, "ann") as (ann, welcome):
                await ann.send(JoinRoom(code=code))
                await ann.recv_type(Snapshot)
                async with wire_client(a.url, token=welcome.token) as (again, back):
                    assert back.resumed and back.room == code
                    assert (await again.recv_type(Snapshot)).room.your_seat == 1
                    try:
                        while True:
                            await ann.recv(timeout=5)
                    except ConnectionClosed as closed:
                        assert closed.rcvd is not None and closed.rcvd.code == 4000
                    seats = a.app.rooms[code].room.seats
                    assert seats[1].connected  # the old link's end marked nobody gone
                    # B seeing the old link drop late: stale, it changes nothing
                    await b.app.directory.route(code, ops.Gone(welcome.player_id))
                    assert a.app.rooms[code].room.seats[1].connected
                    await a.app.directory.route(code, ops.Gone(welcome.player_id))
                    assert not a.app.rooms[code].room.seats[1].connected  # A's is not


async def test_leaving_a_room_run_elsewhere_frees_the_player(redis_url: str) -> None:
    async with two_processes(redis_url) as (a, b):
        async with wire_client(a.url, "host") as (host, _), wire_client(b.url, "ann") as (ann, _):
            await host.send(CreateRoom())
            code = (await host.recv_type(Snapshot)).room.code
            await ann.send(JoinRoom(code=code))
            await ann.recv_type(Snapshot)
            await ann.send(QuickMatch())
            assert (await ann.recv_type(Error)).code == ErrorCode.ALREADY_SEATED
            await ann.send(Leave())
            await ann.recv_type(Left)
            seats = (await host.recv_type(SeatsChanged)).seats
            while seats[1].kind != "empty":
                seats = (await host.recv_type(SeatsChanged)).seats
            await ann.send(QuickMatch())
            await ann.recv_type(Queued)


async def test_a_player_who_left_mid_deal_is_not_brought_back_to_the_bots_hand(
    redis_url: str,
) -> None:
    """Ann left during a deal (a bot plays her seat now); a "back" for her, as a session
    that missed her leaving would send, is refused and shows her no snapshot of the seat."""
    async with two_processes(redis_url) as (a, b):
        async with wire_client(a.url, "host") as (host, _), wire_client(b.url, "ann") as (ann, w):
            await host.send(CreateRoom())
            code = (await host.recv_type(Snapshot)).room.code
            await ann.send(JoinRoom(code=code))
            await ann.recv_type(Snapshot)
            await host.send(SeatBot(level="easy"))
            await host.send(ReadyRequest())
            await ann.send(ReadyRequest())
            await ann.recv_type(DealStarted)
            await ann.send(Leave())
            await ann.recv_type(Left)
            for directory in (b.app.directory, a.app.directory):  # forwarded, then local
                with pytest.raises(RoomError) as refused:
                    await directory.route(code, ops.Back(w.player_id))
                assert refused.value.code == ErrorCode.NO_ROOM
            rid = await ann.send(LeaveQueue())  # answered after anything the ops sent her
            while not isinstance(message := await ann.recv(), Error):
                assert not isinstance(message, Snapshot)
            assert message.request_id == rid and message.code == ErrorCode.NOT_QUEUED


async def test_a_join_whose_answer_is_lost_seats_the_player_once(redis_url: str) -> None:
    """The process running the room takes ann in, but her process gives up waiting for the
    answer: she gets a retryable error, then her snapshot from the room's process, and a
    second try is answered as a reconnect (a fresh snapshot) instead of seating her twice."""
    prefix = unique_prefix()
    async with (
        running_server(redis_url, key_prefix=prefix) as a,
        running_server(redis_url, key_prefix=prefix, forward_timeout=0.000001) as b,
    ):
        async with wire_client(a.url, "host") as (host, _), wire_client(b.url, "ann") as (ann, _):
            await host.send(CreateRoom())
            code = (await host.recv_type(Snapshot)).room.code
            await ann.send(JoinRoom(code=code))
            got: dict[type, Any] = {}
            while len(got) < 2:  # in either order
                message = await ann.recv()
                if isinstance(message, Error | Snapshot):
                    got[type(message)] = message
            assert got[Error].code == ErrorCode.UNAVAILABLE
            assert got[Snapshot].room.your_seat == 1
            await ann.send(JoinRoom(code=code))
            assert (await ann.recv_type(Snapshot)).room.your_seat == 1
            seats = a.app.rooms[code].room.seats
            assert [seat.player_id for seat in seats].count(ann_id(seats)) == 1


def ann_id(seats: list[Any]) -> str:
    (player,) = [seat.player_id for seat in seats if seat.name == "ann"]
    assert isinstance(player, str)
    return player


async def test_a_player_is_welcomed_while_the_relay_cannot_subscribe_for_them(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Subscribing to a player's channel fails (the relay's link is down, the store is up):
    they are still welcomed, and the relay subscribes them when its link is back."""
    async with running_server(redis_url) as srv:
        relay = srv.app.relay
        assert relay._pubsub is not None

        async def link_down(*_channels: str) -> None:
            raise redis_errors.ConnectionError("link down")

        monkeypatch.setattr(relay._pubsub, "subscribe", link_down)
        async with wire_client(srv.url, "ann") as (_, welcome):
            assert welcome.player_id in relay._players


async def test_a_handed_over_room_sends_nothing_before_what_its_old_process_sent(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A's last message to ann is still in A's outbox when A goes down: A publishes it
    before it gives the room up, so what B sends on taking over comes after it."""
    async with two_processes(redis_url) as (a, b):
        async with wire_client(a.url, "host") as (host, _), wire_client(b.url, "ann") as (ann, w):
            await host.send(CreateRoom())
            code = (await host.recv_type(Snapshot)).room.code
            await ann.send(JoinRoom(code=code))
            await ann.recv_type(Snapshot)
            await host.recv_type(SeatsChanged)  # ann sat down
            publish_many = a.app.store.publish_many

            async def slow_publish(messages: list[tuple[str, bytes]]) -> None:
                await asyncio.sleep(0.3)  # A's outbox is behind
                await publish_many(messages)

            monkeypatch.setattr(a.app.store, "publish_many", slow_publish)
            await host.send(SeatBot(level="easy"))
            await host.recv_type(SeatsChanged)  # applied, saved; ann's copy is queued
            await a.app.directory.hand_over()
            await b.app.directory.route(code, ops.Back(w.player_id))  # B takes it over
            before = []
            while not isinstance(message := await ann.recv(), Snapshot):
                before.append(type(message))
            # A's (the bot sat down), then B's on taking over (everyone disconnected)
            assert before == [SeatsChanged, SeatsChanged]


class Heard:
    """A relay's inbox that keeps what reaches it."""

    def __init__(self) -> None:
        self.forwards: list[Forward] = []
        self.frames: list[tuple[str, PlayerMessage]] = []
        self.came = asyncio.Event()

    def for_player(self, player_id: str, message: PlayerMessage) -> None:
        self.frames.append((player_id, message))
        self.came.set()

    def forwarded(self, message: Forward) -> None:
        self.forwards.append(message)
        self.came.set()

    def adopt(self, message: Adopt) -> None:
        pass

    def resync(self) -> None:
        pass


def arriving_while_subscribing(
    relay: Relay, player: str, arrivals: list[asyncio.Task[None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each link the relay makes: ``player`` connects (``watch_player``) while the link's
    SUBSCRIBE is on its way, as players do who come back after a failover."""
    store = relay.store
    make = store.subscriber

    def subscriber() -> Any:
        client: Any = make()
        make_pubsub = client.pubsub

        def pubsub(**options: Any) -> Any:
            made: Any = make_pubsub(**options)
            subscribe = made.subscribe

            async def subscribing(*channels: str) -> None:
                if relay.inbox in channels:
                    arrivals.append(asyncio.ensure_future(relay.watch_player(player)))
                await subscribe(*channels)

            made.subscribe = subscribing
            return made

        client.pubsub = pubsub
        return client

    monkeypatch.setattr(store, "subscriber", subscriber)


@pytest.mark.parametrize("link", ["at start", "made again"])
async def test_a_player_connecting_while_the_relay_subscribes_leaves_it_hearing_everything(
    redis_url: str, link: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player connects while the relay makes its link to Redis (at start, or again after
    it dropped): the relay still hears what is forwarded to its process, and what rooms
    elsewhere send that player. Two SUBSCRIBEs at once on redis-py's fresh PubSub open two
    links, and it reads only the last: a process deaf to its forwards while it renews its
    leases leaves its rooms' players refused "the room's server does not answer"."""
    store = RedisStore.from_url(redis_url, 60, 60, prefix=unique_prefix())
    heard = Heard()
    b = Relay(store, "b", 1.0, heard)
    a = Relay(store, "a", 1.0, Heard())
    arrivals: list[asyncio.Task[None]] = []
    try:
        if link == "at start":
            arriving_while_subscribing(b, "ann", arrivals, monkeypatch)
            await b.start()
        else:
            await b.start()
            arriving_while_subscribing(b, "ann", arrivals, monkeypatch)
            host, port = b._pubsub.connection._writer.get_extra_info("sockname")[:2]
            await store.redis.execute_command("CLIENT", "KILL", "ADDR", f"{host}:{port}")
            async with asyncio.timeout(5):
                while not arrivals or not b.listening:  # the reader subscribes again
                    await asyncio.sleep(0.01)
        await a.start()
        await asyncio.gather(*arrivals)
        assert arrivals and b.listening
        a.to_node(
            "b", Forward(call=1, reply_to="a", code="ROOM1", op=ops.to_data(ops.Back("ann"), "a"))
        )
        a.to_player("ann", PlayerFrames(frames=[b"hello"]))
        async with asyncio.timeout(5):
            while not (heard.forwards and heard.frames):
                heard.came.clear()
                await heard.came.wait()
        assert [f.code for f in heard.forwards] == ["ROOM1"]
        assert heard.frames == [("ann", PlayerFrames(frames=[b"hello"]))]
    finally:
        await a.stop()
        await b.stop()
        await store.close()
