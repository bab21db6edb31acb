"""A room: three seats, its watchers and its match, as a sans-I/O state machine.

``Room.handle(actor, request, now, rng)`` checks a request (the room, the seat, a resent
id; the match checks phase, turn, state version, then the rules), changes the state or
raises ``RoomError``/``GameError`` having changed nothing, and returns the ``Change``: the
deliveries, (player id, message) pairs, and the journal records to store. Every message is
addressed by ``server/rooms/audience.py``, so a hidden card only ever goes to the seat that
holds it. The state round-trips through plain data (``server/rooms/stored.py``).

Its parts live beside it: the seats (``seating``), the watchers (``watchers``), a rematch's
held seats (``rematch``), the quick-chat limit (``chat``).

A room with no connected person is idle (bots and watchers keep nobody company): from the
moment the last person went (``idle_since``, saved with the room, so a restart does not
reset it) the runtime may end it with ``end_idle`` once the idle-room timeout has passed;
anyone coming back first keeps it. Who played, and who watched (the store keeps who did,
beside the room), may have the replay once the room is closed (``check_replay``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from protocol.cards import Rank
from protocol.errors import ErrorCode
from protocol.events import Message
from protocol.messages import (
    BidRequest,
    BotLevel,
    BotSpeed,
    BotSpeedChanged,
    Chat,
    ChatSaid,
    Left,
    PassRequest,
    PlayRequest,
    ReadyRequest,
    Request,
    ResumeRequest,
    RoomClosed,
    RoomMode,
    RoomView,
    SeatBot,
    SeatsChanged,
    SetBotSpeed,
    Snapshot,
)
from server.game.commands import (
    Action,
    Bid,
    Command,
    Pass,
    PlayCards,
    Ready,
    ReadyTimeout,
    Resume,
    Timeout,
)
from server.game.deal import SEATS, RandomSource
from server.game.errors import AlreadyReady
from server.game.journal import Record, close_record
from server.game.match import Audience, Match, MatchConfig
from server.rooms import rematch, seating, table
from server.rooms.audience import address, to_everyone
from server.rooms.change import Actor as Actor
from server.rooms.change import BotActor as BotActor
from server.rooms.change import Change as Change
from server.rooms.change import Delivery as Delivery
from server.rooms.change import RoomError as RoomError
from server.rooms.chat import said_at
from server.rooms.seating import Seat as Seat
from server.rooms.watchers import add_watcher, drop_watcher

#: Seconds a running clock has at least when its room comes back after a crash or a
#: takeover (or its full length, when shorter): a person back from a restart has the time
#: to see whose turn it is.
RESUME_FLOOR = 5.0
CloseReason = Literal["match_over", "everyone_left", "abandoned"]


@dataclass
class Clocks:
    """Seconds for each clock of a timed room."""

    bid: float
    play: float
    ready: float


@dataclass
class Room:
    code: str
    mode: RoomMode
    deals: int
    seats: list[Seat]
    creator: str | None = None
    public: bool = False
    clocks: Clocks | None = None
    bot_speed: BotSpeed = "normal"
    watchers: list[str] = field(default_factory=list)
    match: Match | None = None
    closed: str | None = None
    version: int = 0
    #: When the last connected person went (None while someone is here); kept on close.
    idle_since: float | None = None
    #: Whether a person made a move (bid, pass, play) in the match: a match nobody played
    #: is not worth keeping once closed (see ``worth_keeping``).
    played: bool = False
    saved_at: float | None = None
    """Wall-clock time of the room's last save (``saved``): after a crash or a takeover,
    how much time its clock had left then (``resume_clocks``)."""
    #: Each seat's quick-chat times in the last ``chat.CHAT_WINDOW`` seconds.
    chat_times: list[list[float]] = field(default_factory=lambda: [[], [], []])
    #: The room this one is a rematch of, and until when its held seats are kept.
    rematch_of: str | None = None
    hold_until: float | None = None
    _journal: list[Record] = field(default_factory=list, compare=False, repr=False)
    """Journal records made and not yet handed out: by a ``Change``, or (a match started
    as the room was built, before its first save) by ``take_journal``. Runtime only."""

    # --- building -------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        code: str,
        mode: RoomMode,
        deals: int,
        creator: str,
        name: str,
        clocks: Clocks | None = None,
        public: bool = False,
        bot_speed: BotSpeed = "normal",
    ) -> Room:
        """A room with its creator in seat 0 and the other seats empty."""
        seats = [Seat(kind="person", player_id=creator, name=name, connected=True), Seat(), Seat()]
        return cls(code, mode, deals, seats, creator, public, clocks, bot_speed)

    @classmethod
    def quick(
        cls,
        code: str,
        people: list[tuple[str, str]],
        clocks: Clocks,
        bot_level: BotLevel = "normal",
        bot_speed: BotSpeed = "normal",
    ) -> Room:
        """A quick match: the people (player id, name) from the queue in their order, bots
        in the seats left, watchable by anyone. Start it with ``start_match``. The people
        were connected when matched (a disconnect takes a person off the queue)."""
        room = cls(code, "quick", 3, [Seat(), Seat(), Seat()], None, True, clocks, bot_speed)
        for i, (p, n) in enumerate(people):
            name = room.name_for(i, n)
            room.seats[i] = Seat(kind="person", player_id=p, name=name, ready=True, connected=True)
        for i in range(len(people), 3):
            room.place_bot(i, bot_level)
        return room

    @classmethod
    def rematch(
        cls, old: Room, code: str, asker: str, now: float, rng: RandomSource, hold: float
    ) -> Room:
        """Another match with ``old``'s seats and settings, under ``code``
        (``server/rooms/rematch.py``); it starts at once when nobody is held (practice: the
        person and the same bots). Send ``invites`` to the held."""
        seats, bots = rematch.rematch_seats(old.seats, old.mode, asker)
        room = cls(code, old.mode, old.deals, seats, asker, old.public, old.clocks, old.bot_speed)
        room.rematch_of = old.code
        for i in bots:
            room.place_bot(i, "normal")
        if any(s.held for s in seats):
            room.hold_until = now + hold
        room._start_if_ready(now, rng)
        return room

    def invites(self, asker: str, now: float) -> list[Delivery]:
        """Tell each person whose seat is held that ``asker`` wants another match."""
        seat = self.seat_of(asker)
        if self.rematch_of is None or seat is None or self.hold_until is None:
            return []
        return rematch.invites(self.seats, self.rematch_of, seat, self.hold_until, now)

    # --- who is who -----------------------------------------------------------------

    def seat_of(self, player_id: str) -> int | None:
        return seating.seat_of(self.seats, player_id)

    def held_seat(self, player_id: str) -> int | None:
        return seating.held_seat(self.seats, player_id)

    def people(self) -> list[str]:
        return seating.people(self.seats)

    def seated(self) -> list[str]:
        return seating.seated(self.seats)

    def connected_people(self) -> list[str]:
        return seating.connected_people(self.seats)

    def seat_label(self, seat: int) -> str:
        return seating.seat_label(self.seats, seat)

    def name_for(self, seat: int, name: str) -> str:
        return seating.name_for(self.seats, seat, name)

    def place_bot(self, seat: int, level: BotLevel) -> None:
        self.seats[seat] = seating.bot_seat(self.seats, seat, level)

    def members(self) -> list[str]:
        """Everyone in the room: seated persons (present or not) and watchers."""
        return self.seated() + self.watchers

    def is_member(self, player_id: str) -> bool:
        """Seated (and not gone) or watching."""
        return player_id in self.watchers or player_id in self.seated()

    def bot_seats(self) -> list[int]:
        """Seats a bot acts for now: bot seats, and persons' seats a bot took over."""
        return [i for i in range(SEATS) if self.bot_acts_for(i)]

    def bot_acts_for(self, seat: int) -> bool:
        s = self.seats[seat]
        if s.kind == "bot":
            return True
        taken = self.match is not None and self.match.bot_control[seat]
        return s.kind == "person" and (taken or s.left)

    @property
    def timed(self) -> bool:
        return self.clocks is not None

    def view_for(self, player_id: str | None, now: float) -> RoomView:
        """The room as this player may see it (a watcher, or None, sees no hand)."""
        seat = None if player_id is None else self.seat_of(player_id)
        return RoomView(
            code=self.code,
            mode=self.mode,
            deals=self.deals,
            seats=seating.seat_views(self.seats),
            watchers=len(self.watchers),
            your_seat=seat,
            creator_seat=None if self.creator is None else self.seat_of(self.creator),
            bot_speed=self.bot_speed,
            timed=self.timed,
            version=self.version,
            table=None if self.match is None else self.match.view_for(seat, now),
        )

    def snapshot_for(self, player_id: str, now: float) -> Snapshot:
        return Snapshot(room=self.view_for(player_id, now))

    def _to_everyone(self, message: Message) -> list[Delivery]:
        return to_everyone(self.seats, self.watchers, message)

    def _seats_changed(self) -> list[Delivery]:
        views = seating.seat_views(self.seats)
        return self._to_everyone(SeatsChanged(seats=views, watchers=len(self.watchers)))

    def _address(self, outgoing: list[tuple[Audience, Message]]) -> list[Delivery]:
        return address(outgoing, self.seats, self.watchers)

    # --- the journal and saves --------------------------------------------------------

    def _change(self, deliveries: list[Delivery]) -> Change:
        """The change just made: its deliveries, and the journal records made with it."""
        records, self._journal = self._journal, []
        return Change(deliveries, records)

    def take_journal(self) -> list[Record]:
        """Journal records no ``Change`` carried: a match started as the room was built,
        stored with its first save."""
        return self._change([]).journal

    def saved(self, at: float) -> None:
        """The room is written as it stands at ``at`` (wall clock), its ``saved_at``."""
        self.saved_at = at

    # --- requests ---------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed is not None:
            raise RoomError(ErrorCode.NO_ROOM, "this room is closed")

    def handle(self, actor: Actor, request: Request, now: float, rng: RandomSource) -> Change:
        """Apply one request from a person or a bot; raise having changed nothing if refused."""
        self._check_open()
        seat: int | None
        if isinstance(actor, BotActor):
            seat = actor.seat
            if not 0 <= seat < SEATS or not self.bot_acts_for(seat):
                raise RoomError(ErrorCode.NOT_ALLOWED, f"no bot acts for seat {seat}")
        else:
            seat = self.seat_of(actor)
            if isinstance(request, Chat) and actor in self.watchers:
                raise RoomError(ErrorCode.NOT_ALLOWED, "watchers do not chat: only the seats")
            if seat is None or self.seats[seat].left:
                raise RoomError(ErrorCode.NO_ROOM, "you have no seat in this room")
            if 0 < request.id <= self.seats[seat].last_request:
                raise RoomError(ErrorCode.DUPLICATE, f"request {request.id} was received already")
        try:
            out = self._handle_seat(actor, seat, request, now, rng)
        except Exception:
            self._journal.clear()  # (a refusal records nothing)
            raise
        person = not isinstance(actor, BotActor)
        if person and isinstance(request, BidRequest | PassRequest | PlayRequest):
            self.played = True
        if person and request.id > 0:
            self.seats[seat].last_request = request.id
        self.version += 1
        return self._change(out)

    def _handle_seat(
        self, actor: Actor, seat: int, request: Request, now: float, rng: RandomSource
    ) -> list[Delivery]:
        if isinstance(request, BidRequest | PassRequest | PlayRequest):  # (the most, first)
            action = self._action(seat, request, by_person=not isinstance(actor, BotActor))
            return self._game(action, now, rng)
        if isinstance(request, Chat):
            if isinstance(actor, BotActor):
                raise RoomError(ErrorCode.NOT_ALLOWED, "bots do not chat")
            self.chat_times[seat] = said_at(self.chat_times[seat], now)
            return self._to_everyone(ChatSaid(seat=seat, phrase=request.phrase))
        if isinstance(request, SeatBot | SetBotSpeed) and actor != self.creator:
            what = "seats bots" if isinstance(request, SeatBot) else "sets the bot speed"
            raise RoomError(ErrorCode.NOT_ALLOWED, f"only the room's creator {what}")
        if isinstance(request, SeatBot):
            return self._seat_bot(request, now, rng)
        if isinstance(request, SetBotSpeed):
            self.bot_speed = request.speed
            return self._to_everyone(BotSpeedChanged(speed=request.speed))
        if isinstance(request, ReadyRequest):
            if self.match is None:
                return self._ready_to_start(seat, now, rng)
            return self._game(Ready(seat), now, rng)
        if isinstance(request, ResumeRequest):
            if isinstance(actor, BotActor) or self.match is None:
                raise RoomError(ErrorCode.NOT_TAKEN_OVER, "no bot holds your seat")
            return self._game(Resume(seat), now, rng)
        raise RoomError(ErrorCode.UNKNOWN_TYPE, f"{request.__class__.__name__} is not for a room")

    def _action(
        self, seat: int, request: BidRequest | PassRequest | PlayRequest, by_person: bool
    ) -> Action:
        """The game's action for a request (the match checks phase, turn and version)."""
        if self.match is None:
            raise RoomError(ErrorCode.WRONG_PHASE, "no deal is being played")
        seen = request.version
        if isinstance(request, BidRequest):
            return Bid(seat, request.value, seen, by_person)
        if isinstance(request, PassRequest):
            return Pass(seat, seen, by_person)
        return PlayCards(seat, tuple(Rank(r) for r in request.ranks), seen, by_person)

    def clock_ran_out(self, now: float, rng: RandomSource) -> Change:
        """The runtime's timer fired: apply the default action of the seat on turn, or start
        the next deal. Raises GameError when the clock has not run out (a stale timer)."""
        self._check_open()
        match = self.match
        if match is None:
            raise RoomError(ErrorCode.WRONG_PHASE, "the match has not started")
        turn = match.turn
        out = self._game(ReadyTimeout() if turn is None else Timeout(turn), now, rng)
        self.version += 1
        return self._change(out)

    def _game(self, command: Command, now: float, rng: RandomSource) -> list[Delivery]:
        match = self.match
        if match is None:
            raise RoomError(ErrorCode.WRONG_PHASE, "the match has not started")
        out, records = table.play(match, command, now, rng, self.bot_seats, self.seat_label)
        self._journal += records
        deliveries = self._address(out)
        if match.phase == "over":
            deliveries += self._close("match_over")
        return deliveries

    def _seat_bot(self, request: SeatBot, now: float, rng: RandomSource) -> list[Delivery]:
        if self.match is not None:
            raise RoomError(ErrorCode.WRONG_PHASE, "the match has started")
        empty = seating.empty_seats(self.seats)
        seat = request.seat if request.seat is not None else (empty[0] if empty else None)
        if seat is None or seat not in empty:
            raise RoomError(ErrorCode.ROOM_FULL, "no empty seat for a bot")
        self.place_bot(seat, request.level)
        # everyone may be ready already (a rematch's people are): then it starts now
        return self._seats_changed() + self._start_if_ready(now, rng)

    def _ready_to_start(self, seat: int, now: float, rng: RandomSource) -> list[Delivery]:
        if self.seats[seat].ready:
            raise AlreadyReady("you are ready already")
        self.seats[seat].ready = True
        return self._seats_changed() + self._start_if_ready(now, rng)

    def _start_if_ready(self, now: float, rng: RandomSource) -> list[Delivery]:
        """Start the match once every seat is filled and ready (a held seat is not)."""
        if self.match is not None or not all(s.kind != "empty" and s.ready for s in self.seats):
            return []
        self.hold_until = None
        first = self.seat_of(self.creator) if self.mode == "practice" and self.creator else None
        return self.start_match(now, rng, first_bidder=first)

    def start_match(
        self, now: float, rng: RandomSource, first_bidder: int | None = None
    ) -> list[Delivery]:
        """Deal the first deal; everyone present gets their snapshot's events. Its journal
        records go with the change that started it (or the room's first save)."""
        clocks = self.clocks
        config = MatchConfig(
            deals=self.deals,
            bid_timeout=clocks.bid if clocks else None,
            play_timeout=clocks.play if clocks else None,
            ready_timeout=clocks.ready if clocks else None,
        )
        self.match, outgoing, records = table.start(config, now, rng, first_bidder)
        self._journal += records
        return self._address(outgoing)

    # --- people come and go -----------------------------------------------------------

    def join(self, player_id: str, name: str, now: float) -> list[Delivery]:
        """A person takes the first empty seat (private rooms, before the match)."""
        self._check_open()
        if self.seat_of(player_id) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "you are in this room already")
        seating.sit_down(self.seats, player_id, name, self.mode, self.match is not None)
        drop_watcher(self.watchers, player_id)
        self.version += 1
        return self._seats_changed()

    def again(self, player_id: str, name: str, now: float, rng: RandomSource) -> Change:
        """A person asks for this rematch (``rematch.take_seat``); the match starts when
        every seat is ready."""
        self._check_open()
        if self.rematch_of is None:
            raise RoomError(ErrorCode.NOT_ALLOWED, "this room is not a rematch")
        if self.seat_of(player_id) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "you are in this room already")
        rematch.take_seat(self.seats, player_id, name, self.mode, self.match is not None)
        drop_watcher(self.watchers, player_id)
        if not any(s.held for s in self.seats):
            self.hold_until = None
        self.version += 1
        out = self._seats_changed() + self.invites(player_id, now)
        return self._change(out + self._start_if_ready(now, rng))

    def hold_over(self, now: float, rng: RandomSource) -> Change:
        """The rematch's hold ended (``rematch.hold_ends``), and the match starts if every
        seat is ready. RoomError before then (a stale timer)."""
        self._check_open()
        if self.hold_until is None or now < self.hold_until:
            raise RoomError(ErrorCode.NOT_ALLOWED, "no seat is held past its time")
        rematch.hold_ends(self.seats, self.mode)
        self.hold_until = None
        self.version += 1
        return self._change(self._seats_changed() + self._start_if_ready(now, rng))

    def watch(self, player_id: str, max_watchers: int = 0) -> list[Delivery]:
        """A person starts watching; past ``max_watchers`` (0: no cap) the room is full."""
        self._check_open()
        if self.seat_of(player_id) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "you have a seat in this room")
        if add_watcher(self.watchers, player_id, max_watchers):
            self.version += 1
        return self._seats_changed()

    def leave(self, player_id: str) -> list[Delivery]:
        """A person leaves (their seat empties before the match, a bot plays it during the
        match) or a watcher stops watching. The room closes when no person is left."""
        self._check_open()
        out: list[Delivery] = [(player_id, Left())]
        if not drop_watcher(self.watchers, player_id):
            seat = self.seat_of(player_id)
            if seat is None:
                raise RoomError(ErrorCode.NO_ROOM, "you are not in this room")
            seating.stand_up(self.seats, seat, self.mode, self.match is not None)
        self.version += 1
        if not self.seated():
            return out + self._close("everyone_left")
        return out + self._seats_changed()

    def all_disconnected(self) -> list[Delivery]:
        """After a restart nobody is connected yet; each comes back with their token."""
        for seat in self.seats:
            if seat.kind == "person" and seat.connected:
                seat.connected = False
                self.version += 1
        return []

    def gone(self, player_id: str) -> list[Delivery]:
        """A person's connection ended: a watcher stops watching (nobody is left to send
        to, and a watcher has no seat to come back to); a seated person's seat is marked
        disconnected, theirs until they come back."""
        if drop_watcher(self.watchers, player_id):
            self.version += 1
            return self._seats_changed()
        return self.set_connected(player_id, False)

    def set_connected(self, player_id: str, connected: bool) -> list[Delivery]:
        seat = self.seat_of(player_id)
        if seat is None or self.seats[seat].connected == connected:
            return []
        self.seats[seat].connected = connected
        self.version += 1
        return self._seats_changed()

    def resume_clocks(self, now: float, floor: float = RESUME_FLOOR) -> list[Delivery]:
        """The room comes back after its process was down or while it was taken over: the
        running clock gets at least the time it had left at the last save (``saved_at``;
        for a room saved before that was kept, the time it has left now), and at least
        ``floor`` seconds (at most its full length), counted from ``now``. Everyone is told
        the new deadline."""
        match = self.match
        if match is None or self.closed is not None:
            return []
        saved_at = now if self.saved_at is None else min(self.saved_at, now)
        out = match.resume_clock(now, saved_at, floor)
        if out:
            self.version += 1
        return self._address(out)

    # --- idle rooms and the end -------------------------------------------------------

    def note_presence(self, now: float) -> None:
        """Start the idle clock when no person is connected, stop it when one is. The
        runtime calls it after every change, so that every way in and out (join, leave,
        back, gone, a restart) is counted alike."""
        if self.closed is not None:
            return
        idle = not self.connected_people()
        if idle and self.idle_since is None:
            self.idle_since = now
        elif not idle and self.idle_since is not None:
            self.idle_since = None
        else:
            return
        self.version += 1

    def idle_deadline(self, timeout: float) -> float | None:
        """When the room ends for want of people (None: someone is here, or no timeout)."""
        if self.idle_since is None or self.closed is not None or timeout <= 0:
            return None
        return self.idle_since + timeout

    def end_idle(self, now: float, timeout: float) -> Change:
        """The idle timer fired: close the room as ``abandoned`` (a match is journalled so).
        Raises RoomError when someone is here or the timeout has not passed (a stale
        timer)."""
        self._check_open()
        deadline = self.idle_deadline(timeout)
        if deadline is None:
            raise RoomError(ErrorCode.NOT_ALLOWED, "the room is not idle")
        if now < deadline:
            raise RoomError(ErrorCode.NOT_ALLOWED, "the room has not been idle long enough")
        if self.match is not None:
            self._journal.append(close_record("abandoned", now))
        self.version += 1
        return self._change(self._close("abandoned"))

    def check_replay(self, player_id: str, watched: bool = False) -> None:
        """Raise unless ``player_id`` may have this room's replay: they played in it (or
        left it during the match) or watched it (``watched``: the store says they did, or
        they watch now), and the room is closed, so every hand is past playing. One who
        neither played nor watched is told no more than of a room that does not exist."""
        watched = watched or player_id in self.watchers
        if player_id not in self.people() and not watched:
            raise RoomError(ErrorCode.NO_ROOM, f"no match of yours in room {self.code}")
        if self.closed is None:
            raise RoomError(
                ErrorCode.WRONG_PHASE, "the match is not over: its replay comes when it ends"
            )
        if self.match is None:
            raise RoomError(ErrorCode.NO_ROOM, f"no match was played in room {self.code}")

    @property
    def worth_keeping(self) -> bool:
        """Whether a closed room's record is kept for ``finished_ttl`` (its journal is what
        replay reads): its match ran to the end, or a person played in it. A waiting room
        everyone left, or a match closed before any person moved, is not."""
        return self.closed == "match_over" or self.played

    def _close(self, reason: CloseReason) -> list[Delivery]:
        out = self._to_everyone(RoomClosed(reason=reason))
        self.closed = reason
        return out
