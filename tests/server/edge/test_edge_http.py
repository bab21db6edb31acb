"""The plain HTTP beside the websocket, as bytes on a raw socket: HEAD answered without a
body, other methods 405, ``nosniff`` on every answer, an ``Origin`` check for the upgrade
(this server's own page, the listed ones, and clients that send none), and ``/metrics``
served nowhere unless asked: on an address of its own, or on the game port."""

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
    async with running_server(redis_url, metrics_on_game_port=True) as srv:
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


async def upgrade(url: str, origin: str | None, host: str | None = None) -> int:
    """The HTTP status of a browser-like websocket upgrade from a page at ``origin`` (101:
    opened), sent to ``url`` with this ``Host`` (default: the url's)."""
    port = port_of(url)
    lines = [
        "GET / HTTP/1.1",
        f"Host: {host or f'127.0.0.1:{port}'}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0",
    ]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        async with asyncio.timeout(5):
            status = await reader.readline()
    finally:
        writer.close()
    return int(status.split()[1])


async def test_only_this_servers_own_page_may_open_a_websocket_by_default(redis_url: str) -> None:
    """Issue 35: with no --allowed-origins any page could open a session from a visitor's
    browser (an empty list meant any). Now the default is this server's own page."""
    async with running_server(redis_url) as srv:
        own = srv.url.replace("ws://", "http://")
        assert await upgrade(srv.url, "http://evil.example") == 403
        assert await upgrade(srv.url, "null") == 403  # a sandboxed frame, a file
        assert await upgrade(srv.url, own.replace("http://", "https://")) == 403  # not its scheme
        assert await upgrade(srv.url, "http://127.0.0.1:1") == 403  # another port
        assert await upgrade(srv.url, own) == 101
        assert await upgrade(srv.url, "http://ddz.example", host="ddz.example") == 101
        assert await upgrade(srv.url, None) == 101  # no page: the terminal client, bots
        async with connect(srv.url) as ws:  # (which sends no Origin)
            await ws.ping()
        counted = 'ddz_refused_connections_total{cap="origin"} 4.0'
        assert counted.encode() in srv.app.metrics.exposition()


async def test_a_trusted_proxy_that_ended_tls_says_the_pages_scheme(redis_url: str) -> None:
    """Behind nginx doing TLS the page is https://HOST while the server is reached over
    http: the proxy's X-Forwarded-Proto counts, and only a trusted proxy's."""
    host = "ddz.example"
    async with running_server(redis_url, trusted_proxies="127.0.0.1") as srv:
        page = "https://ddz.example"
        assert await upgrade(srv.url, page, host=host) == 403  # no word of TLS
        assert await upgrade_forwarded(srv.url, page, host, "https") == 101
    async with running_server(redis_url) as srv:  # not trusted: its word does not count
        assert await upgrade_forwarded(srv.url, page, host, "https") == 403


async def upgrade_forwarded(url: str, origin: str, host: str, proto: str) -> int:
    return await upgrade(url, origin, host=f"{host}\r\nX-Forwarded-Proto: {proto}")


async def test_listed_origins_or_any_may_open_when_asked(redis_url: str) -> None:
    async with running_server(redis_url, allowed_origins="https://ddz.example") as srv:
        assert await upgrade(srv.url, "https://ddz.example") == 101
        assert await upgrade(srv.url, "https://evil.example") == 403
    async with running_server(redis_url, allowed_origins="*") as srv:
        assert await upgrade(srv.url, "https://evil.example") == 101
        assert await upgrade(srv.url, "null") == 101


async def test_metrics_are_served_nowhere_by_default(redis_url: str) -> None:
    """Issue 35: /metrics (9 KB of counters) was served to anyone on the game port."""
    async with running_server(redis_url) as srv:
        status, _, body = await exchange(port_of(srv.url), b"GET /metrics HTTP/1.1\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 404") and b"ddz_" not in body


async def test_metrics_on_the_game_port_when_asked(redis_url: str) -> None:
    async with running_server(redis_url, metrics_on_game_port=True) as srv:
        status, _, body = await exchange(port_of(srv.url), b"GET /metrics HTTP/1.1\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 200") and b"ddz_connections" in body


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
