"""The client's end of the wire: a websocket that speaks the msgpack codec.

``Link.open(url, name)`` connects, says hello and returns the link with the server's
``Welcome``. ``send`` numbers every request 1, 2, 3, ... (the numbering goes on across a
reconnect with the same link, so the server recognises a resent request) and ``receive``
returns the next decoded ``ServerMessage``.

Requests are paced by a token bucket well under the server's default rate limit (20 a second,
bursts of 40): a person never notices, and a bot playing flat out under ``--auto`` against
instant bots is not refused for flooding.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from pydantic import BaseModel
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from protocol.codec import ProtocolError, decode_server, encode
from protocol.messages import PROTOCOL_VERSION, Error, Hello, Request, ServerMessage, Welcome

#: Seconds to wait for the websocket handshake and for the server's welcome.
OPEN_TIMEOUT = 10.0
#: The client's own request pace: this many a second on average, bursts of ``PACE_BURST``.
PACE_RATE = 15.0
PACE_BURST = 30


class LinkError(Exception):
    """The session cannot go on: no connection, a refused hello, or a broken frame."""


@dataclass
class RequestNumbers:
    """Request ids 1, 2, 3, ... for one client session."""

    _counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    last: int = 0

    def next(self) -> int:
        self.last = next(self._counter)
        return self.last


@dataclass
class Pacer:
    """A token bucket for outgoing requests: ``wait(now)`` takes a token and says how many
    seconds to wait before sending (0 while the burst lasts)."""

    rate: float = PACE_RATE
    burst: int = PACE_BURST
    tokens: float = float(PACE_BURST)
    stamp: float | None = None

    def wait(self, now: float) -> float:
        if self.stamp is not None:
            self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        self.tokens -= 1.0
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


class Link:
    """One open websocket to the server, after hello."""

    def __init__(
        self,
        ws: ClientConnection,
        numbers: RequestNumbers,
        welcome: Welcome,
        pacer: Pacer | None = None,
    ) -> None:
        self.ws = ws
        self.numbers = numbers
        self.welcome = welcome
        self.pacer = pacer or Pacer()

    @classmethod
    async def open(
        cls,
        url: str,
        name: str,
        token: str | None = None,
        numbers: RequestNumbers | None = None,
    ) -> Link:
        """Connect to ``url`` and say hello (resuming the session of ``token`` if given).

        Raises LinkError when the server cannot be reached or refuses the hello.
        """
        try:
            ws = await connect(url, open_timeout=OPEN_TIMEOUT, max_size=1 << 20)
        except (OSError, InvalidURI, InvalidHandshake, TimeoutError) as exc:
            raise LinkError(f"cannot connect to {url}: {exc}") from exc
        numbers = numbers or RequestNumbers()
        hello = Hello(id=numbers.next(), name=name, version=PROTOCOL_VERSION, token=token)
        try:
            await ws.send(encode(hello))
            reply = decode_server(await ws.recv())
        except (ConnectionClosed, ProtocolError) as exc:
            await ws.close()
            raise LinkError(f"the server did not welcome us: {exc}") from exc
        if isinstance(reply, Error):
            await ws.close()
            raise LinkError(f"hello refused: {reply.message} [{reply.code}]")
        if not isinstance(reply, Welcome):
            await ws.close()
            raise LinkError(f"expected a welcome, got {reply.type!r}")
        return cls(ws, numbers, reply)

    async def send(self, request: Request) -> int:
        """Send a request under the next id (after the pacer's wait, if any); returns the id."""
        delay = self.pacer.wait(time.monotonic())
        if delay > 0:
            await asyncio.sleep(delay)
        rid = self.numbers.next()
        await self.ws.send(encode(request.model_copy(update={"id": rid})))
        return rid

    async def receive(self) -> ServerMessage:
        """The next message; ConnectionClosed when the socket closes, ProtocolError for a
        frame that is no server message."""
        return decode_server(await self.ws.recv())

    async def close(self) -> None:
        await self.ws.close()


def to_json_line(message: BaseModel) -> str:
    """A message as one line of JSON (``--json`` output)."""
    return message.model_dump_json()
