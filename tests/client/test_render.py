"""The table panel and the event lines read right."""

from __future__ import annotations

from dataclasses import replace

import pytest
from prompt_toolkit.utils import get_cwidth

from client.commands import Verdict
from client.render import (
    WARN,
    card_fragments,
    describe_last_play,
    event_lines,
    plain,
    room_summary_line,
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
from protocol.messages import Paused, Resumed, RoomSummary, SeatsChanged, SeatView, Snapshot
from tests.client.helpers import bidding_done, card, room, run, seats, started, turn


def lines(before: TableState, message: object) -> list[str]:
    after = before.apply(message)  # type: ignore[arg-type]
    return [plain(line) for line in event_lines(before, after, message)]  # type: ignore[arg-type]


def test_cards_show_suits_sorted() -> None:
    assert plain(card_fragments([53, card(3, 1), card(10, 2), 52])) == "♥3 ♣10 SJ BJ"


def test_event_lines_name_the_seats() -> None:
    state = run(TableState.from_room(room()), started(), turn(0, 0))
    assert lines(state, BidMade(seat=0, bid=2, highest=2, version=1)) == ["me (you): bids 2"]
    state = bidding_done(TableState.from_room(room()), landlord=1)
    played = CardsPlayed(
        seat=1,
        cards=[card(9, s) for s in range(4)],
        kind="bomb",
        rank=9,
        card_counts=[17, 2, 17],
        multiplier=2,
        version=3,
    )
    (line,) = lines(state, played)
    assert line.startswith("bot 1: ♠9 ♥9 ♣9 ♦9  BOMB")
    assert "×2" in line and "2 cards left!" in line
    state = state.apply(played)
    assert describe_last_play(state) == "bot 1: BOMB 9999"
    (line,) = lines(state, Passed(seat=2, trick_over=False, leader=None, version=4))
    assert line == "bot 2: pass"


def test_my_turn_is_announced_once() -> None:
    state = run(TableState.from_room(room()), started())
    assert lines(state, turn(0, 0)) == ["» your turn to bid"]
    assert lines(state, turn(1, 0)) == []


def test_takeover_tells_me_how_to_resume() -> None:
    state = bidding_done(TableState.from_room(room()))
    (line,) = lines(state, SeatControl(seat=0, bot=True, reason="timeouts", version=2))
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
            version=3,
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


# --- issue 14: the rough edges a new player hits, and what every popular table has ----------


def _strong_practice() -> TableState:
    view = room()
    bots = [
        s.model_copy(update={"level": "strong", "name": f"strong bot {i}"})
        for i, s in enumerate(view.seats)
    ]
    bots[0] = view.seats[0]
    return TableState.from_room(view.model_copy(update={"seats": bots}))


def test_the_header_names_the_bots_level_and_their_speed_apart() -> None:
    # Was "bots normal": the speed, read as the level (`ddz practice --level strong`).
    head = plain(table_panel(_strong_practice(), 0.0)).splitlines()[0]
    assert "strong bots, speed normal" in head
    assert "bots normal" not in head


def test_a_public_room_is_announced_as_public() -> None:
    # `create 3 public` printed "(private, 3 deals)".
    public = TableState.from_room(room(mode="private").model_copy(update={"code": "D33BE"}))
    snapshot = Snapshot(room=public.room)
    text = "\n".join(plain(x) for x in event_lines(public, public, snapshot))
    assert "public" in text and "private" not in text
    private = TableState.from_room(room(mode="private").model_copy(update={"code": LONG_CODE}))
    text = "\n".join(plain(x) for x in event_lines(private, private, Snapshot(room=private.room)))
    assert "private" in text and "public" not in text
    assert "public" in plain(table_panel(public, 0.0)).splitlines()[0]


LONG_CODE = "K7P2Q-M4XTR"


@pytest.mark.parametrize(("room_code", "kind"), [("D33BE", "public"), (LONG_CODE, "private")])
@pytest.mark.parametrize("viewer", ["creator", "joiner", "watcher", "resumed"])
def test_every_viewer_sees_whether_a_room_is_public(room_code: str, kind: str, viewer: str) -> None:
    # "public" showed in the creator's header only: a joiner's and a resumed client's said
    # nothing, a watcher's "watching room D33BE (private)".
    seat = {"creator": 0, "joiner": 1, "watcher": None, "resumed": 0}[viewer]
    view = room(your_seat=seat, mode="private").model_copy(update={"code": room_code})
    state = TableState.from_room(view)
    if viewer == "resumed":  # a restarted client: its first picture is the server's snapshot
        state = TableState.from_snapshot(Snapshot(room=view))
    lines = [plain(x) for x in event_lines(state, state, Snapshot(room=view))]
    head = plain(table_panel(state, 0.0)).splitlines()[0]
    other = "private" if kind == "public" else "public"
    assert f" · {kind} · " in head and other not in head
    assert f"({kind}" in lines[0] and other not in lines[0]


def test_the_room_list_says_public() -> None:
    # `ddz list` said "private" of a public room (only public rooms are listed).
    listed = RoomSummary(
        code="D33BE", mode="private", deals=3, deal_no=0, seats=["cat", "", ""], watchers=0
    )
    assert plain(room_summary_line(listed)).split()[1] == "public"


def test_a_joiner_is_told_to_type_ready() -> None:
    # Joiners saw "waiting for everyone to be ready" and nothing about `ready`.
    view = room(your_seat=1, mode="private")
    full = [
        SeatView(kind="person", name="host", connected=True, ready=True),
        SeatView(kind="person", name="me", connected=True),
        SeatView(kind="bot", name="normal bot 2", level="normal", connected=True, ready=True),
    ]
    state = TableState.from_room(view.model_copy(update={"seats": full}))
    line = plain(turn_line(state, 0.0))
    assert "type ready" in line and "Enter" in line
    full[1] = full[1].model_copy(update={"ready": True})
    full[0] = full[0].model_copy(update={"ready": False})
    state = TableState.from_room(view.model_copy(update={"seats": full}))
    assert plain(turn_line(state, 0.0)) == "waiting for host to be ready"


def _long_room(my_seat: int) -> TableState:
    """A private room with a long code, long names, one seat empty, the host ready."""
    seats = [
        SeatView(kind="person", name="host-with-a-long-name-24", connected=True, ready=True),
        SeatView(kind="person", name="joiner-with-a-long-name", connected=True),
        SeatView(kind="empty"),
    ]
    update = {"seats": seats, "code": LONG_CODE, "watchers": 12}
    return TableState.from_room(room(your_seat=my_seat, mode="private").model_copy(update=update))


def panel_widths(state: TableState, now: float = 0.0) -> list[int]:
    return [get_cwidth(line) for line in plain(table_panel(state, now)).splitlines()]


def test_the_joiners_status_fits_80_columns() -> None:
    # The joiner's line "waiting for 1 more player(s); code K7P2Q-M4XTR · type ready (or
    # press Enter) when you are" was 89 columns: cut at 80.
    joiner = _long_room(my_seat=1)
    assert max(panel_widths(joiner)) <= 80
    text = plain(table_panel(joiner, 0.0))
    assert "waiting for 1 more player(s); code K7P2Q-M4XTR" in text
    assert "type ready (or press Enter) when you are" in text


def test_the_ready_creator_is_not_told_to_ready() -> None:
    # The creator, readied by ddz as the room opened, was told "start with: ready".
    creator = _long_room(my_seat=0)
    lines = [plain(x) for x in event_lines(creator, creator, Snapshot(room=creator.room))]
    assert "seat bots with: bot [LEVEL]" in "\n".join(lines)
    assert "ready" not in "\n".join(lines) and "ready" not in plain(turn_line(creator, 0.0))


def test_a_long_header_wraps_between_its_parts() -> None:
    state = bidding_done(TableState.from_room(room(mode="private")))
    seats = list(state.room.seats)
    seats[1] = seats[1].model_copy(update={"level": "strong"})
    seats[2] = seats[2].model_copy(update={"level": "normal"})
    update = {"seats": seats, "code": LONG_CODE, "watchers": 200}
    state = replace(state, room=state.room.model_copy(update=update))
    assert max(panel_widths(state)) <= 80
    head = plain(table_panel(state, 0.0)).split("\n")[:2]
    assert head[0].startswith(f"room {LONG_CODE} · private · deal 1/3")
    assert head[1] == "normal and strong bots, speed normal · 200 watching"


def test_a_seat_that_plays_its_last_cards_is_out_not_0_cards_left() -> None:
    state = bidding_done(TableState.from_room(room()), landlord=1)
    played = CardsPlayed(
        seat=1,
        cards=[card(9)],
        kind="single",
        rank=9,
        card_counts=[17, 0, 17],
        multiplier=1,
        version=3,
    )
    (line,) = lines(state, played)
    assert "0 cards left" not in line and "out!" in line


def test_one_winner_wins_two_win() -> None:
    # Was "normal bot 2 win".
    state = bidding_done(TableState.from_room(room()))
    (line,) = lines(state, MatchEnded(totals=[-6, 12, -6], winners=[1], deal_scores=[]))
    assert "bot 1 wins" in line
    (line,) = lines(state, MatchEnded(totals=[-6, 3, 3], winners=[1, 2], deal_scores=[]))
    assert "bot 1, bot 2 win " in line


def test_the_main_part_comes_first_on_the_table() -> None:
    # Was "66 AAA" for a triple + pair.
    state = bidding_done(TableState.from_room(room()), landlord=1)
    cards = [card(6, 0), card(6, 1), card(14, 0), card(14, 1), card(14, 2)]
    played = CardsPlayed(
        seat=1,
        cards=cards,
        kind="triple_pair",
        rank=14,
        card_counts=[17, 15, 17],
        multiplier=1,
        version=3,
    )
    (line,) = lines(state, played)
    assert line.startswith("bot 1: ♠A ♥A ♣A ♠6 ♥6  triple + pair")
    assert "bot 1: ♠A ♥A ♣A ♠6 ♥6" in plain(table_panel(state.apply(played), 0.0))


def _mid_trick() -> TableState:
    """I am the landlord (20 cards) and led 3; bot 1 answered 9; bot 2 passed."""
    state = bidding_done(TableState.from_room(room()))
    return run(
        state,
        CardsPlayed(
            seat=0,
            cards=[card(3)],
            kind="single",
            rank=3,
            card_counts=[19, 17, 17],
            multiplier=1,
            version=2,
        ),
        turn(1, 2, "play"),
        CardsPlayed(
            seat=1,
            cards=[card(9)],
            kind="single",
            rank=9,
            card_counts=[19, 16, 17],
            multiplier=1,
            version=3,
        ),
        turn(2, 3, "play"),
        Passed(seat=2, trick_over=False, leader=None, version=4),
        turn(0, 4, "play"),
    )


def test_each_seat_shows_its_last_play_or_pass_in_the_trick() -> None:
    seats_text = plain(table_panel(_mid_trick(), 0.0)).splitlines()[1:4]
    assert seats_text[0].rstrip().endswith("3")
    assert seats_text[1].rstrip().endswith("9")
    assert seats_text[2].rstrip().endswith("pass")


def test_the_card_counter_is_off_by_default_and_counts_what_i_have_not_seen() -> None:
    state = _mid_trick()
    assert "unseen" not in plain(table_panel(state, 0.0))
    text = plain(table_panel(state, 0.0, counter=True))
    rows = text.splitlines()
    at = next(i for i, row in enumerate(rows) if row.startswith("unseen"))
    head, counts = rows[at], rows[at + 1]
    assert " ".join(head.split()[1:]) == "3 4 5 6 7 8 9 10 J Q K A 2 SJ BJ"
    # my hand: 3333 4444 5555 6666 AA SJ BJ less the 3 I played; 9 played by bot 1
    assert " ".join(counts.split()) == "0 0 0 0 4 4 3 4 4 4 4 2 4 0 0"


def test_80_by_24_shows_the_whole_table_and_a_20_card_hand() -> None:
    state = bidding_done(TableState.from_room(room()))
    assert state.table is not None and len(state.table.hand or []) == 20
    state = _mid_trick()
    panel = plain(table_panel(state, 0.0, Verdict("ok", "single 5 beats single 9"), counter=True))
    rows = panel.splitlines()
    assert all(get_cwidth(row) <= 80 for row in rows), max(rows, key=get_cwidth)
    # the prompt's own line and the panel leave more than half the screen to the log
    assert 1 + len(rows) <= 14


# --- issue 22: the terminal's rough edges ----------------------------------------------------


def test_no_your_turn_while_a_bot_holds_my_seat() -> None:
    # "» your turn to play" was printed while a bot played the seat.
    state = bidding_done(TableState.from_room(room()), landlord=1)
    takeover = SeatControl(seat=0, bot=True, reason="timeouts", version=3)
    state = run(state, turn(2, 3, "play"), takeover)
    assert lines(state, turn(0, 4, "play")) == []
    taken = state.apply(turn(0, 4, "play"))
    snapshot_lines = [plain(x) for x in event_lines(taken, taken, Snapshot(room=taken.room))]
    assert not any("your turn" in line for line in snapshot_lines)
    # and, mine again, it is said
    back = state.apply(SeatControl(seat=0, bot=False, reason="resume", version=4))
    assert lines(back, turn(0, 4, "play")) == ["» your turn to play"]


def test_deal_summaries_break_lines_between_cards() -> None:
    # A seat's remaining cards ran past column 80 and the terminal wrapped them mid-card.
    state = bidding_done(TableState.from_room(room()))
    full = sorted(card(r, s) for r in range(7, 12) for s in range(4))[:17]  # with the 10s
    end = DealEnded(
        deal_no=1,
        landlord=0,
        winner="landlord",
        hands=[[], full, full[:3]],
        score=ScoreBreakdown(
            base=3, bombs=0, rockets=0, spring=False, anti_spring=False, multiplier=1,
            scores=[6, -3, -3],
        ),
        totals=[6, -3, -3],
    )  # fmt: skip
    cards = plain(card_fragments(full)).split()
    for width in (80, 60, 100):
        shown = [plain(x) for x in event_lines(state, state.apply(end), end, width)]
        assert all(get_cwidth(line) <= width for line in shown), (width, shown)
        farmer = shown[shown.index(next(x for x in shown if "bot 1" in x)) :]
        words = " ".join(farmer).split()
        assert all(c in words for c in cards)  # every card whole
        assert " ".join(cards) in " ".join(words)  # in order


def test_the_match_result_keeps_within_the_width() -> None:
    # "match over: easy bot 2 wins   totals: Tester (you) +0  easy bot 1 -3  easy bot 2 +3"
    # ran past column 80: the terminal put "+3" on a line of its own.
    view = room(your_seat=0).model_copy(
        update={
            "seats": [
                s.model_copy(update={"name": "a-rather-long-name"})
                for s in seats("me", "bot", "bot")
            ]
        }
    )
    state = TableState.from_room(view)
    result = MatchEnded(totals=[0, -3, 3], winners=[2], deal_scores=[])
    shown = lines(state, result)
    assert all(get_cwidth(line) <= 80 for line in shown)
    assert shown[-1].split()[-1] == "+3" and "totals:" in "\n".join(shown)


def test_a_pause_is_printed_and_stops_the_countdown_until_the_match_resumes() -> None:
    timed = TurnStarted(
        seat=0, action="bid", may_pass=True, deadline=120.0, server_time=100.0, version=3
    )
    state = run(TableState.from_room(room()), started()).apply(timed, now=10.0)
    assert state.countdown is not None
    paused = Paused(code="ABCDE", since=1.0)
    (line,) = lines(state, paused)
    assert line.startswith("paused: the server is saving the match safely")
    state = state.apply(paused)
    assert state.paused and state.countdown is None
    assert plain(turn_line(state, 0.0)).startswith("paused")
    (line,) = lines(state, Resumed(code="ABCDE"))
    assert line.startswith("resumed")
    state = state.apply(Resumed(code="ABCDE"))
    assert not state.paused
    assert plain(turn_line(state.apply(timed, now=20.0), 22.0)).endswith("18s left")


def test_back_after_a_restart_says_the_clock_was_paused() -> None:
    """Issue 34: after a server restart the clock came back silently."""
    state = run(TableState.from_snapshot(Snapshot(room=room()), 0.0), started(), turn(0, 0))
    table = state.room.table
    assert table is not None
    resumed_turn = turn(0, 0).model_copy(update={"deadline": 114.0, "server_time": 100.0})
    view = table.model_copy(update={"restarted": True, "turn": resumed_turn})
    back = TableState.from_snapshot(Snapshot(room=state.room.model_copy(update={"table": view})))
    text = [plain(line) for line in event_lines(state, back, Snapshot(room=back.room))]
    assert "back: the server restarted, your clock was paused (14 s left)" in text
    calm = TableState.from_snapshot(Snapshot(room=state.room.model_copy(update={"table": table})))
    assert not any(
        "restarted" in plain(x) for x in event_lines(state, calm, Snapshot(room=calm.room))
    )
