"""Issue 14 over real sockets and Redis: names unique at a table, quick chat and its limit,
the replay of a finished match for who played or watched it (equal to its journal, as
``ddz-replay`` reads it), each player's history, and the rematch. No message of these holds
a card of a hidden hand before the match is over."""

from __future__ import annotations

import asyncio
import io
import random
from typing import Any

import msgpack

from client.table import TableState
from protocol.cards import format_hand
from protocol.errors import ErrorCode
from protocol.events import (
    BidMade,
    CardsPlayed,
    DealStarted,
    DealVoided,
    LandlordChosen,
    MatchEnded,
    Passed,
    SeatControl,
    TurnStarted,
)
from protocol.messages import (
    Chat,
    ChatSaid,
    CreateRoom,
    Error,
    GetHistory,
    GetReplay,
    History,
    JoinRoom,
    Leave,
    Left,
    ReadyRequest,
    Rematch,
    RematchAsked,
    ReplayData,
    RoomClosed,
    SeatBot,
    SeatsChanged,
    Snapshot,
    StartPractice,
    Watch,
)
from server.replay import SEAT_NAMES, describe
from server.rooms.chat import CHAT_PER_MINUTE
from server.rooms.room import Clocks, Room
from server.rooms.stored import room_to_data
from server.store.base import RoomWrite
from server.store.codec import pack
from tests.redis_server import unique_prefix
from tests.server.rooms.test_room import NOW
from tests.server.rooms.test_room_social import finish
from tests.server.test_e2e import check_no_leaks, dealt_hands
from tests.server.wire import AutoSeat, WireClient, running_server, wire_client

SETTINGS: dict[str, Any] = {
    "bid_timeout": 30,
    "play_timeout": 30,
    "bot_speed": "instant",
    "open_rooms_per_address": 0,
    "new_rooms_per_address": 0,
    "rate_burst": 1000,  # the auto players act at once, a whole match in a second
}


def describe_replay(data: ReplayData) -> str:
    """A player's replay printed as ``ddz-replay`` prints a journal."""
    out = io.StringIO()
    for deal in data.deals:
        print(f"\n== deal {deal.deal_no}/{data.deals_total}", file=out)
        for index, hand in enumerate(deal.hands):
            print(f"   {SEAT_NAMES[index]} dealt {format_hand(hand)}", file=out)
        print(f"   kitty    {format_hand(deal.kitty)}", file=out)
        for m in deal.events:
            t = "  (timeout)" if getattr(m, "timeout", False) else ""
            if isinstance(m, BidMade):
                what = f"bids {m.bid}" if m.bid else "passes"
                print(f"   {SEAT_NAMES[m.seat]} {what}{t}", file=out)
            elif isinstance(m, DealVoided):
                print(f"   all passed: void deal ({m.voids_in_row} in a row)", file=out)
            elif isinstance(m, LandlordChosen):
                print(f"   {SEAT_NAMES[m.seat]} is the landlord, base {m.base}", file=out)
            elif isinstance(m, CardsPlayed):
                print(f"   {SEAT_NAMES[m.seat]} {format_hand(m.cards)}  {m.kind}{t}", file=out)
            elif isinstance(m, Passed):
                end = "  (trick over)" if m.trick_over else ""
                print(f"   {SEAT_NAMES[m.seat]} pass{t}{end}", file=out)
            elif isinstance(m, SeatControl):
                who = "a bot plays" if m.bot else "the person plays"
                print(f"   {SEAT_NAMES[m.seat]}: {who} ({m.reason})", file=out)
        if deal.end is not None:
            s = deal.end.score
            extras = [f"{s.bombs} bombs", f"{s.rockets} rockets"]
            extras += ["spring"] * s.spring + ["anti-spring"] * s.anti_spring
            print(
                f"   {deal.end.winner} win: base {s.base} x{s.multiplier} ({', '.join(extras)})"
                f"  scores {s.scores}  totals {deal.end.totals}",
                file=out,
            )
    if data.result is not None:
        winners = ", ".join(SEAT_NAMES[w] for w in data.result.winners)
        print(f"\nmatch over: totals {data.result.totals}, won by {winners}", file=out)
    return out.getvalue()


