"""The headless client: ``--auto LEVEL`` and/or ``--json``, for scripts and load tests.

It opens the session's room from the subcommand, then reads messages until the match ends:
each message is printed (a JSON line with ``--json``, else a line of plain text), folded into
the ``TableState``, and, under ``--auto``, answered by the ``AutoPlayer``. Exit status: 0 once
``MatchEnded`` arrives (a watcher too); ``EXIT_SESSION`` when the session ends without a
result (room closed, the session could not be resumed, a refused setup, a protocol error);
``EXIT_CONNECT`` when the server cannot be reached at all.

A dropped connection (the server restarted, crashed, or the network failed) is resumed with
the session token on the backoff of ``client.backoff`` for up to ``--reconnect-for`` seconds,
the request numbering going on where it was. The server then sends a fresh ``Snapshot``; the
picture is rebuilt from it and the ``AutoPlayer`` decides again. Its game actions name the
turn's state ``version``, so an action sent before the drop and applied already is refused as
stale (or not my turn) rather than applied twice: such refusals only mean "wait for the next
turn". Reconnect notices go to stderr; with ``--json`` stdout has only the received messages
(the second ``Welcome``, with ``resumed`` true, and the ``Snapshot`` among them).

``quick`` joins the quick-match queue: the ``Queued`` answer is printed, and the match's
``Snapshot`` (dealt already: a quick room has no "ready to start") comes once the server has
seated us, with people or bots. The server drops the queue entry of a dropped connection, so
a session resumed with no room and no match yet joins the queue again. ``list`` (see
``run_list``) prints the live rooms and exits.

The session is kept on disk (``client.saved_session``, unless ``--no-save-session``): a
restarted ``ddz`` resumes it, and when the server puts it back in its room (``Welcome`` with
``room``, then the room's ``Snapshot``) the subcommand's setup request is not sent: the
session goes on in that room. The saved session is forgotten when there is nothing to come
back to: the match ended, we left, or the room closed.

A request refused as ``unavailable`` (the server cannot save right now) was not applied: it
is sent again, or decided again, after a short backoff that grows while the refusals last.
(A setup so refused may have been applied all the same, its answer lost: sent again, it is
refused as ``already_seated``, and the server sends the room's snapshot; that is awaited.)

After the match the saved session is kept: it is who the server knows, whose
history and replays ``ddz history`` and ``ddz replay CODE`` ask for (a session resumed after
its room closed is in no room, so the next subcommand opens its own). ``--again`` (with
``--auto``) asks for a rematch when the match ends (or accepts the one another player asked
for: the request is the same), plays it too, and exits 0 when it ends; a refused rematch
ends the session (``EXIT_SESSION``). When two ask at once the server opens a room for each,
keeps one and takes the other asker out of theirs (a snapshot, then ``Left``): that ``Left``
is not the end, the kept room's snapshot follows. Without ``--again`` a headless client never
takes a rematch. Quick chat and rematch offers are printed like any message.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Iterator
from typing import TextIO

from websockets.exceptions import ConnectionClosed

from client.after_match import social_lines
from client.auto import AutoPlayer, DecisionKey, decision_key, fallback_exhausted
from client.backoff import UNAVAILABLE, Backoff
from client.connection import (
    TAKEN_OVER,
    Link,
    LinkError,
    RequestNumbers,
    open_with_retry,
    reopen,
    taken_over,
    to_json_line,
)
from client.ladder_view import leaderboard_lines
from client.options import Options, setup_request
from client.player_key import KeyFile
from client.profile_view import key_lines, profile_lines
from client.render import Fragments, code, event_lines, lobby_lines, plain, room_list_lines
from client.review_view import only_deal, review_lines
from client.safe_text import printable
from client.saved_session import SessionFile, open_kept
from client.table import TableState
from protocol.codec import ProtocolError
from protocol.errors import ErrorCode
from protocol.events import DealStarted, MatchEnded
from protocol.messages import (
    Error,
    GetHistory,
    GetLeaderboard,
    GetProfile,
    GetReplay,
    GetReview,
    History,
    Leaderboard,
    Left,
    ListRooms,
    NewPlayerKey,
    PlayerKeyIssued,
    Profile,
    Queued,
    QueueLeft,
    RatingChanged,
    ReadyRequest,
    Rematch,
    ReplayData,
    Request,
    ReviewData,
    RoomClosed,
    RoomList,
    SeatBot,
    ServerMessage,
    SetBotSpeed,
    Snapshot,
)

#: Seconds a headless client waits after a rated match's end for its ``RatingChanged``
#: (the room closes, its records and ratings are applied, then the player is told).
RATING_WAIT = 10.0
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
#: Refusals of a request that was not applied and may pass when sent again (``busy``:
#: another request of ours holds our lobby lock, or the strong bots are at capacity).
RETRY_CODES = frozenset(
    {
        ErrorCode.UNAVAILABLE,
        ErrorCode.STORAGE_UNAVAILABLE,
        ErrorCode.RATE_LIMITED,
        ErrorCode.BUSY,
    }
)
#: Refusals of an action the table has moved past (it was applied already, or the turn went
#: on): nothing to do but wait for the next decision.
PASSED_CODES = frozenset(
    {ErrorCode.STALE, ErrorCode.DUPLICATE, ErrorCode.ALREADY_READY, ErrorCode.NOT_YOUR_TURN}
)


def show(stream: TextIO, text: str) -> None:
    """Print a line for the person running us; it may quote the server, so it is made safe
    (``client.safe_text``) first."""
    print(printable(text), file=stream, flush=True)


class SessionEnded(Exception):
    """The session is over without a result; ``str`` says why."""


class Headless:
    """One headless session over an open link (replaced by a new one after a drop)."""

    def __init__(
        self,
        link: Link,
        opts: Options,
        out: TextIO,
        err: TextIO,
        retry_schedule: Backoff = UNAVAILABLE,
        store: SessionFile | None = None,
    ) -> None:
        self.link = link
        self.opts = opts
        #: Where the session is kept for the next start (None: it is not kept).
        self.store = store
        self.out = out
        self.err = err
        self.auto = AutoPlayer.for_level(opts.auto) if opts.auto else None
        self.state: TableState | None = None
        self.setup: Request | None = setup_request(opts)
        self.setup_id: int | None = None
        #: The setup was sent again after a retryable refusal (the first may have been done).
        self.setup_resent = False
        self.match_ended = False
        #: Requests to send again as they were when refused as retryable, by request id:
        #: the setup request and a created room's set-up (an ``AutoPlayer`` action is
        #: decided again instead).
        self.resendable: dict[int, Request] = {}
        #: The decision each ``AutoPlayer`` request answered, by request id.
        self.decisions: dict[int, DecisionKey] = {}
        self.retry_schedule = retry_schedule
        self._retry_delays: Iterator[float] | None = None
        #: ``--again``: the rematch request's id once sent, and the finished room's code.
        self.again_id: int | None = None
        self.again_of: str | None = None
        #: The rematch's first deal came: from then on the session ends as any other.
        self.again_dealt = False
        #: After a rated match's end: until when ``RatingChanged`` is waited for.
        self.rating_until: float | None = None

    # --- output -----------------------------------------------------------------------

    def emit(self, before: TableState | None, message: ServerMessage) -> None:
        """Print a received message: one JSON line, or plain text lines."""
        if self.opts.json:
            print(to_json_line(message), file=self.out, flush=True)
            return
        if isinstance(message, Error):
            return  # reported on stderr by the caller
        after = self.state
        names = [after.seat_name(s) for s in range(3)] if after is not None else []
        social = social_lines(message, names, after.my_seat if after is not None else None)
        if social is not None:
            for line in social:
                print(plain(line), file=self.out, flush=True)
            return
        if after is None or isinstance(message, Queued | QueueLeft | RoomList):
            for line in lobby_lines(message):
                print(plain(line), file=self.out, flush=True)
            return
        for line in event_lines(before or after, after, message):
            print(plain(line), file=self.out, flush=True)

    def note(self, text: str) -> None:
        """A line for the person running us, on stderr."""
        show(self.err, f"ddz: {text}")

    # --- the loop ---------------------------------------------------------------------

    async def run(self) -> int:
        if self.setup is None:
            raise SessionEnded(
                "headless mode needs a subcommand: practice, create, join, watch or quick"
            )
        welcome = self.link.welcome
        self.emit(None, welcome)
        status: int | None = None
        try:
            if welcome.resumed and welcome.room is not None:
                # A restarted client, back in its room: that room's snapshot follows.
                self.note(f"resumed the saved session: back in room {code(welcome.room)}")
            else:
                await self.send_setup()
        except ConnectionClosed as exc:
            status = await self.reconnect(exc)
        while status is None:
            try:
                message = await self.next_message()
                if message is None:
                    self.note("no rating change came: ddz profile shows the rating")
                    return EXIT_OK
                status = await self.handle(message)
            except ConnectionClosed as exc:
                if self.rating_until is not None:
                    return EXIT_OK  # the match is over: its rating is in the profile
                status = await self.reconnect(exc)
            except ProtocolError as exc:
                raise SessionEnded(f"protocol error: {exc.message}") from exc
        return status

    async def handle(self, message: ServerMessage) -> int | None:
        """Fold one message into the picture, print it and answer it; the exit status once
        the session is over, else None."""
        before = self.state
        now = time.monotonic()
        if isinstance(message, Snapshot):
            self.state = TableState.from_snapshot(message, now)
            new_room = before is not None and before.room.code != message.room.code
            if new_room and self.auto is not None:
                self.auto.reset()  # the rematch: deal and turn numbers start over
        elif self.state is not None:
            self.state = self.state.apply(message, now)
        self.emit(before, message)
        if not isinstance(message, Error):
            self._retry_delays = None  # the server is saving again
        if isinstance(message, Error):
            await self.refused(message)
        elif isinstance(message, Snapshot):
            table = message.room.table
            if table is not None and table.phase == "over":
                # Resumed into a room whose match had ended: while we were away (its bots
                # finished it through a restart), or its result came before. Either way
                # its end is said, not left to a silent exit.
                self.ended_away(message)
                self.forget_session()
                return EXIT_OK
            await self.opened(message, first=before is None)
        elif isinstance(message, DealStarted) and self.again_of is not None:
            self.again_dealt = True
        elif isinstance(message, MatchEnded):
            # The session is kept: it is whose history and replays ddz history/replay show.
            if self.opts.again and self.again_id is None and self.state is not None:
                self.again_of = self.state.room.code
                self.again_id = await self.send(Rematch(code=self.again_of))
                return None
            self.match_ended = True
            if self.rating_expected():
                # the rating's change comes once the room has closed and been counted
                self.rating_until = time.monotonic() + RATING_WAIT
                return None
            return EXIT_OK
        elif isinstance(message, RatingChanged) and self.rating_until is not None:
            return EXIT_OK
        elif isinstance(message, RoomClosed) and (
            self.rating_until is not None or self.again_waits(message)
        ):
            pass  # (the end came: its rating's change may follow; or a rematch is asked)
        elif isinstance(message, Left) and self.again_of is not None and not self.again_dealt:
            # Two asked at once: the server opened a rematch for each, kept the other's and
            # took us out of ours (its snapshot, then Left); the kept one's snapshot follows.
            self.note("the other player's rematch was opened first: taking a seat there")
        elif isinstance(message, RoomClosed):
            self.forget_session()
            raise SessionEnded(f"the room closed without a result ({message.reason})")
        elif isinstance(message, Left):
            self.forget_session()
            raise SessionEnded("we left the room")
        elif isinstance(message, QueueLeft) and self.state is None:
            raise SessionEnded("we left the quick-match queue")
        await self.act()
        return None

    def ended_away(self, snapshot: Snapshot) -> None:
        """The match of a room we came back to is over: its end, as the match's own
        ``MatchEnded`` would print it (text), and a note on stderr (``--json`` prints the
        snapshot, which holds it, as received)."""
        table = snapshot.room.table
        if table is None or self.match_ended:
            return
        self.match_ended = True
        ended = MatchEnded(
            totals=list(table.totals),
            winners=list(table.winners or []),
            deal_scores=table.deal_scores,
        )
        if not self.opts.json and self.state is not None:
            for line in event_lines(self.state, self.state, ended):
                print(plain(line), file=self.out, flush=True)
        totals = " ".join(f"{t:+d}" for t in table.totals)
        self.note(
            f"the match in room {code(snapshot.room.code)} ended while we were away: {totals}"
        )

    def rating_expected(self) -> bool:
        """Whether the match just ended rates us: a rated room (a quick match, or a private
        room created rated) with two persons or more, in which we sat. A quick match's
        rematch is in a "quick" room that is not rated: no rating change comes for it (it
        was waited for, ``RATING_WAIT`` seconds, after every such rematch)."""
        state = self.state
        if state is None or state.my_seat is None:
            return False
        room = state.room
        persons = sum(seat.kind == "person" for seat in room.seats)
        return room.rated and persons >= 2

    async def next_message(self) -> ServerMessage | None:
        """The next message; None when the wait for a rating's change is over."""
        if self.rating_until is None:
            return await self.link.receive()
        left = self.rating_until - time.monotonic()
        try:
            async with asyncio.timeout(max(left, 0.0)):
                return await self.link.receive()
        except TimeoutError:
            return None

    def again_waits(self, closed: RoomClosed) -> bool:
        """The finished room closing while its rematch is asked for: not the end."""
        state = self.state
        return (
            closed.reason == "match_over"
            and self.again_of is not None
            and state is not None
            and state.room.code == self.again_of
        )

    def forget_session(self) -> None:
        """Nothing to come back to: the next start opens a new session."""
        if self.store is not None:
            self.store.forget()

    async def send(self, request: Request, resend: bool = False) -> int:
        """Send a request; ``resend``: send it again as it is if refused as retryable."""
        rid = await self.link.send(request)
        if resend:
            self.resendable[rid] = request
        return rid

    async def send_setup(self) -> None:
        """Send the request that opens the session's room."""
        if self.setup is not None:
            self.setup_id = await self.send(self.setup, resend=True)

    async def opened(self, snapshot: Snapshot, first: bool) -> None:
        """The room is open (``first``) or was resumed: share a created room's code, and
        until its match starts, seat its bots and ready."""
        room = snapshot.room
        if self.opts.mode != "create":
            return
        if first:
            show(self.err, f"room code: {code(room.code)}")
        if room.table is not None or room.your_seat is None:
            return
        if first and self.opts.bot_speed is not None:
            await self.send(SetBotSpeed(speed=self.opts.bot_speed), resend=True)
        if self.opts.bots is not None and room.your_seat == room.creator_seat:
            for seat in (s for s, view in enumerate(room.seats) if view.kind == "empty"):
                await self.send(SeatBot(seat=seat, level=self.opts.bots), resend=True)
        if self.auto is None and (first or not room.seats[room.your_seat].ready):
            await self.send(ReadyRequest(), resend=True)

    async def refused(self, error: Error) -> None:
        """A request was refused: sent again (or decided again) later when it may pass then;
        the end for a setup or protocol error; a fallback action for a refused bot move; a
        note on stderr otherwise."""
        show(self.err, f"refused: {error.message} [{error.code}]")
        rid = error.request_id
        request = self.resendable.pop(rid, None) if rid is not None else None
        decided = self.decisions.pop(rid, None) if rid is not None else None
        # (No setup was sent when a saved session put us back in a room: setup_id is None,
        # and a refusal naming no request is not about it.)
        setup = rid is not None and rid == self.setup_id
        if rid is not None and rid == self.again_id and error.code not in RETRY_CODES:
            raise SessionEnded(f"no rematch: {error.message}")
        if error.code in RETRY_CODES:
            if setup and self.state is not None:
                # The room opened (its snapshot came) before the server failed to note it
                # in the session: the setup took effect, do not send it again.
                return
            await asyncio.sleep(self.retry_delay(error.code))
            if rid is not None and rid == self.again_id and self.again_of is not None:
                self.again_id = await self.send(Rematch(code=self.again_of))
            elif request is not None:
                new_id = await self.send(request, resend=True)
                if setup:
                    self.setup_id = new_id
                    self.setup_resent = True
            elif (
                self.auto is not None
                and self.state is not None
                and decided in (None, decision_key(self.state))
            ):
                self.auto.forget(self.state)  # unapplied: decide again
            return
        if setup and error.code == ErrorCode.ALREADY_SEATED and self.setup_resent:
            # An earlier try of the setup seated us though it was answered as not done (its
            # save's answer was lost): the server sends that room's snapshot.
            if self.state is None:
                self.note("an earlier try took effect: waiting for the room")
            return
        if setup and self.opts.mode == "quick" and error.code == ErrorCode.ALREADY_QUEUED:
            # Our entry outlived a drop (the server went down before it could take us off
            # the queue): we are waiting still, the match will come.
            return
        if self.state is None or setup or error.code in FATAL_CODES:
            raise SessionEnded(f"the server refused us: {error.message}")
        if request is not None:
            # A created room's set-up (bots, speed, ready), sent again for each of its
            # snapshots (the server may send a fresh one at any time): the room has moved
            # past it (the match started). Not a decision of ours: nothing to fall back on.
            return
        if self.auto is None:
            return
        if decided is not None and decided != decision_key(self.state):
            return  # about a decision the table has moved past
        fallback = self.auto.on_refused(self.state, error)
        if fallback is not None:
            await self.send_decision(fallback)
        elif error.code not in PASSED_CODES and fallback_exhausted(self.auto, self.state):
            raise SessionEnded("the server refused even the fallback action")

    def retry_delay(self, code: ErrorCode) -> float:
        """Seconds to wait before retrying a request refused with ``code``; the delay grows
        while ``unavailable`` refusals follow each other."""
        if code == ErrorCode.RATE_LIMITED:
            return RATE_LIMIT_BACKOFF
        if self._retry_delays is None:
            self._retry_delays = self.retry_schedule.delays()
        return next(self._retry_delays)

    async def act(self) -> None:
        """Under --auto, send what the bot policy chooses now, if anything."""
        if self.auto is None or self.state is None:
            return
        try:
            request = self.auto.next_request(self.state)
        except (ValueError, IndexError, KeyError) as exc:
            # The picture misses what came before this turn (a message lost on the way
            # between servers): the server's fresh snapshot follows; decide on that.
            self.note(f"cannot decide on this picture ({exc}): waiting for the next")
            return
        if request is not None:
            await self.send_decision(request)

    async def send_decision(self, request: Request) -> None:
        key = decision_key(self.state) if self.state is not None else None
        rid = await self.send(request)
        if key is not None:
            self.decisions[rid] = key

    # --- a dropped connection ---------------------------------------------------------

    async def reconnect(self, exc: ConnectionClosed) -> int | None:
        """Resume the session after a drop; the exit status if the session is over, else
        None (the server's snapshot of the room follows). SessionEnded when it cannot be
        resumed."""
        cause: ConnectionClosed | None = exc
        while cause is not None:
            if taken_over(cause):
                raise SessionEnded(TAKEN_OVER)
            if self.opts.reconnect_for <= 0:
                raise SessionEnded(f"the server closed the connection ({cause})")
            self.note(f"connection lost ({cause}); reconnecting")
            try:
                self.link = await reopen(
                    self.link,
                    self.opts.server,
                    self.opts.name,
                    self.opts.reconnect_for,
                    notice=self._retrying,
                )
            except LinkError as error:
                if error.code == ErrorCode.BAD_TOKEN:
                    self.forget_session()
                raise SessionEnded(f"could not resume the session: {error}") from error
            try:
                return await self.resumed()
            except ConnectionClosed as again:
                cause = again
        return None

    def _retrying(self, error: LinkError, delay: float) -> None:
        self.note(f"{error}; trying again in {delay:.1f} s")

    async def resumed(self) -> int | None:
        """The session is back: start over from the server's picture."""
        welcome = self.link.welcome
        self.note(f"reconnected (room {welcome.room or 'none'})")
        self.emit(self.state, welcome)
        self.resendable.clear()  # their answers went with the old connection
        self.decisions.clear()
        self._retry_delays = None
        if self.auto is not None:
            self.auto.reset()
        if welcome.room is not None:
            return None  # a snapshot of the room follows
        if self.match_ended:
            return EXIT_OK
        if self.state is None:
            # The setup request never took effect (or its answer was lost), or we were in
            # the quick-match queue, which a dropped connection leaves: send it again.
            await self.send_setup()
            return None
        raise SessionEnded("the room is gone: it closed while we were away")


