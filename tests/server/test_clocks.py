"""Time limits over real sockets with short clocks (SPEC section 8): timeouts act for the
seat, two in a row hand it to a bot that plays at once, resume gives it back from the next
turn, a disconnected seat is treated the same, and the next deal starts after the ready
clock."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal

from protocol.cards import card_rank
from protocol.events import (
    AwaitingReady,
    BidMade,
    CardsPlayed,
    DealStarted,
    LandlordChosen,
    Passed,
    SeatControl,
    TurnStarted,
)
from protocol.messages import (
    BidRequest,
    BotSpeed,
    CreateRoom,
    PassRequest,
    PlayRequest,
    ReadyRequest,
    ResumeRequest,
    SeatBot,
    SetBotSpeed,
    Snapshot,
)
from tests.server.wire import AutoSeat, WireClient, running_server, wire_client

CLOCKS = {"bid_timeout": 0.25, "play_timeout": 0.25, "ready_timeout": 0.4}


async def start_with_two_bots(
    client: WireClient, speed: BotSpeed = "instant", deals: Literal[3, 6, 9] = 3
) -> tuple[str, DealStarted]:
    """A private room of this person (seat 0) and two bots, dealt.

    Once a bot has taken seat 0 over, every seat plays at once but for the bots' own
    delays; a test that must act after the takeover (resume, reconnect) seats ``fast``
    bots in a long match, so the match cannot end before the test acts."""
    await client.send(CreateRoom(deals=deals))
    snapshot: Snapshot = await client.recv_type(Snapshot)
    await client.send(SetBotSpeed(speed=speed))
    await client.send(SeatBot(level="easy"))
    await client.send(SeatBot(level="easy"))
    await client.send(ReadyRequest())
    started: DealStarted = await client.recv_type(DealStarted)
    return snapshot.room.code, started


async def until(client: WireClient, test: Any, timeout: float = 10.0) -> Any:
    while True:
        message = await client.recv(timeout)
        if test(message):
            return message


def mine(message: Any) -> bool:
    return getattr(message, "seat", None) == 0 and getattr(message, "timeout", False)


async def test_an_idle_seat_times_out_twice_then_a_bot_plays_it_until_resume(
    redis_url: str,
) -> None:
    async with running_server(redis_url, **CLOCKS) as srv, wire_client(srv.url) as (client, _):
        code, _ = await start_with_two_bots(client, speed="fast", deals=9)
        first = await until(client, mine)  # the first timeout acts for seat 0
        if isinstance(first, BidMade):
            assert first.bid in (0, 1)  # a pass, or a bid of 1 where it may not pass
        taken: SeatControl = await until(client, lambda m: isinstance(m, SeatControl))
        assert taken.seat == 0 and taken.bot and taken.reason == "timeouts"
        # the bot plays seat 0 at once: no clock runs out for it any more
        acted = await until(
            client, lambda m: isinstance(m, BidMade | CardsPlayed | Passed) and m.seat == 0
        )
        assert not acted.timeout
        await client.send(ResumeRequest())
        back: SeatControl = await until(
            client, lambda m: isinstance(m, SeatControl) and m.reason != "timeouts"
        )
        assert back.seat == 0
        if back.reason == "resume_pending":  # asked on its own turn: the bot ends it
            back = await until(client, lambda m: isinstance(m, SeatControl) and not m.bot)
        assert not back.bot
        room = srv.app.rooms[code].room
        assert room.match is not None and not room.match.bot_control[0]
        # from its next turn the person acts again (and the clock runs for it again)
        turn: TurnStarted = await until(
            client, lambda m: isinstance(m, TurnStarted) and m.seat == 0
        )
        assert turn.deadline is not None


async def test_a_play_timeout_passes_when_following_and_leads_the_lowest_card(
    redis_url: str,
) -> None:
    async with running_server(redis_url, **CLOCKS) as srv, wire_client(srv.url) as (client, _):
        _, started = await start_with_two_bots(client)
        hand: list[int] = list(started.hand or [])
        table_has_play = False
        seen_follow = seen_lead = False
        for _ in range(400):
            m = await client.recv(10)
            if isinstance(m, TurnStarted) and m.seat == 0 and m.action == "bid":
                await client.send(BidRequest(value=3))  # landlord: it must lead, then idles
            if isinstance(m, DealStarted):
                hand = list(m.hand or [])
                table_has_play = False
            elif isinstance(m, LandlordChosen) and m.seat == 0:
                hand += m.kitty
            elif isinstance(m, CardsPlayed):
                if m.seat == 0 and m.timeout:
                    assert not table_has_play and m.cards == [min(hand)]  # led: lowest single
                    seen_lead = True
                if m.seat == 0:
                    hand = [c for c in hand if c not in m.cards]
                table_has_play = True
            elif isinstance(m, Passed):
                if m.seat == 0 and m.timeout:
                    assert table_has_play  # followed: a pass
                    seen_follow = True
                if m.trick_over:
                    table_has_play = False
            elif isinstance(m, SeatControl) and m.seat == 0 and m.bot:
                await client.send(ResumeRequest())  # keep the clock acting, not the bot
            if seen_follow and seen_lead:
                return
        raise AssertionError(f"saw a following timeout: {seen_follow}, a leading: {seen_lead}")


async def test_the_next_deal_starts_when_the_ready_clock_runs_out(redis_url: str) -> None:
    async with running_server(redis_url, **CLOCKS) as srv, wire_client(srv.url) as (client, _):
        _, first = await start_with_two_bots(client)
        hand = list(first.hand or [])
        while True:  # the person plays (passing, or leading its lowest card) but never readies
            m = await client.recv(10)
            if isinstance(m, LandlordChosen) and m.seat == 0:
                hand += m.kitty
            elif isinstance(m, CardsPlayed) and m.seat == 0:
                hand = [c for c in hand if c not in m.cards]
            elif isinstance(m, TurnStarted) and m.seat == 0:
                if m.may_pass:
                    await client.send(PassRequest(version=m.version))
                elif m.action == "bid":
                    await client.send(BidRequest(value=1, version=m.version))
                else:
                    lowest = int(card_rank(min(hand)))
                    await client.send(PlayRequest(ranks=[lowest], version=m.version))
            elif isinstance(m, AwaitingReady):
                prompt = m
                break
        assert prompt.deadline is not None and not prompt.ready[0]
        assert prompt.ready[1] and prompt.ready[2]  # bots are always ready
        started: DealStarted = await until(client, lambda m: isinstance(m, DealStarted))
        assert started.deal_no == first.deal_no + 1
        assert time.time() >= prompt.deadline - 0.05  # it waited for the clock


async def test_a_disconnected_seat_goes_to_a_bot_and_back_after_reconnecting(
    redis_url: str,
) -> None:
    async with running_server(redis_url, **CLOCKS) as srv:
        async with wire_client(srv.url) as (client, welcome):
            code, _ = await start_with_two_bots(client, speed="fast", deals=9)
        # gone: its turns time out, twice, and a bot takes the seat
        room = srv.app.rooms[code].room
        for _ in range(200):
            if room.match is not None and room.match.bot_control[0]:
                break
            await asyncio.sleep(0.05)
            room = srv.app.rooms[code].room
        assert room.match is not None and room.match.bot_control[0]
        async with wire_client(srv.url, token=welcome.token) as (client, again):
            assert again.room == code
            seat = AutoSeat(client)
            snapshot: Snapshot = await seat.until(Snapshot)
            assert snapshot.room.table is not None and snapshot.room.table.bot_control[0]
            await client.send(ResumeRequest())
            back: SeatControl = await seat.until(SeatControl)
            if back.reason == "resume_pending":
                back = await seat.until(SeatControl)
            assert back.seat == 0 and not back.bot
