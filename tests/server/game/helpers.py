"""Helpers for the game-core tests: stacked decks, decks built from card text, a table that
drives a match and checks it after every action, and assertions named after the rule book."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

import pytest

from protocol.cards import DECK_SIZE, Rank, format_cards, parse_cards, ranks_of
from protocol.events import (
    CardsPlayed,
    DealEnded,
    LandlordChosen,
    Message,
    TurnStarted,
)
from protocol.legal import legal_plays
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
from server.game.errors import GameError
from server.game.match import EVERYONE, WATCHERS, Audience, Match, MatchConfig, Outgoing

M = TypeVar("M", bound=Message)
E = TypeVar("E", bound=GameError)

SEATS = (0, 1, 2)
START = 1000.0
"""The wall-clock time every scripted table starts at."""

UNTIMED = MatchConfig(deals=1)
TIMED = MatchConfig(deals=1, bid_timeout=15, play_timeout=20, ready_timeout=10)


# --- random sources --------------------------------------------------------------------------


class StackedDecks:
    """A random source for fixed shuffles: each ``shuffle(x)`` puts ``x`` into the next given
    deck order; ``randrange`` delegates to a seeded ``random.Random``. When the stack runs out,
    a shuffle fails the test, or (``then_random``) falls back to the seeded source."""

    def __init__(
        self, decks: Iterable[Sequence[int]] = (), seed: int = 0, then_random: bool = False
    ) -> None:
        self._decks: list[list[int]] = [list(d) for d in decks]
        self._random = random.Random(seed)
        self.then_random = then_random
        self.shuffles = 0

    def stack(self, *decks: Sequence[int]) -> None:
        """Put more decks under the ones still waiting."""
        self._decks.extend(list(d) for d in decks)

    @property
    def waiting(self) -> int:
        return len(self._decks)

    def shuffle(self, x: list[Any]) -> None:
        self.shuffles += 1
        if self._decks:
            deck = self._decks.pop(0)
            assert sorted(x) == sorted(deck), "a stacked deck must be a permutation of x"
            x[:] = deck
        elif self.then_random:
            self._random.shuffle(x)
        else:
            raise AssertionError(f"shuffle #{self.shuffles}: no stacked deck left")

    def randrange(self, stop: int) -> int:
        return self._random.randrange(stop)


# --- decks and cards from card text ----------------------------------------------------------


def physical_ids(rank: Rank) -> list[int]:
    """The physical card ids of one rank, lowest first."""
    if rank is Rank.SMALL_JOKER:
        return [52]
    if rank is Rank.BIG_JOKER:
        return [53]
    return [4 * rank.index + suit for suit in range(4)]


def deck_from(hands: Sequence[str], kitty: str) -> list[int]:
    """The deck order that deals ``hands[i]`` (17 cards of card text each) to seat i and
    ``kitty`` (3 cards) as the kitty. Physical ids of a rank are handed out lowest first;
    together the texts must spell the whole 54-card deck."""
    if len(hands) != 3:
        raise ValueError("three hands")
    pool = {rank: physical_ids(rank) for rank in Rank}
    deck: list[int] = []
    for i, text in enumerate([*hands, kitty]):
        ranks = parse_cards(text)
        size = 17 if i < 3 else 3
        if len(ranks) != size:
            raise ValueError(f"{text!r} is {len(ranks)} cards, not {size}")
        for rank in ranks:
            if not pool[rank]:
                raise ValueError(f"too many cards of rank {rank} in the layout")
            deck.append(pool[rank].pop(0))
    assert sorted(deck) == list(range(DECK_SIZE))
    return deck


def seated(hands: Sequence[str], first_at: int) -> list[str]:
    """Rotate three hands so ``hands[0]`` sits at seat ``first_at``, ``hands[1]`` at the next
    seat, and so on."""
    out = [""] * 3
    for i, hand in enumerate(hands):
        out[(first_at + i) % 3] = hand
    return out


def ranks(text: str) -> tuple[Rank, ...]:
    """Card text as the ranks a PlayCards command carries."""
    return tuple(parse_cards(text))


def text_of(card_ids: Iterable[int]) -> str:
    """Physical cards as sorted card text (``333 44``)."""
    return format_cards(ranks_of(card_ids))


# The rigged layout most scenarios use. The strong hand takes the kitty and can go out in a
# few plays (a 3..A straight, a bomb of 2s, the rocket, a pair of 3s) while the farmers pass;
# the next seat holds low triples, the one after high triples (an airplane T..A and a pair of
# 9s), so a farmer can also go out in three plays.
STRONG = "333 4-A 222"
LOW_TRIPLES = "3 444 555 666 777 888 9"
HIGH_TRIPLES = "99 TTT JJJ QQQ KKK AAA"
KITTY = "2 SJ BJ"
STRONG_WITH_KITTY = "333 4-A 2222 SJ BJ"


def rigged_deck(strong_seat: int) -> list[int]:
    """The rigged layout with the strong hand at ``strong_seat``; low triples sit at the next
    seat, high triples at the one after."""
    return deck_from(seated([STRONG, LOW_TRIPLES, HIGH_TRIPLES], strong_seat), KITTY)


def all_pass_deck(seed: int) -> list[int]:
    """Any deck: a deal everyone passes does not care."""
    deck = list(range(DECK_SIZE))
    random.Random(seed).shuffle(deck)
    return deck


# --- reading outgoing messages --------------------------------------------------------------


def events_of(out: Iterable[Outgoing], kind: type[M]) -> list[M]:
    """The messages of one type, in order."""
    return [msg for _, msg in out if isinstance(msg, kind)]


def the_event(out: Iterable[Outgoing], kind: type[M]) -> M:
    """The one message of a type; fails when there is none or more than one."""
    found = events_of(out, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {found}"
    return found[0]


def sent_to(out: Iterable[Outgoing], audience: Audience) -> list[Message]:
    """The messages addressed to exactly this audience."""
    return [msg for aud, msg in out if aud == audience]


def audiences_of(out: Iterable[Outgoing], kind: type[Message]) -> list[Audience]:
    return [aud for aud, msg in out if isinstance(msg, kind)]


def assert_sent_to(out: Iterable[Outgoing], audience: Audience, kind: type[M]) -> M:
    """The one message of this type addressed to this audience."""
    found = [msg for msg in sent_to(out, audience) if isinstance(msg, kind)]
    assert len(found) == 1, f"expected one {kind.__name__} to {audience!r}, got {found}"
    return found[0]


def reaches(audience: Audience, viewer: int | None) -> bool:
    """Whether a message to ``audience`` reaches a seat (int) or a spectator (None)."""
    if audience == EVERYONE:
        return True
    if audience == WATCHERS:
        return viewer is None
    return audience == viewer


# --- invariants checked after every action ---------------------------------------------------


def check_match(match: Match, out: Sequence[Outgoing] = ()) -> None:
    """What holds after every action of every match."""
    data = match.to_data()
    assert Match.from_data(data).to_data() == data
    deal = match.deal
    # Every physical card is in exactly one place: a hand, the table, or the hidden kitty.
    played = [c for p in deal.plays for c in p["cards"]]
    places = [c for h in deal.hands for c in h] + played
    if deal.landlord is None:
        places += deal.kitty
    else:
        assert set(deal.kitty) <= set(deal.hands[deal.landlord]) | set(played)
    assert sorted(places) == list(range(DECK_SIZE))
    # Points: every deal and so the totals sum to zero.
    assert sum(match.totals) == 0
    for scores in match.deal_scores:
        assert sum(scores) == 0
    finished = match.deal_no if match.phase in ("between_deals", "over") else match.deal_no - 1
    assert len(match.deal_scores) == finished
    assert match.totals == [sum(scores[s] for scores in match.deal_scores) for s in SEATS]
    for ended in events_of(out, DealEnded):
        assert sum(ended.score.scores) == 0
    # The last turn announced is the seat the match waits for.
    turns = events_of(out, TurnStarted)
    if turns:
        assert turns[-1].seat == match.turn
    if match.phase in ("bidding", "playing"):
        assert match.deal.phase == match.phase


# --- a scripted table ------------------------------------------------------------------------


class Table:
    """A match driven one command at a time, at a clock the test moves, checked after every
    action. Every message sent is kept in ``log``."""

    def __init__(
        self,
        decks: Iterable[Sequence[int]] = (),
        config: MatchConfig = UNTIMED,
        first_bidder: int | None = 0,
        seed: int = 0,
        then_random: bool = False,
    ) -> None:
        self.rng = StackedDecks(decks, seed=seed, then_random=then_random)
        self.now = START
        self.match, self.started = Match.start(config, self.rng, self.now, first_bidder)
        self.log: list[Outgoing] = list(self.started)
        check_match(self.match, self.started)

    # commands

    def act(self, command: Command) -> list[Outgoing]:
        out = self.match.apply(command, self.now, self.rng)
        self.log.extend(out)
        check_match(self.match, out)
        return out

    def bid(self, seat: int, value: int) -> list[Outgoing]:
        return self.act(Bid(seat, value))

    def pass_(self, seat: int) -> list[Outgoing]:
        return self.act(Pass(seat))

    def play(self, seat: int, text: str) -> list[Outgoing]:
        return self.act(PlayCards(seat, ranks(text)))

    def timeout(self, seat: int) -> list[Outgoing]:
        """The seat's clock runs out: move to its deadline and time it out."""
        assert self.match.deadline is not None
        self.now = max(self.now, self.match.deadline)
        return self.act(Timeout(seat))

    def ready(self, seat: int) -> list[Outgoing]:
        return self.act(Ready(seat))

    def ready_timeout(self) -> list[Outgoing]:
        assert self.match.deadline is not None
        self.now = max(self.now, self.match.deadline)
        return self.act(ReadyTimeout())

    def resume(self, seat: int) -> list[Outgoing]:
        return self.act(Resume(seat))

    def all_ready(self) -> list[Outgoing]:
        out: list[Outgoing] = []
        for seat in SEATS:
            out += self.ready(seat)
        return out

    def refuse(self, command: Command, error: type[E]) -> E:
        """The command is refused with this error (and its code) and changes nothing."""
        before = self.match.to_data()
        with pytest.raises(error) as info:
            self.match.apply(command, self.now, self.rng)
        assert type(info.value) is error
        assert info.value.code == error.code
        assert self.match.to_data() == before
        return info.value

    def later(self, seconds: float) -> None:
        self.now += seconds

    # facts

    @property
    def turn(self) -> int | None:
        return self.match.turn

    @property
    def phase(self) -> str:
        return self.match.phase

    @property
    def counts(self) -> list[int]:
        return self.match.deal.card_counts

    def hand(self, seat: int) -> str:
        return text_of(self.match.deal.hands[seat])


