"""The interactive client: a prompt, a live table panel under it, and the events above it.

Thin I/O over pure parts: ``client.commands`` decides what a typed line means, whether it is
a legal play and which hint is next; ``client.render`` draws the panel and the event lines;
``client.table`` keeps the picture. This module only wires them to prompt_toolkit and the
websocket: one task reads the server and prints events above the prompt, the other reads
lines from the person. Tab fills the prompt with the next hint; the panel under the prompt
says, as you type, whether the cards are a legal play. A dropped connection is resumed with
the session token, on the same backoff as the headless client's (``client.backoff``), for up
to ``--reconnect-for`` seconds.

Outside a room, ``quick`` joins the quick-match queue (the panel counts down to the bots
while we wait; ``unqueue`` or ``leave`` leaves it; the match's snapshot ends the wait) and
``list`` shows the live rooms to ``watch``. The server drops the queue entry of a dropped
connection, so a session resumed while waiting joins the queue again.

The session is kept on disk (``client.saved_session``, unless ``--no-save-session``): start
``ddz`` again after quitting (or after the terminal closed) and the server puts you back in
your seat, the room shown at once. ``quit`` closes ddz and keeps the seat; ``leave`` gives it
up and forgets the saved session (without a kept session ``quit`` leaves too, as there is no
way back). Mid-match, ``leave``, Ctrl-D, and a ``quit`` that gives up the seat ask first:
the same again confirms, anything else drops the question. Ctrl-C clears the line.

Two switches, off by default: ``counter`` shows the card counter under the hand, and
``autopass`` passes at once (once a turn, with a notice) when nothing in the hand beats the
play on the table.

When the terminal or pipe ddz writes to is gone (``ddz ... | head``, a closed terminal), the
session ends (``client.closed_output``): prompt_toolkit's own answer to a failed write, a
"press Enter" prompt on that same output, spun for ever.

After a match: ``say PHRASE`` is quick chat (Tab goes through the phrase ids;
``mute`` hides the others' phrases, on this client only); ``again`` asks for a rematch of the
match just finished, or accepts the one another player asked for (their ``RematchAsked`` is
shown with the seconds the seat is held); ``replay [CODE]`` and ``history`` ask the server
and print what it sends (``client.after_match``). A refusal of any of them names it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Hashable
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.filters import to_filter
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.shortcuts import print_formatted_text
from prompt_toolkit.styles import Style
from websockets.exceptions import ConnectionClosed

from client import commands as cmd
from client.after_match import phrase_lines, rematch_line, social_lines
from client.closed_output import OutputClosed, output_gone
from client.connection import TAKEN_OVER, Link, LinkError, RequestNumbers, reopen, taken_over
from client.headless import EXIT_CONNECT, EXIT_OK, SECOND_DDZ, kept_keys
from client.options import Options, setup_request
from client.profile_view import profile_lines
from client.render import (
    DIM,
    LINE_WIDTH,
    WARN,
    Fragments,
    code,
    event_lines,
    lobby_lines,
    message_text,
    queued_line,
    table_panel,
)
from client.replay_view import replay_lines
from client.safe_text import printable, printable_fragments
from client.saved_session import SessionFile, open_kept
from client.table import Countdown, TableState
from protocol.codec import ProtocolError
from protocol.errors import ErrorCode
from protocol.events import MatchEnded
from protocol.legal import legal_plays
from protocol.messages import (
    PROFILE_PAGE,
    BidRequest,
    Chat,
    ChatSaid,
    CreateRoom,
    Error,
    GetHistory,
    GetLeaderboard,
    GetProfile,
    GetReplay,
    JoinRoom,
    Leave,
    LeaveQueue,
    ListRooms,
    PassRequest,
    PlayRequest,
    Profile,
    Queued,
    QueueLeft,
    QuickMatch,
    ReadyRequest,
    Rematch,
    RematchAsked,
    ReplayData,
    Request,
    ResumeRequest,
    SeatBot,
    ServerMessage,
    SetBotSpeed,
    Snapshot,
    StartPractice,
    Watch,
)

STYLE = Style.from_dict({"bottom-toolbar": "noreverse"})

#: What one can do at the start, printed once above the prompt (``ddz`` with no subcommand).
MENU: tuple[tuple[str, str], ...] = (
    ("practice", "a game against two bots (a short one: practice 1 easy)"),
    ("quick", "a timed match with the next two players (bots if none come)"),
    ("create [public]", "a room to share (public: listed; or rated: people only)"),
    ("join CODE", "take a seat in a friend's room"),
    ("list, watch CODE", "the live rooms; watch one"),
    ("history, replay", "your last matches, and one of them deal by deal"),
    ("profile", "your record: matches and deals won, points, bombs"),
    ("help, quit", "every command; close ddz"),
)
#: The panel under the prompt outside a room: one line, the menu's words.
LOBBY_PANEL: Fragments = [
    ("bold", "Not in a room: "),
    ("", "practice · quick · create · join CODE · list · help · quit"),
]


def menu_lines() -> list[Fragments]:
    """The start menu: what one can do, a command and its words a line."""
    width = max(len(usage) for usage, _ in MENU)
    lines: list[Fragments] = [[("bold", "What would you like to do? Type one of:")]]
    lines += [[("bold", f" {usage:<{width}}  "), ("", text)] for usage, text in MENU]
    return lines


def keep_panel_under_prompt(session: PromptSession[str]) -> None:
    """Keep the input line from growing to fill the screen.

    prompt_toolkit learns from the terminal how many lines lie below the cursor and fills
    them all, the input window taking the slack: on a fresh 40-line screen the prompt sat at
    the top and the panel at the foot, 25 blank lines between, until the log filled the
    screen. An input window that does not extend keeps the panel right under the prompt and
    leaves the slack below it."""
    for window in session.app.layout.find_all_windows():
        content = window.content
        if isinstance(content, BufferControl) and content.buffer is session.default_buffer:
            window.dont_extend_height = to_filter(True)


def say(fragments: Fragments) -> None:
    """Print one line above the prompt (made safe: it may quote the server)."""
    print_formatted_text(FormattedText(printable_fragments(fragments)), style=STYLE)


class Interactive:
    """One interactive session."""

    def __init__(self, opts: Options) -> None:
        self.opts = opts
        #: The local clock the panel counts down on (monotonic seconds).
        self.clock: Callable[[], float] = time.monotonic
        #: Where the session is kept for the next start (None: it is not kept).
        self.store: SessionFile | None = None
        #: Another ``ddz`` holds the session, and we play as the player of the kept key.
        self.keyed = False
        self.numbers = RequestNumbers()
        self.link: Link | None = None
        self.state: TableState | None = None
        self.hints = cmd.HintCycle()
        self.prefill = ""
        self.done = False
        self.pending_setup = opts.mode == "create"
        #: An in-client ``create`` readies the creator once the room's snapshot comes, as
        #: ``ddz create`` does.
        self.ready_on_snapshot = False
        #: The card counter is shown under the hand (the ``counter`` command).
        self.counter = False
        #: Pass at once when nothing in the hand beats the table (the ``autopass`` command);
        #: ``autopassed`` names the turn last passed so, so that it is passed only once.
        self.autopass = False
        self.autopassed: Hashable = None
        #: What the person was asked to confirm (``leave``, ``quit`` or ``eof`` for Ctrl-D)
        #: by repeating it; any other line drops the question.
        self.confirm: str | None = None
        #: The quick-match queue while we wait in it: the server's ``Queued`` and the local
        #: (monotonic) time it came; None when not queued.
        self.queued: Queued | None = None
        self.queued_at = 0.0
        #: The others' quick chat is hidden (``mute``; client-side: the server sends it all).
        self.muted = False
        #: The room whose match ended last while we were in it, and whether we played it
        #: (a watcher may replay it but not ask for a rematch): what ``again`` and
        #: ``replay`` name when no code is typed.
        self.finished: str | None = None
        self.played_finished = False
        #: A rematch another player asked for, until we are in a room again, and the local
        #: (monotonic) time it came: the panel counts its held seat down.
        self.offer: RematchAsked | None = None
        self.offer_at = 0.0
        #: Requests whose refusal is shown under their own name (``say``, ``again``...),
        #: by request id.
        self.asked: dict[int, str] = {}
        #: The terminal or pipe we write to is gone: the session ended for it.
        self.output_closed = False
        self.session: PromptSession[str] = PromptSession(
            bottom_toolbar=self.toolbar,
            refresh_interval=0.5,
            key_bindings=self._bindings(),
            style=STYLE,
        )
        keep_panel_under_prompt(self.session)

    # --- the screen -------------------------------------------------------------------

    def columns(self) -> int:
        """The terminal's width (prompt_toolkit asks the terminal; 80 when it cannot say)."""
        return self.session.app.output.get_size().columns or LINE_WIDTH

    def in_room(self) -> bool:
        state = self.state
        return state is not None and state.closed is None and not state.left

    def context(self) -> cmd.TurnContext:
        return cmd.turn_context(self.state) if self.state is not None else cmd.TurnContext()

    def toolbar(self) -> FormattedText:
        """The panel under the prompt, redrawn on every key and twice a second."""
        state = self.state
        if self.queued is not None and not self.in_room():
            waited = self.clock() - self.queued_at
            line = queued_line(self.queued.wait, self.queued.waiting, waited)
            hint: Fragments = [(DIM, "unqueue (or leave) to stop waiting · list · quit")]
            return FormattedText(printable_fragments([*line, ("", "\n"), *hint]))
        now = self.clock()
        if state is None or (not self.in_room() and not state.match_over):
            return FormattedText(printable_fragments([*LOBBY_PANEL, *self.offer_panel(now)]))
        text = self.session.default_buffer.text
        verdict = cmd.assess(text, self.context())
        panel = table_panel(state, now, verdict, counter=self.counter)
        return FormattedText(printable_fragments([*panel, *self.offer_panel(now)]))

    def offer_panel(self, now: float) -> Fragments:
        """The rematch asked of us while its seat is held, counting down (a line of the
        panel); nothing once the time is up or there is no offer."""
        offer = self.offer
        if offer is None:
            return []
        left = Countdown(offer.deadline, offer.server_time, self.offer_at).left(now)
        if left <= 0:
            return []
        state = self.state
        names = [state.seat_name(s) for s in range(3)] if state is not None else []
        return [("", "\n"), *rematch_line(offer, names, left)]

    def prompt(self) -> str:
        ctx = self.context()
        if ctx.action == "bid":
            return "bid> "
        if ctx.action == "play":
            return "play> "
        return "ddz> "

    def _bindings(self) -> KeyBindings:
        bindings = KeyBindings()

        @bindings.add("tab")
        def _(event: KeyPressEvent) -> None:
            """Tab: the next phrase after ``say``, else put the next hint at the prompt."""
            text = cmd.next_completion(event.current_buffer.text) or self.next_hint()
            if text is not None:
                event.current_buffer.text = text
                event.current_buffer.cursor_position = len(text)

        return bindings

    def next_hint(self) -> str | None:
        """Step the hint cycle; the text of the next hint, or None when it is not my turn."""
        if self.state is None:
            return None
        options = cmd.hint_options(self.context())
        self.hints, hint, found = self.hints.advance(cmd.hint_key(self.state), options)
        return cmd.hint_text(hint) if found else None

    # --- the server -------------------------------------------------------------------

    async def send(self, request: Request, label: str | None = None) -> int | None:
        """Send ``request``; its id, or None when it could not go. ``label``: a refusal of
        it is shown as that command's (``again refused: ...``)."""
        if self.link is None:
            say([(WARN, "not connected")])
            return None
        try:
            rid = await self.link.send(request)
        except ConnectionClosed:
            say([(WARN, "not sent: the connection is down")])
            return None
        if label is not None:
            self.asked[rid] = label
        return rid

    async def receive_loop(self) -> None:
        """Read the server until the session ends; resume it after a drop."""
        while not self.done:
            link = self.link
            if link is None:
                return
            try:
                message = await link.receive()
            except ConnectionClosed as exc:
                if taken_over(exc):
                    say([(WARN, TAKEN_OVER)])
                    self.finish()
                    return
                if not await self.reconnect():
                    self.finish()
                    return
                continue
            except ProtocolError as exc:
                say([(WARN, f"protocol error: {exc.message}")])
                continue
            try:
                await self.on_message(message)
            except OSError as exc:
                if not output_gone(exc):
                    raise
                self.output_closed = True
                self.finish()
                return

    async def on_message(self, message: ServerMessage) -> None:
        before = self.state
        now = self.clock()
        if self.state is not None:
            self.state = self.state.apply(message, now)
        elif isinstance(message, Snapshot):
            self.state = TableState.from_snapshot(message, now)
        self.follow_queue(message, now)
        self.follow_matches(before, message, now)
        for line in self.lines_for(before, message):
            say(line)
        if isinstance(message, Snapshot):
            self.keep_session()
        if isinstance(message, Snapshot) and self.pending_setup:
            self.pending_setup = False
            await self.set_up_room(message)
        if isinstance(message, Snapshot) and self.ready_on_snapshot:
            self.ready_on_snapshot = False
            if message.room.table is None and message.room.your_seat is not None:
                await self.send(ReadyRequest())
        await self.auto_pass()
        if self.session.app.is_running:
            self.session.app.invalidate()

    def lines_for(self, before: TableState | None, message: ServerMessage) -> list[Fragments]:
        """What to print for ``message``: the others' chat unless muted, a refusal under
        the name of the command it refuses, else what ``client.render`` says."""
        after = self.state
        names = [after.seat_name(s) for s in range(3)] if after is not None else []
        mine = after.my_seat if after is not None else None
        if isinstance(message, ChatSaid) and self.muted and message.seat != mine:
            return []
        if isinstance(message, Error) and message.request_id in self.asked:
            label = self.asked.pop(message.request_id)
            return [
                [(WARN, f"{label} refused: {message_text(message.message)}"),
                 (DIM, f" [{message.code}]")]
            ]  # fmt: skip
        if isinstance(message, ReplayData):
            return replay_lines(message, self.columns())
        if isinstance(message, Profile):
            return profile_lines(message)
        social = social_lines(message, names, mine)
        if social is not None:
            return social
        if after is not None:
            return event_lines(before or after, after, message, self.columns())
        return lobby_lines(message)

    def follow_matches(self, before: TableState | None, message: ServerMessage, now: float) -> None:
        """Note the match that just ended (for ``again`` and ``replay``), the rematch
        offered, and drop the offer once in a room again."""
        state = self.state
        if isinstance(message, MatchEnded) and state is not None:
            self.finished, self.played_finished = state.room.code, state.my_seat is not None
        elif isinstance(message, RematchAsked):
            self.offer, self.offer_at = message, now
        elif isinstance(message, Snapshot):
            self.offer = None

    async def auto_pass(self) -> None:
        """With ``autopass`` on: pass at once on my turn when nothing in my hand beats the
        play on the table, once a turn, and say so (naming only the public play)."""
        state = self.state
        if not self.autopass or state is None:
            return
        ctx = self.context()
        to_beat = ctx.to_beat
        if ctx.action != "play" or not ctx.may_pass or to_beat is None:
            return
        if legal_plays(ctx.hand, to_beat):
            return
        key = cmd.hint_key(state)
        if key == self.autopassed:
            return
        self.autopassed = key
        table = state.table
        version = table.turn.version if table is not None and table.turn is not None else None
        say(
            [
                (DIM, f"auto-pass: nothing in your hand beats {cmd.describe_play(to_beat)}"),
                (DIM, " (autopass turns it off)"),
            ]
        )
        await self.send(PassRequest(version=version))

    def mid_match(self) -> bool:
        """Seated in a room whose match is under way: leaving now costs the seat."""
        state = self.state
        return (
            self.in_room()
            and state is not None
            and state.my_seat is not None
            and state.table is not None
            and not state.match_over
        )

    def seat_kept(self) -> bool:
        """Whether a next start comes back to the seat: the session is kept, or the player
        key is (a second ``ddz`` of the same folder keeps no session but is the player)."""
        return self.store is not None or self.keyed

    def quit_note(self) -> str:
        """What quitting does to my seat (short: it ends a line of at most 80 columns)."""
        if not self.seat_kept():
            return "a bot takes your seat to the end"
        return "your seat waits for your next start"

    async def on_eof(self) -> bool:
        """Ctrl-D: quit, after asking once mid-match. True when the client should end."""
        if self.mid_match() and self.confirm != "eof":
            self.confirm = "eof"
            say([(WARN, f"Ctrl-D again (or quit) closes ddz; {self.quit_note()}")])
            return False
        self.confirm = None
        await self.quit()
        return True

    def on_interrupt(self) -> None:
        """Ctrl-C clears the line (a hint put there too); say how to quit."""
        self.confirm = None
        self.prefill = ""
        say([(DIM, "Ctrl-C clears the line; to close ddz type quit (or press Ctrl-D)")])

    async def quit(self) -> None:
        """Close ddz; with no session kept there is no way back, so leave the room too."""
        state = self.state
        if not self.seat_kept() and self.in_room() and state is not None and not state.match_over:
            await self.send(Leave())  # no way back to the seat: give it up
        self.finish()

    def follow_queue(self, message: ServerMessage, now: float) -> None:
        """Note whether we wait in the quick-match queue: from ``Queued`` until the match's
        snapshot or ``QueueLeft`` (or a refusal saying we are not queued)."""
        if isinstance(message, Queued):
            self.queued, self.queued_at = message, now
        elif isinstance(message, Snapshot | QueueLeft) or (
            isinstance(message, Error) and message.code == ErrorCode.NOT_QUEUED
        ):
            self.queued = None

    def keep_session(self) -> None:
        """Keep the session for the next start (again, after a ``leave`` forgot it)."""
        if self.store is not None and self.link is not None:
            self.store.save(self.link.welcome.token)

    def forget_session(self) -> None:
        """``leave``: the next start does not take us back to the room."""
        if self.store is not None:
            self.store.forget()

    async def set_up_room(self, snapshot: Snapshot) -> None:
        """``ddz create [--speed S] [--bots L]``: set the bots' speed, fill the empty seats
        with bots, then ready."""
        if snapshot.room.table is not None:
            return
        if self.opts.bot_speed is not None:
            await self.send(SetBotSpeed(speed=self.opts.bot_speed))
        if self.opts.bots is not None:
            for seat, view in enumerate(snapshot.room.seats):
                if view.kind == "empty":
                    await self.send(SeatBot(seat=seat, level=self.opts.bots))
        await self.send(ReadyRequest())

    async def reconnect(self) -> bool:
        """Resume the session with its token; False when the server stays away (for
        ``--reconnect-for`` seconds) or no longer knows the token."""
        old = self.link
        if old is None or self.done or self.opts.reconnect_for <= 0:
            return False
        say([(WARN, "connection lost: reconnecting…")])
        try:
            self.link = await reopen(old, self.opts.server, self.opts.name, self.opts.reconnect_for)
        except LinkError as exc:
            if exc.code == ErrorCode.BAD_TOKEN:
                self.forget_session()
            say([(WARN, f"could not resume the session: {exc}; bye")])
            return False
        if not self.link.welcome.room:
            self.state = None
        say([(DIM, "reconnected")])
        if self.queued is not None and not self.link.welcome.room:
            # The server took us off the queue when the connection dropped: join again.
            self.queued = None
            await self.send(QuickMatch())
        return True

    def on_loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """An error no task awaited (a redraw of the prompt, a line printed): a closed output
        ends the session (prompt_toolkit's own handler would ask to press Enter on that same
        output, fail, and ask again for ever); anything else is reported as asyncio does."""
        if output_gone(context.get("exception")):
            self.output_closed = True
            self.finish()
        else:
            loop.default_exception_handler(context)

    def finish(self) -> None:
        """End the session: stop the prompt too."""
        self.done = True
        if self.session.app.is_running:
            self.session.app.exit(exception=EOFError())

    # --- the person -------------------------------------------------------------------

    async def handle(self, text: str) -> None:
        """Act on one typed line."""
        ctx = self.context()
        command = cmd.parse_command(text, ctx.reading)
        state = self.state
        table = state.table if state is not None else None
        turn = table.turn if table is not None else None
        version = turn.version if turn is not None else None
        asked, self.confirm = self.confirm, None
        if command is None:
            if self.ready_pending():
                await self.send(ReadyRequest())
            return
        if isinstance(command, cmd.Invalid):
            say([(WARN, cmd.invalid_reason(text, command, ctx))])
        elif isinstance(command, cmd.Help):
            for line in cmd.help_text(self.columns()).splitlines():
                say([("", line)])
        elif isinstance(command, cmd.Quit):
            if not self.seat_kept() and self.mid_match() and asked != "quit":
                self.confirm = "quit"
                say([(WARN, f"quit again to close ddz; {self.quit_note()}")])
                return
            await self.quit()
        elif isinstance(command, cmd.ToggleCounter):
            self.counter = not self.counter
            say([(DIM, f"card counter {'on' if self.counter else 'off'}")])
        elif isinstance(command, cmd.ToggleAutopass):
            self.autopass = not self.autopass
            what = "on: you pass at once when nothing beats the table" if self.autopass else "off"
            say([(DIM, f"auto-pass {what}")])
            await self.auto_pass()
        elif isinstance(command, cmd.ShowHint):
            hint = self.next_hint()
            if hint is None:
                say([(DIM, "hints are for your turn")])
            else:
                self.prefill = hint
        elif isinstance(command, cmd.PassTurn | cmd.MakeBid | cmd.PlayCards):
            verdict = cmd.assess(text, ctx)
            if not verdict.ok:
                reason = verdict.message if verdict.level == "bad" else cmd.out_of_turn(ctx)
                say([(WARN, reason)])
            elif isinstance(command, cmd.PassTurn):
                await self.send(PassRequest(version=version))
            elif isinstance(command, cmd.MakeBid):
                await self.send(BidRequest(value=command.value, version=version))
            else:
                await self.send(PlayRequest(ranks=[int(r) for r in command.ranks], version=version))
        elif isinstance(command, cmd.ListLive):
            await self.send(ListRooms())
        elif isinstance(command, cmd.Quick):
            if self.in_room():
                say([(WARN, "you are in a room: leave it first")])
            elif self.queued is not None:
                say([(WARN, "you are in the quick-match queue already")])
            else:
                await self.send(QuickMatch())
        elif isinstance(command, cmd.Unqueue) or (
            isinstance(command, cmd.LeaveRoom) and self.queued is not None and not self.in_room()
        ):
            if self.queued is None:
                say([(WARN, "you are not in the quick-match queue")])
            else:
                await self.send(LeaveQueue())
        elif isinstance(command, cmd.Practice | cmd.Create | cmd.Join | cmd.WatchRoom):
            await self.open_room(command)
        elif isinstance(command, cmd.Say | cmd.Mute):
            await self.chat(command)
        elif isinstance(command, cmd.Again):
            await self.again(command.code)
        elif isinstance(command, cmd.ShowReplay):
            room = command.code or self.finished
            if room is None:
                say([(WARN, "replay CODE: history lists the codes of your matches")])
            else:
                await self.send(GetReplay(code=room), label=f"replay {code(room)}")
        elif isinstance(command, cmd.ShowHistory):
            await self.send(GetHistory(), label="history")
        elif isinstance(command, cmd.ShowProfile):
            offset = (command.page - 1) * PROFILE_PAGE
            await self.send(GetProfile(offset=offset), label="profile")
        elif isinstance(command, cmd.ShowLadder):
            await self.send(GetLeaderboard(), label="top")
        elif not self.in_room():
            say([(WARN, "you are not in a room")])
        elif isinstance(command, cmd.Ready):
            await self.send(ReadyRequest())
        elif isinstance(command, cmd.AddBot):
            await self.send(SeatBot(seat=command.seat, level=command.level))
        elif isinstance(command, cmd.Speed):
            await self.send(SetBotSpeed(speed=command.speed))
        elif isinstance(command, cmd.Resume):
            await self.send(ResumeRequest())
            say([(DIM, "you will play your seat again from your next turn")])
        elif isinstance(command, cmd.LeaveRoom):
            if self.mid_match() and asked != "leave":
                self.confirm = "leave"
                keeps = " (quit keeps it)" if self.store is not None else ""
                say([(WARN, f"leave again to give your seat to a bot to the end{keeps}")])
                return
            self.forget_session()
            await self.send(Leave())

    async def chat(self, command: cmd.Say | cmd.Mute) -> None:
        """``say``, ``mute``, ``unmute``: quick chat to the table (seated only)."""
        if isinstance(command, cmd.Mute):
            self.muted = command.on
            what = "hidden (unmute shows it)" if command.on else "shown"
            say([(DIM, f"the others' chat is {what}")])
        elif command.phrase is None:
            for line in phrase_lines():
                say(line)
        elif not self.in_room():
            say([(WARN, "say is for the table: you are not in a room")])
        elif self.state is not None and self.state.is_watcher:
            say([(WARN, "watchers may not chat: only the seated players do")])
        else:
            await self.send(Chat(phrase=command.phrase), label="say")

    async def again(self, typed: str | None) -> None:
        """``again``: a rematch of the match just finished (or of room ``typed``)."""
        state = self.state
        if self.in_room() and state is not None and not state.match_over:
            say([(WARN, "you are in a room: again is for after its match")])
            return
        if self.queued is not None:
            say([(WARN, "you are in the quick-match queue: unqueue first")])
            return
        room = typed or (self.offer.code if self.offer is not None else self.finished)
        if room is None:
            say([(WARN, "no match just finished here: again CODE names one you played")])
            return
        if typed is None and self.offer is None and not self.played_finished:
            say([(WARN, "you watched that match: again is for who played it")])
            return
        await self.send(Rematch(code=room), label="again")
        say([(DIM, f"asked for a rematch of room {code(room)}: the match starts when all are in")])

    def ready_pending(self) -> bool:
        """Seated, before the match or between deals, and not ready yet: Enter readies."""
        state = self.state
        if state is None or not self.in_room() or state.my_seat is None:
            return False
        table = state.table
        if table is None:
            return not state.room.seats[state.my_seat].ready
        return table.phase == "between_deals" and not table.ready[state.my_seat]

    async def open_room(
        self, command: cmd.Practice | cmd.Create | cmd.Join | cmd.WatchRoom
    ) -> None:
        if self.in_room():
            say([(WARN, "you are in a room: leave it first")])
            return
        if self.queued is not None:
            say([(WARN, "you are in the quick-match queue: unqueue first")])
            return
        request: Request
        if isinstance(command, cmd.Practice):
            request = StartPractice.model_validate(
                {"deals": command.deals, "level": command.level, "speed": command.speed}
            )
        elif isinstance(command, cmd.Create):
            request = CreateRoom.model_validate(
                {"deals": command.deals, "public": command.public, "rated": command.rated}
            )
            self.ready_on_snapshot = True
        elif isinstance(command, cmd.Join):
            request = JoinRoom(code=command.code)
        else:
            request = Watch(code=command.code)
        await self.send(request)

    # --- the loop ---------------------------------------------------------------------

    async def open_link(self) -> Link:
        """The first link: the saved session resumed if there is one, else a new one."""
        if self.opts.keep_session:
            self.store = SessionFile.claim(self.opts.server)
            if self.store is None:
                print(f"ddz: {SECOND_DDZ}")

        async def opener(token: str | None, key: str | None) -> Link:
            return await Link.open(
                self.opts.server, self.opts.name, token, self.numbers, player_key=key
            )

        store = self.store
        keys = kept_keys(self.opts, store)
        self.keyed = store is None and keys is not None and keys.load() is not None
        return await open_kept(store, opener, lambda text: print(printable(f"ddz: {text}")), keys)

    async def start(self) -> None:
        """Say where we are and open the subcommand's room; when the saved session put us
        back in a room, that room is shown (its snapshot comes) and nothing else opened."""
        assert self.link is not None
        welcome = self.link.welcome
        say([("bold", f"ddz: connected to {self.opts.server} as {welcome.name}")])
        request = setup_request(self.opts)
        if welcome.resumed and welcome.room is not None:
            self.pending_setup = False
            say([(DIM, f"back in room {code(welcome.room)}: your saved session")])
            same_room = self.opts.mode == "join" and self.opts.code == welcome.room
            if request is not None and not same_room:
                room = code(welcome.room)
                say([(WARN, f"not opening {self.opts.mode}: leave room {room} first")])
        elif request is not None:
            await self.send(request)
        else:
            for line in menu_lines():
                say(line)

    async def run(self) -> int:
        try:
            self.link = await self.open_link()
        except LinkError as exc:
            print(printable(f"ddz: {exc}"))
            if self.store is not None:
                self.store.release()
            return EXIT_CONNECT
        asyncio.get_running_loop().set_exception_handler(self.on_loop_exception)
        with patch_stdout(raw=True):
            receiver = asyncio.create_task(self.receive_loop())
            try:
                await self.start()
                while not self.done:
                    try:
                        text = await self.session.prompt_async(
                            self.prompt, default=self.prefill, set_exception_handler=False
                        )
                    except KeyboardInterrupt:
                        self.on_interrupt()  # Ctrl-C clears the line; Ctrl-D or quit ends
                        continue
                    except EOFError:
                        if self.done or await self.on_eof():
                            break
                        continue
                    self.prefill = ""
                    await self.handle(text)
            except OSError as exc:
                if not output_gone(exc):
                    raise
                self.output_closed = True
            finally:
                self.done = True
                receiver.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await receiver
                if self.link is not None:
                    await self.link.close()
                if self.store is not None:
                    self.store.release()
        if self.output_closed:
            raise OutputClosed("the output of ddz was closed")
        return EXIT_OK


async def run_interactive(opts: Options) -> int:
    """Run the interactive client; returns the process exit status."""
    return await Interactive(opts).run()