def as_dicts(messages: list[Any]) -> list[dict[str, Any]]:
    """Messages as the wire carries them, up to and with the match's end."""
    out: list[dict[str, Any]] = []
    for message in messages:
        out.append(message.model_dump(mode="json"))
        if isinstance(message, MatchEnded):
            break
    return out


async def answer(client: WireClient, request: Any, kind: type[Any], timeout: float = 5.0) -> Any:
    """Send ``request``; return the reply of ``kind``, or the Error naming the request
    (each message awaited up to ``timeout`` seconds)."""
    rid = await client.send(request)
    while True:
        message = await client.recv(timeout)
        if isinstance(message, kind) or (isinstance(message, Error) and message.request_id == rid):
            return message


async def test_names_chat_replay_history_and_rematch_of_a_private_match(redis_url: str) -> None:
    async with running_server(redis_url, **SETTINGS) as srv:
        async with (
            wire_client(srv.url, "Ann") as (host, _),
            wire_client(srv.url, "Ann") as (guest, _),
            wire_client(srv.url, "Walt") as (walt, _),
            wire_client(srv.url, "Eve") as (eve, _),
            wire_client(srv.url, "Wendy") as (wendy, _),
        ):
            await host.send(CreateRoom(deals=3))
            code = (await host.recv_type(Snapshot)).room.code
            await host.send(SeatBot(level="easy"))
            await walt.send(Watch(code=code))
            await walt.recv_type(Snapshot)
            await wendy.send(Watch(code=code))
            await wendy.recv_type(Snapshot)
            await wendy.send(Leave())  # watched a while, then went: the replay is theirs too
            await wendy.recv_type(Left)
            await guest.send(JoinRoom(code=code))
            joined: Snapshot = await guest.recv_type(Snapshot)
            # the same login name twice: the second is numbered
            assert [s.name for s in joined.room.seats] == ["Ann", "easy bot 1", "Ann (2)"]

            # neither played nor watched: refused, as if there were no such match
            refusal = await answer(eve, GetReplay(code=code), ReplayData)
            assert isinstance(refusal, Error) and refusal.code == ErrorCode.NO_ROOM

            host_seat, guest_seat = AutoSeat(host), AutoSeat(guest)
            guest_seat.state = TableState.from_snapshot(joined)
            host_seat.state = TableState.from_room(joined.room.model_copy(update={"your_seat": 0}))
            await asyncio.gather(host_seat.until(DealStarted), guest_seat.until(DealStarted))
            # during the match: the replay is refused (not over), a phrase goes to everyone
            early = await host.send(GetReplay(code=code))
            said = await host.send(Chat(phrase="good_luck"))
            await asyncio.gather(host_seat.until(MatchEnded, 90), guest_seat.until(MatchEnded, 90))
            await walt.recv_type(MatchEnded, 30)
            refused = [m for m in host.received if isinstance(m, Error) and m.request_id == early]
            assert refused[0].code == ErrorCode.WRONG_PHASE and "not over" in refused[0].message
            assert not [m for m in host.received if isinstance(m, Error) and m.request_id == said]
            for client in (host, guest, walt):
                heard = [m for m in client.received if isinstance(m, ChatSaid)]
                assert [(m.seat, m.phrase) for m in heard] == [(0, "good_luck")]
            await host.recv_type(RoomClosed)

            # no message before the end held a card its reader could not see
            records = await srv.app.store.read_log(code)
            deals = dealt_hands(records)
            for client, seat in ((host, 0), (guest, 2), (walt, None)):
                messages = as_dicts(client.received)
                assert messages[-1]["type"] == "match_end"
                assert not [m for m in messages if m["type"] == "replay"]
                check_no_leaks(messages, seat, deals)

            # after the end: the replay for who played and who watched, equal to the journal
            replays = [
                await answer(c, GetReplay(code=code), ReplayData) for c in (host, walt, wendy)
            ]
            for data in replays:
                assert isinstance(data, ReplayData), data
            data = replays[0]
            assert replays[1] == replays[2] == data
            assert [(d.hands, d.kitty) for d in data.deals] == deals
            assert data.seats == ["Ann", "easy bot 1", "Ann (2)"]
            assert data.ended == "match_over" and data.result is not None
            expected = io.StringIO()
            totals = describe(records, expected)
            assert describe_replay(data) == expected.getvalue()
            assert data.result.totals == totals
            refusal = await answer(eve, GetReplay(code=code), ReplayData)
            assert isinstance(refusal, Error) and refusal.code == ErrorCode.NO_ROOM

            # each player's history has the match; a stranger's is empty
            (entry,) = (await answer(guest, GetHistory(), History)).entries
            assert (entry.code, entry.mode, entry.deals, entry.your_seat) == (code, "private", 3, 2)
            assert entry.totals == totals and entry.seats == data.seats
            assert entry.result == ("won" if 2 in data.result.winners else "lost")
            assert (await answer(eve, GetHistory(), History)).entries == []
            stranger = await answer(eve, Rematch(code=code), Snapshot)
            assert isinstance(stranger, Error) and stranger.code == ErrorCode.NO_ROOM

            # again: the guest asks first; the host is told and takes the seat held for them
            mark = len(host.received)
            again: Snapshot = await answer(guest, Rematch(code=code), Snapshot)
            assert isinstance(again, Snapshot), again
            room = again.room
            assert room.code != code and room.your_seat == 2 and room.table is None
            assert [s.name for s in room.seats] == ["Ann", "easy bot 1", "Ann (2)"]
            assert [(s.kind, s.connected, s.ready) for s in room.seats] == [
                ("person", False, False),
                ("bot", True, True),
                ("person", True, True),
            ]
            asked: RematchAsked = await host.recv_type(RematchAsked)
            assert (asked.code, asked.seat) == (code, 2)
            started: Snapshot = await answer(host, Rematch(code=code), Snapshot)
            assert isinstance(started, Snapshot), started
            assert started.room.code == room.code and started.room.table is not None
            await guest.recv_type(TurnStarted)
            rematch_records = await srv.app.store.read_log(room.code)
            new_deals = dealt_hands(rematch_records)
            check_no_leaks(as_dicts(host.received[mark:]), 0, new_deals)
            assert await srv.app.store.read_log(code) == records  # the first match's stays