# --- whole-deal scripts on the rigged layout --------------------------------------------------
# Each takes a table whose current deal was dealt with ``rigged_deck(landlord)`` and where
# ``landlord`` has just been chosen; each checks the turn and card counts after every action.


def farmers(landlord: int) -> tuple[int, int]:
    return (landlord + 1) % 3, (landlord + 2) % 3


def step(t: Table, seat: int, action: str, then: int | None) -> list[Outgoing]:
    """One action by ``seat`` (card text, or ``pass``); then ``then`` is on turn (None: the
    deal is over)."""
    assert t.turn == seat, f"expected seat {seat} on turn, not {t.turn}"
    before = list(t.counts)
    out = t.pass_(seat) if action == "pass" else t.play(seat, action)
    if action == "pass":
        assert t.counts == before
    else:
        before[seat] -= len(parse_cards(action))
        assert t.counts == before
        played = the_event(out, CardsPlayed)
        assert (played.seat, text_of(played.cards)) == (seat, format_cards(parse_cards(action)))
    if then is None:
        assert t.phase in ("between_deals", "over")
    else:
        assert t.turn == then
    return out


def landlord_springs(t: Table, landlord: int) -> DealEnded:
    """The landlord goes out with a straight, a bomb of 2s, the rocket and a pair while both
    farmers pass throughout: a spring with one bomb and one rocket."""
    f1, f2 = farmers(landlord)
    for cards in ("3-A", "2222", "SJ BJ"):
        step(t, landlord, cards, f1)
        step(t, f1, "pass", f2)
        step(t, f2, "pass", landlord)
    return the_event(step(t, landlord, "33", None), DealEnded)


