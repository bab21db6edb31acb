"""The table panel and the event lines read right."""

from __future__ import annotations

from client.commands import Verdict
from client.render import (
    WARN,
    card_fragments,
    describe_last_play,
    event_lines,
    plain,
    table_panel,
    turn_line,
)
from client.table import TableState
from protocol.events import (
    BidMade,
    CardsPlayed,
    DealEnded,
    MatchEnded,
    Passed,
    ScoreBreakdown,
    SeatControl,
    TurnStarted,
)
from protocol.messages import SeatsChanged
from tests.client.helpers import bidding_done, card, room, run, seats, started, turn


def lines(before: TableState, message: object) -> list[str]:
    after = before.apply(message)  # type: ignore[arg-type]
    return [plain(line) for line in event_lines(before, after, message)]  # type: ignore[arg-type]


def test_cards_show_suits_sorted() -> None:
    assert plain(card_fragments([53, card(3, 1), card(10, 2), 52])) == "♥3 ♣10 SJ BJ"


def test_event_lines_name_the_seats() -> None:
    state = run(TableState.from_room(room()), started(), turn(0, 0))
    assert lines(state, BidMade(seat=0, bid=2, highest=2)) == ["me (you): bids 2"]
    state = bidding_done(TableState.from_room(room()), landlord=1)
    played = CardsPlayed(
        seat=1,
        cards=[card(9, s) for s in range(4)],
        kind="bomb",
        rank=9,
        card_counts=[17, 2, 17],
        multiplier=2,
    )
    (line,) = lines(state, played)
    assert line.startswith("bot 1: ♠9 ♥9 ♣9 ♦9  BOMB")
    assert "×2" in line and "2 cards left!" in line
    state = state.apply(played)
    assert describe_last_play(state) == "bot 1: BOMB 9999"
    (line,) = lines(state, Passed(seat=2, trick_over=False, leader=None))
    assert line == "bot 2: pass"


def test_my_turn_is_announced_once() -> None:
    state = run(TableState.from_room(room()), started())
    assert lines(state, turn(0, 0)) == ["» your turn to bid"]
    assert lines(state, turn(1, 0)) == []


def test_takeover_tells_me_how_to_resume() -> None:
    state = bidding_done(TableState.from_room(room()))
    (line,) = lines(state, SeatControl(seat=0, bot=True, reason="timeouts"))
    assert "resume" in line


def test_deal_summary_shows_every_hand_and_total() -> None:
    state = bidding_done(TableState.from_room(room()))
    ended = DealEnded(
        deal_no=1,
        landlord=0,
        winner="farmers",
        hands=[[card(3)], [], [card(4), card(5)]],
        score=ScoreBreakdown(
            base=3,
            bombs=1,
            rockets=0,
            spring=False,
            anti_spring=True,
            multiplier=4,
            scores=[-24, 12, 12],
        ),
        totals=[-24, 12, 12],
    )
    text = "\n".join(lines(state, ended))
    assert "the farmers win" in text and "anti-spring" in text and "1 bomb" in text
    assert "-24" in text and "+12" in text and "out" in text and "♠4 ♠5" in text
    state = state.apply(ended)
    (line,) = lines(state, MatchEnded(totals=[-24, 12, 12], winners=[1, 2], deal_scores=[]))
    assert "bot 1, bot 2 win" in line


def test_the_panel_shows_counts_of_two_or_one_in_red() -> None:
    state = bidding_done(TableState.from_room(room()), landlord=1)
    state = state.apply(
        CardsPlayed(
            seat=2,
            cards=[card(r) for r in range(3, 8)],
            kind="straight",
            rank=3,
            card_counts=[17, 20, 1],
            multiplier=1,
        )
    )
    panel = table_panel(state, 0.0, Verdict("ok", "pair 55 leads"))
    assert (WARN, "   1 card ") in panel
    text = plain(panel)
    assert "LANDLORD" in text and "kitty" in text and "hand" in text
    assert "bot 2: " in text and "straight" in text and "✓ pair 55 leads" in text


def test_turn_line_counts_down() -> None:
    state = run(TableState.from_room(room()), started())
    timed = TurnStarted(
        seat=0, action="play", may_pass=False, deadline=120.0, server_time=100.0, version=3
    )
    state = state.apply(timed, now=10.0)
    assert plain(turn_line(state, 12.0)) == "your turn to play (you lead)  18s left"


def test_before_the_match_the_panel_shows_who_is_ready() -> None:
    state = TableState.from_room(room(mode="private"))
    state = state.apply(SeatsChanged(seats=seats("me", "bot", "empty"), watchers=1))
    text = plain(table_panel(state, 0.0))
    assert "not ready" in text and "(empty)" in text and "1 watching" in text
    assert "waiting for 1 more player" in text
