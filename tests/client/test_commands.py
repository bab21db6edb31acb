"""What typed text means, the legality check shown while typing, and the hint cycle."""

from __future__ import annotations

from typing import get_args

import pytest

from client import commands as c
from client.table import TableState
from protocol.cards import Rank, parse_cards
from protocol.events import SeatControl
from protocol.messages import BotLevel, BotSpeed, Left, RoomClosed
from protocol.plays import Kind, Play
from tests.client.helpers import bidding_done, room


def ranks(text: str) -> tuple[Rank, ...]:
    return tuple(parse_cards(text))


def play(text: str) -> Play:
    return Play.parse(text)


def test_levels_and_speeds_are_the_protocols() -> None:
    assert set(c.LEVELS) == set(get_args(BotLevel))
    assert set(c.SPEEDS) == set(get_args(BotSpeed))


# --- parse_command --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("333 44", c.PlayCards(ranks("33344"))),
        ("10 10 J", c.PlayCards(ranks("10 10 J"))),
        ("3-7", c.PlayCards(ranks("34567"))),
        ("sj bj", c.PlayCards(ranks("SJ BJ"))),
        ("  pass ", c.PassTurn()),
        ("PASS", c.PassTurn()),
        ("hint", c.ShowHint()),
        ("h", c.ShowHint()),
        ("ready", c.Ready()),
        ("resume", c.Resume()),
        ("leave", c.LeaveRoom()),
        ("quit", c.Quit()),
        ("exit", c.Quit()),
        ("help", c.Help()),
        ("?", c.Help()),
        ("join k7p2q", c.Join("K7P2Q")),
        ("watch ABCDE", c.WatchRoom("ABCDE")),
        ("speed fast", c.Speed("fast")),
        ("bid 2", c.MakeBid(2)),
        ("bid 0", c.PassTurn()),
        ("bot", c.AddBot("normal", None)),
        ("bot easy 3", c.AddBot("easy", 2)),
        ("practice", c.Practice(3, "normal", "normal")),
        ("practice 1 strong instant", c.Practice(1, "strong", "instant")),
        ("practice fast", c.Practice(3, "normal", "fast")),
        ("practice 9 normal slow", c.Practice(9, "normal", "slow")),
        ("create", c.Create(3, False)),
        ("create 6 public", c.Create(6, True)),
    ],
)
def test_parse_command(text: str, expected: c.Command) -> None:
    assert c.parse_command(text) == expected


def test_an_empty_line_is_no_command() -> None:
    assert c.parse_command("") is None
    assert c.parse_command("   ") is None


def test_a_bare_digit_is_a_bid_only_while_i_bid() -> None:
    assert c.parse_command("2", "bid") == c.MakeBid(2)
    assert c.parse_command("0", "bid") == c.PassTurn()
    assert c.parse_command("2", "play") == c.PlayCards((Rank.TWO,))
    assert c.parse_command("3", None) == c.PlayCards((Rank.THREE,))
    assert c.parse_command("33", "bid") == c.PlayCards(ranks("33"))


@pytest.mark.parametrize(
    "text",
    [
        "xyz",
        "333 1",
        "join",
        "join A B",
        "speed warp",
        "bid 4",
        "practice 2",
        "practice 3 hard",
        "create 1",
        "bot 4",
        "pass now",
        "33333",
    ],
)
def test_nonsense_is_invalid_with_a_reason(text: str) -> None:
    command = c.parse_command(text)
    assert isinstance(command, c.Invalid)
    assert command.message


# --- legality ---------------------------------------------------------------------------

HAND = ranks("3334 5556 789 10 J Q K 2 SJ BJ")


def test_check_play_says_what_is_wrong_in_the_servers_order() -> None:
    assert c.check_play(ranks("44"), HAND, None) == c.Verdict("bad", "you hold only one 4")
    verdict = c.check_play(ranks("34"), HAND, None)
    assert verdict.level == "bad" and "not a play" in verdict.message
    verdict = c.check_play(ranks("5556"), HAND, play("KKK3"))
    assert verdict.level == "bad" and "does not beat" in verdict.message
    verdict = c.check_play(ranks("7-J"), HAND, None)
    assert verdict.ok and verdict.play is not None and verdict.play.kind is Kind.STRAIGHT
    verdict = c.check_play(ranks("sj bj"), HAND, play("2222"))
    assert verdict.ok and "ROCKET" in verdict.message


def ctx(**kw: object) -> c.TurnContext:
    base: dict[str, object] = {"hand": HAND, "action": "play", "may_pass": True}
    base.update(in_room=True, phase="bidding" if kw.get("action") == "bid" else "playing")
    base.update(kw)
    return c.TurnContext(**base)  # type: ignore[arg-type]


