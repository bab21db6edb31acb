"""The rating as people read it (issue 34): a private room created rated rates its three
people (and takes no bot), the profile carries the rating's history, the ladder tells two
players of one name apart by their public tag and opens one's public profile by it; no
message of these carries a player's id, key or token. On the in-memory stores."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateRoom,
    Error,
    GetProfile,
    GetPublicProfile,
    JoinRoom,
    Profile,
    PublicProfile,
    RatingChanged,
    ReadyRequest,
    SeatBot,
)
from server.players.keys import public_tag
from server.players.ladder import LADDER_MIN_MATCHES
from server.players.rating import NEW, Rating, RatingChange, points, tier
from tests.server.lobby.harness import FakeConn, lobby
from tests.server.players.helpers import play_out, say_quietly, settled
from tests.server.players.test_rating_once import PAST, rated_quick_match


async def test_a_rated_private_room_rates_its_people_and_seats_no_bot() -> None:
    async with lobby() as lob:
        conns: dict[str, FakeConn] = {}
        for name in ("Ann", "Bo", "Cy"):
            conn, welcome = await lob.hello(name)
            conns[welcome.player_id] = conn
        ann, bo, cy = conns
        await lob.send(conns[ann], CreateRoom(deals=3, rated=True))
        code = lob.room_of(ann)
        assert code is not None
        refused = await lob.say(conns[ann], SeatBot(level="easy"))
        assert isinstance(refused, Error) and refused.code == ErrorCode.NOT_ALLOWED
        assert "people only" in refused.message
        for guest in (bo, cy):
            await lob.send(conns[guest], JoinRoom(code=code))
        assert lob.app.rooms[code].room.view_for(ann, lob.clock()).rated
        for player in conns:
            await say_quietly(lob, conns[player], ReadyRequest())
        await play_out(lob, code, conns)
        await settled(lob.app, code)
        for player in conns:
            told = lob.last(player, RatingChanged)
            assert told.code == code and told.after.matches == 1
            assert told.before.points == 1500 and told.before.provisional
            profile = await lob.say(conns[player], GetProfile())
            assert isinstance(profile, Profile)
            assert profile.rating_history == [told.after.points]


async def test_an_unrated_private_room_rates_nobody() -> None:
    async with lobby() as lob:
        conn, welcome = await lob.hello("Ann")
        await lob.send(conn, CreateRoom(deals=3))
        code = lob.room_of(welcome.player_id)
        assert code is not None
        assert not lob.app.rooms[code].room.view_for(welcome.player_id, lob.clock()).rated
        await lob.send(conn, SeatBot(level="easy"))  # bots are welcome
        assert lob.app.rooms[code].room.seats[1].kind == "bot"


async def test_two_of_one_name_are_told_apart_and_a_public_profile_opens_by_tag() -> None:
    async with lobby() as lob:
        players: list[str] = []
        conns: list[FakeConn] = []
        for _ in range(2):
            conn, welcome = await lob.hello("Alice")
            players.append(welcome.player_id)
            conns.append(conn)
            change = RatingChange(NEW, Rating(27.0, 4.0), 3)
            for n in range(LADDER_MIN_MATCHES):
                await lob.app.ladder.apply_change(welcome.player_id, f"M{n}", change, "Alice")
        board = await lob.app.ladder.leaderboard(players[0], "Alice")
        tags = [line.tag for line in board.top]
        assert sorted(tags) == sorted(public_tag(p) for p in players)
        assert len(set(tags)) == 2 and [line.name for line in board.top] == ["Alice", "Alice"]
        assert board.you is not None and board.you.tag == public_tag(players[0])

        other = public_tag(players[1])
        shown = await lob.say(conns[0], GetPublicProfile(tag=other))
        assert isinstance(shown, PublicProfile)
        assert shown.name == "Alice" and shown.tag == other
        assert shown.rating is not None and shown.rating.matches == LADDER_MIN_MATCHES
        assert len(shown.rating_history) == LADDER_MIN_MATCHES
        dumped = shown.model_dump_json()
        assert players[1] not in dumped and players[0] not in dumped

        nobody = await lob.say(conns[0], GetPublicProfile(tag="000000"))
        assert isinstance(nobody, Error) and nobody.code == ErrorCode.NOT_ALLOWED


async def test_a_quick_match_shows_each_rated_persons_tier_at_the_table() -> None:
    async with lobby() as lob:
        code, conns = await rated_quick_match(lob)
        room = lob.app.rooms[code].room
        for player in conns:
            rating, matches = await lob.app.ladder.rating_of(player)
            assert matches == PAST
            views = room.view_for(player, lob.clock()).seats
            assert [v.tier for v in views] == [tier(points(rating))] * 3
        # a player never rated shows none
        assert await lob.app.ladder.tiers_of(["p0000000000000000"]) == {}


def test_the_tiers_start_at_their_least_points_and_a_rating_below_zero_is_bronze() -> None:
    assert [tier(p) for p in (0, 1299, 1300, 1449, 1450, 1600, 1750, 1899, 1900, 3000)] == [
        "bronze",
        "bronze",
        "silver",
        "silver",
        "gold",
        "platinum",
        "diamond",
        "diamond",
        "master",
        "master",
    ]
    # (ten losses in a row against far stronger players reach it: the ladder's e2e test did)
    assert tier(points(Rating(NEW.mu - 40, 1.0))) == "bronze"
