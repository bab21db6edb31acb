"""One deal: the shuffle, bidding, the kitty, tricks and the score (SPEC sections 2 to 6).

Sans-I/O: the random source is handed in to ``Deal.dealt``, nothing is awaited, and each
action returns the events it caused. The state is plain data (``to_data``/``from_data``) so a
store can save it after every action. The match (``server.game.match``) drives deals, clocks
and totals, and checks the phase and the turn before it asks the deal for a move; this
module knows one deal only, and the rules of a move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypedDict

from protocol.cards import Rank, card_rank, full_deck
from protocol.events import (
    BidMade,
    CardsPlayed,
    DealVoided,
    LandlordChosen,
    Message,
    Passed,
    ScoreBreakdown,
)
from protocol.plays import Kind, Play, classify
from server.game.errors import (
    BidNotHigher,
    BidOutOfRange,
    CardsNotHeld,
    DoesNotBeat,
    LeaderMustPlay,
    MustBid,
    NotAPlay,
    WrongPhase,
)

SEATS = 3
HAND_SIZE = 17
DealPhase = Literal["bidding", "playing", "over", "void"]


class RandomSource(Protocol):
    """What a deal needs of randomness: ``server.os_random.OsRandom()`` in play, a seeded
    ``random.Random`` in tests."""

    def shuffle(self, x: list[Any], /) -> None: ...

    def randrange(self, stop: int, /) -> int: ...


class PlayRecord(TypedDict):
    seat: int
    cards: list[int]
    kind: str


def _copy_play(play: PlayRecord) -> PlayRecord:
    return {"seat": play["seat"], "cards": list(play["cards"]), "kind": play["kind"]}


def next_seat(seat: int) -> int:
    return (seat + 1) % SEATS


def pick_cards(hand: list[int], ranks: tuple[Rank, ...] | list[Rank]) -> list[int] | None:
    """The physical cards (lowest ids first) in ``hand`` for these ranks, or None when the
    hand does not hold them all."""
    taken: list[int] = []
    available = sorted(hand)
    for rank in sorted(ranks):
        for i, card in enumerate(available):
            if card_rank(card) == rank:
                taken.append(available.pop(i))
                break
        else:
            return None
    return taken


@dataclass
class Deal:
    """The state of one deal. Mutated only through ``bid``, ``pass_turn`` and ``play``."""

    first_bidder: int
    forced_bid: bool
    hands: list[list[int]]
    kitty: list[int]
    phase: DealPhase = "bidding"
    turn: int = 0
    bids: list[list[int]] = field(default_factory=list)  # [seat, bid]; bid 0 is a pass
    landlord: int | None = None
    base: int = 0
    plays: list[PlayRecord] = field(default_factory=list)
    passes: list[list[int]] = field(default_factory=list)  # [seat, len(plays) then]
    last_play: PlayRecord | None = None  # the play to beat in the current trick
    passes_in_row: int = 0
    plays_made: list[int] = field(default_factory=lambda: [0, 0, 0])
    bombs: int = 0
    rockets: int = 0
    #: ``last_play`` as classified, with the record it was classified from: a cache, not
    #: state (never saved; ``table_play`` classifies again for any other record).
    _beat: tuple[PlayRecord, Play | None] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @classmethod
    def dealt(cls, rng: RandomSource, first_bidder: int, forced_bid: bool) -> Deal:
        """Shuffle a full deck and deal 17 cards to each seat; the last 3 are the kitty."""
        deck = full_deck()
        rng.shuffle(deck)
        hands = [sorted(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(SEATS)]
        return cls(
            first_bidder=first_bidder,
            forced_bid=forced_bid,
            hands=hands,
            kitty=sorted(deck[SEATS * HAND_SIZE :]),
            turn=first_bidder,
        )

    # --- plain data -------------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        """Plain data, sharing nothing mutable with the deal (written out by hand: it runs
        on every save, and ``dataclasses.asdict`` costs several times as much)."""
        last = self.last_play
        return {
            "first_bidder": self.first_bidder,
            "forced_bid": self.forced_bid,
            "hands": [list(h) for h in self.hands],
            "kitty": list(self.kitty),
            "phase": self.phase,
            "turn": self.turn,
            "bids": [list(b) for b in self.bids],
            "landlord": self.landlord,
            "base": self.base,
            "plays": [_copy_play(p) for p in self.plays],
            "passes": [list(p) for p in self.passes],
            "last_play": None if last is None else _copy_play(last),
            "passes_in_row": self.passes_in_row,
            "plays_made": list(self.plays_made),
            "bombs": self.bombs,
            "rockets": self.rockets,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Deal:
        return cls(**data)

    # --- derived facts ----------------------------------------------------------------

    @property
    def card_counts(self) -> list[int]:
        return [len(h) for h in self.hands]

    @property
    def highest_bid(self) -> int:
        return max([0] + [bid for _, bid in self.bids])

    @property
    def multiplier(self) -> int:
        """Doubles for every bomb and rocket played so far (spring is added at the end)."""
        return 1 << (self.bombs + self.rockets)

    @property
    def table_play(self) -> Play | None:
        """The play to beat, classified."""
        last, beat = self.last_play, self._beat
        if last is None:
            return None
        if beat is None or beat[0] is not last:
            beat = self._beat = (last, classify(map(card_rank, last["cards"])))
        return beat[1]

    @property
    def may_pass(self) -> bool:
        """Whether the seat on turn may pass now."""
        if self.phase == "bidding":
            return not (self.forced_bid and not self.bids)
        return self.last_play is not None

    def hand_ranks(self, seat: int) -> list[Rank]:
        return [card_rank(c) for c in self.hands[seat]]

    # --- actions ----------------------------------------------------------------------

    def bid(self, seat: int, value: int, timeout: bool = False, *, version: int) -> list[Message]:
        """Bid 1..3 (strictly above the highest so far), or 0 to pass. ``version``: the
        match's version after this action, which its event carries (as do ``pass_turn``'s
        and ``play``'s). The match has checked the phase and the turn."""
        if value == 0:
            if not self.may_pass:
                raise MustBid("after three void deals the first bidder must bid at least 1")
        elif not 1 <= value <= 3:
            raise BidOutOfRange(f"a bid is 1, 2 or 3, not {value}")
        elif value <= self.highest_bid:
            raise BidNotHigher(f"a bid must be higher than {self.highest_bid}")
        self.bids.append([seat, value])
        events: list[Message] = [
            BidMade(
                seat=seat, bid=value, highest=self.highest_bid, timeout=timeout, version=version
            )
        ]
        if value == 3 or len(self.bids) == SEATS:
            events.extend(self._close_bidding())
        else:
            self.turn = next_seat(seat)
        return events

    def _close_bidding(self) -> list[Message]:
        highest = self.highest_bid
        if highest == 0:
            self.phase = "void"
            return [DealVoided(voids_in_row=0)]  # the match fills in the count
        landlord = next(s for s, b in self.bids if b == highest)
        self.landlord, self.base, self.phase, self.turn = landlord, highest, "playing", landlord
        self.hands[landlord] = sorted(self.hands[landlord] + self.kitty)
        return [
            LandlordChosen(
                seat=landlord, base=highest, kitty=list(self.kitty), card_counts=self.card_counts
            )
        ]

    def pass_turn(self, seat: int, timeout: bool = False, *, version: int) -> list[Message]:
        """Pass in the bidding or in a trick."""
        if self.phase == "bidding":
            return self.bid(seat, 0, timeout, version=version)
        if self.last_play is None:
            raise LeaderMustPlay("the seat that leads a trick must play")
        self.passes_in_row += 1
        self.passes.append([seat, len(self.plays)])
        trick_over = self.passes_in_row == SEATS - 1
        if trick_over:
            leader = self.last_play["seat"]
            self.last_play, self.passes_in_row, self.turn = None, 0, leader
        else:
            self.turn = next_seat(seat)
        return [
            Passed(
                seat=seat,
                trick_over=trick_over,
                leader=self.turn if trick_over else None,
                timeout=timeout,
                version=version,
            )
        ]

    def play(
        self,
        seat: int,
        ranks: tuple[Rank, ...],
        timeout: bool = False,
        *,
        version: int,
    ) -> list[Message]:
        """Play these ranks: they must be held, form a play, and beat the table."""
        cards = pick_cards(self.hands[seat], ranks)
        if cards is None:
            raise CardsNotHeld("you do not hold all of those cards")
        play = classify(ranks)
        if play is None:
            raise NotAPlay("those cards are not one of the 14 kinds of play")
        to_beat = self.table_play
        if to_beat is not None and not play.beats(to_beat):
            raise DoesNotBeat(f"{play} does not beat {to_beat}")
        for card in cards:
            self.hands[seat].remove(card)
        record: PlayRecord = {"seat": seat, "cards": cards, "kind": play.kind.value}
        self.plays.append(record)
        self.last_play, self.passes_in_row, self._beat = record, 0, (record, play)
        self.plays_made[seat] += 1
        if play.kind is Kind.BOMB:
            self.bombs += 1
        elif play.kind is Kind.ROCKET:
            self.rockets += 1
        if self.hands[seat]:
            self.turn = next_seat(seat)
        else:
            self.phase = "over"
        return [
            CardsPlayed(
                seat=seat,
                cards=cards,
                kind=play.kind.value,
                rank=int(play.rank),
                card_counts=self.card_counts,
                multiplier=self.multiplier,
                timeout=timeout,
                version=version,
            )
        ]

    def default_action(self, seat: int, *, version: int) -> list[Message]:
        """What the clock does for a seat that ran out of time (SPEC section 8): pass, or bid
        1 where the seat may not pass, or lead its lowest card as a single."""
        if self.phase == "bidding":
            return self.bid(seat, 0 if self.may_pass else 1, timeout=True, version=version)
        if self.may_pass:
            return self.pass_turn(seat, timeout=True, version=version)
        lowest = min(self.hands[seat])
        return self.play(seat, (card_rank(lowest),), timeout=True, version=version)

    # --- the end ----------------------------------------------------------------------

    @property
    def landlord_won(self) -> bool:
        return self.phase == "over" and not self.hands[self.landlord_seat]

    @property
    def landlord_seat(self) -> int:
        if self.landlord is None:
            raise WrongPhase("no landlord yet")
        return self.landlord

    def score(self) -> ScoreBreakdown:
        """The finished deal's points (SPEC section 6); they sum to zero."""
        landlord = self.landlord_seat
        won = self.landlord_won
        farmers = [s for s in range(SEATS) if s != landlord]
        spring = won and all(self.plays_made[f] == 0 for f in farmers)
        anti_spring = not won and self.plays_made[landlord] == 1
        multiplier = self.multiplier * (2 if spring or anti_spring else 1)
        stake = self.base * multiplier
        scores = [(-stake if won else stake) for _ in range(SEATS)]
        scores[landlord] = 2 * stake if won else -2 * stake
        return ScoreBreakdown(
            base=self.base,
            bombs=self.bombs,
            rockets=self.rockets,
            spring=spring,
            anti_spring=anti_spring,
            multiplier=multiplier,
            scores=scores,
        )
