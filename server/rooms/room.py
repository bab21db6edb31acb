"""A room: three seats, its watchers and its match, as a sans-I/O state machine.

``Room.handle(actor, request, now, rng)`` checks a request in a fixed order (room, phase,
turn, state version, then the rules), changes the state or raises ``RoomError``/``GameError``
having changed nothing, and returns deliveries: (player id, message) pairs. Every message
passes through here, addressed by the match's audiences and the room's seats, so a hidden
card only ever goes to the seat that holds it. The state round-trips through plain data.

A room with no connected person is idle (bots and watchers keep nobody company): from the
moment the last person went (``idle_since``, saved with the room, so a restart does not
reset it) the runtime may end it with ``end_idle`` once the idle-room timeout has passed;
anyone coming back first keeps it.

Display names are unique at a table: a person (or bot) whose name another seat has gets
"Ann (2)" (``unique_name``). Seated persons may say quick-chat phrases (``Chat``), at most
``CHAT_PER_MINUTE`` a minute each; watchers hear them. Who played, and who watched (the
store keeps who did, beside the room), may have the replay once the room is closed
(``check_replay``).

A rematch (``Room.rematch``) is a new room with a finished room's seats and settings: its
bots as they were, the person who asked seated and ready, each other person's seat held
for them (``Seat.held``) until ``hold_until``. A held person who asks too (``again``) takes
their seat, ready; when the hold ends (``hold_over``) a private room's held seats are empty
(anyone with the code may join, the creator may seat a bot) and a quick match's get bots.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from protocol.cards import Rank
from protocol.chat import ChatPhrase
from protocol.errors import ErrorCode, Refusal
from protocol.events import AwaitingReady, Message
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
    RematchAsked,
    Request,
    ResumeRequest,
    RoomClosed,
    RoomMode,
    RoomView,
    SeatBot,
    SeatsChanged,
    SeatView,
    SetBotSpeed,
    Snapshot,
)
from protocol.text import NAME_MAX
from server.game.commands import Bid, Command, Pass, PlayCards, Ready, ReadyTimeout, Resume, Timeout
from server.game.deal import SEATS, RandomSource
from server.game.errors import AlreadyReady
from server.game.journal import (
    Record,
    RecordingRandom,
    close_record,
    command_record,
    start_record,
)
from server.game.match import EVERYONE, WATCHERS, Audience, Match, MatchConfig

#: Seconds a running clock has at least when its room comes back after a crash or a
#: takeover (or its full length, when shorter): a person back from a restart has the time
#: to see whose turn it is.
RESUME_FLOOR = 5.0
#: Quick-chat phrases one seat may say in ``CHAT_WINDOW`` seconds.
CHAT_PER_MINUTE = 5
CHAT_WINDOW = 60.0


class RoomError(Refusal):
    """A request the lobby or the room refuses before the game sees it."""


@dataclass(frozen=True, slots=True)
class BotActor:
    """A bot acting for a seat (a bot's seat, or a person's seat taken over)."""

    seat: int


Actor = str | BotActor
"""Who sends a request: a person's player id, or a bot for a seat."""
Delivery = tuple[str, Message]
"""A message for one player id."""
SeatKind = Literal["empty", "person", "bot"]
CloseReason = Literal["match_over", "everyone_left", "abandoned"]


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``... when another seat has it (letter case
    aside), cut so that it stays within ``NAME_MAX`` characters."""
    used = {t.casefold() for t in taken}
    if name.casefold() not in used:
        return name
    n = 2
    while True:
        suffix = f" ({n})"
        candidate = name[: NAME_MAX - len(suffix)].rstrip() + suffix
        if candidate.casefold() not in used:
            return candidate
        n += 1


@dataclass
class Seat:
    kind: SeatKind = "empty"
    player_id: str | None = None
    name: str | None = None
    level: BotLevel | None = None
    connected: bool = False
    ready: bool = False
    left: bool = False  # the person left during the match; a bot plays on for them
    last_request: int = 0  # the person's last applied request id: a resent one is refused
    held: bool = False  # a rematch seat kept for this person until they ask too (or the hold ends)

    def to_data(self) -> dict[str, Any]:
        return dict(vars(self))


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
    """Wall-clock time of the room's last save (set by whoever saves it): after a crash or
    a takeover, how much time its clock had left then (``resume_clocks``)."""
    #: Each seat's quick-chat times in the last ``CHAT_WINDOW`` seconds.
    chat_times: list[list[float]] = field(default_factory=lambda: [[], [], []])
    #: The room this one is a rematch of, and until when its held seats are kept.
    rematch_of: str | None = None
    hold_until: float | None = None
    journal: list[Record] = field(default_factory=list, compare=False, repr=False)
    """Journal records not yet stored; runtime only, not part of ``to_data``."""

    # --- building and plain data ------------------------------------------------------

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
        return cls(
            code=code,
            mode=mode,
            deals=deals,
            seats=seats,
            creator=creator,
            public=public,
            clocks=clocks,
            bot_speed=bot_speed,
        )

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
        room = cls(
            code=code,
            mode="quick",
            deals=3,
            seats=[Seat(), Seat(), Seat()],
            public=True,
            clocks=clocks,
            bot_speed=bot_speed,
        )
        for i, (p, n) in enumerate(people):
            room.seats[i] = Seat(
                kind="person", player_id=p, name=room.name_for(i, n), ready=True, connected=True
            )
        for i in range(len(people), 3):
            room.place_bot(i, bot_level)
        return room

    @classmethod
    def rematch(
        cls, old: Room, code: str, asker: str, now: float, rng: RandomSource, hold: float
    ) -> Room:
        """Another match with ``old``'s seats and settings, under ``code``: ``asker`` (who
        played in ``old``) seated and ready, the bots as they were, every other person's seat
        held for them ``hold`` seconds (a seat whose person left during the match is empty
        in a private room, a bot's in a quick match). It starts at once when nobody is held
        (practice: the person and the same bots). Send ``invites`` to the held."""
        seats: list[Seat] = []
        bots: list[int] = []  # seats of persons who left: a bot's now
        for i, s in enumerate(old.seats):
            if s.kind == "bot":
                seats.append(Seat(kind="bot", name=s.name, level=s.level, ready=True))
            elif s.kind == "person" and s.player_id == asker:
                seats.append(
                    Seat(kind="person", player_id=asker, name=s.name, connected=True, ready=True)
                )
            elif s.kind == "person" and s.left and old.mode != "private":
                seats.append(Seat())
                bots.append(i)
            elif s.kind == "person" and not s.left:
                seats.append(Seat(kind="person", player_id=s.player_id, name=s.name, held=True))
            else:
                seats.append(Seat())
        room = cls(
            code=code,
            mode=old.mode,
            deals=old.deals,
            seats=seats,
            creator=asker,
            public=old.public,
            clocks=old.clocks,
            bot_speed=old.bot_speed,
            rematch_of=old.code,
        )
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
        msg = RematchAsked(
            code=self.rematch_of,
            seat=seat,
            deadline=self.hold_until,
            server_time=now,
            name=self.seats[seat].name,
        )
        return [(s.player_id, msg) for s in self.seats if s.held and s.player_id]

    def to_data(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "mode": self.mode,
            "deals": self.deals,
            "seats": [s.to_data() for s in self.seats],
            "creator": self.creator,
            "public": self.public,
            "clocks": None if self.clocks is None else dict(vars(self.clocks)),
            "bot_speed": self.bot_speed,
            "watchers": list(self.watchers),
            "match": None if self.match is None else self.match.to_data(),
            "closed": self.closed,
            "version": self.version,
            "idle_since": self.idle_since,
            "played": self.played,
            "saved_at": self.saved_at,
            "chat_times": [list(t) for t in self.chat_times],
            "rematch_of": self.rematch_of,
            "hold_until": self.hold_until,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Room:
        """The room ``to_data`` gave; stored data may carry a ``tail`` of step records made
        since (``server/rooms/steps.py``), replayed over it."""
        fields = dict(data)
        tail = fields.pop("tail", None)
        fields["seats"] = [Seat(**s) for s in data["seats"]]
        fields["clocks"] = None if data["clocks"] is None else Clocks(**data["clocks"])
        fields["watchers"] = list(data["watchers"])
        fields["chat_times"] = [list(t) for t in data.get("chat_times", [[], [], []])]
        fields["match"] = None if data["match"] is None else Match.from_data(data["match"])
        room = cls(**fields)
        if tail:
            from server.rooms.steps import replay_tail  # (steps apply to rooms)

            replay_tail(room, tail)
        return room

    # --- who is who -------------------------------------------------------------------

    def seat_of(self, player_id: str) -> int | None:
        """The seat of a seated person (not of one whose rematch seat is only held)."""
        for i, seat in enumerate(self.seats):
            if seat.kind == "person" and seat.player_id == player_id and not seat.held:
                return i
        return None

    def held_seat(self, player_id: str) -> int | None:
        """The rematch seat held for this person, if any."""
        for i, seat in enumerate(self.seats):
            if seat.held and seat.player_id == player_id:
                return i
        return None

    def people(self) -> list[str]:
        """Player ids of the persons seated (present or not; not those only held)."""
        return [
            s.player_id for s in self.seats if s.kind == "person" and s.player_id and not s.held
        ]

    def seat_label(self, seat: int) -> str:
        """A seat as people read it: its name and its number as clients show it (S1..S3)."""
        name = self.seats[seat].name
        return f"{name} (S{seat + 1})" if name else f"S{seat + 1}"

    def name_for(self, seat: int, name: str) -> str:
        """``name`` made unique among the other seats' names."""
        taken = [s.name for i, s in enumerate(self.seats) if i != seat and s.name]
        return unique_name(name, taken)

    def place_bot(self, seat: int, level: BotLevel) -> None:
        """A bot in ``seat``, named for its level and seat (unique at the table), ready."""
        name = self.name_for(seat, f"{level} bot {seat}")
        self.seats[seat] = Seat(kind="bot", name=name, level=level, ready=True)

    def seated(self) -> list[str]:
        """Player ids of the persons seated and still in the room (present or not; not
        those who left, nor those whose seat is only held)."""
        return [
            s.player_id
            for s in self.seats
            if s.kind == "person" and s.player_id and not s.held and not s.left
        ]

    def members(self) -> list[str]:
        """Everyone in the room: seated persons (present or not) and watchers."""
        return self.seated() + self.watchers

    def audience(self) -> list[str]:
        """Everyone who gets the room's public messages now: seated persons connected
        (anywhere) and watchers (who leave when their connection ends). A person whose seat
        is marked disconnected is sent nothing: their snapshot brings them up to date when
        they come back, and nothing is published for a connection that is not there."""
        present = [
            s.player_id
            for s in self.seats
            if s.kind == "person" and s.connected and s.player_id and (s.held or not s.left)
        ]  # (a held seat is not the person's seat yet: whether it was left does not count)
        return present + self.watchers

    def is_member(self, player_id: str) -> bool:
        """Seated (and not gone) or watching."""
        seat = self.seat_of(player_id)
        return player_id in self.watchers or (seat is not None and not self.seats[seat].left)

    def bot_seats(self) -> list[int]:
        """Seats a bot acts for now: bot seats, and persons' seats a bot took over."""
        return [i for i in range(SEATS) if self.bot_acts_for(i)]

    def bot_acts_for(self, seat: int) -> bool:
        """Whether a bot acts for this seat now (see ``bot_seats``)."""
        s = self.seats[seat]
        if s.kind == "bot":
            return True
        taken = self.match is not None and self.match.bot_control[seat]
        return s.kind == "person" and (taken or s.left)

    @property
    def timed(self) -> bool:
        return self.clocks is not None

    # --- views ------------------------------------------------------------------------

    def seat_views(self) -> list[SeatView]:
        return [
            SeatView(
                kind=s.kind,
                name=s.name,
                level=s.level,
                connected=s.kind == "bot" or (s.connected and not s.left),
                ready=s.ready,
            )
            for s in self.seats
        ]

    def view_for(self, player_id: str | None, now: float) -> RoomView:
        """The room as this player may see it (a watcher, or None, sees no hand)."""
        seat = None if player_id is None else self.seat_of(player_id)
        creator_seat = None if self.creator is None else self.seat_of(self.creator)
        return RoomView(
            code=self.code,
            mode=self.mode,
            deals=self.deals,
            seats=self.seat_views(),
            watchers=len(self.watchers),
            your_seat=seat,
            creator_seat=creator_seat,
            bot_speed=self.bot_speed,
            timed=self.timed,
            version=self.version,
            table=None if self.match is None else self.match.view_for(seat, now),
        )

    def snapshot_for(self, player_id: str, now: float) -> Snapshot:
        return Snapshot(room=self.view_for(player_id, now))

    def _seats_changed(self) -> list[Delivery]:
        msg = SeatsChanged(seats=self.seat_views(), watchers=len(self.watchers))
        return [(p, msg) for p in self.audience()]

    def _address(self, outgoing: list[tuple[Audience, Message]]) -> list[Delivery]:
        """Turn the match's audiences into player ids."""
        out: list[Delivery] = []
        everyone: list[str] | None = None  # (the same for every message of the change)
        for audience, message in outgoing:
            if audience == EVERYONE:
                if everyone is None:
                    everyone = self.audience()
                out.extend((p, message) for p in everyone)
            elif audience == WATCHERS:
                out.extend((p, message) for p in self.watchers)
            else:
                seat = self.seats[audience]
                if seat.kind == "person" and seat.player_id and seat.connected and not seat.left:
                    out.append((seat.player_id, message))
        return out

    # --- requests ---------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed is not None:
            raise RoomError(ErrorCode.NO_ROOM, "this room is closed")

    def handle(
        self, actor: Actor, request: Request, now: float, rng: RandomSource
    ) -> list[Delivery]:
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
        out = self._handle_seat(actor, seat, request, now, rng)
        person = not isinstance(actor, BotActor)
        if person and isinstance(request, BidRequest | PassRequest | PlayRequest):
            self.played = True
        if person and request.id > 0:
            self.seats[seat].last_request = request.id
        self.version += 1
        return out

    def _handle_seat(
        self, actor: Actor, seat: int, request: Request, now: float, rng: RandomSource
    ) -> list[Delivery]:
        if isinstance(request, BidRequest | PassRequest | PlayRequest):  # (the most, first)
            return self._game_action(actor, seat, request, now, rng)
        if isinstance(request, Chat):
            return self._chat(actor, seat, request.phrase, now)
        if isinstance(request, SeatBot):
            return self._seat_bot(actor, request, now, rng)
        if isinstance(request, SetBotSpeed):
            return self._set_bot_speed(actor, request.speed)
        if isinstance(request, ReadyRequest):
            if self.match is None:
                return self._ready_to_start(seat, now, rng)
            return self._game(Ready(seat), now, rng)
        if isinstance(request, ResumeRequest):
            if isinstance(actor, BotActor) or self.match is None:
                raise RoomError(ErrorCode.NOT_TAKEN_OVER, "no bot holds your seat")
            return self._game(Resume(seat), now, rng)
        raise RoomError(ErrorCode.UNKNOWN_TYPE, f"{request.__class__.__name__} is not for a room")

    def _game_action(
        self,
        actor: Actor,
        seat: int,
        request: BidRequest | PassRequest | PlayRequest,
        now: float,
        rng: RandomSource,
    ) -> list[Delivery]:
        match = self.match
        if match is None or match.phase not in ("bidding", "playing"):
            raise RoomError(ErrorCode.WRONG_PHASE, "no deal is being played")
        wanted = "playing" if isinstance(request, PlayRequest) else None
        if wanted and match.phase != wanted:
            raise RoomError(ErrorCode.WRONG_PHASE, "this is not the time to play cards")
        if isinstance(request, BidRequest) and match.phase != "bidding":
            raise RoomError(ErrorCode.WRONG_PHASE, "the bidding is over")
        turn = match.turn
        if turn != seat:
            whose = "nobody" if turn is None else self.seat_label(turn)
            raise RoomError(ErrorCode.NOT_YOUR_TURN, f"it is {whose}'s turn")
        if not isinstance(actor, BotActor) and self.bot_acts_for(seat):
            raise RoomError(ErrorCode.NOT_ALLOWED, "a bot holds your seat: send resume first")
        if request.version is not None and request.version != match.version:
            raise RoomError(ErrorCode.STALE, "the table has moved on since that action")
        command: Command
        if isinstance(request, BidRequest):
            command = Bid(seat, request.value)
        elif isinstance(request, PassRequest):
            command = Pass(seat)
        else:
            command = PlayCards(seat, tuple(Rank(r) for r in request.ranks))
        return self._game(command, now, rng)

    def _game(self, command: Command, now: float, rng: RandomSource) -> list[Delivery]:
        if self.match is None:
            raise RoomError(ErrorCode.WRONG_PHASE, "the match has not started")
        out = self._apply(command, now, rng)
        out += self._ready_bots(now, rng)
        out = self._latest_ready_prompt(out, self.match.phase == "between_deals")
        deliveries = self._address(out)
        if self.match.phase == "over":
            deliveries += self._close("match_over")
        return deliveries

    def _apply(
        self, command: Command, now: float, rng: RandomSource
    ) -> list[tuple[Audience, Message]]:
        """Apply a command to the match and journal it (with any random draws it made)."""
        if self.match is None:
            raise RoomError(ErrorCode.WRONG_PHASE, "the match has not started")
        draws: list[Record] = []
        out = self.match.apply(command, now, RecordingRandom(rng, draws))
        self.journal += [command_record(command, now), *draws]
        return out

    def take_journal(self) -> list[Record]:
        """The journal records since the last call (for the store to append)."""
        records, self.journal = self.journal, []
        return records

    def _ready_bots(self, now: float, rng: RandomSource) -> list[tuple[Audience, Message]]:
        """Bots are always ready between deals (SPEC section 8)."""
        match = self.match
        out: list[tuple[Audience, Message]] = []
        if match is None or match.phase != "between_deals":
            return out
        for seat in self.bot_seats():
            if match.phase == "between_deals" and not match.ready[seat]:
                out += self._apply(Ready(seat), now, rng)
        return out

    @staticmethod
    def _latest_ready_prompt(
        out: list[tuple[Audience, Message]], between_deals: bool
    ) -> list[tuple[Audience, Message]]:
        """Keep only the newest AwaitingReady of one change (none once the next deal began),
        so a client is asked once, with the bots' readiness already in it."""
        prompts = [i for i, (_, m) in enumerate(out) if isinstance(m, AwaitingReady)]
        if not prompts:
            return out
        keep = prompts[-1] if between_deals else None
        return [pair for i, pair in enumerate(out) if i not in prompts or i == keep]

    def clock_ran_out(self, now: float, rng: RandomSource) -> list[Delivery]:
        """The runtime's timer fired: apply the default action of the seat on turn, or start
        the next deal. Raises GameError when the clock has not run out (a stale timer)."""
        self._check_open()
        match = self.match
        if match is None:
            raise RoomError(ErrorCode.WRONG_PHASE, "the match has not started")
        turn = match.turn
        command: Command = ReadyTimeout() if turn is None else Timeout(turn)
        out = self._game(command, now, rng)
        self.version += 1
        return out

    def _seat_bot(
        self, actor: Actor, request: SeatBot, now: float, rng: RandomSource
    ) -> list[Delivery]:
        if actor != self.creator:
            raise RoomError(ErrorCode.NOT_ALLOWED, "only the room's creator seats bots")
        if self.match is not None:
            raise RoomError(ErrorCode.WRONG_PHASE, "the match has started")
        empty = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
        seat = request.seat if request.seat is not None else (empty[0] if empty else None)
        if seat is None or seat not in empty:
            raise RoomError(ErrorCode.ROOM_FULL, "no empty seat for a bot")
        self.place_bot(seat, request.level)
        # everyone may be ready already (a rematch's people are): then it starts now
        return self._seats_changed() + self._start_if_ready(now, rng)

    def _chat(self, actor: Actor, seat: int, phrase: ChatPhrase, now: float) -> list[Delivery]:
        """A seated person says a phrase to everyone here; past ``CHAT_PER_MINUTE`` in the
        last minute it is refused and nothing is sent."""
        if isinstance(actor, BotActor):
            raise RoomError(ErrorCode.NOT_ALLOWED, "bots do not chat")
        recent = [t for t in self.chat_times[seat] if now - t < CHAT_WINDOW]
        if len(recent) >= CHAT_PER_MINUTE:
            wait = max(1, int(recent[0] + CHAT_WINDOW - now + 0.999))
            raise RoomError(
                ErrorCode.RATE_LIMITED,
                f"quick chat: at most {CHAT_PER_MINUTE} phrases a minute; the next in {wait} s",
            )
        self.chat_times[seat] = [*recent, now]
        msg = ChatSaid(seat=seat, phrase=phrase)
        return [(p, msg) for p in self.audience()]

    def _set_bot_speed(self, actor: Actor, speed: BotSpeed) -> list[Delivery]:
        if actor != self.creator:
            raise RoomError(ErrorCode.NOT_ALLOWED, "only the room's creator sets the bot speed")
        self.bot_speed = speed
        msg = BotSpeedChanged(speed=speed)
        return [(p, msg) for p in self.audience()]

    def _ready_to_start(self, seat: int, now: float, rng: RandomSource) -> list[Delivery]:
        if self.seats[seat].ready:
            raise AlreadyReady("you are ready already")
        self.seats[seat].ready = True
        out = self._seats_changed()
        return out + self._start_if_ready(now, rng)

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
        """Deal the first deal; everyone present gets their snapshot's events."""
        clocks = self.clocks
        config = MatchConfig(
            deals=self.deals,
            bid_timeout=clocks.bid if clocks else None,
            play_timeout=clocks.play if clocks else None,
            ready_timeout=clocks.ready if clocks else None,
        )
        draws: list[Record] = []
        self.match, outgoing = Match.start(config, RecordingRandom(rng, draws), now, first_bidder)
        self.journal += [start_record(config, first_bidder, now), *draws]
        return self._address(outgoing)

    # --- people come and go -----------------------------------------------------------

    def join(self, player_id: str, name: str, now: float) -> list[Delivery]:
        """A person takes the first empty seat (private rooms, before the match)."""
        self._check_open()
        if self.seat_of(player_id) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "you are in this room already")
        if self.mode == "practice":
            raise RoomError(ErrorCode.NOT_ALLOWED, "a practice room has one person")
        if self.mode == "quick":
            raise RoomError(ErrorCode.NOT_ALLOWED, "a quick match seats only its own people")
        if self.held_seat(player_id) is not None:
            raise RoomError(ErrorCode.NOT_ALLOWED, "your seat is held for you: ask for the rematch")
        empty = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
        if not empty or self.match is not None:
            raise RoomError(ErrorCode.ROOM_FULL, "this room has no empty seat")
        if player_id in self.watchers:
            self.watchers.remove(player_id)
        seat = empty[0]
        self.seats[seat] = Seat(
            kind="person", player_id=player_id, name=self.name_for(seat, name), connected=True
        )
        self.version += 1
        return self._seats_changed()

    def again(self, player_id: str, name: str, now: float, rng: RandomSource) -> list[Delivery]:
        """A person asks for this rematch: they take the seat held for them (or, in a private
        room, the first empty one), ready; the match starts when every seat is."""
        self._check_open()
        if self.rematch_of is None:
            raise RoomError(ErrorCode.NOT_ALLOWED, "this room is not a rematch")
        if self.seat_of(player_id) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "you are in this room already")
        seat = self.held_seat(player_id)
        if seat is None:
            empty = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if self.mode != "private" or not empty or self.match is not None:
                raise RoomError(ErrorCode.ROOM_FULL, "the rematch went on without you")
            seat = empty[0]
            name = self.name_for(seat, name)
        else:
            name = self.seats[seat].name or self.name_for(seat, name)
        if player_id in self.watchers:
            self.watchers.remove(player_id)
        self.seats[seat] = Seat(
            kind="person", player_id=player_id, name=name, connected=True, ready=True
        )
        if not any(s.held for s in self.seats):
            self.hold_until = None
        self.version += 1
        return self._seats_changed() + self.invites(player_id, now) + self._start_if_ready(now, rng)

    def hold_over(self, now: float, rng: RandomSource) -> list[Delivery]:
        """The rematch's hold ended: a private room's held seats are empty now, a quick
        match's get bots (and it starts). RoomError before then (a stale timer)."""
        self._check_open()
        if self.hold_until is None or now < self.hold_until:
            raise RoomError(ErrorCode.NOT_ALLOWED, "no seat is held past its time")
        for i, s in enumerate(self.seats):
            if s.held:
                if self.mode == "private":
                    self.seats[i] = Seat()
                else:
                    self.place_bot(i, "normal")
        self.hold_until = None
        self.version += 1
        return self._seats_changed() + self._start_if_ready(now, rng)

    def watch(self, player_id: str, max_watchers: int = 0) -> list[Delivery]:
        """A person starts watching; past ``max_watchers`` (0: no cap) the room is full."""
        self._check_open()
        if self.seat_of(player_id) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "you have a seat in this room")
        if player_id not in self.watchers:
            if 0 < max_watchers <= len(self.watchers):
                raise RoomError(ErrorCode.ROOM_FULL, f"this room has {len(self.watchers)} watchers")
            self.watchers.append(player_id)
            self.version += 1
        return self._seats_changed()

    def leave(self, player_id: str) -> list[Delivery]:
        """A person leaves (their seat empties before the match, a bot plays it during the
        match) or a watcher stops watching. The room closes when no person is left."""
        self._check_open()
        out: list[Delivery] = [(player_id, Left())]
        if player_id in self.watchers:
            self.watchers.remove(player_id)
        else:
            seat = self.seat_of(player_id)
            if seat is None:
                raise RoomError(ErrorCode.NO_ROOM, "you are not in this room")
            if self.match is None:
                if self.mode == "quick":  # its own people only: a bot takes the seat
                    self.place_bot(seat, "normal")
                else:
                    self.seats[seat] = Seat()
                for s in self.seats:
                    if s.kind == "person":
                        s.ready = False
            else:
                self.seats[seat].left = True
                self.seats[seat].connected = False
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
        if player_id in self.watchers:
            self.watchers.remove(player_id)
            self.version += 1
            return self._seats_changed()
        return self.set_connected(player_id, False)

    def resume_clocks(
        self, now: float, floor: float = RESUME_FLOOR, grace: float = 0.0
    ) -> list[Delivery]:
        """The room comes back after its process was down or while it was taken over: the
        running clock gets at least the time it had left at the last save (``saved_at``;
        for a room saved before that was kept, the time it has left now), and at least
        ``floor`` seconds (at most its full length), counted from ``now``. While a person
        it waits for (``awaited_seats``) is not back, that time is held for up to ``grace``
        seconds: it counts from their return (``back``) or from the grace's end, whichever
        comes first. Everyone is told the new deadline."""
        match = self.match
        if match is None or self.closed is not None:
            return []
        saved_at = now if self.saved_at is None else min(self.saved_at, now)
        away = any(not self.seats[i].connected for i in self.awaited_seats())
        out = match.resume_clock(now, saved_at, floor, grace if away else 0.0)
        if out:
            self.version += 1
        return self._address(out)

    def awaited_seats(self) -> list[int]:
        """The seats whose persons the running clock is for: the seat on turn, or between
        deals every seat not ready yet; never a bot's seat nor one a bot took over."""
        match = self.match
        if match is None:
            return []
        if match.phase == "between_deals":
            seats = [i for i in range(SEATS) if not match.ready[i]]
        else:
            seats = [] if match.turn is None else [match.turn]
        return [i for i in seats if self.seats[i].kind == "person" and not self.bot_acts_for(i)]

    def back(self, player_id: str, now: float) -> list[Delivery]:
        """A seated person's connection is back: their seat is marked connected, and a
        clock held for the table's return (``resume_clocks``) runs from ``now`` once every
        person it waits for is back."""
        out = self.set_connected(player_id, True)
        match = self.match
        if match is None or match.held is None or self.closed is not None:
            return out
        if any(not self.seats[i].connected for i in self.awaited_seats()):
            return out
        started = match.start_held_clock(now)
        self.version += 1
        return out + self._address(started)

    def set_connected(self, player_id: str, connected: bool) -> list[Delivery]:
        seat = self.seat_of(player_id)
        if seat is None or self.seats[seat].connected == connected:
            return []
        self.seats[seat].connected = connected
        self.version += 1
        return self._seats_changed()

    # --- idle rooms -------------------------------------------------------------------

    def connected_people(self) -> list[str]:
        """Player ids of the seated persons connected now: the ones who keep the room alive
        (a bot or a watcher does not)."""
        return [
            s.player_id
            for s in self.seats
            if s.kind == "person" and s.player_id and s.connected and not s.left
        ]

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

    def end_idle(self, now: float, timeout: float) -> list[Delivery]:
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
            self.journal.append(close_record("abandoned", now))
        self.version += 1
        return self._close("abandoned")

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
        msg = RoomClosed(reason=reason)
        out: list[Delivery] = [(p, msg) for p in self.audience()]
        self.closed = reason
        return out
