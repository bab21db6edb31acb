"""What each seat and each spectator may know (SPEC sections 7 and 9): its own hand only, the
kitty once shown, and never a hidden card in any message or view."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from protocol import events
from protocol.events import (
    CardsPlayed,
    DealEnded,
    DealStarted,
    LandlordChosen,
    Message,
    TableView,
)
from server.game.match import EVERYONE, WATCHERS, Match, MatchConfig, Outgoing
from tests.server.game.helpers import (
    SEATS,
    TIMED,
    Table,
    assert_sent_to,
    audiences_of,
    choose_landlord,
    events_of,
    landlord_springs,
    random_match,
    reaches,
    rigged_deck,
    step,
)

VIEWERS: tuple[int | None, ...] = (0, 1, 2, None)

#: Fields of messages and views that hold physical card ids.
CARD_FIELDS = frozenset({"hand", "kitty", "cards", "hands"})
#: Fields typed like card ids (lists of ints) that hold something else.
NUMBER_LIST_FIELDS = frozenset(
    {"card_counts", "scores", "totals", "deal_scores", "bids", "winners", "passes"}
)


def card_ids_in(value: Any, field: str | None = None) -> Iterator[tuple[str, int]]:
    """Every (field, card id) in a dumped message: the ints under a card field."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from card_ids_in(item, key if key in CARD_FIELDS else field)
    elif isinstance(value, list):
        for item in value:
            yield from card_ids_in(item, field)
    elif isinstance(value, int) and not isinstance(value, bool) and field is not None:
        yield field, value


def hidden_from(match: Match, viewer: int | None) -> set[int]:
    """The cards ``viewer`` may not know now: the other seats' hands, and the kitty until
    it is shown."""
    deal = match.deal
    hidden = {c for seat in SEATS if seat != viewer for c in deal.hands[seat]}
    if deal.landlord is None:
        hidden |= set(deal.kitty)
    return hidden


def check_no_leak(match: Match, out: list[Outgoing]) -> None:
    """No message reaches a viewer with a card it may not know. Cards that have just become
    public are exempt: the kitty in LandlordChosen, the cards in CardsPlayed (which have left
    the hand) and the remaining hands in DealEnded."""
    deal = match.deal
    for audience, msg in out:
        if isinstance(msg, DealEnded):
            assert audience == EVERYONE
            assert msg.hands == [list(h) for h in deal.hands]
            continue
        if isinstance(msg, LandlordChosen):
            assert audience == EVERYONE
            assert msg.kitty == sorted(deal.kitty)
            continue
        if isinstance(msg, CardsPlayed):
            assert audience == EVERYONE
            assert deal.plays, "cards played before any play"
            assert msg.cards == deal.plays[-1]["cards"]
            assert not set(msg.cards) & {c for h in deal.hands for c in h}
            continue
        if isinstance(msg, DealStarted):
            assert audience != EVERYONE
            if audience == WATCHERS:
                assert msg.hand is None
            else:
                assert isinstance(audience, int)
                assert msg.hand == deal.hands[audience]
        seen = [card for _, card in card_ids_in(msg.model_dump())]
        for viewer in VIEWERS:
            if reaches(audience, viewer):
                leaked = set(seen) & hidden_from(match, viewer)
                assert not leaked, f"{msg!r} to {audience!r} shows {viewer!r} cards {leaked}"


def check_views(match: Match, now: float) -> None:
    """Each seat's view holds its own hand and nothing hidden; the spectator's holds no
    hand. Played cards, a shown kitty and the last deal's summary are public."""
    deal = match.deal
    for viewer in VIEWERS:
        view = match.view_for(viewer, now)
        assert view.viewer_seat == viewer
        assert view.card_counts == deal.card_counts
        if viewer is None:
            assert view.hand is None
        else:
            assert view.hand == deal.hands[viewer]
        if deal.landlord is None:
            assert view.kitty is None
        data = view.model_dump()
        data.pop("hand")
        data.pop("last_deal")  # the previous deal's summary: public when it was sent
        if view.kitty is not None:
            assert view.kitty == sorted(deal.kitty)
            data.pop("kitty")
        for _, card in card_ids_in(data.pop("plays")):
            assert card not in {c for h in deal.hands for c in h}
        data.pop("last_play")
        leaked = {card for _, card in card_ids_in(data)} & hidden_from(match, viewer)
        assert not leaked


# --- the card fields are the ones this file checks ------------------------------------------


def message_classes() -> list[type[BaseModel]]:
    return [
        cls
        for cls in vars(events).values()
        if isinstance(cls, type) and issubclass(cls, BaseModel) and cls is not Message
    ]


def holds_int_lists(annotation: Any) -> bool:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is list:
        return args == (int,) or any(holds_int_lists(a) for a in args)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return any(holds_int_lists(a) for a in args)
    return False


def test_every_list_of_ints_in_a_message_is_a_known_card_field_or_a_known_number_field() -> None:
    found = {
        name
        for cls in message_classes()
        for name, info in cls.model_fields.items()
        if holds_int_lists(info.annotation)
    }
    assert found <= CARD_FIELDS | NUMBER_LIST_FIELDS, found - CARD_FIELDS - NUMBER_LIST_FIELDS
    assert {"hand", "kitty", "cards", "hands"} <= found


# --- views ------------------------------------------------------------------------------------


def test_a_seats_view_holds_its_own_hand_only_and_a_spectators_view_no_hand() -> None:
    deck = rigged_deck(0)
    t = Table([deck])
    for seat in SEATS:
        view = t.match.view_for(seat, t.now)
        assert view.hand == sorted(deck[17 * seat : 17 * (seat + 1)])
        assert view.card_counts == [17, 17, 17]
    spectator = t.match.view_for(None, t.now)
    assert spectator.hand is None
    assert spectator.viewer_seat is None
    check_views(t.match, t.now)


