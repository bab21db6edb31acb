"""Who may open a websocket here: the client's address, and the caps on connections.

The client's address is the TCP peer's, unless the peer is a trusted reverse proxy
(``--trusted-proxies``, addresses or networks): then the last address of X-Forwarded-For
(the one that proxy appended: anything before it the client may have written), else its
X-Real-IP. A refusal is a plain HTTP answer with a one-line reason: 503 past
``max_connections`` (this process is full), 429 past ``max_connections_per_address``.

Sockets are counted from their first byte (``arrived``), before their request is read, by
the TCP peer's address: one address may hold ``SOCKETS_PER_CONNECTION`` times its cap of
connections in sockets, upgraded or not, so sockets that trickle their request or never
send one cannot hold the process's file descriptors (a trusted proxy's sockets are not
counted there: the proxy bounds its own). The caps on websocket connections are checked at
the upgrade (``admit``): ``/healthz``, ``/metrics`` and the page are answered before them.
A socket counts until it is gone.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import resource
from collections import Counter
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING

from websockets.datastructures import Headers
from websockets.http11 import Request

if TYPE_CHECKING:
    from server.edge.websocket import WebSocket

log = logging.getLogger(__name__)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
#: File descriptors kept for what is not an admitted connection: Redis links, the bot
#: pool's pipes, log files, /healthz and /metrics, and sockets still in their handshake or
#: being refused (a flood of them). A quarter of the limit, at least ``FD_RESERVE``: with
#: 1,024 files and 128 kept, 2,000 connects 200 at a time still ran out (417 got no answer).
FD_RESERVE = 128
FD_RESERVE_SHARE = 0.25
#: Sockets one peer address may hold per websocket connection it may hold: its connections,
#: and as many again in their handshake or asking for the page, /healthz or /metrics.
SOCKETS_PER_CONNECTION = 2


def parse_proxies(text: str) -> tuple[Network, ...]:
    """``"10.0.0.1, 172.16.0.0/12"``: the trusted proxies as networks (an address is a /32)."""
    return tuple(
        ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip()
    )


def _trusted(peer: str, proxies: tuple[Network, ...]) -> bool:
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in proxies)


def client_address(peer: str, headers: Headers, proxies: tuple[Network, ...]) -> str:
    """The address per-address caps count: the peer's, or the one a trusted proxy names."""
    if not proxies or not _trusted(peer, proxies):
        return peer
    forwarded = ",".join(headers.get_all("X-Forwarded-For")).split(",")
    named = forwarded[-1].strip() or headers.get("X-Real-IP", "").strip()
    return named or peer


#: ``--allowed-origins`` naming this lets any page open a websocket here (the operator's
#: explicit choice; empty allows only this server's own page).
ANY_ORIGIN = "*"


def parse_origins(text: str) -> frozenset[str]:
    """``"https://ddz.example, http://localhost:8765"``: the allowed origins, as browsers
    send them (scheme://host[:port], lower case, no path); ``*``: any."""
    origins = set()
    for part in text.split(","):
        origin = part.strip().rstrip("/").lower()
        if not origin:
            continue
        if origin == ANY_ORIGIN:
            origins.add(origin)
            continue
        scheme, sep, rest = origin.partition("://")
        if scheme not in ("http", "https") or not sep or not rest or "/" in rest:
            raise ValueError(f"{part.strip()!r} is not an origin (https://host[:port]) nor *")
        origins.add(origin)
    return frozenset(origins)


def request_scheme(peer: str, headers: Headers, proxies: tuple[Network, ...], tls: bool) -> str:
    """The scheme the browser used to reach us: ``https`` on a TLS listener, else ``http``,
    unless a trusted proxy says otherwise (``X-Forwarded-Proto``: it ended the TLS)."""
    if proxies and _trusted(peer, proxies):
        said = headers.get("X-Forwarded-Proto", "").split(",")[0].strip().lower()
        if said in ("http", "https"):
            return said
    return "https" if tls else "http"


def origin_allowed(headers: Headers, allowed: frozenset[str], scheme: str) -> bool:
    """Whether a websocket upgrade with these headers, reached over ``scheme``, may open:
    one with no ``Origin`` (not a browser's page: the terminal client, bots), one from
    this server's own page (``scheme://Host``, the host the request came to), a listed
    one, or any when ``*`` is listed. Anything else, ``Origin: null`` included (a sandboxed
    frame, a file), is refused."""
    origin = headers.get("Origin")
    if origin is None or ANY_ORIGIN in allowed:
        return True
    origin = origin.strip().lower()
    host = headers.get("Host", "").strip().lower()
    if host and origin == f"{scheme}://{host}":
        return True
    return origin in allowed


