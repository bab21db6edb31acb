"""A match of 1, 3, 6 or 9 deals: first bidders, void deals, clocks, bot takeover, totals
and winners (SPEC sections 3, 7 and 8), and what each viewer may see of it (section 9).

Sans-I/O like python-websockets' protocol objects: ``apply(command, now)`` takes a command
and the current wall-clock time, changes the state or raises a ``GameError`` having changed
nothing, and returns the messages to send, each addressed to an audience. The whole state
round-trips through plain data so a store can save it after every accepted command.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from protocol.events import (
    AwaitingReady,
    DealEnded,
    DealStarted,
    DealVoided,
    MatchEnded,
    Message,
    Phase,
    SeatControl,
    TablePlay,
    TableView,
    TurnStarted,
)
from server.game.commands import (
    Bid,
    Command,
    Pass,
    PlayCards,
    Ready,
    ReadyTimeout,
    Resume,
    Timeout,
)
from server.game.deal import SEATS, Deal, RandomSource, next_seat
from server.game.errors import (
    AlreadyReady,
    BotHoldsSeat,
    ClockRunning,
    MatchOver,
    NoClock,
    NotTakenOver,
    NotYourTurn,
    Stale,
    WrongPhase,
)

MATCH_LENGTHS = (1, 3, 6, 9)
#: After this many void deals in a row, the next deal's first bidder must bid.
VOIDS_BEFORE_FORCED_BID = 3
#: Timeouts in a row that hand a seat to a bot.
TIMEOUTS_BEFORE_TAKEOVER = 2

EVERYONE: Literal["everyone"] = "everyone"
WATCHERS: Literal["watchers"] = "watchers"
Audience = int | Literal["everyone", "watchers"]
"""A seat number (that seat only), everyone (seats and watchers), or watchers only."""
Outgoing = tuple[Audience, Message]


def seat_number(seat: int) -> str:
    """A seat as clients number it (S1..S3): how a refusal names the seat on turn, unless
    the room gives its names (``Match.apply``'s ``label``)."""
    return f"S{seat + 1}"


@dataclass(frozen=True)
class MatchConfig:
    """A match's length and clocks, in seconds; a clock of None means untimed (practice)."""

    deals: int = 3
    bid_timeout: float | None = None
    play_timeout: float | None = None
    ready_timeout: float | None = None

    def __post_init__(self) -> None:
        if self.deals not in MATCH_LENGTHS:
            raise ValueError(f"a match is 1, 3, 6 or 9 deals, not {self.deals}")


@dataclass
class Match:
    """The state of a match. Build one with ``Match.start``; change it only with ``apply``."""

    config: MatchConfig
    deal: Deal
    deal_no: int = 1
    voids_in_row: int = 0
    phase: Phase = "bidding"
    totals: list[int] = field(default_factory=lambda: [0, 0, 0])
    deal_scores: list[list[int]] = field(default_factory=list)
    last_deal: DealEnded | None = None
    ready: list[bool] = field(default_factory=lambda: [False, False, False])
    deadline: float | None = None
    timeouts_in_row: list[int] = field(default_factory=lambda: [0, 0, 0])
    bot_control: list[bool] = field(default_factory=lambda: [False, False, False])
    resume_pending: list[bool] = field(default_factory=lambda: [False, False, False])
    version: int = 0
    #: Seconds a clock given back after a restart has left, held (not counting) while the
    #: table waits for its person to come back: the deadline is then the end of that wait
    #: plus these seconds (``resume_clock``). None when the clock runs as it shows.
    held: float | None = None
    #: The running clock is one given back after the room's process went down (a restart,
    #: a takeover): said in the views until the next clock starts, so a person back at the
    #: table is told their clock was paused.
    restarted: bool = False

    # --- start and plain data ---------------------------------------------------------

    @classmethod
    def start(
        cls,
        config: MatchConfig,
        rng: RandomSource,
        now: float,
        first_bidder: int | None = None,
    ) -> tuple[Match, list[Outgoing]]:
        """Deal the first deal. ``first_bidder`` is the person in practice; None draws a
        random seat (SPEC section 3)."""
        bidder = rng.randrange(SEATS) if first_bidder is None else first_bidder
        match = cls(config=config, deal=Deal.dealt(rng, bidder, forced_bid=False))
        return match, match._deal_started(now)

    def to_data(self) -> dict[str, Any]:
        """The whole state as dicts, lists, ints, floats, strs, bools and None."""
        return {
            "config": copy.copy(vars(self.config)),
            "deal": self.deal.to_data(),
            "deal_no": self.deal_no,
            "voids_in_row": self.voids_in_row,
            "phase": self.phase,
            "totals": list(self.totals),
            "deal_scores": [list(s) for s in self.deal_scores],
            "last_deal": None if self.last_deal is None else self.last_deal.model_dump(),
            "ready": list(self.ready),
            "deadline": self.deadline,
            "timeouts_in_row": list(self.timeouts_in_row),
            "bot_control": list(self.bot_control),
            "resume_pending": list(self.resume_pending),
            "version": self.version,
            "held": self.held,
            "restarted": self.restarted,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Match:
        fields = dict(data)
        fields["config"] = MatchConfig(**data["config"])
        fields["deal"] = Deal.from_data(copy.deepcopy(data["deal"]))
        if data["last_deal"] is not None:
            fields["last_deal"] = DealEnded.model_validate(data["last_deal"])
        names = (
            "totals",
            "deal_scores",
            "ready",
            "timeouts_in_row",
            "bot_control",
            "resume_pending",
        )
        for name in names:
            fields[name] = copy.deepcopy(data[name])
        return cls(**fields)

    # --- commands ---------------------------------------------------------------------

    def apply(
        self,
        command: Command,
        now: float,
        rng: RandomSource,
        label: Callable[[int], str] = seat_number,
    ) -> list[Outgoing]:
        """Apply one command at wall-clock time ``now``; ``rng`` shuffles any new deal;
        ``label`` names a seat in a refusal (the room gives its names).

        Raises a ``GameError`` and changes nothing when the command is refused: every check
        comes before the first change (a property test holds it to that).
        """
        if self.phase == "over":
            raise MatchOver("the match is over")
        seat = getattr(command, "seat", 0)
        if not 0 <= seat < SEATS:
            raise NotYourTurn(f"there is no seat {seat}")
        if isinstance(command, Bid | Pass | PlayCards | Timeout):
            self._check_turn(command, label)
        # the actions (bids, passes, plays, seat control) carry the version they leave the
        # match at, built in: a client follows it from them, computing nothing
        self.version += 1
        try:
            return self._dispatch(command, now, rng)
        except Exception:
            self.version -= 1
            raise

    def _check_turn(
        self, command: Bid | Pass | PlayCards | Timeout, label: Callable[[int], str]
    ) -> None:
        """The one check of phase and turn for a move in the deal, in this order: a deal is
        being played, in the phase for this move, and it is this seat's turn; then, for a
        person's action, that no bot holds the seat and that the table is as they saw it
        (the rules come after, in the deal)."""
        if self.phase not in ("bidding", "playing"):
            raise WrongPhase("no deal is being played")
        if isinstance(command, PlayCards) and self.phase != "playing":
            raise WrongPhase("this is not the time to play cards")
        if isinstance(command, Bid) and self.phase != "bidding":
            raise WrongPhase("the bidding is over")
        if command.seat != self.deal.turn:
            raise NotYourTurn(f"it is {label(self.deal.turn)}'s turn")
        if isinstance(command, Timeout):
            return
        if command.by_person and self.bot_control[command.seat]:
            raise BotHoldsSeat("a bot holds your seat: send resume first")
        if command.seen is not None and command.seen != self.version:
            raise Stale("the table has moved on since that action")

    def _dispatch(self, command: Command, now: float, rng: RandomSource) -> list[Outgoing]:
        if isinstance(command, Resume):
            return self._resume(command.seat)
        if isinstance(command, Ready | ReadyTimeout):
            return self._ready(command, now, rng)
        deal = self.deal
        if isinstance(command, Timeout):
            self._check_deadline(now)
            events = deal.default_action(command.seat, version=self.version)
            returned = self._resume_takes_effect(command.seat)
            taken = self._count_timeout(command.seat)
            return returned + self._after_action(events, now, rng, taken)
        if isinstance(command, Bid):
            events = deal.bid(command.seat, command.value, version=self.version)
        elif isinstance(command, Pass):
            events = deal.pass_turn(command.seat, version=self.version)
        elif isinstance(command, PlayCards):
            events = deal.play(command.seat, command.ranks, version=self.version)
        else:
            raise TypeError(f"not a command: {command!r}")
        if not self.bot_control[command.seat]:
            self.timeouts_in_row[command.seat] = 0
        returned = self._resume_takes_effect(command.seat)
        return returned + self._after_action(events, now, rng)

    def _check_deadline(self, now: float) -> None:
        if self.deadline is None:
            raise NoClock("this match has no time limits")
        if now < self.deadline:
            raise ClockRunning("the time has not run out yet")

    def _count_timeout(self, seat: int) -> list[Outgoing]:
        self.timeouts_in_row[seat] += 1
        if self.timeouts_in_row[seat] >= TIMEOUTS_BEFORE_TAKEOVER and not self.bot_control[seat]:
            self.bot_control[seat] = True
            return [(EVERYONE, self._seat_control(seat, True, "timeouts"))]
        return []

    def _resume(self, seat: int) -> list[Outgoing]:
        """Give the seat back to its person from their next turn (SPEC section 8): at once
        when it is not their turn, else once the bot has made this turn's action."""
        if not self.bot_control[seat] or self.resume_pending[seat]:
            raise NotTakenOver("you are already playing this seat yourself")
        if self.turn == seat:
            self.resume_pending[seat] = True
            return [(EVERYONE, self._seat_control(seat, True, "resume_pending"))]
        return self._give_back(seat)

    def _seat_control(
        self, seat: int, bot: bool, reason: Literal["timeouts", "resume", "resume_pending"]
    ) -> SeatControl:
        """A seat handed to a bot or back, carrying the version this command leaves."""
        return SeatControl(seat=seat, bot=bot, reason=reason, version=self.version)

    def _resume_takes_effect(self, seat: int) -> list[Outgoing]:
        """After the seat's action: a pending resume gives the seat back now."""
        return self._give_back(seat) if self.resume_pending[seat] else []

    def _give_back(self, seat: int) -> list[Outgoing]:
        self.bot_control[seat] = self.resume_pending[seat] = False
        self.timeouts_in_row[seat] = 0
        return [(EVERYONE, self._seat_control(seat, False, "resume"))]

    def _after_action(
        self,
        events: list[Message],
        now: float,
        rng: RandomSource,
        control: list[Outgoing] | None = None,
    ) -> list[Outgoing]:
        """Address the deal's events and move the match on: next turn, void, or deal end.
        ``control`` (a seat handed to a bot by this timeout) follows the action's events;
        a pending resume that takes effect comes before them (see ``_resume``)."""
        out: list[Outgoing] = []
        deal = self.deal
        for event in events:
            if isinstance(event, DealVoided):
                self.voids_in_row += 1
                event = DealVoided(voids_in_row=self.voids_in_row)
            out.append((EVERYONE, event))
        out += control or []
        if deal.phase == "void":
            forced = self.voids_in_row >= VOIDS_BEFORE_FORCED_BID
            self.deal = Deal.dealt(rng, deal.first_bidder, forced_bid=forced)
            return out + self._deal_started(now)
        if deal.phase == "over":
            return out + self._deal_over(now)
        if deal.landlord is not None:
            self.voids_in_row = 0
        self.phase = deal.phase
        return out + [(EVERYONE, self._turn_started(now))]

    def _deal_started(self, now: float) -> list[Outgoing]:
        deal = self.deal
        self.phase = "bidding"
        self.ready = [False, False, False]

        def started(hand: list[int] | None) -> DealStarted:
            return DealStarted(
                deal_no=self.deal_no,
                deals_total=self.config.deals,
                first_bidder=deal.first_bidder,
                forced_bid=deal.forced_bid,
                hand=hand,
                card_counts=deal.card_counts,
            )

        out: list[Outgoing] = [(seat, started(list(deal.hands[seat]))) for seat in range(SEATS)]
        out.append((WATCHERS, started(None)))
        out.append((EVERYONE, self._turn_started(now)))
        return out

    def _clock_for(self, phase: Phase) -> float | None:
        if phase == "bidding":
            return self.config.bid_timeout
        if phase == "playing":
            return self.config.play_timeout
        return self.config.ready_timeout

    def _turn_started(self, now: float) -> TurnStarted:
        clock = self._clock_for(self.phase)
        self.deadline = None if clock is None else now + clock
        self.held = None
        self.restarted = False
        return self._turn_prompt(now)

    def _turn_prompt(self, now: float) -> TurnStarted:
        return TurnStarted(
            seat=self.deal.turn,
            action="bid" if self.phase == "bidding" else "play",
            may_pass=self.deal.may_pass,
            deadline=self.deadline,
            server_time=now,
            version=self.version,
        )

    def resume_clock(
        self, now: float, saved_at: float, floor: float, grace: float = 0.0
    ) -> list[Outgoing]:
        """The match comes back after its process was down (a crash, a takeover) since
        ``saved_at``, when it was last saved: the running clock gets back at least the time
        it had left then, and at least ``floor`` seconds (never more than its full length),
        so time spent down never costs the seat its turn. With a ``grace``, that time is
        held until the table's people are back (``start_held_clock``) or the grace is
        over, whichever comes first; a clock still held when the process went down again
        had counted nothing before its grace's end. Tells everyone the new deadline (a
        repeated ``TurnStarted`` or ``AwaitingReady``); nothing when no clock runs."""
        clock = self._clock_for(self.phase)
        if self.deadline is None or clock is None or self.phase == "over":
            return []
        left = self.deadline - saved_at
        if self.held is not None:
            left = min(left, self.held)
        left = max(left, min(floor, clock))
        self.deadline = max(self.deadline, now + grace + left)
        self.held = left if grace > 0 else None
        self.restarted = True
        return [(EVERYONE, self._clock_prompt(now))]

    def pause_over(self, paused: float, now: float) -> list[Outgoing]:
        """The match was paused ``paused`` seconds (its storage was down): the running
        clock's deadline moves on by as much, so it has the time it had left when the pause
        began, and never more than its whole length (a pause counted from Redis's last
        answer may begin a moment before a clock that started just then). A clock held
        after a restart keeps its grace. Tells everyone the new deadline; nothing when no
        clock runs."""
        if self.deadline is None or self.phase == "over" or paused <= 0:
            return []
        moved = self.deadline + paused
        clock = self._clock_for(self.phase)
        if clock is not None and self.held is None:
            moved = min(moved, max(now + clock, self.deadline))
        self.deadline = moved
        return [(EVERYONE, self._clock_prompt(now))]

    def start_held_clock(self, now: float) -> list[Outgoing]:
        """The people a held clock waited for are back: it runs from ``now`` with the time
        it held, unless its grace ran out first (then it runs already, as it shows). Tells
        everyone the new deadline; nothing when no clock was held or the grace is over."""
        if self.held is None or self.deadline is None:
            return []
        left, self.held = self.held, None
        if now + left >= self.deadline:
            return []
        self.deadline = now + left
        return [(EVERYONE, self._clock_prompt(now))]

    def _clock_prompt(self, now: float) -> TurnStarted | AwaitingReady:
        """The running clock's prompt, as it stands: the turn's, or the pause's between
        deals."""
        if self.phase == "between_deals":
            return self._awaiting_ready(now)
        return self._turn_prompt(now)

    def _deal_over(self, now: float) -> list[Outgoing]:
        deal = self.deal
        self.held = None
        score = deal.score()
        self.totals = [t + s for t, s in zip(self.totals, score.scores, strict=True)]
        self.deal_scores.append(list(score.scores))
        self.last_deal = DealEnded(
            deal_no=self.deal_no,
            landlord=deal.landlord_seat,
            winner="landlord" if deal.landlord_won else "farmers",
            hands=[list(h) for h in deal.hands],
            score=score,
            totals=list(self.totals),
        )
        out: list[Outgoing] = [(EVERYONE, self.last_deal)]
        if self.deal_no == self.config.deals:
            self.phase, self.deadline = "over", None
            out.append(
                (
                    EVERYONE,
                    MatchEnded(
                        totals=list(self.totals),
                        winners=self.winners,
                        deal_scores=[list(s) for s in self.deal_scores],
                    ),
                )
            )
            return out
        self.phase = "between_deals"
        self.ready = [False, False, False]
        clock = self.config.ready_timeout
        self.deadline = None if clock is None else now + clock
        self.restarted = False
        return out + [(EVERYONE, self._awaiting_ready(now))]

    def _awaiting_ready(self, now: float) -> AwaitingReady:
        return AwaitingReady(
            ready=list(self.ready), deadline=self.deadline, server_time=now, version=self.version
        )

    def _ready(
        self, command: Ready | ReadyTimeout, now: float, rng: RandomSource
    ) -> list[Outgoing]:
        if self.phase != "between_deals":
            raise WrongPhase("ready is for the time between deals")
        if isinstance(command, ReadyTimeout):
            self._check_deadline(now)
        else:
            if self.ready[command.seat]:
                raise AlreadyReady("you are ready already")
            self.ready[command.seat] = True
            if not all(self.ready):
                return [(EVERYONE, self._awaiting_ready(now))]
        self.deal_no += 1
        self.deal = Deal.dealt(rng, next_seat(self.deal.first_bidder), forced_bid=False)
        self.voids_in_row = 0
        return self._deal_started(now)

    # --- facts and views --------------------------------------------------------------

    @property
    def winners(self) -> list[int]:
        """Every seat tied for the top total."""
        top = max(self.totals)
        return [s for s in range(SEATS) if self.totals[s] == top]

    @property
    def turn(self) -> int | None:
        """The seat whose action the match waits for, if any."""
        return self.deal.turn if self.phase in ("bidding", "playing") else None

    def view_for(self, seat: int | None, now: float) -> TableView:
        """Everything ``seat`` may know (None: a spectator): its own hand only, and every
        public fact (SPEC section 9)."""
        deal = self.deal
        shown = deal.landlord is not None and self.phase != "bidding"
        turn = None
        if self.turn is not None:
            turn = TurnStarted(
                seat=deal.turn,
                action="bid" if self.phase == "bidding" else "play",
                may_pass=deal.may_pass,
                deadline=self.deadline,
                server_time=now,
                version=self.version,
            )
        return TableView(
            viewer_seat=seat,
            phase=self.phase,
            deal_no=self.deal_no,
            deals_total=self.config.deals,
            hand=None if seat is None else list(deal.hands[seat]),
            card_counts=deal.card_counts,
            first_bidder=deal.first_bidder,
            forced_bid=deal.forced_bid,
            bids=[list(b) for b in deal.bids],
            landlord=deal.landlord,
            base=deal.base,
            kitty=list(deal.kitty) if shown else None,
            plays=[TablePlay(**p) for p in deal.plays],
            passes=[list(p) for p in deal.passes],
            last_play=None if deal.last_play is None else TablePlay(**deal.last_play),
            passes_in_row=deal.passes_in_row,
            turn=turn,
            multiplier=deal.multiplier,
            totals=list(self.totals),
            deal_scores=[list(s) for s in self.deal_scores],
            last_deal=self.last_deal,
            ready=list(self.ready),
            bot_control=list(self.bot_control),
            winners=self.winners if self.phase == "over" else None,
            version=self.version,
            awaiting=self._awaiting_ready(now) if self.phase == "between_deals" else None,
            restarted=self.restarted and self.deadline is not None and self.phase != "over",
        )
