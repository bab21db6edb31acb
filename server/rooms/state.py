"""A room's state, and what it tells: its seats, watchers and match as plain fields, who is
who, how the room looks to each viewer, and the journal records not yet handed out.

The room (``server/rooms/room.py``) is built in layers, each a module of one idea:
``RoomState`` here, ``Membership`` (people come and go: ``server/rooms/membership.py``)
on it, and ``Room`` (the requests, the match and the room's end) on that.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from protocol.errors import ErrorCode
from protocol.events import Message
from protocol.messages import (
    BotLevel,
    BotSpeed,
    RoomClosed,
    RoomMode,
    RoomView,
    SeatsChanged,
    Snapshot,
)
from server.game.deal import SEATS, RandomSource
from server.game.journal import Record
from server.game.match import Audience, Match, MatchConfig
from server.rooms import seating, table
from server.rooms.audience import address, to_everyone
from server.rooms.change import Change, Delivery, RoomError
from server.rooms.seating import Seat

CloseReason = Literal["match_over", "everyone_left", "abandoned"]


@dataclass
class Clocks:
    """Seconds for each clock of a timed room."""

    bid: float
    play: float
    ready: float


@dataclass
class RoomState:
    """A room's fields (plain data, but for the journal records not yet handed out), and
    what they tell."""

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
    #: Its match changes its persons' ratings: a quick match the queue formed, or a private
    #: room created rated (for people only: no bot may be seated in it).
    rated: bool = False
    _journal: list[Record] = field(default_factory=list, compare=False, repr=False)
    """Journal records made and not yet handed out: by a ``Change``, or (a match started
    as the room was built, before its first save) by ``take_journal``. Runtime only."""

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
            rated=self.rated,
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

    def _check_open(self) -> None:
        if self.closed is not None:
            raise RoomError(ErrorCode.NO_ROOM, "this room is closed")

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