async def open_first(opts: Options, err: TextIO, store: SessionFile | None = None) -> Link:
    """The first link, resuming the session saved in ``store`` if any: a refusal as
    ``unavailable`` is tried again for a while, but a server that does not answer at all is
    an error at once (the caller exits ``EXIT_CONNECT``)."""

    def retrying(error: LinkError, delay: float) -> None:
        show(err, f"ddz: {error}; trying again in {delay:.1f} s")

    async def opener(token: str | None, key: str | None) -> Link:
        return await open_with_retry(
            opts.server,
            opts.name,
            token,
            numbers,
            max(opts.reconnect_for, 0.0),
            wait_first=False,
            retry_unreachable=False,
            schedule=UNAVAILABLE,
            notice=retrying,
            player_key=key,
        )

    numbers = RequestNumbers()
    keys = kept_keys(opts, store)
    return await open_kept(store, opener, lambda text: show(err, f"ddz: {text}"), keys)


#: What a second ``ddz`` of the same state folder says as it starts (it plays as the player
#: of the kept key; the server closes the first one's connection, which stops).
SECOND_DDZ = (
    "another ddz keeps this server's session: this one plays as the same player and takes "
    "the seat over (the other one stops)"
)


def kept_keys(opts: Options, store: SessionFile | None) -> KeyFile | None:
    """Where the player key is kept: beside the session we hold, or, when another ``ddz``
    holds it, the same file, read (a second ``ddz`` of one person is that person)."""
    if store is not None:
        return KeyFile.of(store.server, store.folder)
    return KeyFile.of(opts.server) if opts.keep_session else None


