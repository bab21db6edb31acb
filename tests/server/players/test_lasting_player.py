"""A player is not a seat: the key names the same player on any connection, after leave, a
new session or a restart; a replaced key stops working; the key reaches its owner only;
each closed match is in its players' records once, even when the process died between the
room's closing save and the records. On the in-memory stores, one lobby process (or two,
one after the other, on one store: a restart)."""

from __future__ import annotations

import asyncio
import random
from unittest.mock import AsyncMock

from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import (
    PROFILE_PAGE,
    PROTOCOL_VERSION,
    GetHistory,
    GetProfile,
    GetReplay,
    Hello,
    History,
    Leave,
    NewPlayerKey,
    PlayerKeyIssued,
    Profile,
    ReplayData,
    Watch,
)
from server.app import App
from server.cluster.node import CLOSE_REPLACED
from server.players import keys as player_keys
from server.players.bookkeeping import MATCHES_KEPT
from server.players.outcome import MatchOutcome
from server.rooms.stored import room_from_stored
from server.settings import Settings
from server.store.errors import StoreUnavailable
from server.store.memory_lobby import MemoryAddresses
from server.store.player_records import PlayerUpdate
from tests.server.lobby.harness import NO_CAPS, FakeConn, LobbyHub, LobbyProcess, lobby
from tests.server.players.helpers import play_out, say_quietly, settled, table_of_three


async def restarted(lob: LobbyProcess) -> LobbyProcess:
    """A new process on the same store (the old one's memory is gone)."""
    await lob.app.matcher.stop()
    await lob.app.cluster.stop()
    hub = LobbyHub()
    app = App(
        Settings(**NO_CAPS),
        lob.store,
        random.Random(5),
        lob.clock,
        hub,
        addresses=MemoryAddresses(lob.store),
    )
    await app.cluster.start()
    app.accepting = True
    return LobbyProcess(app, hub, lob.store, lob.clock)


async def test_a_new_player_gets_a_key_once_and_the_store_keeps_only_its_hash() -> None:
    async with lobby() as lob:
        _, ann = await lob.hello("Ann")
        key = ann.player_key
        assert key is not None and player_keys.player_of(key) == ann.player_id
        secret = key.rpartition(".")[2]
        assert len(secret) * 6 >= 128  # URL-safe base64: 6 bits a character
        kept = repr(vars(lob.store.data))
        assert key not in kept and secret not in kept
        assert player_keys.key_hash(key) in kept
        _, again = await lob.hello("Ann", token=ann.token)
        assert again.player_key is None and again.player_id == ann.player_id


async def test_the_key_moves_the_player_to_another_connection_and_replaces_the_first() -> None:
    async with lobby() as lob:
        first, ann = await lob.hello("Ann")
        assert ann.player_key is not None
        _, same = await lob.hello("Ann on a phone", key=ann.player_key)
        assert same.player_id == ann.player_id and same.resumed and same.player_key is None
        assert first.ws.closed == CLOSE_REPLACED
        del lob.store.data.sessions[ann.token]  # the session expired: a new one, same player
        _, later = await lob.hello("Ann", key=ann.player_key)
        assert later.player_id == ann.player_id and later.token != ann.token
        assert not later.resumed and later.player_key is None


async def test_a_replaced_key_stops_working_and_the_player_keeps_their_record() -> None:
    async with lobby() as lob:
        conn, ann = await lob.hello("Ann")
        old = ann.player_key
        assert old is not None
        issued = await lob.say(conn, NewPlayerKey())
        assert isinstance(issued, PlayerKeyIssued) and issued.player_key != old
        refusal = await lob.refused(FakeConn(), _hello("Ann", key=old))
        assert refusal.code == ErrorCode.BAD_KEY
        stale = await lob.refused(FakeConn(), _hello("Ann", token=ann.token, key=old))
        assert stale.code == ErrorCode.BAD_KEY
        _, back = await lob.hello("Ann", key=issued.player_key)
        assert back.player_id == ann.player_id
        for bad in ("", "nonsense", f"{ann.player_id}.{'A' * 32}", old + "x"):
            if bad:
                refused = await lob.refused(FakeConn(), _hello("Eve", key=bad))
                assert refused.code == ErrorCode.BAD_KEY