@dataclass(frozen=True)
class Refusal:
    """A connection refused before its upgrade: the HTTP status, a metric label, a reason."""

    status: HTTPStatus
    why: str
    text: str


class Admission:
    """Counts this process's connections, in all and by client address, and refuses those
    past the caps (0: no cap)."""

    def __init__(self, max_total: int, max_per_address: int, proxies: str = "") -> None:
        self.max_total = max_total
        self.max_per_address = max_per_address
        self.proxies = parse_proxies(proxies)
        #: Upgraded connections, in all and by client address.
        self.total = 0
        self.by_address: Counter[str] = Counter()
        #: Sockets by peer address from their first byte (a trusted proxy's not counted).
        self.sockets: Counter[str] = Counter()
        self._peers: dict[WebSocket, str] = {}
        self._addresses: dict[WebSocket, str] = {}

    @property
    def max_sockets(self) -> int:
        """The most sockets one peer address may hold, upgraded or not (0: no cap)."""
        return SOCKETS_PER_CONNECTION * self.max_per_address

    def arrived(self, ws: WebSocket) -> Refusal | None:
        """A socket is up, nothing read: count it under its peer's address, or refuse it
        past ``max_sockets`` (a trusted proxy's sockets are not counted here)."""
        peer = ws.remote_address[0] if ws.remote_address else ""
        if self.proxies and _trusted(peer, self.proxies):
            return None
        if 0 < self.max_sockets <= self.sockets[peer]:
            return self._too_many()
        self.sockets[peer] += 1
        self._peers[ws] = peer
        return None

    def _too_many(self) -> Refusal:
        text = f"too many connections from your address (at most {self.max_per_address})\n"
        return Refusal(HTTPStatus.TOO_MANY_REQUESTS, "per_address", text)

    def address(self, ws: WebSocket, request: Request) -> str:
        """The client address of ``ws``, which sent ``request``."""
        peer = ws.remote_address
        return client_address(peer[0] if peer else "", request.headers, self.proxies)

    def scheme(self, ws: WebSocket, request: Request, tls: bool) -> str:
        """The scheme ``ws``'s client reached us by (``request_scheme``)."""
        peer = ws.remote_address
        return request_scheme(peer[0] if peer else "", request.headers, self.proxies, tls)

    def admit(self, ws: WebSocket, request: Request) -> Refusal | None:
        """Count ``ws``'s upgrade in, or say why not; it counts until its socket is lost
        (``release``)."""
        address = self.address(ws, request)
        if 0 < self.max_total <= self.total:
            text = "server full: too many connections, try again later\n"
            return Refusal(HTTPStatus.SERVICE_UNAVAILABLE, "total", text)
        if 0 < self.max_per_address <= self.by_address[address]:
            return self._too_many()
        self.total += 1
        self.by_address[address] += 1
        self._addresses[ws] = address
        return None

    def address_of(self, ws: WebSocket) -> str:
        """The client address ``ws`` was admitted under."""
        return self._addresses.get(ws, "")

    def release(self, ws: WebSocket) -> None:
        """``ws``'s socket is gone: it counts no more."""
        peer = self._peers.pop(ws, None)
        if peer is not None:
            _discount(self.sockets, peer)
        address = self._addresses.pop(ws, None)
        if address is not None:
            self.total -= 1
            _discount(self.by_address, address)


def _discount(counter: Counter[str], key: str) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


def connection_cap(wanted: int, *, explicit: bool = True) -> int:
    """The most connections this process can hold: ``wanted``, lowered to what the open-file
    limit leaves after a reserve (its soft limit raised to the hard one first), so that
    running out of descriptors does not fail /healthz or the players already here. Lowering
    a cap the operator set (``explicit``) is a warning; lowering the default, information."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    if wanted == 0 or soft == resource.RLIM_INFINITY:
        return wanted
    room = max(soft - max(FD_RESERVE, int(soft * FD_RESERVE_SHARE)), 1)
    if wanted > room:
        log.log(
            logging.WARNING if explicit else logging.INFO,
            "at most %d connections: what %d open files allow (--max-connections %d;"
            " raise the open-file limit for more)",
            room, soft, wanted,
        )  # fmt: skip
        return room
    return wanted
