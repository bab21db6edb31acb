"""The headless client: ``--auto LEVEL`` and/or ``--json``, for scripts and load tests.

It opens the session's room from the subcommand, then reads messages until the match ends:
each message is printed (a JSON line with ``--json``, else a line of plain text), folded into
the ``TableState``, and, under ``--auto``, answered by the ``AutoPlayer``. Exit status: 0 once
``MatchEnded`` arrives (a watcher too); ``EXIT_SESSION`` when the session ends without a
result (room closed, connection lost, a refused setup, a protocol error); ``EXIT_CONNECT``
when the server cannot be reached at all.
"""

from __future__ import annotations

import asyncio
import time
from typing import TextIO

from websockets.exceptions import ConnectionClosed

from client.auto import AutoPlayer, fallback_exhausted
from client.connection import Link, LinkError, to_json_line
from client.options import Options, setup_request
from client.render import event_lines, plain
from client.table import TableState
from protocol.codec import ProtocolError
from protocol.errors import ErrorCode
from protocol.events import MatchEnded
from protocol.messages import (
    Error,
    Left,
    ReadyRequest,
    RoomClosed,
    SeatBot,
    ServerMessage,
    SetBotSpeed,
    Snapshot,
)

#: Seconds to hold back after the server refused a request for flooding.
RATE_LIMIT_BACKOFF = 1.0

EXIT_OK = 0
EXIT_SESSION = 1
EXIT_CONNECT = 3

#: Refusals that mean this client and the server do not understand each other.
FATAL_CODES = frozenset(
    {
        ErrorCode.MALFORMED,
        ErrorCode.UNKNOWN_TYPE,
        ErrorCode.TOO_LARGE,
        ErrorCode.VERSION_MISMATCH,
        ErrorCode.NO_SESSION,
        ErrorCode.BAD_TOKEN,
        ErrorCode.NO_ROOM,
    }
)


class SessionEnded(Exception):
    """The session is over without a result; ``str`` says why."""


class Headless:
    """One headless session over an open link."""

    def __init__(self, link: Link, opts: Options, out: TextIO, err: TextIO) -> None:
        self.link = link
        self.opts = opts
        self.out = out
        self.err = err
        self.auto = AutoPlayer.for_level(opts.auto) if opts.auto else None
        self.state: TableState | None = None
        self.setup_id: int | None = None

    def emit(self, before: TableState | None, message: ServerMessage) -> None:
        """Print a received message: one JSON line, or plain text lines."""
        if self.opts.json:
            print(to_json_line(message), file=self.out, flush=True)
            return
        if isinstance(message, Error):
            return  # reported on stderr by the caller
        after = self.state
        if after is None:
            return
        for line in event_lines(before or after, after, message):
            print(plain(line), file=self.out, flush=True)

    async def run(self) -> int:
        request = setup_request(self.opts)
        if request is None:
            raise SessionEnded("headless mode needs a subcommand: practice, create, join or watch")
        self.emit(None, self.link.welcome)
        self.setup_id = await self.link.send(request)
        while True:
            try:
                message = await self.link.receive()
            except ConnectionClosed as exc:
                raise SessionEnded(f"the server closed the connection ({exc})") from exc
            except ProtocolError as exc:
                raise SessionEnded(f"protocol error: {exc.message}") from exc
            before = self.state
            if self.state is None:
                if isinstance(message, Snapshot):
                    self.state = TableState.from_snapshot(message, time.monotonic())
            else:
                self.state = self.state.apply(message, time.monotonic())
            self.emit(before, message)
            if isinstance(message, Error):
                await self.refused(message)
            elif isinstance(message, Snapshot) and before is None:
                await self.opened(message)
            elif isinstance(message, MatchEnded):
                return EXIT_OK
            elif isinstance(message, RoomClosed):
                raise SessionEnded(f"the room closed without a result ({message.reason})")
            elif isinstance(message, Left):
                raise SessionEnded("we left the room")
            await self.act()

    async def opened(self, snapshot: Snapshot) -> None:
        """The room is open: share a created room's code, seat its bots, and ready."""
        room = snapshot.room
        if self.opts.mode != "create":
            return
        print(f"room code: {room.code}", file=self.err, flush=True)
        if self.opts.bot_speed is not None:
            await self.link.send(SetBotSpeed(speed=self.opts.bot_speed))
        if self.opts.bots is not None:
            for seat in (s for s, view in enumerate(room.seats) if view.kind == "empty"):
                await self.link.send(SeatBot(seat=seat, level=self.opts.bots))
        if self.auto is None:
            await self.link.send(ReadyRequest())

    async def refused(self, error: Error) -> None:
        """A request was refused: the end for a setup or protocol error, a fallback action
        for a refused bot move, a note on stderr otherwise."""
        print(f"refused: {error.message} [{error.code}]", file=self.err, flush=True)
        if error.code == ErrorCode.RATE_LIMITED and self.state is not None:
            # Refused before it was read, so unapplied: wait, then decide again.
            await asyncio.sleep(RATE_LIMIT_BACKOFF)
            if self.auto is not None:
                self.auto.forget(self.state)
            return
        if self.state is None or error.request_id == self.setup_id or error.code in FATAL_CODES:
            raise SessionEnded(f"the server refused us: {error.message}")
        if self.auto is None:
            return
        fallback = self.auto.on_refused(self.state, error)
        if fallback is not None:
            await self.link.send(fallback)
        elif error.code not in (ErrorCode.STALE, ErrorCode.ALREADY_READY) and fallback_exhausted(
            self.auto, self.state
        ):
            raise SessionEnded("the server refused even the fallback action")

    async def act(self) -> None:
        """Under --auto, send what the bot policy chooses now, if anything."""
        if self.auto is None or self.state is None:
            return
        request = self.auto.next_request(self.state)
        if request is not None:
            await self.link.send(request)


async def run_headless(opts: Options, out: TextIO, err: TextIO) -> int:
    """Run one headless session; returns the process exit status."""
    try:
        link = await Link.open(opts.server, opts.name)
    except LinkError as exc:
        print(f"ddz: {exc}", file=err, flush=True)
        return EXIT_CONNECT
    try:
        return await Headless(link, opts, out, err).run()
    except SessionEnded as exc:
        print(f"ddz: {exc}", file=err, flush=True)
        return EXIT_SESSION
    finally:
        await link.close()
