"""A player's new name: the browser changes it with a hello on its session (token and key)
under the new name; outside any room that opens the player's next session under it (the
same player, the same record), in a room the session goes on as it was."""

from __future__ import annotations

from protocol.messages import CreateRoom
from tests.server.lobby.harness import lobby


async def test_a_new_name_outside_a_room_is_the_players_next_session() -> None:
    async with lobby() as lob:
        _, ann = await lob.hello("Ann")
        assert ann.player_key is not None
        _, renamed = await lob.hello("Mei", token=ann.token, key=ann.player_key)
        assert renamed.player_id == ann.player_id and renamed.name == "Mei"
        assert renamed.token != ann.token and not renamed.resumed
        assert renamed.player_key is None  # the key stays the one she holds
        # the same name again is the same session
        _, again = await lob.hello("Mei", token=renamed.token, key=ann.player_key)
        assert again.resumed and again.token == renamed.token


async def test_in_a_room_the_session_goes_on_under_its_name() -> None:
    async with lobby() as lob:
        conn, ann = await lob.hello("Ann")
        assert ann.player_key is not None
        await lob.send(conn, CreateRoom(deals=3))
        code = lob.room_of(ann.player_id)
        assert code is not None
        _, back = await lob.hello("Mei", token=ann.token, key=ann.player_key)
        assert back.resumed and back.name == "Ann" and back.room == code
