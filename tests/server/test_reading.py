"""A client's bytes are parsed a slice at a time: a burst in one write is parsed in slices of
``READ_SLICE`` bytes, every frame in it still handled, in order."""

from __future__ import annotations

from websockets.protocol import Protocol

from protocol.codec import encode
from protocol.messages import Ping, Pong
from server.reading import READ_SLICE, PacedConnection
from tests.server.wire import running_server, wire_client


async def test_a_burst_in_one_write_is_parsed_in_slices_and_answered_in_order(
    redis_url: str,
) -> None:
    # One read of 256 KB of 1-byte frames was 350 ms of parsing with every other player
    # waiting.
    async with (
        running_server(redis_url, rate_limit=1e6, rate_burst=1_000_000) as srv,
        wire_client(srv.url) as (client, welcome),
    ):
        server_side = srv.app.hub.connections(welcome.player_id)[0].ws
        assert isinstance(server_side, PacedConnection)
        parsed: list[int] = []
        receive = server_side.protocol.receive_data

        def spy(data: bytes) -> None:
            parsed.append(len(data))
            receive(data)

        server_side.protocol.receive_data = spy  # type: ignore[method-assign]
        ids = range(1000, 3000)
        protocol: Protocol = client.ws.protocol
        for rid in ids:
            protocol.send_binary(encode(Ping(id=rid)))
        burst = b"".join(protocol.data_to_send())
        client.ws.transport.write(burst)  # one write of about 30 KB
        answered = [(await client.recv_type(Pong)).request_id for _ in ids]
        assert answered == list(ids)
        assert sum(parsed) == len(burst)
        assert max(parsed) <= READ_SLICE < len(burst)
