"""``--auto``: a bot policy plays my seat from my own ``TableView``.

``AutoPlayer.next_request(state)`` says what to send after each message, if anything: the
policy's bid, pass or play on my turn (``server.bots.decide`` on ``state.table_view()``),
ready between deals, and ready to start a private room (a practice or quick match starts
dealt: there is nothing to ready for). It remembers what it answered so a
burst of messages about one turn never sends two actions for it. When the server refuses an
action on a turn that is still mine, ``on_refused`` offers a plain fallback once (pass, or the
lowest card, or the lowest bid) so a refused bot never leaves the table waiting. After a
reconnect, ``reset`` forgets it all: the new snapshot is decided afresh (an answer lost with
the connection is sent again; one the server had applied already is refused as stale).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.table import TableState
from protocol.cards import Rank
from protocol.errors import ErrorCode
from protocol.messages import (
    BidRequest,
    Error,
    PassRequest,
    PlayRequest,
    ReadyRequest,
    Request,
)
from server.bots import BotPolicy, decide, policy_for

#: Refusals after which the state will move on by itself: no fallback is needed.
_HARMLESS = frozenset(
    {ErrorCode.STALE, ErrorCode.DUPLICATE, ErrorCode.ALREADY_READY, ErrorCode.NOT_YOUR_TURN}
)


#: Room modes whose match is dealt when the room opens: no "ready to start".
_STARTS_DEALT = frozenset({"practice", "quick"})

DecisionKey = tuple[str | int, ...]
"""Names one decision: ``("start",)``, ``("ready", deal_no)``, ``("turn", deal_no, version)``."""


@dataclass
class AutoPlayer:
    """Chooses my actions with a bot policy."""

    policy: BotPolicy
    answered: set[DecisionKey] = field(default_factory=set)
    fell_back: set[DecisionKey] = field(default_factory=set)
    start_sent: bool = False

    @classmethod
    def for_level(cls, level: str) -> AutoPlayer:
        return cls(policy_for(level))

    @staticmethod
    def _key(state: TableState) -> DecisionKey | None:
        """Names the decision the table waits on from me, or None when it waits on nobody
        I play for."""
        table = state.table
        seat = state.my_seat
        if seat is None or state.closed is not None or state.match_over:
            return None
        if table is None:
            return ("start",) if state.room.mode not in _STARTS_DEALT else None
        if table.bot_control[seat]:
            return None  # the server's bot holds my seat
        if table.phase == "between_deals":
            return None if table.ready[seat] else ("ready", table.deal_no)
        if table.turn is not None and table.turn.seat == seat:
            return ("turn", table.deal_no, table.turn.version)
        return None

    def next_request(self, state: TableState) -> Request | None:
        """The request to send now, or None."""
        key = self._key(state)
        if key == ("start",):
            return self._ready_to_start(state)
        if key is None or key in self.answered:
            return None
        view = state.table_view()
        if view is None:
            return None
        request = decide(self.policy, view)
        if request is not None:
            self.answered.add(key)
        return request

    def _ready_to_start(self, state: TableState) -> Request | None:
        """Ready once for a private room's start; again only if my ready was taken back
        (a person leaving before the start un-readies everyone)."""
        seat = state.my_seat
        if seat is None or state.room.seats[seat].ready:
            self.start_sent = False
            return None
        if self.start_sent:
            return None
        self.start_sent = True
        return ReadyRequest()

    def reset(self) -> None:
        """Forget every answer (the connection was resumed: decide from the new snapshot)."""
        self.answered.clear()
        self.fell_back.clear()
        self.start_sent = False

    def forget(self, state: TableState) -> None:
        """The last request was refused unapplied (rate limited): decide the current decision
        afresh."""
        key = self._key(state)
        if key is not None:
            self.answered.discard(key)
        self.start_sent = False

    def on_refused(self, state: TableState, error: Error) -> Request | None:
        """A request of mine was refused: a plain fallback for a turn still mine, or None."""
        if error.code in _HARMLESS:
            return None
        key = self._key(state)
        table = state.table
        if key is None or key in self.fell_back or key[0] != "turn" or table is None:
            return None
        turn = table.turn
        if turn is None:
            return None
        self.fell_back.add(key)
        if turn.action == "bid":
            if turn.may_pass:
                return PassRequest(version=turn.version)
            return BidRequest(value=min(3, state.highest_bid + 1), version=turn.version)
        if turn.may_pass:
            return PassRequest(version=turn.version)
        lowest: Rank = min(state.hand_ranks)
        return PlayRequest(ranks=[int(lowest)], version=turn.version)


def decision_key(state: TableState) -> DecisionKey | None:
    """Names the decision the table now waits on from me (None: none)."""
    return AutoPlayer._key(state)


def fallback_exhausted(auto: AutoPlayer, state: TableState) -> bool:
    """Whether the fallback for the current turn was tried already (a second refusal then
    means the session is stuck)."""
    key = AutoPlayer._key(state)
    return key is not None and key in auto.fell_back