def test_the_kitty_is_hidden_in_every_view_while_bidding_and_shown_after() -> None:
    deck = rigged_deck(1)
    t = Table([deck], first_bidder=0)
    t.bid(0, 1)
    for viewer in VIEWERS:
        assert t.match.view_for(viewer, t.now).kitty is None
    t.bid(1, 2)
    t.pass_(2)
    for viewer in VIEWERS:
        view = t.match.view_for(viewer, t.now)
        assert view.kitty == sorted(deck[51:54])
        assert view.landlord == 1
        assert view.card_counts == [17, 20, 17]
    assert len(t.match.view_for(1, t.now).hand or []) == 20
    check_views(t.match, t.now)


def test_the_kitty_stays_shown_after_the_deal_ends() -> None:
    deck = rigged_deck(0)
    t = Table([deck, rigged_deck(1)], config=MatchConfig(deals=3))
    choose_landlord(t, 0, 3)
    landlord_springs(t, 0)
    view = t.match.view_for(None, t.now)
    assert view.phase == "between_deals"
    assert view.kitty == sorted(deck[51:54])
    assert view.last_deal is not None and view.last_deal.hands[0] == []
    t.all_ready()
    assert t.match.view_for(None, t.now).kitty is None


def test_between_deals_a_view_says_who_is_ready_and_when_the_next_deal_starts() -> None:
    """A viewer who comes back between deals sees the Ready countdown too, as the last
    AwaitingReady said it; no other phase has one."""
    config = MatchConfig(deals=3, bid_timeout=15, play_timeout=20, ready_timeout=10)
    t = Table([rigged_deck(0), rigged_deck(1)], config=config, first_bidder=0)
    assert t.match.view_for(0, t.now).awaiting is None  # bidding: a turn, not a wait
    choose_landlord(t, 0, 3)
    landlord_springs(t, 0)
    for viewer in VIEWERS:
        awaiting = t.match.view_for(viewer, t.now).awaiting
        assert awaiting is not None and awaiting.deadline == t.match.deadline
        assert awaiting.ready == t.match.ready and awaiting.server_time == t.now
    t.all_ready()
    assert t.match.view_for(0, t.now).awaiting is None


def test_deal_started_gives_each_seat_its_own_hand_and_the_watchers_none() -> None:
    deck = rigged_deck(2)
    t = Table([deck], first_bidder=1)
    assert audiences_of(t.started, DealStarted) == [0, 1, 2, WATCHERS]
    for seat in SEATS:
        started = assert_sent_to(t.started, seat, DealStarted)
        assert started.hand == sorted(deck[17 * seat : 17 * (seat + 1)])
    assert assert_sent_to(t.started, WATCHERS, DealStarted).hand is None
    check_no_leak(t.match, t.started)


def test_played_cards_and_the_shown_kitty_appear_in_the_spectators_view() -> None:
    deck = rigged_deck(0)
    t = Table([deck])
    choose_landlord(t, 0, 3)
    out = step(t, 0, "3-A", 1)
    played = events_of(out, CardsPlayed)[0]
    view = t.match.view_for(None, t.now)
    assert view.last_play is not None and view.last_play.cards == played.cards
    assert [p.cards for p in view.plays] == [played.cards]
    assert view.card_counts == [8, 17, 17]
    check_views(t.match, t.now)


def test_the_view_reports_the_turn_clock_and_the_takeovers() -> None:
    t = Table([rigged_deck(0)], config=TIMED)
    view: TableView = t.match.view_for(2, t.now + 3)
    assert view.turn is not None
    assert (view.turn.seat, view.turn.deadline, view.turn.server_time) == (
        0,
        t.now + 15,
        t.now + 3,
    )
    t.timeout(0)
    t.timeout(1)
    assert t.match.view_for(None, t.now).bot_control == [False, False, False]


# --- no hidden card, ever ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        MatchConfig(deals=3),
        MatchConfig(deals=3, bid_timeout=15, play_timeout=20, ready_timeout=10),
        MatchConfig(deals=1, bid_timeout=15, play_timeout=20, ready_timeout=10),
    ],
    ids=["untimed", "timed", "timed-1-deal"],
)
def test_no_message_or_view_of_a_random_match_shows_anyone_a_card_they_may_not_see(
    config: MatchConfig,
) -> None:
    now = 0.0
    for seed in range(12):
        for match, _, out in random_match(seed * 7 + config.deals, config):
            check_no_leak(match, out)
            check_views(match, now)
        assert match.phase == "over"


def test_the_leak_check_itself_catches_a_hidden_card() -> None:
    t = Table([rigged_deck(0)])
    deal = t.match.deal
    wrong_hand = DealStarted(
        deal_no=1,
        deals_total=1,
        first_bidder=0,
        forced_bid=False,
        hand=deal.hands[0],
        card_counts=[17, 17, 17],
    )
    with pytest.raises(AssertionError):
        check_no_leak(t.match, [(1, wrong_hand)])
    with pytest.raises(AssertionError):
        check_no_leak(t.match, [(WATCHERS, wrong_hand)])
    kitty_early = CardsPlayed(
        seat=0,
        cards=deal.kitty,
        kind="triple",
        rank=3,
        card_counts=[17, 17, 17],
        multiplier=1,
        version=t.match.version,
    )
    with pytest.raises(AssertionError):
        check_no_leak(t.match, [(EVERYONE, kitty_early)])