def landlord_wins_plainly(t: Table, landlord: int) -> DealEnded:
    """The landlord wins with no bomb or rocket, and a farmer played once: no spring."""
    f1, f2 = farmers(landlord)
    step(t, landlord, "3", f1)
    step(t, f1, "4", f2)
    step(t, f2, "pass", landlord)
    step(t, landlord, "2", f1)
    step(t, f1, "pass", f2)
    step(t, f2, "pass", landlord)
    for cards in ("3-A", "2223", "SJ"):
        step(t, landlord, cards, f1)
        step(t, f1, "pass", f2)
        step(t, f2, "pass", landlord)
    return the_event(step(t, landlord, "BJ", None), DealEnded)


def landlord_wins_with_rocket_and_bomb(t: Table, landlord: int) -> DealEnded:
    """A farmer answers the opening lead (no spring); the landlord plays the rocket and a
    bomb of 2s and goes out."""
    f1, f2 = farmers(landlord)
    step(t, landlord, "3", f1)
    step(t, f1, "4", f2)
    step(t, f2, "pass", landlord)
    for cards in ("SJ BJ", "2222", "3-A"):
        step(t, landlord, cards, f1)
        step(t, f1, "pass", f2)
        step(t, f2, "pass", landlord)
    return the_event(step(t, landlord, "3", None), DealEnded)


