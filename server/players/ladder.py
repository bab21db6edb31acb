"""Ratings in the lobby: read a player's, note what a rated quick match starts from, apply
its changes once when it ends, and answer the ladder (``GetLeaderboard``).

A quick match that the queue formed with two persons or more is rated: as it opens, the
seats' ratings are kept beside its room (``start_record``); when its room closes, each
person's change is computed from them and the deals' outcomes (``rating_updates``) and
applied once per player (the store's guard, ``RedisRatings.apply``), then told to the
player (``RatingChanged``: written first, then sent). The bookkeeping applies it on each
settle of the closed room (``Bookkeeping.room_appliers``), so a crash between the room's
closing save and its ratings leaves the room pending, and the next settle applies what is
missing (and tells those it applied). Practice, private rooms and rematches
are never rated. The ladder ranks by the rating as shown (its points, from mu) those with at
least ``LADDER_MIN_MATCHES`` rated matches (which keeps a lucky newcomer off it); entries kept
before it ranked so get their shown score at the next read (``RedisRatings.ladder``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast

from protocol.messages import (
    BotLevel,
    GetLeaderboard,
    LadderLine,
    Leaderboard,
    RatingChanged,
    RatingView,
    Tier,
)
from server.edge.hub import Connection
from server.lobby.base import Lobby, Route, Routes
from server.lobby.sessions import Session
from server.players.keys import public_tag
from server.players.rating import (
    NEW,
    RatedMatch,
    RatedSeat,
    Rating,
    RatingChange,
    outcomes,
    points,
    provisional,
    rated,
    rating_updates,
    shown_score,
    tier,
)
from server.rooms.room import Room
from server.store.errors import StoreError
from server.store.ratings import LadderRead, LoggedRating, RedisRatings, StoredRating
from server.store.redis_store import RedisStore

#: Rated matches a player needs before the ladder ranks them (a rating resting on fewer is
#: mostly uncertainty).
LADDER_MIN_MATCHES = 10
#: Lines the ladder shows.
LADDER_SIZE = 100
#: What a ladder request costs its connection, in tokens (one script, up to 100 lines).
LADDER_COST = 4


class RatingStore(Protocol):
    """Ratings, rated matches' starts and the ladder (``server/store/ratings.py``)."""

    async def rating(self, player_id: str) -> StoredRating | None: ...
    async def apply(
        self,
        player_id: str,
        code: str,
        before: tuple[float, float],
        after: tuple[float, float],
        name: str,
        now: float,
    ) -> tuple[bool, StoredRating]: ...
    async def history(self, player_id: str) -> list[LoggedRating]: ...
    async def save_start(self, code: str, start: dict[str, Any]) -> None: ...
    async def load_start(self, code: str) -> dict[str, Any] | None: ...
    async def set_ladder(
        self, player_id: str, score: float, entry: dict[str, Any], shown: float
    ) -> None: ...
    async def ladder(
        self, n: int, player_id: str, shown: Callable[[dict[str, Any]], float]
    ) -> LadderRead: ...


def rating_store(store: object) -> RatingStore:
    """The rating store beside a server's store: on its Redis, or (the tests' in-memory
    store) its in-memory twin."""
    if isinstance(store, RedisStore):
        return RedisRatings(store)
    from server.store.memory import MemoryStore
    from server.store.memory_lobby import MemoryRatings

    if isinstance(store, MemoryStore):
        return MemoryRatings(store)
    raise TypeError(f"no rating store beside {type(store).__name__}")


def view(rating: Rating, matches: int) -> RatingView:
    shown = points(rating)
    return RatingView(
        points=shown,
        provisional=provisional(rating),
        tier=cast(Tier, tier(shown)),
        rating=round(rating.display, 2),
        mu=round(rating.mu, 2),
        sigma=round(rating.sigma, 2),
        matches=matches,
    )


def start_record(seats: list[tuple[str | None, str, Rating, BotLevel | None]]) -> dict[str, Any]:
    """What a rated match keeps of its start: per seat, the person's id and name and their
    rating then, or the bot's level."""
    return {
        "seats": [
            {"pid": pid, "name": name, "mu": r.mu, "sigma": r.sigma, "level": level}
            for pid, name, r, level in seats
        ]
    }


