"""The player's key on another process: two processes over one in-memory store and relay;
the key alone (a second device, no token) continues the same player in their room there,
and their connection on the first process is closed (replaced)."""

from __future__ import annotations

from protocol.codec import encode
from protocol.messages import PROTOCOL_VERSION, CreateRoom, Hello, Snapshot, Welcome
from tests.server.cluster.harness import until
from tests.server.cluster.test_lobby import apps, say
from tests.server.lobby.harness import FakeConn


async def test_the_key_alone_continues_the_player_on_another_process() -> None:
    async with apps(2) as [(a, hub_a), (b, hub_b)]:
        old = FakeConn()
        a.hub.add(old)  # type: ignore[arg-type]
        ann = await say(a, old, Hello(name="Ann", version=PROTOCOL_VERSION))
        assert isinstance(ann, Welcome) and ann.player_key is not None
        await a.receive(old, encode(CreateRoom()))  # type: ignore[arg-type]
        code = a.sessions.room_of(ann.player_id)
        assert code is not None

        phone = FakeConn()
        b.hub.add(phone)  # type: ignore[arg-type]
        hello = Hello(name="Ann", version=PROTOCOL_VERSION, player_key=ann.player_key)
        again = await say(b, phone, hello)

        assert isinstance(again, Welcome) and again.player_id == ann.player_id
        assert again.resumed and again.room == code and again.player_key is None
        await until(lambda: any(isinstance(m, Snapshot) for m in hub_b.got[ann.player_id]))
        await until(lambda: old.ws.closed is not None)  # replaced
        assert not hub_a.connected(ann.player_id)
