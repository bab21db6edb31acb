"""A player's rating: a skill estimate from quick matches, never points carried over.

Each deal of a rated match is one game of the landlord against the two farmers as a team,
rated with openskill's Plackett-Luce model (a Bayesian estimate: ``mu`` the skill, ``sigma``
its uncertainty). The rule book's points stay in their match: only who won each deal counts,
not by how much.

Two things make a deal fair to rate:

- **The landlord's side.** Plackett-Luce adds up a team's skills, so two farmers would
  always be expected to beat one landlord. The landlord's team therefore holds, beside the
  landlord, a fixed pseudo-player of average skill and almost no uncertainty (``ROLE``: the
  20 cards and the lead); equal players then start each deal even, and the landlord alone
  takes the whole update of their side.
- **Bots.** A bot seat plays at a fixed rating for its level (``BOT_RATINGS``); bots are
  not rated themselves. A deal changes nothing unless both sides hold a person (a player
  alone with bots, or two people farming a bot landlord, gain nothing), so a match with one
  person is never rated.

A seat belongs to the person who sat in it when the match started, for the whole match:
when a bot plays it after a timeout or a leave, the deals still count for that person, so
leaving never dodges a loss. Everything is computed from the ratings as they were at the
match start (``RatedMatch``), so each person's change is the same however often, or in
whichever order, it is computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from protocol.messages import BotLevel

#: The model. Its defaults: a new player is mu 25, sigma 25/3 (so a display value of 0);
#: ``tau`` keeps sigma from shrinking to nothing, so a player who improves still moves.
MODEL = PlackettLuce()

#: How many sigmas the display value stands below mu: a player is at least this good
#: with about 99.9% confidence, so a lucky newcomer does not top the ladder.
DISPLAY_SIGMAS = 3.0


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate: ``mu`` the skill, ``sigma`` how unsure it is."""

    mu: float
    sigma: float

    def __post_init__(self) -> None:
        if not (self.sigma > 0 and abs(self.mu) < 1e6 and self.sigma < 1e6):
            raise ValueError(f"not a rating: mu {self.mu}, sigma {self.sigma}")

    @property
    def display(self) -> float:
        """The conservative value shown and ranked: mu - 3 sigma."""
        return self.mu - DISPLAY_SIGMAS * self.sigma


#: A player never rated.
NEW = Rating(MODEL.mu, MODEL.sigma)

# --- the rating as people read it ----------------------------------------------------------
#
# ``mu`` and ``sigma`` are what is stored and computed; what a player reads is derived from
# them, on the familiar chess-like scale: ``points`` = 1500 + 40 (mu - 25), so a new player
# shows 1500, their uncertainty 8.3 is about 333 points (Glicko's new player: 350), and a
# won deal moves the number at once (a conservative mu - 3 sigma starts at 0 and creeps up
# as sigma shrinks, so a new player saw nothing move for a win). It is ``provisional``
# (shown "1500?", as lichess does) while sigma is above ``PROVISIONAL_SIGMA``: about the
# first 10 rated matches, when the ladder ranks a player. The ladder still ranks by the
# conservative value, so a lucky newcomer does not top it.

#: The shown rating of a new player (mu 25) and how many points one unit of mu is.
POINTS_BASE = 1500
POINTS_PER_MU = 40.0
#: Above this sigma a rating is provisional ("1500?"): in ``benchmarks/rating_sim.py``-like
#: play it is reached after 8 to 11 rated matches of 3 deals (sigma 8.3 -> 5.0).
PROVISIONAL_SIGMA = 5.0

#: The tiers (段位) a player climbs, by shown points: (tier, the least points of it).
TIERS: tuple[tuple[str, int], ...] = (
    ("bronze", 0),
    ("silver", 1300),
    ("gold", 1450),
    ("platinum", 1600),
    ("diamond", 1750),
    ("master", 1900),
)


def shown_score(rating: Rating) -> float:
    """The shown rating unrounded: what the ladder ranks by."""
    return POINTS_BASE + POINTS_PER_MU * (rating.mu - MODEL.mu)


def points(rating: Rating) -> int:
    """The rating as shown: 1500 for a new player, 40 points a unit of skill."""
    return round(shown_score(rating))


def provisional(rating: Rating) -> bool:
    """Whether the shown rating is still provisional (too uncertain to settle on)."""
    return rating.sigma > PROVISIONAL_SIGMA


def tier(shown: int) -> str:
    """The tier of a shown rating: the highest whose least points it reaches; the lowest for
    a rating below zero (a long run of losses against stronger players can take it there)."""
    return next((name for name, least in reversed(TIERS) if shown >= least), TIERS[0][0])


