"""Card inference: what the hidden hands can hold, and sampling of worlds consistent with a
seat's view.

Hard facts (``Knowledge``): the cards not yet seen by this seat are the 54 less its own hand
and every card played; the kitty's cards that the landlord has not played are in the
landlord's hand; every seat's card count is public. A world deals the unseen cards to the
two other seats to exactly those counts, the kitty's cards to the landlord.

Soft evidence: a seat that passed on an opponent's play probably could not beat it with an
ordinary play (bombs are often kept back, and passing on the partner's play says nothing).
Each such pass that the sampled hand, as it was then, could have answered cheaply multiplies
the world's weight by a factor below one; worlds are drawn by rejection on that weight, so
inference shifts the sample without ever excluding a world outright.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from protocol.cards import DECK_SIZE, card_rank
from protocol.events import TableView
from protocol.legal import legal_plays_from_counts
from protocol.plays import Play, classify
from server.bots.sim import Counts, counts_of, info

#: Weight of a world in which a seat passed on an opponent's play below an ace that it
#: could have beaten without a bomb; ``_PASS_HIGH`` for a play of an ace or above.
PASS_LOW = 0.3
PASS_HIGH = 0.65
#: Proposals drawn per world before the best one seen is taken.
MAX_TRIES = 24


def index(card_id: int) -> int:
    """The rank index (0..14) of a physical card."""
    return card_rank(card_id) - 3


@dataclass(frozen=True)
class PassEvidence:
    """A seat passed on an opponent's play; ``later`` are the cards it has played since
    (counts), so its hand back then is its hand now plus these."""

    seat: int
    to_beat: Play
    later: tuple[int, ...]
    factor: float


@dataclass
class Knowledge:
    """What one seat knows of the hidden hands in the play phase."""

    me: int
    landlord: int
    mine: Counts
    #: Rank indices of the cards whose holder this seat does not know.
    unknown: list[int]
    #: Per seat: counts of cards known to be in that hand (the landlord's unplayed kitty).
    fixed: list[Counts]
    #: Per seat: how many of the unknown cards it holds (0 for this seat).
    need: list[int]
    evidence: list[PassEvidence] = field(default_factory=list)

    def others(self) -> tuple[int, int]:
        """The two other seats, in turn order after this one."""
        return (self.me + 1) % 3, (self.me + 2) % 3


def read_view(view: TableView) -> Knowledge:
    """The hard facts and the pass evidence of a seat's view in the play phase."""
    if view.hand is None or view.viewer_seat is None or view.landlord is None:
        raise ValueError("inference needs a seat's view after bidding")
    me, landlord = view.viewer_seat, view.landlord
    played: set[int] = set()
    for p in view.plays:
        played.update(p.cards)
    seen = played | set(view.hand)
    fixed = [[0] * 15 for _ in range(3)]
    if me != landlord and view.kitty is not None:
        for c in view.kitty:
            if c not in seen:
                fixed[landlord][index(c)] += 1
                seen.add(c)
    unknown = [index(c) for c in range(DECK_SIZE) if c not in seen]
    need = [0, 0, 0]
    for seat in range(3):
        if seat != me:
            need[seat] = view.card_counts[seat] - sum(fixed[seat])
    if sum(need) != len(unknown) or min(need) < 0:
        raise ValueError("the view's card counts do not add up")
    return Knowledge(
        me=me,
        landlord=landlord,
        mine=counts_of([index(c) for c in view.hand]),
        unknown=unknown,
        fixed=fixed,
        need=need,
        evidence=_pass_evidence(view, me, landlord),
    )


def _pass_evidence(view: TableView, me: int, landlord: int) -> list[PassEvidence]:
    """The passes of the other seats on their opponents' plays."""
    found: list[PassEvidence] = []
    for seat, n in view.passes:
        if seat == me or not 0 < n <= len(view.plays):
            continue
        passed_on = view.plays[n - 1]
        if seat != landlord and passed_on.seat != landlord:
            continue
        to_beat = classify(card_rank(c) for c in passed_on.cards)
        if to_beat is None or to_beat.is_bomb_like:
            continue
        later = [0] * 15
        for p in view.plays[n:]:
            if p.seat == seat:
                for c in p.cards:
                    later[index(c)] += 1
        factor = PASS_LOW if to_beat.rank - 3 < 11 else PASS_HIGH
        found.append(PassEvidence(seat, to_beat, tuple(later), factor))
    return found


def weight(k: Knowledge, hands: list[Counts]) -> float:
    """How much the pass evidence believes in a world (1.0: no pass contradicts it)."""
    w = 1.0
    for ev in k.evidence:
        hand = hands[ev.seat]
        then = [a + b for a, b in zip(hand, ev.later, strict=True)]
        for m in legal_plays_from_counts(then, ev.to_beat):
            if not info(m).bomb:
                w *= ev.factor
                break
    return w


def deal_unknown(k: Knowledge, rng: random.Random) -> list[Counts]:
    """One world drawn uniformly: the three hands as counts (this seat's own is a copy)."""
    cards = list(k.unknown)
    rng.shuffle(cards)
    a, b = k.others()
    hands: list[Counts] = [[], [], []]
    hands[k.me] = list(k.mine)
    first = list(k.fixed[a])
    for i in cards[: k.need[a]]:
        first[i] += 1
    second = list(k.fixed[b])
    for i in cards[k.need[a] :]:
        second[i] += 1
    hands[a], hands[b] = first, second
    return hands


def sample(k: Knowledge, rng: random.Random) -> list[Counts]:
    """One world drawn in proportion to ``weight`` (by rejection; after ``MAX_TRIES``
    proposals the heaviest one seen is taken)."""
    if not k.evidence:
        return deal_unknown(k, rng)
    best: list[Counts] | None = None
    best_w = -1.0
    for _ in range(MAX_TRIES):
        hands = deal_unknown(k, rng)
        w = weight(k, hands)
        if w >= 1.0 or rng.random() < w:
            return hands
        if w > best_w:
            best, best_w = hands, w
    assert best is not None
    return best


def bidding_world(mine: Counts, rng: random.Random) -> tuple[Counts, Counts, Counts]:
    """Before the landlord is known: the two other hands (17 cards each) and the kitty (3),
    dealt uniformly from the cards this seat does not hold."""
    unknown = [i for i in range(15) for _ in range((1 if i >= 13 else 4) - mine[i])]
    rng.shuffle(unknown)
    return counts_of(unknown[:17]), counts_of(unknown[17:34]), counts_of(unknown[34:])