async def test_a_bad_phrase_and_a_phrase_past_the_limit_are_refused_and_nothing_is_sent(
    redis_url: str,
) -> None:
    async with running_server(redis_url, **SETTINGS) as srv:
        async with wire_client(srv.url, "Ann") as (ann, _), wire_client(srv.url, "Bob") as (bob, _):
            await ann.send(CreateRoom(deals=3))
            code = (await ann.recv_type(Snapshot)).room.code
            await bob.send(JoinRoom(code=code))
            await bob.recv_type(Snapshot)
            await ann.send_raw(msgpack.packb({"type": "chat", "id": 90, "phrase": "you stink"}))
            bad = await ann.recv_type(Error)
            assert bad.code == ErrorCode.MALFORMED and bad.request_id == 90
            assert "phrase" in bad.message and "stink" not in bad.message
            ids = [await ann.send(Chat(phrase="hurry_up")) for _ in range(CHAT_PER_MINUTE + 1)]
            limited = await ann.recv_type(Error)
            assert limited.code == ErrorCode.RATE_LIMITED and limited.request_id == ids[-1]
            assert "a minute" in limited.message
            await bob.send(Chat(phrase="oops"))
            heard: list[ChatSaid] = []
            while len(heard) < CHAT_PER_MINUTE + 1:
                heard.append(await bob.recv_type(ChatSaid))
            assert [(m.seat, m.phrase) for m in heard] == [(0, "hurry_up")] * CHAT_PER_MINUTE + [
                (1, "oops")
            ]


async def test_a_watcher_hears_the_table_but_does_not_chat(redis_url: str) -> None:
    async with running_server(redis_url, **SETTINGS) as srv:
        async with wire_client(srv.url, "Ann") as (ann, _), wire_client(srv.url, "W") as (w, _):
            await ann.send(CreateRoom(deals=3))
            code = (await ann.recv_type(Snapshot)).room.code
            await w.send(Watch(code=code))
            await w.recv_type(Snapshot)
            refusal = await answer(w, Chat(phrase="hello"), ChatSaid)
            assert isinstance(refusal, Error) and refusal.code == ErrorCode.NOT_ALLOWED
            await ann.send(Chat(phrase="hello"))
            assert (await w.recv_type(ChatSaid)).seat == 0


