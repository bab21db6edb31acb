"""Ratings over real sockets and a real Redis: a quick match of three persons changes each
one's rating once, told after the match; a practice changes none; the ladder answers with
names and ratings only."""

from __future__ import annotations

import asyncio
import contextlib

import msgpack

from protocol.messages import (
    GetLeaderboard,
    Leaderboard,
    MatchEnded,
    QuickMatch,
    RatingChanged,
    RoomClosed,
    StartPractice,
)
from server.players.ladder import LADDER_MIN_MATCHES
from server.players.rating import NEW, Rating, RatingChange
from tests.server.wire import AutoSeat, running_server, wire_client


async def test_a_quick_match_changes_its_persons_ratings_and_a_practice_does_not(
    redis_url: str,
) -> None:
    # (the clients play at once, as fast as the bots: no rate limit to wait for)
    quick = {"quick_match_wait": 30, "bot_speed": "instant", "rate_limit": 1000, "rate_burst": 1000}
    async with running_server(redis_url, **quick) as srv, contextlib.AsyncExitStack() as stack:
        people = [await stack.enter_async_context(wire_client(srv.url, name=n)) for n in "ABC"]
        seats = [AutoSeat(client) for client, _ in people]
        for seat in seats:
            await seat.client.send(QuickMatch())
        told: list[RatingChanged] = await asyncio.gather(
            *(seat.until(RatingChanged, timeout=120) for seat in seats)
        )
        code = told[0].code
        for change, seat in zip(told, seats, strict=True):
            assert change.code == code
            assert change.before.mu == round(NEW.mu, 2) and change.before.matches == 0
            assert change.after.matches == 1 and change.after.mu != change.before.mu
            assert change.after.sigma < change.before.sigma
            closed = [m for m in seat.client.received if isinstance(m, RoomClosed)]
            assert (
                closed and seat.client.received.index(closed[-1]) < len(seat.client.received) - 1
            )  # told after the room closed
        ladder = srv.app.ladder
        for (_, welcome), change in zip(people, told, strict=True):
            rating, matches = await ladder.rating_of(welcome.player_id)
            assert matches == 1 and round(rating.mu, 2) == change.after.mu

        # the same people's practice: rated never
        first = AutoSeat(seats[0].client)  # (a fresh player: versions start again)
        await first.client.send(StartPractice(deals=1, speed="instant"))
        await first.until(MatchEnded, timeout=60)
        await first.until(RoomClosed, timeout=10)
        await first.client.send(GetLeaderboard())
        board: Leaderboard = await first.until(Leaderboard)
        assert board.you is not None and board.you.rating.matches == 1
        assert board.you.rank is None and board.top == []  # fewer than 10 rated matches
        changes = [m for m in first.client.received if isinstance(m, RatingChanged)]
        assert len(changes) == 1

        # the ladder once they have played enough: names and ratings, never ids or tokens
        for (_, welcome), change in zip(people, told, strict=True):
            for n in range(LADDER_MIN_MATCHES):
                await srv.app.ladder.apply_change(
                    welcome.player_id, f"PAST{n}", _as_change(change), welcome.name
                )
        await first.client.send(GetLeaderboard())
        board = await first.until(Leaderboard)
        assert sorted(line.name for line in board.top) == ["A", "B", "C"]
        assert [line.rank for line in board.top] == [1, 2, 3] and board.ranked == 3
        assert board.you is not None and board.you.rank is not None
        frame = msgpack.packb(board.model_dump(mode="json"))
        for _, welcome in people:
            assert welcome.player_id.encode() not in frame
            assert welcome.token.encode() not in frame


def _as_change(told: RatingChanged) -> RatingChange:
    """The change a ``RatingChanged`` tells, to apply again under other codes."""
    before = Rating(told.before.mu, told.before.sigma)
    return RatingChange(before, Rating(told.after.mu, told.after.sigma), 1)