Answer = RoomList | ReplayData | ReviewData | History | Profile | PlayerKeyIssued | Leaderboard


async def run_query(opts: Options, out: TextIO, err: TextIO) -> int:
    """``ddz list``, ``ddz replay CODE``, ``ddz history``, ``ddz profile``, ``ddz key
    --new``: ask the server once, print its answer (lines of text, or the message as one
    JSON line with ``--json``) and exit 0; a refusal is printed on stderr (exit
    ``EXIT_SESSION``). A dropped connection is tried again like any other session's for up
    to ``--reconnect-for`` seconds.

    All but ``list`` are the kept player's (the saved session and key): they resume it,
    unless another ``ddz`` holds it (then a fresh session asks, with a note: it has no
    matches of its own; ``key --new`` is refused then). The new key is kept at once."""
    request = setup_request(opts)
    if request is None:
        show(err, f"ddz: {opts.mode} needs a room code")
        return EXIT_SESSION
    store = SessionFile.claim(opts.server) if opts.keep_session else None
    if opts.mode == "key" and store is None:
        # a new key for a new player of this process alone would be no one's
        show(err, "ddz: another ddz keeps this server's session and key: ask there")
        return EXIT_SESSION
    if opts.keep_session and store is None:
        # asked as the player, it would take the player's connection from the one playing
        show(
            err,
            "ddz: another ddz is playing as you on this server: ask at its prompt "
            "(profile, history, top, replay CODE) or once it ends",
        )
        return EXIT_SESSION
    try:
        return await _query(opts, request, out, err, store)
    finally:
        if store is not None:
            store.release()