def test_assess_while_typing() -> None:
    to_beat = play("44")
    assert c.assess("555", ctx(to_beat=to_beat)).level == "bad"  # not the same kind
    assert c.assess("55", ctx(to_beat=to_beat)).ok
    assert c.assess("33", ctx(to_beat=to_beat)).level == "bad"  # lower
    assert c.assess("AA", ctx(to_beat=to_beat)).level == "bad"  # not held
    assert c.assess("pass", ctx(to_beat=to_beat)).ok
    assert c.assess("pass", ctx(may_pass=False)).level == "bad"  # must lead
    assert c.assess("3 4", ctx()).level == "bad"
    assert c.assess("3$", ctx()).level == "bad"
    assert c.assess("", ctx()).level == "info"
    assert "beat pair 44" in c.assess("", ctx(to_beat=to_beat)).message


def test_assess_off_turn_and_for_watchers() -> None:
    off = ctx(action=None)
    verdict = c.assess("555 6", off)
    assert verdict.level == "info" and "'s turn to play" in verdict.message
    assert c.assess("555 6", ctx(seated=False, action=None)).level == "bad"
    assert c.assess("ready", off).level == "info"


def test_assess_bids() -> None:
    bidding = ctx(action="bid", highest_bid=1)
    assert c.assess("2", bidding).ok
    assert c.assess("1", bidding).level == "bad"
    assert c.assess("bid 3", bidding).ok
    assert c.assess("pass", bidding).ok
    assert c.assess("pass", ctx(action="bid", may_pass=False)).level == "bad"
    assert c.assess("bid 2", ctx(action="play")).level == "bad"


# --- issue 22: bids, passes and plays at the wrong time say what the server would --------


def test_out_of_a_room_a_pass_or_cards_say_there_is_no_match() -> None:
    # Was "it is not your turn" for pass and "you hold no 3" for 33.
    for text in ("pass", "33", "bid 2"):
        verdict = c.assess(text, c.TurnContext())
        assert verdict.level == "bad"
        assert verdict.message.startswith("there is no match to play in"), text
        assert "practice" in verdict.message and "quick" in verdict.message
        assert len(verdict.message) < 80  # a line of its own: the terminal does not break it


def test_during_anothers_bid_a_digit_is_a_bid_out_of_turn() -> None:
    # Was: `1` listed the pre-match commands and `2` was read as a single 2.
    theirs = ctx(action=None, phase="bidding", turn_of="Ann (S2)")
    assert c.parse_command("2", theirs.reading) == c.MakeBid(2)
    for text in ("1", "2", "bid 3"):
        assert c.assess(text, theirs) == c.Verdict("bad", "it is Ann (S2)'s turn to bid")
    assert "it is Ann (S2)'s turn to bid" in c.assess("33", theirs).message


def test_each_phase_without_a_turn_says_why() -> None:
    assert "not started" in c.assess("pass", ctx(action=None, phase=None)).message
    assert "ready" in c.assess("33", ctx(action=None, phase="between_deals")).message
    assert "match is over" in c.assess("3", ctx(action=None, phase="over")).message
    assert "resume" in c.assess("3", ctx(action=None, bot_holds=True)).message
    assert c.assess("bid 2", ctx(action=None, phase="playing")).message == "the bidding is over"


# --- hints ----------------------------------------------------------------------------


def test_hints_keep_bombs_and_the_rocket_whole_then_pass() -> None:
    # Issue 14: the 8 of 8888 and a joker of the rocket come last, after the bomb and rocket.
    options = c.hint_options(ctx(hand=ranks("3 5 9 A 8888 SJ BJ"), to_beat=play("4")))
    texts = [c.hint_text(o) for o in options]
    assert texts == ["5", "9", "A", "8888", "SJ BJ", "8", "SJ", "BJ", "pass"]


def test_a_leader_gets_no_pass_hint() -> None:
    options = c.hint_options(ctx(hand=ranks("33"), may_pass=False))
    assert [c.hint_text(o) for o in options] == ["33", "3"]  # the pair kept whole first


def test_nothing_to_beat_with_leaves_only_pass() -> None:
    options = c.hint_options(ctx(hand=ranks("3"), to_beat=play("BJ")))
    assert options == [None]


def test_bid_hints() -> None:
    assert c.hint_options(ctx(action="bid", highest_bid=1)) == [2, 3, None]
    assert c.hint_options(ctx(action="bid", may_pass=False)) == [1, 2, 3]
    assert c.hint_options(ctx(action=None)) == []


def test_hint_cycle_wraps_and_restarts_on_a_new_turn() -> None:
    options: list[c.Hint] = [play("5"), play("9"), None]
    cycle = c.HintCycle()
    seen = []
    for _ in range(4):
        cycle, hint, found = cycle.advance("turn-1", options)
        assert found
        seen.append(c.hint_text(hint))
    assert seen == ["5", "9", "pass", "5"]
    cycle, hint, _ = cycle.advance("turn-2", options)
    assert c.hint_text(hint) == "5"
    _, hint, found = cycle.advance("turn-3", [])
    assert not found


def test_describe_play_and_kind_labels() -> None:
    assert c.describe_play(play("3334")) == "triple + single 333 4"
    assert c.kind_label("rocket") == "ROCKET"
    assert c.kind_label("something_new") == "something_new"
    assert set(c.KIND_LABELS) == set(Kind)


