"""The strong bot: legal in whole matches, reproducible with a seed, a function of its own
view only, sharp in the end game, and within its time budget."""

from __future__ import annotations

import random

import pytest

from protocol.cards import Rank, parse_cards
from protocol.events import TableView
from protocol.messages import Request
from server.bots import strong
from server.bots.normal import NormalBot
from server.bots.strong import StrongBot
from server.game.deal import Deal
from server.game.match import Match, MatchConfig
from tests.server.bots.helpers import NOW, play_view, run_match


def fast(seed: int = 1) -> StrongBot:
    """A strong bot that counts worlds instead of seconds, few of them: quick and
    reproducible."""
    return StrongBot(budget=None, iterations=4, seed=seed, bid_rollouts=30)


@pytest.mark.parametrize("seed", range(3))
def test_strong_bots_play_only_legal_moves_against_normal_bots(seed: int) -> None:
    # run_match applies every request to the real match: a refused one raises.
    match, commands = run_match([fast(seed), NormalBot(), NormalBot()], deals=3, seed=seed)
    assert match.phase == "over"
    assert len(commands) > 30


def test_three_strong_bots_finish_a_match() -> None:
    match, _ = run_match([fast(1), fast(2), fast(3)], deals=1, seed=7)
    assert match.phase == "over"


def test_a_seed_makes_a_match_reproducible() -> None:
    def commands(seed: int) -> list[object]:
        _, done = run_match([fast(seed), NormalBot(), fast(seed + 1)], deals=1, seed=11)
        return [c for _, c in done]

    assert commands(5) == commands(5)


def test_the_same_view_gets_the_same_decision_with_a_seed() -> None:
    view = play_view(
        seat=1,
        hand="33 4 5 6 7 88 99 10 J Q K A 22",
        landlord=0,
        card_counts=[19, 17, 17],
        table=(0, "8"),
    )
    first = StrongBot(budget=None, iterations=40, seed=9).play(view)
    again = StrongBot(budget=None, iterations=40, seed=9).play(view)
    copied = TableView.model_validate(view.model_dump())
    assert first == again == StrongBot(budget=None, iterations=40, seed=9).play(copied)


def _deal(hands: list[list[int]], kitty: list[int]) -> Match:
    """Seat 0 is landlord (bid 1, others pass) with these hands and kitty."""
    deal = Deal(first_bidder=0, forced_bid=False, hands=hands, kitty=kitty, turn=0)
    deal.bid(0, 1, version=1)
    deal.bid(1, 0, version=2)
    deal.bid(2, 0, version=3)
    return Match(config=MatchConfig(deals=1), deal=deal, phase="playing", version=3)


def test_decisions_depend_on_the_view_only_not_on_the_hidden_hands() -> None:
    # Two deals that differ only in how the hidden cards sit between seats 1 and 2 give
    # seat 0 the same view, so the same decision; the view carries no hidden card.
    rng = random.Random(4)
    deck = list(range(54))
    rng.shuffle(deck)
    hands = [sorted(deck[:17]), sorted(deck[17:34]), sorted(deck[34:51])]
    kitty = sorted(deck[51:])
    swapped = [hands[0], sorted(hands[1][:8] + hands[2][8:]), sorted(hands[2][:8] + hands[1][8:])]
    views = []
    for layout in (hands, swapped):
        view = _deal([list(h) for h in layout], list(kitty)).view_for(0, NOW)
        assert view.hand is not None and set(view.hand).isdisjoint(layout[1] + layout[2])
        views.append(view)
    assert views[0] == views[1]
    bot = StrongBot(budget=None, iterations=20, seed=3)
    assert bot.play(views[0]) == StrongBot(budget=None, iterations=20, seed=3).play(views[1])


def test_it_goes_out_when_it_can() -> None:
    # (Card counts need only add up with the unseen cards here.)
    lead = play_view(seat=0, hand="3 4 5 6 7", landlord=0, card_counts=[5, 24, 25])
    bot = StrongBot(budget=None, iterations=4, seed=1)
    assert bot.play(lead) == tuple(parse_cards("3 4 5 6 7"))
    answer = play_view(
        seat=0, hand="4 5 6 7 8", landlord=0, card_counts=[5, 22, 22], table=(2, "3 4 5 6 7")
    )
    assert bot.play(answer) == tuple(parse_cards("4 5 6 7 8"))


def test_it_finds_the_forced_win_bomb_first() -> None:
    # The landlord holds a bomb and a 3; the farmers hold K, A, A (one card and two) and
    # no bomb. The 3 led first is beaten by the farmer with one card, who goes out; the
    # bomb first keeps the lead, and the 3 then goes out.
    history = [
        (1, "333"),
        (2, "5555"),
        (1, "6666"),
        (2, "7777"),
        (1, "8888"),
        (2, "9999"),
        (1, "10 10 10 10"),
        (2, "JJJJ"),
        (1, "QQQQ"),
        (2, "KKK"),
        (1, "AA"),
        (2, "2222"),
        (1, "SJ BJ"),
    ]
    view = play_view(seat=0, hand="4444 3", landlord=0, card_counts=[5, 1, 2], history=history)
    bot = StrongBot(budget=None, iterations=10, seed=2)
    choice = bot.play(view)
    assert choice == (Rank.FOUR,) * 4
    # Every candidate in every sampled world was solved exactly (protocol.solver), not
    # played out by rollouts.
    assert bot.stats.worlds > 0
    assert bot.stats.solved >= bot.stats.worlds * 2


def test_the_time_budget_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search stops when its budget is spent. Time here is a clock that moves a
    millisecond at every look, so the test does not depend on how fast the machine is."""
    views: list[TableView] = []

    def keep(seat: int, view: TableView, request: Request) -> None:
        if seat == 0 and view.turn is not None and view.turn.action == "play":
            views.append(view)

    run_match([NormalBot(), NormalBot(), NormalBot()], deals=1, seed=3, on_request=keep)
    now = [1000.0]

    def clock() -> float:
        now[0] += 0.001
        return now[0]

    monkeypatch.setattr(strong.time, "monotonic", clock)
    bot = StrongBot(budget=0.2, seed=1)
    searched = 0
    for view in views[:8]:
        bot.play(view)
        assert bot.stats.seconds <= 0.2
        searched += bot.stats.worlds > 0
    assert searched > 0  # some decisions did search (others had one choice)


@pytest.mark.parametrize("policy", ["club", "greedy"])
def test_rollouts_play_legal_deals_to_the_end(policy: str) -> None:
    from protocol.legal import legal_plays_from_counts
    from server.bots.sim import counts_of, playout
    from server.bots.strong import ROLLOUTS

    rng = random.Random(8)
    deck = [i for i in range(13) for _ in range(4)] + [13, 14]
    chosen = ROLLOUTS[policy]
    for _ in range(30):
        rng.shuffle(deck)
        hands = [counts_of(deck[:20]), counts_of(deck[20:37]), counts_of(deck[37:])]
        sizes = [20, 17, 17]
        # Each move the policy makes is one of the legal moves.
        move = chosen(hands, sizes, 0, 0, None, 0)
        assert move is not None and move in legal_plays_from_counts(hands[0], None)
        won, doublings = playout(hands, 0, 0, None, 0, [0, 0, 0], chosen)
        assert min(min(h) for h in hands) >= 0
        assert (sum(hands[0]) == 0) == won
        assert doublings >= 0
