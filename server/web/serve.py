"""The browser table's files, served by ``ddz-server`` on its own port (same origin as the
websocket, so the page needs no address and no CORS).

``StaticSite`` reads every file under ``server/web/static/`` once, at start, into memory:
nothing on disk is opened while answering, so no request path can reach a file that was
not there at start (no traversal: a path is a key of a dict, never joined to a directory).

- ``GET /`` answers ``index.html`` with ``Cache-Control: no-cache`` (and an ETag, so a
  revisit costs a 304). The page names every other file under ``/assets/<version>/...``,
  where ``<version>`` is a hash of all the files' contents: a release that changes any file
  changes every asset URL, so assets are served ``immutable`` for a year and a browser never
  mixes files of two releases. ES modules import each other by relative paths, which stay
  inside the same version.
- Text files over ``GZIP_MIN`` bytes are gzipped at start; a client that accepts gzip gets
  that copy (``Vary: Accept-Encoding``).
- Anything else that is not a websocket upgrade gets a 404.
- ``HEAD`` gets a ``GET``'s headers without its body; any other method (methods are case
  sensitive: ``get`` is not ``GET``) a 405 naming the two (``answer_method``). Every answer
  carries ``nosniff``.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass, replace
from http import HTTPStatus
from pathlib import Path

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

STATIC = Path(__file__).resolve().parent / "static"
ASSET_PREFIX = "/assets/"
#: The page's template: ``%ASSETS%`` becomes ``/assets/<version>``, and ``%PRELOAD%`` a
#: ``modulepreload`` link for every module, so the browser fetches them all at once instead
#: of finding each import only after the module that names it has arrived.
INDEX = "index.html"
ASSETS_MARK = "%ASSETS%"
PRELOAD_MARK = "%PRELOAD%"
#: Smaller text files are sent as they are: gzip's header and a round trip's worth of
#: bytes cost more than they save.
GZIP_MIN = 1024
YEAR = 365 * 24 * 3600

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
}
TEXT = {".html", ".js", ".mjs", ".css", ".svg", ".json", ".webmanifest"}

#: What the page may load and connect to: only this origin (its websocket included).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@dataclass(frozen=True, slots=True)
class Asset:
    """One file as it is sent: its body, the gzipped body (None when not worth it), its
    content type, its ETag and its caching header."""

    body: bytes
    gzipped: bytes | None
    content_type: str
    etag: str
    cache: str


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


def _asset(body: bytes, suffix: str, cache: str) -> Asset:
    gz = None
    if suffix in TEXT and len(body) > GZIP_MIN:
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        gz = packed if len(packed) < len(body) else None
    return Asset(body, gz, TYPES[suffix], _etag(body), cache)


def _accepts_gzip(header: str | None) -> bool:
    """Whether an Accept-Encoding header admits gzip (``gzip;q=0`` refuses it)."""
    if not header:
        return False
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() not in ("gzip", "*"):
            continue
        q = params.strip().lower()
        if q.startswith("q="):
            try:
                return float(q[2:]) > 0
            except ValueError:
                return False
        return True
    return False


class StaticSite:
    """The page and its assets, in memory; ``answer`` serves them."""

    def __init__(self, root: Path = STATIC) -> None:
        files: dict[str, bytes] = {}
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in TYPES:
                files[path.relative_to(root).as_posix()] = path.read_bytes()
        digest = hashlib.sha256()
        for name, body in files.items():
            digest.update(name.encode() + b"\0" + hashlib.sha256(body).digest())
        #: The release's asset version: a hash of every file's name and contents.
        self.version = digest.hexdigest()[:12]
        self.base = f"{ASSET_PREFIX}{self.version}/"
        template = files.pop(INDEX, None)
        if template is None:
            raise FileNotFoundError(f"{root / INDEX} is missing")
        preload = "".join(
            f'<link rel="modulepreload" href="{self.base}{name}">\n'
            for name in files
            if name.endswith((".js", ".mjs"))
        )
        index = template.replace(PRELOAD_MARK.encode(), preload.encode()).replace(
            ASSETS_MARK.encode(), self.base.rstrip("/").encode()
        )
        self.index = _asset(index, ".html", "no-cache")
        immutable = f"public, max-age={YEAR}, immutable"
        self.assets = {
            name: _asset(body, Path(name).suffix, immutable) for name, body in files.items()
        }

    def lookup(self, path: str) -> Asset | None:
        """The asset a request path names (query string ignored), or None."""
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path in ("/", "/index.html"):
            return self.index
        if path.startswith(self.base):
            return self.assets.get(path[len(self.base) :])
        return None

    def answer(self, request: Request) -> Response | None:
        """The response to a plain HTTP request, or None for a websocket upgrade (the
        connection goes on to the websocket handshake)."""
        if "websocket" in request.headers.get("Upgrade", "").lower():
            return None
        asset = self.lookup(request.path)
        if asset is None:
            body = b"not found\n"
            headers = Headers(
                [
                    ("Content-Type", "text/plain; charset=utf-8"),
                    ("Content-Length", str(len(body))),
                    ("Cache-Control", "no-store"),
                    ("X-Content-Type-Options", "nosniff"),
                ]
            )
            return Response(HTTPStatus.NOT_FOUND, "Not Found", headers, body)
        common = [
            ("Cache-Control", asset.cache),
            ("ETag", asset.etag),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ]
        if asset is self.index:
            common.append(("Content-Security-Policy", CSP))
        if asset.gzipped is not None:
            common.append(("Vary", "Accept-Encoding"))
        if request.headers.get("If-None-Match") == asset.etag:
            return Response(HTTPStatus.NOT_MODIFIED, "Not Modified", Headers(common), b"")
        body = asset.body
        if asset.gzipped is not None and _accepts_gzip(request.headers.get("Accept-Encoding")):
            body = asset.gzipped
            common.append(("Content-Encoding", "gzip"))
        headers = Headers(
            [("Content-Type", asset.content_type), ("Content-Length", str(len(body))), *common]
        )
        return Response(HTTPStatus.OK, "OK", headers, body)


#: The methods answered here (a websocket opens with GET).
METHODS = ("GET", "HEAD")


def method_not_allowed() -> Response:
    """405 for a method other than GET and HEAD."""
    body = b"method not allowed\n"
    headers = Headers(
        [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Allow", ", ".join(METHODS)),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("Connection", "close"),
        ]
    )
    return Response(HTTPStatus.METHOD_NOT_ALLOWED, "Method Not Allowed", headers, body)


def for_method(method: str, response: Response) -> Response:
    """``response`` as the answer to ``method``: a HEAD's keeps its headers (its
    Content-Length too) and drops the body."""
    if method == "HEAD" and response.body:
        return replace(response, body=b"")
    return response


_SITE: StaticSite | None = None


def site() -> StaticSite:
    """This process's site, read at its first use."""
    global _SITE
    if _SITE is None:
        _SITE = StaticSite()
    return _SITE


def answer(request: Request) -> Response | None:
    """The browser table's answer to a plain HTTP request (``GET /``, its assets, else
    404), or None when the request is a websocket upgrade."""
    return site().answer(request)
