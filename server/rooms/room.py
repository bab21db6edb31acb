"""A room: three seats, its watchers and its match, as a sans-I/O state machine.

``Room.handle(actor, request, now, rng)`` checks a request (the room, the seat, a resent
id; the match checks phase, turn, state version, then the rules), changes the state or
raises ``RoomError``/``GameError`` having changed nothing, and returns the ``Change``: the
deliveries, (player id, message) pairs, and the journal records to store. Every message is
addressed by ``server/rooms/audience.py``, so a hidden card only ever goes to the seat that
holds it. The state round-trips through plain data (``server/rooms/stored.py``).

``Room`` is the top of three layers: its state and what it tells (``RoomState``,
``server/rooms/state.py``), people coming and going (``Membership``, ``membership.py``),
then here building a room, its requests and its end. Its parts live beside it as modules
of their own: the seats (``seating``), the watchers (``watchers``), a rematch's held seats
(``rematch``), the quick-chat limit (``chat``), the match as the room drives it
(``table``), who a message reaches (``audience``).

A room with no connected person is idle (``Membership.note_presence``): the runtime may end
it with ``end_idle`` once the idle-room timeout has passed.
"""

from __future__ import annotations

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
    PassRequest,
    PlayRequest,
    ReadyRequest,
    Request,
    ResumeRequest,
    RoomMode,
    SeatBot,
    SetBotSpeed,
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
from server.game.journal import close_record
from server.rooms import rematch, seating, table
from server.rooms.change import Actor as Actor
from server.rooms.change import BotActor as BotActor
from server.rooms.change import Change as Change
from server.rooms.change import Delivery as Delivery
from server.rooms.change import RoomError as RoomError
from server.rooms.chat import said_at
from server.rooms.membership import Membership
from server.rooms.seating import Seat as Seat
from server.rooms.state import Clocks as Clocks
from server.rooms.state import CloseReason as CloseReason

#: Seconds a running clock has at least when its room comes back after a crash or a
#: takeover (or its full length, when shorter): a person back from a restart has the time
#: to see whose turn it is.
RESUME_FLOOR = 5.0


class Room(Membership):
    """A room (see the module): built, asked, and ended."""

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
        rated: bool = False,
    ) -> Room:
        """A room with its creator in seat 0 and the other seats empty; ``rated``: its
        match changes its people's ratings (people only: no bot may be seated)."""
        seats = [Seat(kind="person", player_id=creator, name=name, connected=True), Seat(), Seat()]
        room = cls(code, mode, deals, seats, creator, public, clocks, bot_speed)
        room.rated = rated
        return room

    @classmethod
    def quick(
        cls,
        code: str,
        people: list[tuple[str, str]],
        clocks: Clocks,
        bot_level: BotLevel = "normal",
        bot_speed: BotSpeed = "normal",
        tiers: dict[str, str] | None = None,
    ) -> Room:
        """A quick match: the people (player id, name) from the queue in their order, bots
        in the seats left, watchable by anyone; ``tiers``: each rated person's tier, shown
        at the table. Start it with ``start_match``. The people were connected when matched
        (a disconnect takes a person off the queue)."""
        room = cls(code, "quick", 3, [Seat(), Seat(), Seat()], None, True, clocks, bot_speed)
        room.rated = True
        for i, (p, n) in enumerate(people):
            name = room.name_for(i, n)
            tier = (tiers or {}).get(p)
            room.seats[i] = Seat(
                kind="person", player_id=p, name=name, ready=True, connected=True, tier=tier
            )
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
        room.rated = old.rated and old.mode == "private"  # (a quick match's, never: chosen)
        for i in bots:
            room.place_bot(i, "normal")
        if any(s.held for s in seats):
            room.hold_until = now + hold
        room._start_if_ready(now, rng)
        return room

    # --- requests ---------------------------------------------------------------------

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
            if self.rated:
                raise RoomError(ErrorCode.NOT_ALLOWED, "a rated room is for people only")
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

    # --- idle rooms and the end -------------------------------------------------------

    def resume_clocks(
        self,
        now: float,
        floor: float = RESUME_FLOOR,
        grace: float = 0.0,
        down_since: float | None = None,
    ) -> list[Delivery]:
        """The room comes back after its process was down or while it was taken over: the
        running clock gets at least the time it had left when the process went down
        (``down_since``, when known: its last sign of life) or else at the last save
        (``saved_at``; for a room saved before that was kept, the time it has left now),
        and at least ``floor`` seconds (at most its full length), counted from ``now``.
        While a person it waits for (``awaited_seats``) is not back, that time is held for
        up to ``grace`` seconds: it counts from their return (``back``) or from the grace's
        end, whichever comes first. Everyone is told the new deadline."""
        match = self.match
        if match is None or self.closed is not None:
            return []
        saved_at = now if self.saved_at is None else min(self.saved_at, now)
        if down_since is not None and saved_at <= down_since <= now:
            saved_at = down_since  # (time between the last save and the crash counted)
        away = any(not self.seats[i].connected for i in self.awaited_seats())
        out = match.resume_clock(now, saved_at, floor, grace if away else 0.0)
        if out:
            self.version += 1
        return self._address(out)

    def to_everyone(self, message: Message) -> list[Delivery]:
        """``message`` to everyone who gets the room's public messages now (a notice that
        holds no card: a pause, its end)."""
        return self._to_everyone(message)

    def pause_over(self, paused: float, now: float) -> Change:
        """The room goes on after ``paused`` seconds paused (its storage was down): the
        running clock, the rematch hold and the idle clock get those seconds back, so the
        pause costs no seat its time. Everyone is told the running clock's new deadline;
        nothing is journalled (a clock's deadline is not an event of the match)."""
        if self.closed is not None or paused <= 0:
            return Change()
        if self.hold_until is not None:
            self.hold_until += paused
        if self.idle_since is not None:
            self.idle_since = min(self.idle_since + paused, now)
        self.version += 1
        match = self.match
        out = [] if match is None else match.pause_over(paused, now)
        return Change(self._address(out))

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
