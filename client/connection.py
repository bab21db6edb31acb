"""The client's end of the wire: a websocket that speaks the msgpack codec.

``Link.open(url, name)`` connects, says hello and returns the link with the server's
``Welcome``. ``send`` numbers every request 1, 2, 3, ... (the numbering goes on across a
reconnect, so no id is used twice in one process and an error names one request only; a
resent game action is told apart by the state ``version`` it names) and ``receive`` returns
the next decoded ``ServerMessage``. ``open_with_retry`` opens (or resumes, given the
session token) with the backoff of ``client.backoff`` for a while, for the client's reconnect.

Requests are paced by a token bucket well under the server's default rate limit (20 a second,
bursts of 40): a person never notices, and a bot playing flat out under ``--auto`` against
instant bots is not refused for flooding.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field

from pydantic import BaseModel
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from client.backoff import RECONNECT, Backoff
from protocol.codec import ProtocolError, decode_server, encode
from protocol.errors import ErrorCode
from protocol.messages import PROTOCOL_VERSION, Error, Hello, Request, ServerMessage, Welcome

#: Seconds to wait for the websocket handshake and for the server's welcome.
OPEN_TIMEOUT = 10.0
#: The client's own request pace: this many a second on average, bursts of ``PACE_BURST``.
PACE_RATE = 15.0
PACE_BURST = 30


#: The close code of a connection the server replaced by a newer one of the same player
#: (``server/cluster/node.py`` ``CLOSE_REPLACED``): another ``ddz`` or a browser with our key.
CLOSE_REPLACED = 4000
#: What a client so replaced says before it stops (it does not connect again by itself:
#: two clients of one player taking the player from each other would never end).
TAKEN_OVER = (
    "another connection of your player took over (another ddz or a browser with your "
    "key): this one stops here; start ddz again to play here"
)


def taken_over(exc: BaseException) -> bool:
    """Whether a closed connection was closed because a newer one of our player came."""
    rcvd = getattr(exc, "rcvd", None)
    return isinstance(exc, ConnectionClosed) and rcvd is not None and rcvd.code == CLOSE_REPLACED


#: Refusals of a hello that may pass on a later try; any other refusal is final.
RETRYABLE_CODES = frozenset(
    {ErrorCode.UNAVAILABLE, ErrorCode.STORAGE_UNAVAILABLE, ErrorCode.RATE_LIMITED}
)


class LinkError(Exception):
    """The session cannot go on: no connection, a refused hello, or a broken frame.

    ``code`` is the server's error code when it refused the hello, None when there was no
    server to ask (no connection, or it closed before it welcomed us).
    """

    def __init__(self, message: str, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        self.code = code

    @property
    def unreachable(self) -> bool:
        """No server answered (as opposed to one that refused us)."""
        return self.code is None

    @property
    def retryable(self) -> bool:
        """Trying again later may succeed: no server yet, or one that cannot save now."""
        return self.code is None or self.code in RETRYABLE_CODES


@dataclass
class RequestNumbers:
    """Request ids 1, 2, 3, ... for one client session."""

    _counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    last: int = 0

    def next(self) -> int:
        self.last = next(self._counter)
        return self.last

    def continue_after(self, last: int) -> None:
        """Number on above ``last`` (the server's word on a resumed session): a new process
        resuming a session must not reuse ids the room has applied."""
        if last >= self.last:
            self._counter = itertools.count(last + 1)
            self.last = last


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
        timeout: float = OPEN_TIMEOUT,
        player_key: str | None = None,
    ) -> Link:
        """Connect to ``url`` and say hello (resuming the session of ``token`` if given, as
        the player of ``player_key`` if given), within ``timeout`` seconds for the handshake
        and again for the welcome.

        Raises LinkError when the server cannot be reached or refuses the hello.
        """
        try:
            ws = await connect(url, open_timeout=timeout, max_size=1 << 20)
        except InvalidStatus as exc:  # refused before the upgrade: its answer says why
            why = exc.response.body.decode(errors="replace").strip()[:200]
            status = exc.response.status_code
            raise LinkError(f"the server at {url} refused us: {why} (HTTP {status})") from exc
        except (OSError, InvalidURI, InvalidHandshake, TimeoutError) as exc:
            raise LinkError(f"cannot connect to {url}: {exc or type(exc).__name__}") from exc
        numbers = numbers or RequestNumbers()
        hello = Hello(
            id=numbers.next(),
            name=name,
            version=PROTOCOL_VERSION,
            token=token,
            player_key=player_key,
        )
        try:
            await ws.send(encode(hello))
            reply = await _welcome(ws, timeout)
        except (ConnectionClosed, ProtocolError, TimeoutError) as exc:
            await ws.close()
            raise LinkError(f"the server did not welcome us: {exc or type(exc).__name__}") from exc
        if isinstance(reply, Error):
            await ws.close()
            raise LinkError(f"hello refused: {reply.message} [{reply.code}]", reply.code)
        numbers.continue_after(reply.last_request_id)
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


async def open_with_retry(
    url: str,
    name: str,
    token: str | None,
    numbers: RequestNumbers,
    within: float,
    *,
    wait_first: bool = True,
    retry_unreachable: bool = True,
    schedule: Backoff = RECONNECT,
    notice: Callable[[LinkError, float], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    player_key: str | None = None,
) -> Link:
    """Open a link (resuming ``token``'s session when given), trying again on the backoff
    ``schedule`` for up to ``within`` seconds while the failure is retryable.

    ``wait_first``: wait the first delay before the first try (after a drop, give the server
    a moment). ``retry_unreachable=False`` gives up at once when no server answers (only a
    refusal as ``unavailable`` is retried then). ``notice(error, delay)`` is told of each
    failed try that will be tried again. The request ``numbers`` go on from where they were.
    Raises the last LinkError when a failure is final (a bad token, say) or time is up.
    """
    deadline = clock() + within
    delays = schedule.delays()
    if wait_first:
        await sleep(min(next(delays), max(0.0, deadline - clock())))
    while True:
        left = deadline - clock()
        try:
            timeout = min(OPEN_TIMEOUT, max(left, 1.0))
            return await Link.open(url, name, token, numbers, timeout, player_key)
        except LinkError as exc:
            if not exc.retryable or (exc.unreachable and not retry_unreachable):
                raise
            left = deadline - clock()
            if left <= 0:
                raise LinkError(f"{exc} (gave up after {within:g} s)", exc.code) from exc
            delay = min(next(delays), left)
            if notice is not None:
                notice(exc, delay)
            await sleep(delay)


async def _welcome(ws: ClientConnection, timeout: float) -> Welcome | Error:
    """The hello's answer, within ``timeout`` seconds. A room's message may come first (a
    room taken over while the server answers the hello calls its people back): it is passed
    over, as the snapshot that follows the welcome brings the room as it stands."""
    async with asyncio.timeout(timeout):
        while True:
            reply = decode_server(await ws.recv())
            if isinstance(reply, Welcome | Error):
                return reply


def to_json_line(message: BaseModel) -> str:
    """A message as one line of JSON (``--json`` output), plain ASCII: every character
    outside it (a name's U+202E, a C1 control such as U+009B) is ``\\u``-escaped, as the
    controls below U+0020 would be anyway, so the line is safe on a terminal and means the
    same to any JSON reader."""
    return json.dumps(message.model_dump(mode="json"), ensure_ascii=True, separators=(",", ":"))


async def reopen(
    old: Link,
    url: str,
    name: str,
    within: float,
    notice: Callable[[LinkError, float], None] | None = None,
) -> Link:
    """After a drop: close the old link and resume its session (its token, its request
    numbering) on a new one, on the reconnect backoff for up to ``within`` seconds."""
    with contextlib.suppress(Exception):
        await old.close()
    return await open_with_retry(url, name, old.welcome.token, old.numbers, within, notice=notice)