async def test_history_replays_and_statistics_survive_leave_a_new_session_and_a_restart() -> None:
    async with lobby() as lob:
        code, conns, keys = await table_of_three(lob)
        await play_out(lob, code, conns)
        await settled(lob.app, code)
        lob = await restarted(lob)
        for player, key in keys.items():
            session = next(
                t for t, f in lob.store.data.sessions.items() if f["player_id"] == player
            )
            del lob.store.data.sessions[session]  # a new session (another device, expired)
            conn, welcome = await lob.hello("Again", key=key)
            assert welcome.player_id == player
            history = await lob.say(conn, GetHistory())
            assert isinstance(history, History) and [e.code for e in history.entries] == [code]
            replay = await lob.say(conn, GetReplay(code=code))
            assert isinstance(replay, ReplayData) and replay.code == code
            profile = await lob.say(conn, GetProfile())
            assert isinstance(profile, Profile) and profile.total == 1
            (private,) = [m for m in profile.modes if m.mode == "private"]
            assert private.played == 1
            entry = history.entries[0]
            assert private.won == int(entry.result == "won")
            total = entry.totals[entry.your_seat]
            assert profile.points_won - profile.points_lost == total
            assert profile.landlord_deals + profile.farmer_deals == entry.deals
            if entry.result == "won":
                assert profile.best is not None and profile.best.code == code
            else:  # (a lost match is nobody's best)
                assert profile.best is None


async def test_one_who_left_mid_match_has_it_in_their_record_from_a_new_session() -> None:
    async with lobby(bot_speed="instant") as lob:
        code, conns, keys = await table_of_three(lob)
        ann = next(iter(conns))
        await say_quietly(lob, conns[ann], Leave())
        assert lob.room_of(ann) is None
        await play_out(lob, code, conns)
        await settled(lob.app, code)
        sessions = lob.store.data.sessions
        del sessions[next(t for t, f in sessions.items() if f["player_id"] == ann)]
        conn, again = await lob.hello("Ann", key=keys[ann])
        assert again.player_id == ann
        history = await lob.say(conn, GetHistory())
        assert isinstance(history, History) and [e.code for e in history.entries] == [code]
        replay = await lob.say(conn, GetReplay(code=code))
        assert isinstance(replay, ReplayData)


async def test_a_match_left_pending_by_a_crash_is_settled_once_at_the_next_start() -> None:
    async with lobby() as lob:
        code, conns, keys = await table_of_three(lob)
        # the process "dies" between the room's closing save and its records
        lob.app.bookkeeping.settle_room = AsyncMock(return_value=0)  # type: ignore[method-assign]
        await play_out(lob, code, conns)
        assert code in lob.store.data.pending
        assert all(not p.matches for p in lob.store.data.players.values())
        one = next(iter(keys))
        lob = await restarted(lob)
        assert await lob.app.bookkeeping.settle_pending() == 3
        assert code not in lob.store.data.pending
        stats_before = {p: dict(lob.store.data.players[p].stats) for p in keys}
        lob.store.data.pending.add(code)  # as if the settling process died before the end
        assert await lob.app.bookkeeping.settle_pending() == 0
        for player in keys:
            record = lob.store.data.players[player]
            assert len(record.matches) == 1 and record.stats == stats_before[player]
        assert lob.store.data.players[one].stats["played:private"] == 1


async def test_a_match_some_players_have_is_applied_to_the_others_only() -> None:
    async with lobby() as lob:
        code, conns, keys = await table_of_three(lob)
        lob.app.bookkeeping.settle_room = AsyncMock(return_value=0)  # type: ignore[method-assign]
        await play_out(lob, code, conns)
        lob = await restarted(lob)
        stored = await lob.store.load_room(code)
        assert stored is not None
        outcome = MatchOutcome.of(room_from_stored(stored), await lob.store.read_log(code))
        assert outcome is not None
        first = next(iter(keys))
        update = (await lob.app.bookkeeping.updates(outcome))[first]
        await lob.store.apply_match(first, update, lob.clock(), MATCHES_KEPT, 0.0)
        assert await lob.app.bookkeeping.settle_pending() == 2
        assert [len(lob.store.data.players[p].matches) for p in keys] == [1, 1, 1]


