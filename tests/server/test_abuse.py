"""Hostile clients over real sockets (issue 11): a client that never reads, floods of
garbage and of valid requests, sockets that never say hello, too many connections, and
inputs echoed back. Each is cut off with a clear reason while the server keeps answering."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from client.connection import Link, LinkError
from protocol.codec import encode
from protocol.errors import QUOTE_LIMIT, ErrorCode
from protocol.messages import Error, JoinRoom, Ping, Pong
from server.edge.hub import Connection
from tests.server.wire import RunningServer, running_server, wire_client

#: Bytes of unsent output the tests let a connection hold.
SMALL_BUFFER = 64 * 1024
BIG = Error(code=ErrorCode.MALFORMED, message="x" * 60_000)


def http_get(url: str, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url.replace("ws://", "http://") + path, timeout=5) as r:
            return int(r.status), r.read().decode()
    except urllib.error.HTTPError as error:
        return int(error.code), error.read().decode()


#: /metrics is served nowhere by default: these servers serve it on their game port.
METRICS = {"metrics_on_game_port": True}


async def healthz(srv: RunningServer) -> int:
    status, _ = await asyncio.to_thread(http_get, srv.url, "/healthz")
    return status


async def flood(ws: ClientConnection, frame: bytes, most: int = 5000) -> list[bytes]:
    """Send ``frame`` until the server closes the connection (at most ``most`` times), then
    return every frame the server sent before its close."""
    with contextlib.suppress(ConnectionClosed):
        for _ in range(most):
            await ws.send(frame)
    replies: list[bytes] = []
    async with asyncio.timeout(5):
        with contextlib.suppress(ConnectionClosed):
            async for reply in ws:
                assert isinstance(reply, bytes)
                replies.append(reply)
    return replies


def assert_closed_for_flooding(ws: ClientConnection) -> None:
    assert ws.close_code == 1008
    assert ws.close_reason == "too many refused frames"


# --- a client that does not read -------------------------------------------------------


@contextlib.asynccontextmanager
async def not_reading(url: str) -> AsyncIterator[str]:
    """A client that has said hello and then reads nothing from its socket: its player id."""
    async with wire_client(url) as (client, welcome):
        client.ws.transport.pause_reading()
        try:
            yield welcome.player_id
        finally:
            client.ws.transport.resume_reading()  # to see its end


def by_reply(srv: RunningServer, conn: Connection) -> None:
    conn.send(BIG)  # an answer to its own request


def by_delivery(srv: RunningServer, conn: Connection) -> None:
    assert conn.player_id is not None
    srv.app.hub.deliver([(conn.player_id, BIG)])  # what its room sends


def by_relay(srv: RunningServer, conn: Connection) -> None:
    assert conn.player_id is not None
    srv.app.hub.send_frames(conn.player_id, [encode(BIG)])  # from a room run elsewhere


@pytest.mark.parametrize("push", [by_reply, by_delivery, by_relay])
async def test_a_client_that_does_not_read_is_dropped_once_its_output_passes_the_limit(
    redis_url: str, push: Callable[[RunningServer, Connection], None]
) -> None:
    # A client that never read grew the server from 94 MB to 612 MB in 150 s.
    async with (
        running_server(redis_url, send_buffer_limit=SMALL_BUFFER) as srv,
        not_reading(srv.url) as player_id,
    ):
        conn = srv.app.hub.connections(player_id)[0]
        for _ in range(1000):  # 60 MB at most: past any socket buffers
            if conn.dropped is not None:
                break
            push(srv, conn)
            await asyncio.sleep(0)  # the loop writes what the socket takes
        assert conn.dropped == "send_buffer"
        async with asyncio.timeout(5):
            while conn in srv.app.hub.all:
                await asyncio.sleep(0.01)
        assert await healthz(srv) == 200


# --- floods --------------------------------------------------------------------------


async def test_a_flood_of_garbage_before_hello_draws_a_few_replies_then_a_1008_close(
    redis_url: str,
) -> None:
    # 1-byte invalid frames drew 661,394 error replies in 10 s, each decoded first.
    async with (
        running_server(redis_url, rate_limit=20.0, rate_burst=5, flood_close_after=50) as srv,
        connect(srv.url) as ws,
    ):
        replies = await flood(ws, b"\xc1")
        assert 1 <= len(replies) <= 8  # the burst's malformed answers, one rate_limited
        assert_closed_for_flooding(ws)
        assert await healthz(srv) == 200


async def test_a_flood_of_valid_pings_draws_a_few_replies_then_a_1008_close(
    redis_url: str,
) -> None:
    # A flood of valid pings drew 617k rate_limited replies.
    async with (
        running_server(redis_url, rate_limit=20.0, rate_burst=5, flood_close_after=50) as srv,
        wire_client(srv.url) as (client, _),
    ):
        replies = await flood(client.ws, encode(Ping(id=1)))
        assert 1 <= len(replies) <= 8  # the burst's pongs, one rate_limited
        assert_closed_for_flooding(client.ws)
        async with wire_client(srv.url, name="bystander") as (other, _):
            await other.send(Ping())
            await other.recv_type(Pong)


async def test_a_flood_is_counted_in_the_metrics(redis_url: str) -> None:
    async with (
        running_server(
            redis_url, rate_limit=20.0, rate_burst=5, flood_close_after=50, **METRICS
        ) as srv,
        connect(srv.url) as ws,
    ):
        await flood(ws, b"\xc1")
        # the server lets the flooded socket go: seconds on a loaded machine
        async with asyncio.timeout(20):
            while srv.app.hub.all:
                await asyncio.sleep(0.01)
        _, text = await asyncio.to_thread(http_get, srv.url, "/metrics")
        assert 'ddz_dropped_connections_total{reason="flood"} 1.0' in text
        assert 'ddz_requests_total{outcome="rate_limited",type="unread"}' in text


# --- sockets that never say hello ----------------------------------------------------


async def test_a_socket_without_hello_is_closed_after_the_hello_timeout(redis_url: str) -> None:
    # 2,000 sockets that never said hello were kept 70 s and more.
    async with (
        running_server(redis_url, hello_timeout=0.2) as srv,
        wire_client(srv.url) as (greeted, _),
        connect(srv.url) as silent,
    ):
        async with asyncio.timeout(5):
            await silent.wait_closed()
        assert silent.close_code == 1008
        assert silent.close_reason == "no hello within 0.2 s"
        await greeted.send(Ping())  # the one that said hello stays
        await greeted.recv_type(Pong)


# --- connection caps ------------------------------------------------------------------


async def refused(url: str, **kwargs: object) -> tuple[int, str]:
    """The HTTP status and body of a refused websocket upgrade."""
    with pytest.raises(InvalidStatus) as caught:
        async with connect(url, **kwargs):  # type: ignore[arg-type]
            pass
    response = caught.value.response
    return response.status_code, response.body.decode()


async def test_connections_from_one_address_are_capped_and_healthz_still_answers(
    redis_url: str,
) -> None:
    async with (
        running_server(redis_url, max_connections_per_address=2, **METRICS) as srv,
        connect(srv.url),
    ):
        async with connect(srv.url):
            status, body = await refused(srv.url)
            assert status == 429
            assert body == "too many connections from your address (at most 2)\n"
            assert await healthz(srv) == 200
            _, text = await asyncio.to_thread(http_get, srv.url, "/metrics")
            assert 'ddz_refused_connections_total{cap="per_address"} 1.0' in text
        async with asyncio.timeout(5):  # the closed one's place is free again
            while srv.app.hub.all and len(srv.app.hub.all) > 1:
                await asyncio.sleep(0.01)
            async with connect(srv.url) as ws:
                await ws.send(encode(Ping(id=1)))
                assert await ws.recv()


async def test_connections_to_a_process_are_capped(redis_url: str) -> None:
    async with (
        running_server(redis_url, max_connections=2, max_connections_per_address=0) as srv,
        connect(srv.url),
        connect(srv.url),
    ):
        status, body = await refused(srv.url)
        assert status == 503
        assert body == "server full: too many connections, try again later\n"
        assert await healthz(srv) == 200


async def test_the_ddz_client_tells_why_it_was_refused(redis_url: str) -> None:
    async with running_server(redis_url, max_connections_per_address=1) as srv, connect(srv.url):
        with pytest.raises(LinkError, match=r"too many connections from your address .*429"):
            await Link.open(srv.url, "late")


async def test_a_trusted_proxy_names_the_client_and_others_cannot(redis_url: str) -> None:
    async with running_server(
        redis_url, max_connections_per_address=1, trusted_proxies="127.0.0.0/8"
    ) as srv:
        first = {"X-Forwarded-For": "203.0.113.5"}
        second = {"X-Forwarded-For": "203.0.113.5, 198.51.100.7"}  # the proxy's is last
        async with (
            connect(srv.url, additional_headers=first),
            connect(srv.url, additional_headers=second),
        ):
            status, _ = await refused(srv.url, additional_headers={"X-Real-IP": "x"} | first)
            assert status == 429
    async with running_server(redis_url, max_connections_per_address=1) as srv:
        async with connect(srv.url, additional_headers=first):  # not a proxy: ignored
            status, _ = await refused(srv.url, additional_headers=second)
            assert status == 429


# --- echoed input ----------------------------------------------------------------------


async def test_an_error_never_repeats_more_than_a_cut_of_the_input(redis_url: str) -> None:
    # "unknown message type '...'" repeated up to 16 KB of what was sent.
    async with running_server(redis_url) as srv, wire_client(srv.url) as (client, _):
        await client.send_raw(msgpack.packb({"type": "x" * 15_000, "id": 7}))
        error = await client.recv_type(Error)
        assert error.code == ErrorCode.UNKNOWN_TYPE
        assert error.message == "unknown message type 'xxxxxxxxxxxxxxxxxxxxxxxxxxxx..."
        await client.send(JoinRoom(code="Q" * 16))
        error = await client.recv_type(Error)
        assert error.code == ErrorCode.NO_ROOM
        assert len(error.message) <= len("no room with code ") + QUOTE_LIMIT
