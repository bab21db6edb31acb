"""A finished match's review over the wire (``GetReview``): computed once in the review
process, kept in Redis with the room, sent to who played it; a stranger is refused as for a
replay, and no card is in the refusal."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode
from protocol.events import MatchEnded
from protocol.messages import (
    Error,
    GetReview,
    Ping,
    ReviewData,
    RoomClosed,
    StartPractice,
)
from server.analysis.review import played_deals
from server.lobby import limits
from tests.server.test_after_match import answer
from tests.server.wire import AutoSeat, running_server, wire_client

pytestmark = pytest.mark.slow  # (the server's review process is started)


async def test_the_review_goes_to_its_player_once_computed_and_never_to_a_stranger(
    redis_url: str,
) -> None:
    async with (
        running_server(redis_url, bot_speed="instant", rate_burst=1000, review_seconds=1.0) as srv,
        wire_client(srv.url, "ann") as (host, _),
        wire_client(srv.url, "eve", source="127.0.0.2") as (eve, _),
    ):
        seat = AutoSeat(host)
        await host.send(StartPractice(deals=1, speed="instant"))
        await seat.until(MatchEnded, 60)
        await host.recv_type(RoomClosed, 10)
        assert seat.state is not None
        code = seat.state.room.code
        records = await srv.app.store.read_log(code)
        (played,) = played_deals(records)

        # a stranger: refused as if there were no such match, and nothing else is sent
        mark = len(eve.received)
        refusal = await answer(eve, GetReview(code=code), ReviewData)
        assert isinstance(refusal, Error) and refusal.code == ErrorCode.NO_ROOM
        assert refusal.message == f"no match of yours in room {code}"
        told = eve.received[mark:]
        assert [m.type for m in told] == ["error"]
        assert "hands" not in told[0].model_dump_json()
        assert await srv.app.store.review(code) is None  # nothing computed for them

        # computed in the review process: the connection answers meanwhile
        mark = len(host.received)
        await host.send(GetReview(code=code))
        await host.send(Ping())
        review = await host.recv_type(ReviewData, 60)
        order = [m.type for m in host.received[mark:] if m.type in ("pong", "review")]
        assert order == ["pong", "review"]
        (deal,) = review.deals
        assert len(deal.decisions) == len(played.steps)
        assert deal.decisions[-1].after == deal.winner and deal.reach >= 1
        assert [d.seat for d in deal.decisions] == [s.position.turn for s in played.steps]

        # kept with the room, as long as the room: asked again, it is read, not computed
        redis = srv.app.store.redis  # type: ignore[attr-defined]
        keys = srv.app.store.keys  # type: ignore[attr-defined]
        kept = await redis.pttl(keys.room_review(code))
        state = await redis.pttl(keys.room_state(code))
        assert kept > 0 and abs(state - kept) < 5_000
        reviewer = srv.app.reviewer
        reviewer.seconds = -1.0  # (a review computed now would solve nothing)
        again = await answer(host, GetReview(code=code), ReviewData)
        assert again == review

        refusal = await answer(eve, GetReview(code=code), ReviewData)
        assert isinstance(refusal, Error) and refusal.code == ErrorCode.NO_ROOM


async def test_reviews_computed_count_against_the_askers_address(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "REVIEWS_PER_HOUR", 1)
    async with (
        running_server(redis_url, bot_speed="instant", rate_burst=1000, review_seconds=0.2) as srv,
        wire_client(srv.url, "ann") as (host, _),
    ):
        codes = []
        for _ in range(2):
            seat = AutoSeat(host)
            await host.send(StartPractice(deals=1, speed="instant"))
            await seat.until(MatchEnded, 60)
            await host.recv_type(RoomClosed, 10)
            assert seat.state is not None
            codes.append(seat.state.room.code)
        # (computed in the review process, started now, with its estimates: as above, it is
        # given the time a loaded machine takes, not the 5 s of a reply read from Redis)
        first = await answer(host, GetReview(code=codes[0]), ReviewData, timeout=60)
        assert isinstance(first, ReviewData)
        refused = await answer(host, GetReview(code=codes[1]), ReviewData)
        assert isinstance(refused, Error) and refused.code == ErrorCode.LIMIT_REACHED
        assert "reviews" in refused.message and await srv.app.store.review(codes[1]) is None
        again = await answer(host, GetReview(code=codes[0]), ReviewData)
        assert again == first  # a kept review is read, not counted