def rated_match(code: str, start: dict[str, Any], deal_scores: list[list[int]]) -> RatedMatch:
    """The match to rate: its seats as ``start_record`` kept them and its finished deals."""
    a, b, c = (  # (a bot at the rating it had then: a deploy between changes nothing)
        RatedSeat(seat["pid"], Rating(seat["mu"], seat["sigma"]), seat["level"])
        for seat in start["seats"]
    )
    return RatedMatch(code, (a, b, c), outcomes(deal_scores))


class Ladder:
    """Ratings for the lobby: read, noted at a quick match's start, applied at its end."""

    def __init__(self, lobby: Lobby, store: RatingStore) -> None:
        self.lobby = lobby
        self.store = store

    def routes(self) -> Routes:
        return {GetLeaderboard: Route(self.get_leaderboard)}

    async def rating_of(self, player_id: str) -> tuple[Rating, int]:
        """A player's rating and how many rated matches it rests on (a new player's: 0)."""
        stored = await self.store.rating(player_id)
        if stored is None:
            return NEW, 0
        return Rating(stored.mu, stored.sigma), stored.matches

    async def view_of(self, player_id: str) -> RatingView | None:
        """A player's rating as shown (for the profile); None when never rated."""
        rating, matches = await self.rating_of(player_id)
        return view(rating, matches) if matches > 0 else None

    async def tiers_of(self, players: list[str]) -> dict[str, str]:
        """The tier of each rated player of ``players`` (shown at a quick match's table);
        a rating that cannot be read now is left out: the match goes on without it."""
        found: dict[str, str] = {}
        for player in players:
            try:
                rating, matches = await self.rating_of(player)
            except StoreError:
                continue
            if matches > 0:
                found[player] = tier(points(rating))
        return found

    async def find(self, tag: str) -> tuple[str, str] | None:
        """The player on the ladder's top with this public tag: their id and name."""
        read = await self.store.ladder(LADDER_SIZE, "", _entry_shown)
        for ranked in read.top:
            if public_tag(ranked.player_id) == tag:
                return ranked.player_id, str(ranked.entry.get("name", ""))
        return None

    async def history_of(self, player_id: str) -> list[int]:
        """The player's shown rating after each of their last rated matches, oldest first."""
        return [points(Rating(r.mu, r.sigma)) for r in await self.store.history(player_id)]

    async def note_start(self, room: Room, names: dict[str, str]) -> None:
        """Keep the ratings a quick match starts from, when it is rated (two persons at
        least). ``names``: each person's name as queued (the ladder's). Not kept, the match
        is not rated; it is played all the same."""
        start = await self.start_of(room, names)
        if start is not None:
            await self.store.save_start(room.code, start)

    async def start_of(self, room: Room, names: dict[str, str]) -> dict[str, Any] | None:
        """What a rated match keeps of its start, from its seats' ratings now (None: it
        cannot change a rating, with fewer than two persons)."""
        seats: list[tuple[str | None, str, Rating, BotLevel | None]] = []
        for seat in room.seats:
            if seat.kind == "person" and seat.player_id:
                rating, _ = await self.rating_of(seat.player_id)
                name = names.get(seat.player_id, seat.name or "")
                seats.append((seat.player_id, name, rating, None))
            else:
                level: BotLevel = seat.level or "normal"
                seats.append((None, "", RatedSeat.bot(level).rating, level))
        if not rated([RatedSeat(pid, r, level) for pid, _, r, level in seats]):
            return None
        return start_record(seats)

    async def changes(self, room: Room) -> tuple[dict[str, RatingChange], dict[str, str]]:
        """Each person's change from a closed rated match (a quick match whose start was
        kept, or a private room created rated; none for any other room), and the persons'
        names as queued."""
        # (a quick room stored before rooms said ``rated`` is rated by its kept start alone)
        if room.mode not in ("quick", "private") or room.match is None or room.closed is None:
            return {}, {}
        if room.mode == "private" and not room.rated:
            return {}, {}
        start = await self.store.load_start(room.code)
        if start is None and room.mode == "private":
            # a rated private room keeps its start at its first settle: its people played
            # no other rated match meanwhile (one seat at a time), so their ratings now are
            # those it started from; kept, a later settle computes from the same
            start = await self.start_of(room, {})
            if start is not None:
                await self.store.save_start(room.code, start)
        if start is None:
            return {}, {}
        names = {s["pid"]: str(s["name"]) for s in start["seats"] if s["pid"]}
        return rating_updates(rated_match(room.code, start, room.match.deal_scores)), names

    async def apply(self, room: Room) -> None:
        """Apply a closed room's rating changes, once per player, and tell each player whose
        change this call applied (written first, then sent); a change applied before (a
        settle again) is not told again. The bookkeeping calls it on each settle of the
        room (``RoomApplier``): a player whose change the store failed to apply does not
        hold up the others, and the first failure is raised once they are applied and
        told, which keeps the room pending for the next settle to finish."""
        changes, names = await self.changes(room)
        told: list[tuple[str, RatingChanged]] = []
        failed: StoreError | None = None
        for pid, change in changes.items():
            try:
                applied, before, after = await self.apply_change(pid, room.code, change, names[pid])
            except StoreError as exc:
                failed = failed or exc
                continue
            if applied:
                told.append((pid, RatingChanged(code=room.code, before=before, after=after)))
        self.lobby.cluster.deliver(told)
        if failed is not None:
            raise failed

    async def apply_change(
        self, player_id: str, code: str, change: RatingChange, name: str
    ) -> tuple[bool, RatingView, RatingView]:
        """Apply one player's change of match ``code`` (once, however often asked) and put
        the ladder in step with the rating as it now is (again each time: a crash between
        the two is healed by the next ask); whether this call applied it, the rating before
        the match and as it is now."""
        before, after = change.before, change.after
        applied, stored = await self.store.apply(
            player_id,
            code,
            (before.mu, before.sigma),
            (after.mu, after.sigma),
            name,
            self.lobby.clock(),
        )
        now = Rating(stored.mu, stored.sigma)
        if stored.matches >= LADDER_MIN_MATCHES:
            entry = {"name": name, "mu": now.mu, "sigma": now.sigma, "matches": stored.matches}
            await self.store.set_ladder(player_id, now.display, entry, shown_score(now))
        return applied, view(before, stored.matches - 1), view(now, stored.matches)

    async def get_leaderboard(
        self, conn: Connection, session: Session, request: GetLeaderboard
    ) -> None:
        conn.bucket.spend(LADDER_COST)
        conn.send(await self.leaderboard(session.player_id, session.name))

    async def leaderboard(self, player_id: str, name: str) -> Leaderboard:
        """The ladder's top and the asker's own line (None: never rated)."""
        read = await self.store.ladder(LADDER_SIZE, player_id, _entry_shown)
        top = [
            LadderLine(
                rank=i + 1,
                name=str(r.entry.get("name", "")),
                rating=_entry_view(r.entry),
                tag=public_tag(r.player_id),
            )
            for i, r in enumerate(read.top)
        ]
        you: LadderLine | None = None
        rating, matches = await self.rating_of(player_id)
        if matches > 0:
            you = LadderLine(
                rank=read.rank, name=name, rating=view(rating, matches), tag=public_tag(player_id)
            )
        return Leaderboard(top=top, ranked=read.ranked, min_matches=LADDER_MIN_MATCHES, you=you)


def _entry_rating(entry: dict[str, Any]) -> Rating:
    return Rating(float(entry.get("mu", NEW.mu)), float(entry.get("sigma", NEW.sigma)))


def _entry_shown(entry: dict[str, Any]) -> float:
    """What a ladder entry ranks by: its rating's points, unrounded (ties are rare)."""
    return shown_score(_entry_rating(entry))


def _entry_view(entry: dict[str, Any]) -> RatingView:
    rating = Rating(float(entry.get("mu", NEW.mu)), float(entry.get("sigma", NEW.sigma)))
    return view(rating, int(entry.get("matches", 0)))
