"""ddz-server serves the browser table over plain HTTP on its websocket's port: the page at
``/`` (never cached stale), its assets under a versioned path (cached for a year), gzip when
asked, the right content types, 404 for anything else and no way out of the static files.
All over a real server process."""

from __future__ import annotations

import gzip
import http.client
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.sync.client import connect

from protocol.codec import decode_server, encode
from protocol.messages import PROTOCOL_VERSION, Hello, Welcome
from server.web.serve import STATIC, StaticSite, _accepts_gzip
from tests.web.browser import WebServer


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    log = tmp_path_factory.mktemp("serve") / "server.log"
    s = WebServer(redis_url, log, ["--metrics-on-game-port"])  # (asked: served beside the page)
    try:
        yield s
    finally:
        s.stop()


def get(
    server: WebServer, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.endheaders()
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def asset_paths(index: bytes) -> list[str]:
    return re.findall(r'(?:href|src)="(/assets/[^"]+)"', index.decode())


def test_index_is_never_cached_stale_and_names_versioned_assets(server: WebServer) -> None:
    status, headers, body = get(server, "/")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["cache-control"] == "no-cache"
    assert "default-src 'self'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    version = StaticSite().version
    paths = asset_paths(body)
    assert f"/assets/{version}/js/app.js" in paths
    assert f"/assets/{version}/css/table.css" in paths
    assert all(p.startswith(f"/assets/{version}/") for p in paths)
    # every module is preloaded, the vendored msgpack among them
    assert any(p.endswith("vendor/msgpack-3.1.3/index.mjs") for p in paths)
    # a revisit costs a 304
    status, _, body = get(server, "/", {"If-None-Match": headers["etag"]})
    assert status == 304 and body == b""


@pytest.mark.parametrize(
    ("name", "content_type"),
    [
        ("js/app.js", "text/javascript; charset=utf-8"),
        ("js/rules.js", "text/javascript; charset=utf-8"),
        ("vendor/msgpack-3.1.3/index.mjs", "text/javascript; charset=utf-8"),
        ("css/table.css", "text/css; charset=utf-8"),
        ("icon.svg", "image/svg+xml"),
    ],
)
def test_assets_have_their_types_and_are_immutable(
    server: WebServer, name: str, content_type: str
) -> None:
    version = StaticSite().version
    status, headers, body = get(server, f"/assets/{version}/{name}")
    assert status == 200
    assert headers["content-type"] == content_type
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert body == (STATIC / name).read_bytes()
    # a query string does not change what is served
    assert get(server, f"/assets/{version}/{name}?x=1")[2] == body


def test_text_is_gzipped_when_the_client_accepts_it(server: WebServer) -> None:
    path = f"/assets/{StaticSite().version}/js/rules.js"
    status, headers, body = get(server, path, {"Accept-Encoding": "gzip, deflate, br"})
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert headers["vary"] == "Accept-Encoding"
    assert int(headers["content-length"]) == len(body)
    assert gzip.decompress(body) == (STATIC / "js" / "rules.js").read_bytes()
    assert len(body) < (STATIC / "js" / "rules.js").stat().st_size / 2
    # not asked, or refused with q=0: sent as it is
    for header in ({}, {"Accept-Encoding": "gzip;q=0"}, {"Accept-Encoding": "identity"}):
        _, headers, body = get(server, path, header)
        assert "content-encoding" not in headers
        assert body == (STATIC / "js" / "rules.js").read_bytes()


def test_small_files_are_not_gzipped() -> None:
    site = StaticSite()
    assert site.assets["icon.svg"].gzipped is None  # under a kilobyte


@pytest.mark.parametrize(
    "path",
    [
        "/nothing",
        "/favicon.ico",
        "/assets/",
        "/assets/000000000000/js/app.js",  # another release's version
        "/assets/{v}/index.html",  # the template is only served as /
        "/assets/{v}/vendor/README.md",
        "/assets/{v}/vendor/msgpack-3.1.3/LICENSE",
        "/assets/{v}/../serve.py",
        "/assets/{v}/../../settings.py",
        "/assets/{v}/js/../../serve.py",
        "/assets/{v}/%2e%2e/serve.py",
        "/assets/{v}/..%2f..%2fserve.py",
        "/assets/{v}//etc/passwd",
        "/assets/{v}/js/app.js/",
        "/../../../../etc/passwd",
        "/static/js/app.js",
        "/server/web/serve.py",
    ],
)
def test_anything_else_is_not_found(server: WebServer, path: str) -> None:
    status, headers, body = get(server, path.replace("{v}", StaticSite().version))
    assert status == 404
    assert body == b"not found\n"
    assert headers["cache-control"] == "no-store"


def test_only_files_under_static_are_in_the_site() -> None:
    site = StaticSite()
    root = STATIC.resolve()
    for name in site.assets:
        path = (STATIC / name).resolve()
        assert path.is_relative_to(root) and path.is_file(), name
    assert "index.html" not in site.assets


def test_health_and_metrics_are_still_answered(server: WebServer) -> None:
    assert get(server, "/healthz")[0] == 200
    status, _, body = get(server, "/metrics")
    assert status == 200 and b"ddz_connections" in body


def test_the_websocket_still_answers_at_the_same_address(server: WebServer) -> None:
    with connect(f"ws://127.0.0.1:{server.port}/") as ws:
        ws.send(encode(Hello(name="web", version=PROTOCOL_VERSION)))
        reply = decode_server(ws.recv(timeout=5))
    assert isinstance(reply, Welcome) and reply.name == "web"


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        (None, False),
        ("", False),
        ("gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("GZIP", True),
        ("gzip;q=0", False),
        ("gzip;q=0.0", False),
        ("*", True),
        ("br, identity", False),
    ],
)
def test_accept_encoding(header: str | None, accepted: bool) -> None:
    assert _accepts_gzip(header) is accepted


def test_the_version_follows_the_contents(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text('<script src="%ASSETS%/a.js"></script>%PRELOAD%')
    (tmp_path / "a.js").write_text("export const a = 1;\n")
    first = StaticSite(tmp_path)
    assert first.index.body.startswith(f'<script src="/assets/{first.version}/a.js">'.encode())
    assert b'<link rel="modulepreload"' in first.index.body
    (tmp_path / "a.js").write_text("export const a = 2;\n")
    assert StaticSite(tmp_path).version != first.version
