"""A practice given up with ``leave`` is in the player's history (issue 34: one left
before the person's first play was in none: "no matches yet"). On the in-memory stores."""

from __future__ import annotations

from protocol.messages import GetHistory, History, Leave, StartPractice
from tests.server.lobby.harness import lobby
from tests.server.players.helpers import say_quietly, settled


async def test_a_practice_left_before_a_first_play_is_in_the_history() -> None:
    async with lobby() as lob:
        conn, welcome = await lob.hello("Ann")
        player = welcome.player_id
        await say_quietly(lob, conn, StartPractice(deals=3))
        code = lob.room_of(player)
        assert code is not None
        runner = lob.app.rooms[code]
        assert not runner.room.played  # nothing played by the person yet
        await say_quietly(lob, conn, Leave())
        assert runner.room.closed == "everyone_left"
        await settled(lob.app, code)
        history = await lob.say(conn, GetHistory())
        assert isinstance(history, History)
        assert [(e.code, e.result, e.ended) for e in history.entries] == [
            (code, "unfinished", "everyone_left")
        ]