def test_no_action_is_mine_while_a_bot_holds_my_seat() -> None:
    state = bidding_done(TableState.from_room(room()))
    assert c.turn_context(state).action == "play"
    state = state.apply(SeatControl(seat=0, bot=True, reason="timeouts", version=2))
    assert c.turn_context(state).action is None
    assert c.hint_options(c.turn_context(state)) == []


# --- issue 14: the rough edges a new player hits ------------------------------------------


def test_a_refusal_for_cards_not_held_says_how_many_are_held() -> None:
    # Was "you do not hold 4" while holding one 4 (and the same for AAAA, 88).
    hand = ranks("4 8 A 5 6")
    assert c.check_play(ranks("44"), hand, None).message == "you hold only one 4"
    assert c.check_play(ranks("AAAA"), hand, None).message == "you hold only one A"
    assert c.check_play(ranks("88"), hand, None).message == "you hold only one 8"
    assert c.check_play(ranks("KK"), hand, None).message == "you hold no K"
    two = ranks("44 8")
    assert c.check_play(ranks("444 KK"), two, None).message == "you hold only two 4s and no K"


def test_cards_typed_on_a_bid_turn_say_bids_are_1_to_3() -> None:
    # Was "single 5 leads (not your turn)", then "it is not your turn".
    verdict = c.assess("5", ctx(action="bid"))
    assert verdict.level == "bad"
    assert verdict.message == "you are bidding: type 1, 2 or 3, or pass"


def test_a_word_outside_a_room_says_what_can_be_typed_there() -> None:
    # Was "'F' at position 1 is not a card rank".
    verdict = c.assess("foo", c.TurnContext())
    assert verdict.level == "bad"
    assert "card rank" not in verdict.message
    assert verdict.message.startswith("'foo' is not a command here")
    for word in ("quick", "practice", "create", "join CODE", "watch CODE", "list", "help", "quit"):
        assert word in verdict.message
    # In a room, before the match: the room's commands.
    waiting = c.assess("foo", c.TurnContext(in_room=True))
    assert "ready" in waiting.message and "leave" in waiting.message
    # In a deal, cards are what one types: the card reading's own reason stays.
    assert "card rank" in c.assess("foo", ctx(in_room=True, phase="playing")).message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("h", "hint"),
        ("hint", "hint"),
        ("leave", "leave"),
        ("list", "list"),
        ("bot", "bot"),
        ("ready", "ready"),
        ("counter", "card counter"),
        ("autopass", "auto-pass"),
        ("speed fast", "speed"),
        ("quit", "quit"),
    ],
)
def test_the_live_line_names_commands_in_words(text: str, words: str) -> None:
    # Was "showhint", "leaveroom", "listlive", "addbot": the classes' names.
    message = c.assess(text, ctx(action=None)).message
    assert words in message
    internal = {"showhint", "leaveroom", "listlive", "addbot", "togglecounter", "toggleautopass"}
    assert message not in internal and " " in message


def test_h_is_in_the_help() -> None:
    assert "hint | h" in c.help_text()
    assert "counter" in c.help_text() and "autopass" in c.help_text()


@pytest.mark.parametrize("width", [80, 120, 64, 40])
def test_help_fits_the_terminal_and_breaks_no_word(width: int) -> None:
    # Was laid out for about 95 columns: an 80-column terminal broke its words.
    text = c.help_text(width)
    assert all(len(line) <= width for line in text.splitlines())
    said = [f"{title}:" for title, _ in c.HELP]
    said += [f"{usage} {what}" for _, entries in c.HELP for usage, what in entries]
    assert sorted(text.split()) == sorted(" ".join(said).split())
    assert c.help_text() == c.help_text(80)


def test_after_leaving_or_a_closed_room_nothing_is_my_turn() -> None:
    # After `leave` the prompt still read `bid>`.
    state = bidding_done(TableState.from_room(room()))
    assert c.turn_context(state).action == "play" and c.turn_context(state).in_room
    left = state.apply(Left())
    assert c.turn_context(left).action is None and not c.turn_context(left).in_room
    assert c.turn_context(state.apply(RoomClosed(reason="everyone_left"))).action is None


def test_main_part_first_in_descriptions_and_hints() -> None:
    # Was "triple + pair 66 AAA" (the kicker first).
    assert c.describe_play(play("66 AAA")) == "triple + pair AAA 66"
    assert c.describe_play(play("3 KKK")) == "triple + single KKK 3"
    assert c.describe_play(play("3 4 QQQ KKK")) == "airplane + singles QQQ KKK 3 4"
    assert c.describe_play(play("33 44 5555")) == "four + two pairs 5555 33 44"
    assert c.describe_play(play("33 44 55")) == "pair chain 33 44 55"
    assert c.hint_text(play("66 AAA")) == "AAA 66"
    assert c.parse_command("AAA 66") == c.PlayCards(ranks("66 AAA"))