async def _query(
    opts: Options, request: Request, out: TextIO, err: TextIO, store: SessionFile | None
) -> int:
    try:
        link = await open_first(opts, err, store)
    except LinkError as exc:
        show(err, f"ddz: {exc}")
        return EXIT_CONNECT
    deadline = time.monotonic() + max(opts.reconnect_for, 0.0)
    try:
        while True:
            try:
                answer = await _ask(link, request, err)
                break
            except ConnectionClosed as exc:
                if taken_over(exc):
                    show(err, f"ddz: {TAKEN_OVER}")
                    return EXIT_SESSION
                if time.monotonic() >= deadline:
                    show(err, f"ddz: the server closed the connection ({exc})")
                    return EXIT_SESSION
                with contextlib.suppress(Exception):
                    await link.close()
                try:
                    link = await open_with_retry(
                        opts.server,
                        opts.name,
                        link.welcome.token,
                        link.numbers,
                        max(0.0, deadline - time.monotonic()),
                    )
                except LinkError as error:
                    show(err, f"ddz: {error}")
                    return EXIT_SESSION
    except SessionEnded as exc:
        show(err, f"ddz: {exc}")
        return EXIT_SESSION
    finally:
        await link.close()
    if isinstance(answer, PlayerKeyIssued) and not _keep_key(store, answer.player_key):
        show(err, "ddz: the new key could not be kept: copy it now (the old one is gone)")
    if isinstance(answer, ReviewData):
        answer = only_deal(answer, opts.review_deal)
        if not opts.json:
            for text in review_lines(answer, opts.review_deal):
                print(text, file=out, flush=True)
            return EXIT_OK
    if opts.json:
        print(to_json_line(answer), file=out, flush=True)
        return EXIT_OK
    if isinstance(answer, ReplayData) and on_terminal(out):
        from client.replay_pager import page_replay

        await page_replay(answer)
        return EXIT_OK
    lines: list[Fragments] | None
    if isinstance(answer, RoomList):
        lines = room_list_lines(answer)
    elif isinstance(answer, Profile):
        lines = profile_lines(answer)
    elif isinstance(answer, PlayerKeyIssued):
        lines = key_lines(answer.player_key, opts.server)
    elif isinstance(answer, Leaderboard):
        lines = leaderboard_lines(answer)
    else:
        lines = social_lines(answer)
    for line in lines or []:
        print(plain(line), file=out, flush=True)
    return EXIT_OK