async def test_the_key_never_reaches_another_player_or_a_watcher() -> None:
    async with lobby() as lob:
        code, conns, keys = await table_of_three(lob)
        watcher, walt = await lob.hello("Walt")
        await lob.send(watcher, Watch(code=code))
        await play_out(lob, code, conns)
        await settled(lob.app, code)
        for conn in conns.values():
            await lob.say(conn, GetProfile())
            await lob.say(conn, GetHistory())
        walt_frames = b"".join(encode(m) for m in watcher.sent + lob.hub.got[walt.player_id])
        for owner, key in keys.items():
            secret = key.rpartition(".")[2].encode()
            assert secret not in walt_frames
            for player, conn in conns.items():
                if player == owner:
                    continue
                frames = b"".join(encode(m) for m in conn.sent + lob.hub.got[player])
                assert secret not in frames, f"{owner}'s key reached {player}"


async def test_new_players_count_against_their_address() -> None:
    async with lobby(new_sessions_per_address=1) as lob:
        _, ann = await lob.hello("Ann")
        refusal = await lob.refused(FakeConn(), _hello("Bo"))
        assert refusal.code == ErrorCode.LIMIT_REACHED
        assert len(lob.store.data.players) == 1  # nothing made for the refused one
        _, back = await lob.hello("Ann", token=ann.token)  # a session resumed is not new
        assert back.player_id == ann.player_id


async def test_a_session_from_before_keys_gets_a_key_for_its_player() -> None:
    async with lobby() as lob:
        old = "p0123456789ab"
        await lob.store.save_session("old-token", {"player_id": old, "name": "Ann", "room": ""})
        _, welcome = await lob.hello("Ann", token="old-token")
        assert welcome.player_id == old and welcome.player_key is not None
        _, again = await lob.hello("Ann", key=welcome.player_key)
        assert again.player_id == old


async def test_the_profile_pages_the_matches_past_the_last_twenty() -> None:
    async with lobby() as lob:
        conn, ann = await lob.hello("Ann")
        for n in range(PROFILE_PAGE + 5):
            entry = {
                "code": f"ROOM{n}",
                "mode": "practice",
                "ended_at": 1000.0 + n,
                "deals": 1,
                "deals_total": 1,
                "seats": ["Ann", "Bot", "Bot"],
                "your_seat": 0,
                "totals": [2, -1, -1],
                "result": "won",
                "ended": "match_over",
            }
            update = PlayerUpdate(f"ROOM{n}@1", entry, {"played:practice": 1}, best=2)
            await lob.store.apply_match(ann.player_id, update, lob.clock(), MATCHES_KEPT, 0.0)
        first = await lob.say(conn, GetProfile())
        assert isinstance(first, Profile) and first.total == PROFILE_PAGE + 5
        assert [m.code for m in first.matches][:2] == [f"ROOM{PROFILE_PAGE + 4}", "ROOM23"]
        rest = await lob.say(conn, GetProfile(offset=PROFILE_PAGE))
        assert isinstance(rest, Profile) and [m.code for m in rest.matches] == [
            f"ROOM{n}" for n in range(4, -1, -1)
        ]
        assert rest.modes[0].played == PROFILE_PAGE + 5


def _hello(name: str, token: str | None = None, key: str | None = None) -> Hello:
    return Hello(name=name, version=PROTOCOL_VERSION, token=token, player_key=key)


async def test_a_running_process_settles_what_another_left_pending() -> None:
    async with lobby() as lob:
        code, conns, keys = await table_of_three(lob)
        lob.app.bookkeeping.settle_room = AsyncMock(  # type: ignore[method-assign]
            side_effect=StoreUnavailable("the store failed just then")
        )
        await play_out(lob, code, conns)
        assert code in lob.store.data.pending
        other = await restarted(lob)  # (a process that was running all along)
        settling = asyncio.ensure_future(other.app.bookkeeping.keep_settling(every=0.001))
        try:
            await settled(other.app, code)
        finally:
            settling.cancel()
        assert all(len(lob.store.data.players[p].matches) == 1 for p in keys)