async def test_a_practice_rematch_starts_at_once_with_the_same_bots(redis_url: str) -> None:
    async with running_server(redis_url, **SETTINGS) as srv:
        async with wire_client(srv.url, "Ann") as (ann, _):
            seat = AutoSeat(ann)
            await ann.send(StartPractice(deals=1, level="easy", speed="instant"))
            await seat.until(MatchEnded, 60)
            assert seat.state is not None
            first = seat.state.room
            await ann.recv_type(RoomClosed)
            again: Snapshot = await answer(ann, Rematch(code=first.code), Snapshot)
            assert isinstance(again, Snapshot), again
            room = again.room
            assert room.code != first.code and room.mode == "practice" and room.deals == 1
            assert room.seats == [s.model_copy(update={"ready": True}) for s in first.seats]
            assert room.table is not None and room.table.first_bidder == 0
            # one rematch per match: asking again from the new room is "leave first"
            busy = await answer(ann, Rematch(code=first.code), Snapshot)
            assert isinstance(busy, Error) and busy.code == ErrorCode.ALREADY_SEATED
            assert not [m for m in ann.received if isinstance(m, SeatsChanged) and m.watchers]


async def store_finished(store: Any, room: Room) -> None:
    """Keep ``room`` (closed, its match played out) as its process would have."""
    assert room.closed == "match_over"
    data = pack(room_to_data(room))
    await store.save_room(
        RoomWrite(room.code, -1, room.version, data, room.take_journal(), closed=True)
    )


async def test_a_rematch_across_two_processes(redis_url: str) -> None:
    """Ann is connected to one process, Bob to another: Bob hears of Ann's rematch through
    Redis and takes his seat through the process that runs it."""
    prefix = unique_prefix()
    async with (
        running_server(redis_url, key_prefix=prefix, **SETTINGS) as a,
        running_server(redis_url, key_prefix=prefix, **SETTINGS) as b,
        wire_client(a.url, "Ann") as (ann, ann_hi),
        wire_client(b.url, "Bob") as (bob, bob_hi),
    ):
        rng = random.Random(1)
        old = Room.create("OLDRM", "private", 3, ann_hi.player_id, "Ann", clocks=Clocks(30, 30, 10))
        old.join(bob_hi.player_id, "Bob", NOW)
        old.place_bot(2, "easy")
        for player in (ann_hi.player_id, bob_hi.player_id):
            old.handle(player, ReadyRequest(), NOW, rng)
        finish(old, rng)
        await store_finished(a.app.store, old)
        again: Snapshot = await answer(ann, Rematch(code="oldrm"), Snapshot)
        assert isinstance(again, Snapshot), again
        asked: RematchAsked = await bob.recv_type(RematchAsked)
        assert (asked.code, asked.seat) == ("OLDRM", 0)
        mine: Snapshot = await answer(bob, Rematch(code="OLDRM"), Snapshot)
        assert isinstance(mine, Snapshot), mine
        assert mine.room.code == again.room.code and mine.room.your_seat == 1
        assert mine.room.table is not None and mine.room.table.hand is not None
        assert len(mine.room.table.hand) == 17
        await ann.recv_type(DealStarted)


async def test_a_quick_rematch_seats_a_bot_for_whoever_did_not_come_back(redis_url: str) -> None:
    async with (
        running_server(redis_url, rematch_wait=0.5, **SETTINGS) as srv,
        wire_client(srv.url, "Ann") as (ann, ann_hi),
        wire_client(srv.url, "Bob") as (bob, bob_hi),
    ):
        rng = random.Random(2)
        people = [(ann_hi.player_id, "Ann"), (bob_hi.player_id, "Bob")]
        old = Room.quick("QKOLD", people, Clocks(30, 30, 10))
        old.start_match(NOW, rng)
        finish(old, rng)
        await store_finished(srv.app.store, old)
        again: Snapshot = await answer(ann, Rematch(code="QKOLD"), Snapshot)
        assert isinstance(again, Snapshot) and again.room.table is None
        assert again.room.mode == "quick" and again.room.timed
        await bob.recv_type(RematchAsked)
        started: DealStarted = await ann.recv_type(DealStarted)  # when the hold ends
        assert started.deal_no == 1
        late = await answer(bob, Rematch(code="QKOLD"), Snapshot)
        assert isinstance(late, Error) and late.code == ErrorCode.ROOM_FULL
        runner = srv.app.rooms[again.room.code]
        assert [s.kind for s in runner.room.seats] == ["person", "bot", "bot"]
