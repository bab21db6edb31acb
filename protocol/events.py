"""What happens at the table, as the server tells it (SPEC sections 3 to 9).

Each event is a frozen pydantic model with a literal ``type``. Cards travel as physical card
ids (0..53, see ``protocol.cards``). A message never holds a card its recipient may not see:
the only hand in ``DealStarted`` is the recipient's own, and the kitty appears only once shown.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

CardIds = list[int]
Phase = Literal["bidding", "playing", "between_deals", "over"]
TurnAction = Literal["bid", "play"]


class Message(BaseModel):
    """Base of every message: immutable, and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class DealStarted(Message):
    """A deal was dealt. ``hand`` is the recipient's own 17 cards (None for spectators)."""

    type: Literal["deal_started"] = "deal_started"
    deal_no: int
    deals_total: int
    first_bidder: int
    forced_bid: bool
    hand: CardIds | None
    card_counts: list[int]


class BidMade(Message):
    """A seat bid 1..3, or passed (``bid`` 0). ``timeout``: the clock chose it."""

    type: Literal["bid"] = "bid"
    seat: int
    bid: int
    highest: int
    timeout: bool = False
    #: The match's state version after this action (as the next ``TurnStarted`` states).
    version: int


class DealVoided(Message):
    """All three passed: the deal is void and dealt again with the same first bidder."""

    type: Literal["deal_void"] = "deal_void"
    voids_in_row: int


class LandlordChosen(Message):
    """Bidding is over: the kitty is shown to everyone and joins the landlord's hand."""

    type: Literal["landlord"] = "landlord"
    seat: int
    base: int
    kitty: CardIds
    card_counts: list[int]


class CardsPlayed(Message):
    """A seat played. ``multiplier`` is the deal's multiplier after this play."""

    type: Literal["played"] = "played"
    seat: int
    cards: CardIds
    kind: str
    rank: int
    card_counts: list[int]
    multiplier: int
    timeout: bool = False
    #: The match's state version after this play.
    version: int


class Passed(Message):
    """A seat passed in a trick. ``trick_over``: that was the second pass in a row, and
    ``leader`` leads the next trick."""

    type: Literal["passed"] = "passed"
    seat: int
    trick_over: bool
    leader: int | None
    timeout: bool = False
    #: The match's state version after this action (as the next ``TurnStarted`` states).
    version: int


class TurnStarted(Message):
    """Whose turn it is. ``deadline`` is the server's wall-clock time (seconds since the
    epoch) when the seat's time runs out, or None when untimed; ``server_time`` is when this
    was sent, so a client can count down against its own clock. ``version`` is the match's
    state version: an action may name it, and is refused as stale once it has moved on."""

    type: Literal["turn"] = "turn"
    seat: int
    action: TurnAction
    may_pass: bool
    deadline: float | None
    server_time: float
    version: int


class ScoreBreakdown(Message):
    """How a deal's points came about (SPEC section 6)."""

    base: int
    bombs: int
    rockets: int
    spring: bool
    anti_spring: bool
    multiplier: int
    scores: list[int]


class DealEnded(Message):
    """The deal is over: every seat's remaining cards, the score and the running totals."""

    type: Literal["deal_end"] = "deal_end"
    deal_no: int
    landlord: int
    winner: Literal["landlord", "farmers"]
    hands: list[CardIds]
    score: ScoreBreakdown
    totals: list[int]


class AwaitingReady(Message):
    """Between deals: who is ready for the next one, and when it starts regardless."""

    type: Literal["awaiting_ready"] = "awaiting_ready"
    ready: list[bool]
    deadline: float | None
    server_time: float
    version: int


class MatchEnded(Message):
    """The last deal is over. Everyone tied for the top total wins."""

    type: Literal["match_end"] = "match_end"
    totals: list[int]
    winners: list[int]
    deal_scores: list[list[int]]


class SeatControl(Message):
    """A bot took over a seat (after two timeouts in a row) or gave it back (``resume``).
    ``resume_pending``: the person asked on their own turn; the bot makes this turn's action
    and the seat is theirs from the next one."""

    type: Literal["seat_control"] = "seat_control"
    seat: int
    bot: bool
    reason: Literal["timeouts", "resume", "resume_pending"]
    #: The match's state version after the command it rides on.
    version: int


class TablePlay(Message):
    """One play of the current deal, public once made."""

    seat: int
    cards: CardIds
    kind: str


class TableView(Message):
    """Everything one viewer may know of the table (SPEC section 9): a seat's own hand, or no
    hand for a spectator, and every public fact. Sent whole on join, watch and reconnect."""

    viewer_seat: int | None
    phase: Phase
    deal_no: int
    deals_total: int
    hand: CardIds | None
    card_counts: list[int]
    first_bidder: int | None
    forced_bid: bool
    bids: list[list[int]]
    landlord: int | None
    base: int
    kitty: CardIds | None
    plays: list[TablePlay]
    passes: list[list[int]]
    """Each pass of the deal's tricks as [seat, n]: the seat passed on ``plays[n - 1]``."""
    last_play: TablePlay | None
    passes_in_row: int
    turn: TurnStarted | None
    multiplier: int
    totals: list[int]
    deal_scores: list[list[int]]
    last_deal: DealEnded | None
    ready: list[bool]
    bot_control: list[bool]
    winners: list[int] | None
    version: int
    awaiting: AwaitingReady | None = None
    """Between deals: who is ready and when the next deal starts regardless (what the last
    ``AwaitingReady`` said), so a viewer who comes back then sees the countdown too."""
    restarted: bool = False
    """The running clock was given back after the room's server went down (a restart, or
    another process took the room over): it has the time it had left then (at least 5 s),
    held while its person was away; until the next clock starts."""