#: The landlord's pseudo-teammate: average skill, almost certain (it takes no update).
ROLE = Rating(MODEL.mu, 0.001)

#: A bot seat's fixed rating per level, where players who play as that level settled in
#: ``benchmarks/rating_sim.py`` (mean mu, rounded: easy 15.9, normal 24.7; see README,
#: "Rating and the ladder"). ``strong`` counts as ``normal`` until it is measured better:
#: at a reduced search budget it lost to normal in ``benchmarks/arena.py``, and at the
#: server's budget it is not measured yet. A sigma of 1: known, not learnt.
BOT_RATINGS: dict[BotLevel, Rating] = {
    "easy": Rating(16.0, 1.0),
    "normal": Rating(25.0, 1.0),
    "strong": Rating(25.0, 1.0),
}


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """A seat as the match started: a person (``player_id``, their rating then) or a bot
    (``level``, its fixed rating)."""

    player_id: str | None
    rating: Rating
    level: BotLevel | None = None

    @classmethod
    def bot(cls, level: BotLevel) -> RatedSeat:
        return cls(None, BOT_RATINGS[level], level)

    @property
    def person(self) -> bool:
        return self.player_id is not None


@dataclass(frozen=True, slots=True)
class DealOutcome:
    """Who was landlord in a finished deal, and whether the landlord won."""

    landlord: int
    landlord_won: bool


@dataclass(frozen=True, slots=True)
class RatedMatch:
    """What a rating update needs: the seats at the match start and each deal's outcome."""

    code: str
    seats: tuple[RatedSeat, RatedSeat, RatedSeat]
    deals: tuple[DealOutcome, ...]


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One person's rating before and after one match, and how many of its deals counted."""

    before: Rating
    after: Rating
    deals: int

    @property
    def display_change(self) -> float:
        return self.after.display - self.before.display


def outcomes(deal_scores: Sequence[Sequence[int]]) -> tuple[DealOutcome, ...]:
    """Each finished deal's landlord and result, from its scores (SPEC section 6: the
    landlord's score is twice a farmer's, of the other sign; the farmers' are equal)."""
    found: list[DealOutcome] = []
    for scores in deal_scores:
        if len(scores) != 3 or 0 in scores:
            raise ValueError(f"not a deal's scores: {list(scores)}")
        landlords = [s for s in range(3) if scores[s] == -2 * scores[(s + 1) % 3]]
        if len(landlords) != 1 or scores[(landlords[0] + 1) % 3] != scores[(landlords[0] + 2) % 3]:
            raise ValueError(f"not a deal's scores: {list(scores)}")
        seat = landlords[0]
        found.append(DealOutcome(seat, scores[seat] > 0))
    return tuple(found)


def rated(seats: Sequence[RatedSeat]) -> bool:
    """Whether a match with these seats can change a rating: two persons at least."""
    return sum(s.person for s in seats) >= 2


def rating_updates(match: RatedMatch) -> dict[str, RatingChange]:
    """Each person's rating change from the match's deals, from their ratings at its start.

    Deals run in order, each from the ratings the ones before left; a deal whose landlord
    side or farmer side holds no person changes nothing, and bots are back at their fixed
    rating for every deal. A person none of whose deals counted is left out."""
    now = [s.rating for s in match.seats]
    counted = [0, 0, 0]
    for deal in match.deals:
        if not 0 <= deal.landlord < 3:
            raise ValueError(f"no seat {deal.landlord}")
        farmers = [s for s in range(3) if s != deal.landlord]
        if not match.seats[deal.landlord].person or not any(match.seats[f].person for f in farmers):
            continue
        landlord_side = [MODEL.rating(now[deal.landlord].mu, now[deal.landlord].sigma)]
        landlord_side.append(MODEL.rating(ROLE.mu, ROLE.sigma))
        farmer_side = [MODEL.rating(now[f].mu, now[f].sigma) for f in farmers]
        ranks = [1.0, 2.0] if deal.landlord_won else [2.0, 1.0]
        after = MODEL.rate([landlord_side, farmer_side], ranks=ranks)
        for seat, new in ((deal.landlord, after[0][0]), *zip(farmers, after[1], strict=True)):
            if match.seats[seat].person:
                now[seat] = Rating(new.mu, new.sigma)
                counted[seat] += 1
    return {
        seat.player_id: RatingChange(seat.rating, now[i], counted[i])
        for i, seat in enumerate(match.seats)
        if seat.player_id is not None and counted[i] > 0
    }