def _keep_key(store: SessionFile | None, key: str) -> bool:
    """Keep a new player key beside the session (False: it could not be written)."""
    return store is not None and KeyFile.of(store.server, store.folder).save(key)


def on_terminal(out: TextIO) -> bool:
    """Whether a person reads ``out`` and types at us (a replay is paged then): both it and
    stdin are terminals."""
    return out.isatty() and sys.stdin.isatty()


async def _ask(link: Link, request: Request, err: TextIO) -> Answer:
    """Send ``request`` (``ListRooms``, ``GetReplay`` or ``GetHistory``) and return the
    answer (a refusal as ``unavailable`` or for flooding is asked again after a pause;
    another refusal ends the session). Messages of a room the resumed session is in pass by."""
    delays: Iterator[float] | None = None
    rid = await link.send(request)
    while True:
        try:
            message = await link.receive()
        except ProtocolError as exc:
            raise SessionEnded(f"protocol error: {exc.message}") from exc
        if isinstance(message, _ANSWERS[type(request)]):
            return message
        if isinstance(message, Error) and message.request_id in (rid, None):
            if message.code not in RETRY_CODES:
                raise SessionEnded(f"refused: {message.message} [{message.code}]")
            if message.code == ErrorCode.RATE_LIMITED:
                delay = RATE_LIMIT_BACKOFF
            else:
                delays = delays or UNAVAILABLE.delays()
                delay = next(delays)
            show(err, f"ddz: refused: {message.message} [{message.code}]")
            await asyncio.sleep(delay)
            rid = await link.send(request)


_ANSWERS: dict[type[Request], type[Answer]] = {
    ListRooms: RoomList,
    GetReplay: ReplayData,
    GetReview: ReviewData,
    GetHistory: History,
    GetProfile: Profile,
    NewPlayerKey: PlayerKeyIssued,
    GetLeaderboard: Leaderboard,
}


async def run_headless(opts: Options, out: TextIO, err: TextIO) -> int:
    """Run one headless session; returns the process exit status."""
    store = SessionFile.claim(opts.server) if opts.keep_session else None
    if opts.keep_session and store is None:
        show(err, f"ddz: {SECOND_DDZ}")
    try:
        link = await open_first(opts, err, store)
    except LinkError as exc:
        show(err, f"ddz: {exc}")
        if store is not None:
            store.release()
        return EXIT_CONNECT
    headless = Headless(link, opts, out, err, store=store)
    try:
        return await headless.run()
    except SessionEnded as exc:
        show(err, f"ddz: {exc}")
        return EXIT_SESSION
    finally:
        await headless.link.close()
        if store is not None:
            store.release()
