"""The client's picture of its room: a pure reducer over the server's messages.

``TableState.from_room(snapshot.room)`` starts the picture and ``state.apply(message)``
returns the next one; nothing is mutated and nothing is awaited, so the reducer is tested with
hand-made message sequences and shared by the interactive client and the headless ``--auto``
driver. The table part is kept as a ``protocol.events.TableView`` built the way the server's
``Match.view_for(seat)`` builds it, so ``state.table_view()`` can be handed straight to
``server.bots.decide``.

The match ``version`` is the server's: each event that moves it (``TurnStarted``,
``AwaitingReady``, a bid, pass or play, a seat's control changing hands) states it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from protocol.cards import Rank, card_rank
from protocol.events import (
    AwaitingReady,
    BidMade,
    CardsPlayed,
    DealEnded,
    DealStarted,
    DealVoided,
    LandlordChosen,
    MatchEnded,
    Passed,
    SeatControl,
    TablePlay,
    TableView,
    TurnStarted,
)
from protocol.messages import (
    BotSpeedChanged,
    Error,
    Left,
    Pong,
    RoomClosed,
    RoomView,
    SeatsChanged,
    ServerMessage,
    Snapshot,
    Welcome,
)
from protocol.plays import Play, classify

SEATS = 3
_M = TypeVar("_M", RoomView, TableView)


@dataclass(frozen=True, slots=True)
class Countdown:
    """A server deadline read against the local clock.

    ``deadline`` and ``server_time`` are the server's wall clock; ``received`` is the local
    (monotonic) time the message arrived. The time left is counted on the local clock from
    ``received`` so a client whose wall clock is off still counts down right.
    """

    deadline: float
    server_time: float
    received: float

    def left(self, now: float) -> float:
        """Seconds left at local time ``now`` (never below zero)."""
        return max(0.0, self.deadline - self.server_time - (now - self.received))


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything this client knows of its room, after the messages applied so far.

    ``room`` is the snapshot's ``RoomView`` kept current: seats, watchers, bot speed and the
    ``table`` (None until the match starts). The other fields are client conveniences the
    server's view does not carry: the running countdown, who passed in the current trick,
    the void-deal count, the match result, and why the room closed. (``room.version``, the
    room's own change counter, stays the snapshot's: no event carries it.)
    """

    room: RoomView
    countdown: Countdown | None = None
    trick_passes: tuple[int, ...] = ()
    voids_in_row: int = 0
    result: MatchEnded | None = None
    closed: str | None = None
    left: bool = False
    last_error: Error | None = None

    # --- building ---------------------------------------------------------------------

    @classmethod
    def from_room(cls, room: RoomView, now: float | None = None) -> TableState:
        """The picture a snapshot gives; ``now`` (local monotonic time) starts a countdown."""
        table = room.table
        countdown = None
        if table is not None and now is not None:
            clock = table.turn or table.awaiting  # a turn, or the wait between deals
            if clock is not None:
                countdown = _countdown(clock.deadline, clock.server_time, now)
        result = None
        if table is not None and table.phase == "over" and table.winners is not None:
            result = MatchEnded(
                totals=list(table.totals),
                winners=list(table.winners),
                deal_scores=[list(s) for s in table.deal_scores],
            )
        passes: tuple[int, ...] = ()
        if table is not None and table.last_play is not None and table.passes_in_row:
            # The seats after the last player passed, in turn order.
            passes = tuple((table.last_play.seat + i) % SEATS for i in (1, 2))[
                : table.passes_in_row
            ]
        return cls(room=room, countdown=countdown, trick_passes=passes, result=result)

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot, now: float | None = None) -> TableState:
        return cls.from_room(snapshot.room, now)

    # --- reading ----------------------------------------------------------------------

    @property
    def table(self) -> TableView | None:
        return self.room.table

    @property
    def my_seat(self) -> int | None:
        """My seat, or None for a watcher."""
        return self.room.your_seat

    @property
    def is_watcher(self) -> bool:
        return self.room.your_seat is None

    @property
    def my_turn(self) -> bool:
        table = self.table
        return (
            table is not None
            and table.turn is not None
            and self.my_seat is not None
            and table.turn.seat == self.my_seat
        )

    @property
    def hand_ranks(self) -> list[Rank]:
        """My hand as sorted ranks (empty for a watcher or before the deal)."""
        table = self.table
        if table is None or table.hand is None:
            return []
        return sorted(card_rank(c) for c in table.hand)

    @property
    def to_beat(self) -> Play | None:
        """The play on the table to beat, or None when the seat on turn leads."""
        table = self.table
        if table is None or table.last_play is None:
            return None
        return classify(card_rank(c) for c in table.last_play.cards)

    @property
    def trick(self) -> dict[int, tuple[int, ...] | None]:
        """Each seat's last act in the current trick: the cards it played, or None for a
        pass; a seat that has not acted in it is absent. Empty before the first play of a
        trick. Read from the deal's plays and passes, so a snapshot gives it too."""
        table = self.table
        if table is None or table.phase != "playing":
            return {}
        passes: dict[int, list[int]] = {}
        for seat, n in table.passes:
            passes.setdefault(n, []).append(seat)
        acts: dict[int, tuple[int, ...] | None] = {}
        in_row = 0
        for n, play in enumerate(table.plays, start=1):
            acts[play.seat] = tuple(play.cards)
            in_row = 0
            for seat in passes.get(n, ()):
                acts[seat] = None
                in_row += 1
                if in_row == 2:  # two passes in a row: the trick is over
                    acts, in_row = {}, 0
        return acts

    def unseen_counts(self) -> list[int]:
        """The card counter: for each rank (``Rank.index`` order, 3 .. 2, SJ, BJ) how many
        cards this viewer has not seen: a deck's less my own hand and every card played in
        this deal. (The kitty, once shown, is not subtracted: its cards are in the
        landlord's hand until played, and only the landlord holds them.)"""
        counts = [4] * 13 + [1, 1]
        table = self.table
        if table is None:
            return counts
        for card in table.hand or ():
            counts[card_rank(card) - 3] -= 1
        for play in table.plays:
            for card in play.cards:
                counts[card_rank(card) - 3] -= 1
        return counts

    @property
    def highest_bid(self) -> int:
        table = self.table
        return 0 if table is None else max([0] + [b for _, b in table.bids])

    @property
    def match_over(self) -> bool:
        return self.result is not None

    def seat_name(self, seat: int) -> str:
        """A seat's display name: the person's or bot's name, or ``seat N``."""
        name = self.room.seats[seat].name if 0 <= seat < len(self.room.seats) else None
        return name or f"seat {seat + 1}"

    def table_view(self, now: float | None = None) -> TableView | None:
        """The ``TableView`` the server's ``view_for(my_seat, now)`` gives at this point.

        ``now`` (the server's wall-clock time) replaces the turn's ``server_time``, the one
        field that says when a view was made rather than what it shows; between deals the
        wait's ``server_time`` too, and its readiness and version are the table's own.
        """
        table = self.table
        if table is None or now is None:
            return table
        if table.turn is not None:
            return _with(table, turn=table.turn.model_copy(update={"server_time": now}))
        if table.awaiting is not None:
            restamp = {"server_time": now, "ready": list(table.ready), "version": table.version}
            return _with(table, awaiting=table.awaiting.model_copy(update=restamp))
        return table

    # --- the reducer ------------------------------------------------------------------

    def apply(self, message: ServerMessage, now: float | None = None) -> TableState:
        """The state after ``message``; ``now`` is the local monotonic time it arrived."""
        if isinstance(message, Snapshot):
            return TableState.from_room(message.room, now)
        if isinstance(message, Welcome | Pong):
            return self
        if isinstance(message, Error):
            return replace(self, last_error=message)
        if isinstance(message, SeatsChanged):
            room = _with(self.room, seats=list(message.seats), watchers=message.watchers)
            return replace(self, room=room)
        if isinstance(message, BotSpeedChanged):
            return replace(self, room=_with(self.room, bot_speed=message.speed))
        if isinstance(message, RoomClosed):
            return replace(self, closed=message.reason, countdown=None)
        if isinstance(message, Left):
            return replace(self, left=True, countdown=None)
        if isinstance(message, DealStarted):
            return self._deal_started(message)
        table = self.table
        if table is None:
            # A game event before any deal: nothing to apply it to (the server never sends
            # one; a client that joined late gets a snapshot instead).
            return self
        return self._game_event(table, message, now)

    def _set_table(self, table: TableView, **changes: Any) -> TableState:
        return replace(self, room=_with(self.room, table=table), **changes)

    def _deal_started(self, event: DealStarted) -> TableState:
        old = self.table
        seat = self.my_seat
        hand = None if seat is None or event.hand is None else sorted(event.hand)
        table = TableView(
            viewer_seat=seat,
            phase="bidding",
            deal_no=event.deal_no,
            deals_total=event.deals_total,
            hand=hand,
            card_counts=list(event.card_counts),
            first_bidder=event.first_bidder,
            forced_bid=event.forced_bid,
            bids=[],
            landlord=None,
            base=0,
            kitty=None,
            plays=[],
            passes=[],
            last_play=None,
            passes_in_row=0,
            turn=None,
            multiplier=1,
            totals=[0] * SEATS if old is None else list(old.totals),
            deal_scores=[] if old is None else [list(s) for s in old.deal_scores],
            last_deal=None if old is None else old.last_deal,
            ready=[False] * SEATS,
            bot_control=[False] * SEATS if old is None else list(old.bot_control),
            winners=None,
            version=0 if old is None else old.version,
        )
        return self._set_table(table, countdown=None, trick_passes=())

    def _game_event(
        self, table: TableView, message: ServerMessage, now: float | None
    ) -> TableState:
        """Apply an event of a deal in progress (or of the time between deals)."""
        seat = self.my_seat
        if isinstance(message, TurnStarted):
            countdown = (
                None if now is None else _countdown(message.deadline, message.server_time, now)
            )
            return self._set_table(
                _with(table, turn=message, version=message.version), countdown=countdown
            )
        if isinstance(message, BidMade):
            bids = [*map(list, table.bids), [message.seat, message.bid]]
            return self._set_table(
                _with(table, bids=bids, turn=None, version=message.version),
                countdown=None,
            )
        if isinstance(message, DealVoided):
            return self._set_table(
                _with(table, turn=None), countdown=None, voids_in_row=message.voids_in_row
            )
        if isinstance(message, LandlordChosen):
            hand = table.hand
            if hand is not None and message.seat == seat:
                hand = sorted(hand + message.kitty)
            return self._set_table(
                _with(
                    table,
                    phase="playing",
                    landlord=message.seat,
                    base=message.base,
                    kitty=list(message.kitty),
                    card_counts=list(message.card_counts),
                    hand=hand,
                    turn=None,
                ),
                countdown=None,
                voids_in_row=0,
            )
        if isinstance(message, CardsPlayed):
            return self._played(table, message)
        if isinstance(message, Passed):
            changes: dict[str, Any] = {
                "turn": None,
                "version": message.version,
                "passes": [*table.passes, [message.seat, len(table.plays)]],
            }
            if message.trick_over:
                changes.update(last_play=None, passes_in_row=0)
                passes: tuple[int, ...] = ()
            else:
                changes.update(passes_in_row=table.passes_in_row + 1)
                passes = (*self.trick_passes, message.seat)
            return self._set_table(_with(table, **changes), countdown=None, trick_passes=passes)
        if isinstance(message, DealEnded):
            return self._deal_ended(table, message)
        if isinstance(message, AwaitingReady):
            countdown = (
                None if now is None else _countdown(message.deadline, message.server_time, now)
            )
            return self._set_table(
                _with(table, ready=list(message.ready), version=message.version, awaiting=message),
                countdown=countdown,
            )
        if isinstance(message, MatchEnded):
            return self._set_table(
                _with(
                    table,
                    phase="over",
                    turn=None,
                    awaiting=None,
                    totals=list(message.totals),
                    winners=list(message.winners),
                    deal_scores=[list(s) for s in message.deal_scores],
                ),
                countdown=None,
                result=message,
            )
        if isinstance(message, SeatControl):
            return self._seat_control(table, message)
        return self

    def _seat_control(self, table: TableView, event: SeatControl) -> TableState:
        """A bot took a seat over, or gave it back.

        A takeover rides on a timeout's command, whose action event follows. A seat given
        back while it is on turn is a pending resume taking effect: the bot is making this
        turn's action in the same command, so its event follows and that turn is closed.
        Otherwise the open turn is acted on at the version the event states.
        """
        control = list(table.bot_control)
        control[event.seat] = event.bot
        turn = table.turn
        if event.reason == "timeouts":
            return self._set_table(_with(table, bot_control=control))
        if event.reason == "resume" and turn is not None and turn.seat == event.seat:
            return self._set_table(_with(table, bot_control=control, turn=None), countdown=None)
        version = event.version
        if turn is not None:
            turn = turn.model_copy(update={"version": version})
        return self._set_table(_with(table, bot_control=control, version=version, turn=turn))

    def _played(self, table: TableView, event: CardsPlayed) -> TableState:
        hand = table.hand
        if hand is not None and event.seat == self.my_seat:
            hand = _without(hand, event.cards)
        play = TablePlay(seat=event.seat, cards=list(event.cards), kind=event.kind)
        return self._set_table(
            _with(
                table,
                hand=hand,
                plays=[*table.plays, play],
                last_play=play,
                passes_in_row=0,
                card_counts=list(event.card_counts),
                multiplier=event.multiplier,
                turn=None,
                version=event.version,
            ),
            countdown=None,
            trick_passes=(),
        )

    def _deal_ended(self, table: TableView, event: DealEnded) -> TableState:
        last = event.deal_no >= table.deals_total
        seat = self.my_seat
        hand = table.hand
        if hand is not None and seat is not None and seat < len(event.hands):
            hand = sorted(event.hands[seat])
        totals = list(event.totals)
        top = max(totals)
        return self._set_table(
            _with(
                table,
                phase="over" if last else "between_deals",
                hand=hand,
                turn=None,
                awaiting=None,  # until the AwaitingReady that follows says when
                totals=totals,
                deal_scores=[*map(list, table.deal_scores), list(event.score.scores)],
                last_deal=event,
                ready=[False] * SEATS,
                winners=[s for s in range(SEATS) if totals[s] == top] if last else None,
            ),
            countdown=None,
        )


def _with(model: _M, **changes: Any) -> _M:
    """A copy of a frozen model with some fields replaced."""
    return model.model_copy(update=changes)


def _without(hand: Sequence[int], cards: Sequence[int]) -> list[int]:
    """``hand`` less the given card ids (ids not held are ignored)."""
    gone = set(cards)
    return [c for c in hand if c not in gone]


def _countdown(deadline: float | None, server_time: float, now: float) -> Countdown | None:
    return None if deadline is None else Countdown(deadline, server_time, now)