def farmers_win_plainly(t: Table, landlord: int) -> DealEnded:
    """The landlord plays twice, then the high-triples farmer goes out: no anti-spring."""
    f1, f2 = farmers(landlord)
    step(t, landlord, "3", f1)
    step(t, f1, "4", f2)
    step(t, f2, "pass", landlord)
    step(t, landlord, "5", f1)
    step(t, f1, "pass", f2)
    step(t, f2, "9", landlord)
    step(t, landlord, "pass", f1)
    step(t, f1, "pass", f2)
    step(t, f2, "TTT JJJ QQQ KKK AAA", landlord)
    step(t, landlord, "pass", f1)
    step(t, f1, "pass", f2)
    return the_event(step(t, f2, "9", None), DealEnded)


def farmers_anti_spring(t: Table, landlord: int) -> DealEnded:
    """The landlord leads a 3 and never plays again; the high-triples farmer goes out."""
    f1, f2 = farmers(landlord)
    step(t, landlord, "3", f1)
    step(t, f1, "pass", f2)
    step(t, f2, "9", landlord)
    step(t, landlord, "pass", f1)
    step(t, f1, "pass", f2)
    step(t, f2, "TTT JJJ QQQ KKK AAA", landlord)
    step(t, landlord, "pass", f1)
    step(t, f1, "pass", f2)
    return the_event(step(t, f2, "9", None), DealEnded)


def choose_landlord(t: Table, landlord: int, base: int) -> LandlordChosen:
    """Bid so that ``landlord`` wins the bidding at ``base``: seats before it in turn order
    pass, it bids ``base``, the seats after it pass (unless ``base`` is 3)."""
    first = t.match.deal.first_bidder
    order = [(first + i) % 3 for i in range(3)]
    chosen: LandlordChosen | None = None
    for seat in order:
        if chosen is not None:
            break
        out = t.bid(seat, base) if seat == landlord else t.pass_(seat)
        found = events_of(out, LandlordChosen)
        if found:
            chosen = found[0]
    assert chosen is not None and chosen.seat == landlord and chosen.base == base
    return chosen


# --- random legal play -----------------------------------------------------------------------


def a_random_command(match: Match, rnd: random.Random, timed: bool) -> tuple[Command, float]:
    """A random command the match accepts, and how many seconds pass before it is sent."""
    if match.phase == "between_deals":
        if timed and rnd.random() < 0.3:
            assert match.deadline is not None
            return ReadyTimeout(), float(match.config.ready_timeout or 0)
        return Ready(rnd.choice([s for s in SEATS if not match.ready[s]])), 1.0
    seat = match.turn
    assert seat is not None
    if timed and rnd.random() < 0.1:
        clock = match.config.bid_timeout if match.phase == "bidding" else match.config.play_timeout
        return Timeout(seat), float(clock or 0)
    if timed and match.bot_control[seat] and not match.resume_pending[seat] and rnd.random() < 0.5:
        return Resume(seat), 0.5
    deal = match.deal
    if match.phase == "bidding":
        options: list[Command] = [Bid(seat, b) for b in range(deal.highest_bid + 1, 4)]
        if deal.may_pass:
            options += [Pass(seat)] * 3
        return rnd.choice(options), 1.0
    plays = legal_plays(deal.hand_ranks(seat), deal.table_play)
    if deal.may_pass and (not plays or rnd.random() < 0.3):
        return Pass(seat), 1.0
    return PlayCards(seat, rnd.choice(plays).cards), 1.0


def random_match(
    seed: int, config: MatchConfig
) -> Iterator[tuple[Match, Command | None, list[Outgoing]]]:
    """Play a whole match with random legal commands: yields the match after each command,
    the command (None for the start) and the messages it sent."""
    rnd = random.Random(seed)
    rng = random.Random(seed + 1)
    now = START
    first = rnd.choice([None, 0, 1, 2])
    match, out = Match.start(config, rng, now, first)
    yield match, None, out
    timed = config.bid_timeout is not None
    for _ in range(10_000):
        if match.phase == "over":
            return
        command, wait = a_random_command(match, rnd, timed)
        now += wait
        out = match.apply(command, now, rng)
        yield match, command, out
    raise AssertionError("the match did not end")
