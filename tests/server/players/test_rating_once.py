"""A rated quick match's rating changes go the records' crash-proof way: a process that dies
between the room's closing save and its records leaves them to the next settle, which
applies each player's change once (a second settle changes nothing) and puts the ladder in
step with the ratings. On the in-memory stores, one lobby process and then its restart."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from unittest.mock import AsyncMock

from protocol.messages import QuickMatch, RatingChanged
from server.players.ladder import LADDER_MIN_MATCHES, Ladder, view
from server.players.rating import NEW, Rating, RatingChange
from server.rooms.stored import room_from_stored
from server.store.errors import StoreUnavailable
from server.store.ratings import StoredRating
from tests.server.lobby.harness import FakeConn, LobbyProcess, lobby
from tests.server.players.helpers import WAIT, play_out, say_quietly, settled
from tests.server.players.test_lasting_player import restarted

#: A rated past each player brings: one match short of the ladder.
PAST = LADDER_MIN_MATCHES - 1


async def rated_quick_match(lob: LobbyProcess) -> tuple[str, dict[str, FakeConn]]:
    """Three new players, each with a rated past one match short of the ladder, seated
    together by the queue (a rated match): its code and their connections by id."""
    conns: dict[str, FakeConn] = {}
    for name in ("Ann", "Bo", "Cy"):
        conn, welcome = await lob.hello(name)
        conns[welcome.player_id] = conn
        for n in range(PAST):
            surer = RatingChange(NEW, Rating(NEW.mu, NEW.sigma * 0.9), 1)
            await lob.app.ladder.apply_change(welcome.player_id, f"PAST{n}", surer, name)
    for conn in conns.values():
        await say_quietly(lob, conn, QuickMatch())
    assert await lob.app.matcher.tick() == 1
    codes = {lob.room_of(player) for player in conns}
    assert len(codes) == 1
    (code,) = codes
    assert code is not None and await lob.app.ladder.store.load_start(code) is not None
    return code, conns


async def until(done: Callable[[], bool]) -> None:
    """Wait for what the closed room does in the background."""
    deadline = time.monotonic() + WAIT
    while not done():
        assert time.monotonic() < deadline, "not done in time"
        await asyncio.sleep(0.001)


async def ratings(ladder: Ladder, players: list[str]) -> dict[str, StoredRating | None]:
    return {player: await ladder.store.rating(player) for player in players}


async def expected_changes(lob: LobbyProcess, code: str) -> dict[str, RatingChange]:
    """Each person's change, worked out from the closed room as stored."""
    stored = await lob.store.load_room(code)
    assert stored is not None and stored.closed
    room = room_from_stored(stored)
    assert room is not None
    changes, _ = await lob.app.ladder.changes(room)
    return changes


async def test_a_rated_match_left_by_a_crash_is_rated_once_by_the_next_settle() -> None:
    async with lobby() as lob:
        code, conns = await rated_quick_match(lob)
        players = list(conns)
        before = await ratings(lob.app.ladder, players)
        # the process "dies" between the room's closing save and its records
        lob.app.bookkeeping.settle_room = AsyncMock(return_value=0)  # type: ignore[method-assign]
        await play_out(lob, code, conns)
        assert code in lob.store.data.pending
        assert await ratings(lob.app.ladder, players) == before  # nothing rated yet
        assert not [m for p in players for m in lob.hub.got[p] if isinstance(m, RatingChanged)]

        lob = await restarted(lob)
        ann = players[0]
        await lob.app.bookkeeping.settle_pending()
        assert code not in lob.store.data.pending
        changes = await expected_changes(lob, code)
        assert set(changes) == set(players)
        after = await ratings(lob.app.ladder, players)
        for player, change in changes.items():
            held = before[player]
            assert held is not None and change.before == Rating(held.mu, held.sigma)
            now = after[player]
            assert now is not None and now.matches == LADDER_MIN_MATCHES
            assert (now.mu, now.sigma) == (change.after.mu, change.after.sigma)
        records = {p: dict(lob.store.data.players[p].stats) for p in players}
        assert all(stats["played:quick"] == 1 for stats in records.values())

        # settled again (as if the settling process died before the code left): no change
        lob.store.data.pending.add(code)
        assert await lob.app.bookkeeping.settle_pending() == 0
        assert code not in lob.store.data.pending
        assert await ratings(lob.app.ladder, players) == after
        assert {p: dict(lob.store.data.players[p].stats) for p in players} == records

        # the ladder holds each one at their rating as it is
        board = await lob.app.ladder.leaderboard(ann, "Ann")
        assert board.ranked == 3
        shown = {line.name: line.rating for line in board.top}
        for player, name in zip(players, ("Ann", "Bo", "Cy"), strict=True):
            now = after[player]
            assert now is not None
            assert shown[name] == view(Rating(now.mu, now.sigma), now.matches)


async def test_a_rating_the_store_failed_to_apply_keeps_the_room_pending_until_applied() -> None:
    async with lobby() as lob:
        code, conns = await rated_quick_match(lob)
        players = list(conns)
        store = lob.app.ladder.store
        apply = store.apply
        # the first seat's: the players after it are applied all the same
        failing = lob.app.rooms[code].room.seats[0].player_id
        assert failing is not None
        others = [p for p in players if p != failing]

        async def fails_for_one(player: str, *args: object) -> tuple[bool, StoredRating]:
            if player == failing:
                raise StoreUnavailable("the store failed just then")
            return await apply(player, *args)  # type: ignore[arg-type]

        store.apply = fails_for_one  # type: ignore[method-assign]
        await play_out(lob, code, conns)
        # the records are in, the ratings of those applied told, the room still pending
        await until(lambda: all(lob.store.data.players[p].matches for p in players))

        def told() -> dict[str, list[RatingChanged]]:
            got = lob.hub.got
            return {p: [m for m in got[p] if isinstance(m, RatingChanged)] for p in players}

        await until(lambda: all(told()[p] for p in others))
        assert {p: len(t) for p, t in told().items()} == {failing: 0} | dict.fromkeys(others, 1)
        assert code in lob.store.data.pending
        stuck = await store.rating(failing)
        assert stuck is not None and stuck.matches == PAST

        store.apply = apply  # type: ignore[method-assign]
        await lob.app.bookkeeping.settle_pending()
        await settled(lob.app, code)
        after = await ratings(lob.app.ladder, players)
        assert all(r is not None and r.matches == LADDER_MIN_MATCHES for r in after.values())
        # each told once, by the call that applied their change
        assert [len(t) for t in told().values()] == [1, 1, 1]
        assert told()[failing][0].after.matches == LADDER_MIN_MATCHES
        for player in players:
            assert len(lob.store.data.players[player].matches) == 1
