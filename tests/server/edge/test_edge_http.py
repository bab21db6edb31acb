"""The plain HTTP beside the websocket, as bytes on a raw socket: HEAD answered without a
body, other methods 405, ``nosniff`` on every answer, an ``Origin`` allow-list for the
upgrade (off by default), and ``/metrics`` on an address of its own when asked."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.redis_server import free_port
from tests.server.wire import running_server


async def exchange(port: int, request: bytes) -> tuple[bytes, dict[str, str], bytes]:
    """The status line, headers (lower-case names) and body of the answer to ``request``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    try:
        async with asyncio.timeout(5):
            answer = await reader.read()
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines)}
    return status.encode(), headers, body


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


@pytest.mark.parametrize("path", ["/", "/healthz", "/metrics", "/nowhere"])
async def test_head_gets_the_headers_of_get_and_no_body(redis_url: str, path: str) -> None:
    async with running_server(redis_url) as srv:
        port = port_of(srv.url)
        get = await exchange(port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        head = await exchange(port, f"HEAD {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert head[0] == get[0]
    assert head[2] == b""
    assert get[2] != b""
    assert get[1]["content-length"] == str(len(get[2]))
    if path == "/metrics":
        # the figures move between the two requests (time, CPU, requests counted): only
        # the header is there, with a length
        assert int(head[1]["content-length"]) > 0
    else:
        assert head[1]["content-length"] == get[1]["content-length"]


@pytest.mark.parametrize("method", ["DELETE", "TRACE", "POST", "PUT", "OPTIONS", "get"])
async def test_other_methods_get_405(redis_url: str, method: str) -> None:
    async with running_server(redis_url) as srv:
        status, headers, body = await exchange(
            port_of(srv.url), f"{method} / HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        )
    assert status.startswith(b"HTTP/1.1 405")
    assert headers["allow"] == "GET, HEAD"
    assert b"<html" not in body.lower()


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /healthz HTTP/1.1\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\r\n\r\n",
        b"GET /nowhere HTTP/1.1\r\n\r\n",
        b"DELETE / HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n",  # a broken upgrade: websockets' 400
        b"nonsense\r\n\r\n",
    ],
)
async def test_every_answer_says_nosniff(redis_url: str, request_bytes: bytes) -> None:
    async with running_server(redis_url) as srv:
        _, headers, _ = await exchange(port_of(srv.url), request_bytes)
    assert headers["x-content-type-options"] == "nosniff"


async def test_an_origin_off_the_list_may_not_open_a_websocket(redis_url: str) -> None:
    async with running_server(redis_url, allowed_origins="https://ddz.example") as srv:
        with pytest.raises(InvalidStatus) as refused:
            async with connect(srv.url, origin="https://evil.example"):  # type: ignore[arg-type]
                pass
        assert refused.value.response.status_code == 403
        own = srv.url.replace("ws://", "http://")
        for origin in ("https://ddz.example", own, None):  # listed, this server's page, none
            async with connect(srv.url, origin=origin) as ws:  # type: ignore[arg-type]
                await ws.ping()


async def test_any_origin_may_connect_by_default(redis_url: str) -> None:
    async with running_server(redis_url) as srv:
        async with connect(srv.url, origin="https://evil.example") as ws:  # type: ignore[arg-type]
            await ws.ping()


async def test_metrics_move_to_their_own_port_when_asked(redis_url: str) -> None:
    scrape = free_port()
    async with running_server(redis_url, metrics_port=scrape) as srv:
        status, _, _ = await exchange(port_of(srv.url), b"GET /metrics HTTP/1.1\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 404")
        status, headers, body = await exchange(scrape, b"GET /metrics HTTP/1.1\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 200") and b"ddz_connections" in body
        assert headers["x-content-type-options"] == "nosniff"
        status, _, _ = await exchange(scrape, b"GET / HTTP/1.1\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 404")
