"""Helpers for the bot tests: drive a whole match with bots, and build a seat's view from
card text."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from protocol.cards import Rank, parse_cards
from protocol.events import TablePlay, TableView, TurnStarted
from protocol.messages import BidRequest, PassRequest, PlayRequest, ReadyRequest, Request
from protocol.plays import classify
from server.bots.base import BotPolicy, decide, policy_for
from server.game.commands import Bid, Command, Pass, PlayCards, Ready
from server.game.match import Match, MatchConfig

NOW = 1000.0


def command_for(seat: int, request: Request) -> Command:
    """The game command a bot's request becomes, as the server turns it."""
    if isinstance(request, BidRequest):
        return Bid(seat, request.value)
    if isinstance(request, PassRequest):
        return Pass(seat)
    if isinstance(request, PlayRequest):
        return PlayCards(seat, tuple(Rank(r) for r in request.ranks))
    if isinstance(request, ReadyRequest):
        return Ready(seat)
    raise AssertionError(f"a bot sent {request!r}")


def run_match(
    policies: Sequence[BotPolicy],
    deals: int,
    seed: int,
    on_request: Callable[[int, TableView, Request], None] | None = None,
) -> tuple[Match, list[tuple[int, Command]]]:
    """Play a whole match, each seat's bot deciding from ``match.view_for(seat)``; every
    request must be accepted (``Match.apply`` raises on a refused one). Returns the match and
    every command in order."""
    rng = random.Random(seed)
    match, _ = Match.start(MatchConfig(deals=deals), rng, NOW)
    commands: list[tuple[int, Command]] = []
    steps = 0
    while match.phase != "over":
        steps += 1
        assert steps < 5000 * deals, "the match does not move on"
        acted = False
        for seat in range(3):
            view = match.view_for(seat, NOW)
            request = decide(policies[seat], view)
            if request is None:
                continue
            if on_request is not None:
                on_request(seat, view, request)
            command = command_for(seat, request)
            match.apply(command, NOW, rng)
            commands.append((seat, command))
            acted = True
            break
        assert acted, "no seat acted"
    return match, commands


class CardIds:
    """Hands out distinct physical card ids for ranks, as a deck would."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def take(self, text: str) -> list[int]:
        ids: list[int] = []
        for rank in parse_cards(text):
            base = 52 if rank is Rank.SMALL_JOKER else 53 if rank is Rank.BIG_JOKER else None
            choices = [base] if base is not None else [rank.index * 4 + k for k in range(4)]
            card = next(c for c in choices if c not in self.used)
            self.used.add(card)
            ids.append(card)
        return ids


def play_view(
    seat: int,
    hand: str,
    landlord: int,
    card_counts: Sequence[int],
    history: Sequence[tuple[int, str]] = (),
    table: tuple[int, str] | None = None,
) -> TableView:
    """A playing-phase view for ``seat``: its hand, earlier plays (``history``) and the play
    to beat (``table``, also the last play of the history), card counts as given."""
    ids = CardIds()
    own = ids.take(hand)
    plays = [TablePlay(seat=s, cards=ids.take(t), kind=_kind(t)) for s, t in history]
    last = None
    if table is not None:
        last = TablePlay(seat=table[0], cards=ids.take(table[1]), kind=_kind(table[1]))
        plays.append(last)
    return TableView(
        viewer_seat=seat,
        phase="playing",
        deal_no=1,
        deals_total=1,
        hand=own,
        card_counts=list(card_counts),
        first_bidder=0,
        forced_bid=False,
        bids=[[landlord, 1]],
        landlord=landlord,
        base=1,
        kitty=None,
        plays=plays,
        passes=[],
        last_play=last,
        passes_in_row=0,
        turn=TurnStarted(
            seat=seat,
            action="play",
            may_pass=last is not None,
            deadline=None,
            server_time=NOW,
            version=1,
        ),
        multiplier=1,
        totals=[0, 0, 0],
        deal_scores=[],
        last_deal=None,
        ready=[False, False, False],
        bot_control=[False, False, False],
        winners=None,
        version=1,
    )


def _kind(text: str) -> str:
    play = classify(parse_cards(text))
    assert play is not None, text
    return play.kind.value


def bot(level: str, rng: random.Random | None = None) -> BotPolicy:
    """The policy of a level for tests: the strong bot searches a fixed small number of
    sampled worlds instead of its 1 s budget, so it is quick and a function of its seed and
    the view (a wall-clock budget would make it neither). Three worlds still take both of
    its ways to value a candidate (a playout, the exact endgame solver) and its paired
    choice against the default (two worlds or more); six took twice the time of the bot
    tests for the same paths (issue 31)."""
    if level == "strong":
        from server.bots.strong import StrongBot

        seed = None if rng is None else rng.randrange(2**31)
        return StrongBot(budget=None, iterations=3, seed=seed, bid_rollouts=20)
    return policy_for(level, rng)
