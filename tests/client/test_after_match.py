"""Issue 14 in the terminal client: quick chat, the rematch, a replay and the history, as
typed (``client.commands``), as shown (``client.after_match``) and as sent by the interactive
client. Every name and code from the server passes through ``printable`` on its way."""

from __future__ import annotations

import io
import time

import pytest
from prompt_toolkit.input import PipeInput

from client import commands as cmd
from client import interactive
from client.after_match import (
    HISTORY_WIDTH,
    chat_line,
    history_lines,
    phrase_lines,
    rematch_line,
    replay_lines,
)
from client.cli import build_parser, parse_args
from client.headless import Headless, SessionEnded
from client.options import Options
from client.render import Fragments, plain
from client.table import TableState
from protocol.chat import PHRASES
from protocol.errors import ErrorCode
from protocol.events import (
    BidMade,
    CardsPlayed,
    DealEnded,
    LandlordChosen,
    MatchEnded,
    Passed,
    ScoreBreakdown,
    SeatControl,
)
from protocol.messages import (
    Chat,
    ChatSaid,
    Error,
    GetHistory,
    GetReplay,
    History,
    HistoryEntry,
    Left,
    Rematch,
    RematchAsked,
    ReplayData,
    ReplayDeal,
    RoomClosed,
    Snapshot,
)
from tests.client.helpers import room, started
from tests.client.test_interactive import FakeLink, client_with

HOSTILE = "Ann\x1b]0;pwned\x07\u202e"  # retitles the window, then turns the line around


def text(lines: list[Fragments]) -> str:
    return "\n".join(plain(line) for line in lines)


def is_safe(shown: str) -> bool:
    return "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown


# --- typed --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "command"),
    [
        ("say", cmd.Say()),
        ("say well_played", cmd.Say("well_played")),
        ("SAY Hello", cmd.Say("hello")),
        ("mute", cmd.Mute(True)),
        ("unmute", cmd.Mute(False)),
        ("again", cmd.Again()),
        ("again k7p2q-m4xtr", cmd.Again("K7P2Q-M4XTR")),
        ("replay", cmd.ShowReplay()),
        ("replay abcde", cmd.ShowReplay("ABCDE")),
        ("history", cmd.ShowHistory()),
    ],
)
def test_the_new_words_parse(typed: str, command: cmd.Command) -> None:
    assert cmd.parse_command(typed) == command


@pytest.mark.parametrize("typed", ["say you stink", "say stinker", "history 3", "again a b"])
def test_bad_new_words_are_refused(typed: str) -> None:
    assert isinstance(cmd.parse_command(typed), cmd.Invalid)


def test_tab_goes_through_the_phrases() -> None:
    assert cmd.next_completion("say ") == "say hello"
    assert cmd.next_completion("say hello") == "say good_luck"
    assert cmd.next_completion("say go") == "say good_luck"
    assert cmd.phrase_completions("say good") == ["say good_luck", "say good_game"]
    assert cmd.next_completion(f"say {PHRASES[-1]}") == "say hello"
    assert cmd.next_completion("333") is None  # a play: Tab is the hint


def test_help_names_the_new_commands() -> None:
    for word in ("say [PHRASE]", "mute", "again", "replay [CODE]", "history"):
        assert word in cmd.help_text()
    cli_help = build_parser().format_help()
    assert "replay" in cli_help and "history" in cli_help and "--again" in cli_help


def test_the_command_line_takes_replay_history_and_again() -> None:
    opts = parse_args(["--json", "replay", "k7p2q"])
    assert (opts.mode, opts.code, opts.json, opts.keep_session) == ("replay", "K7P2Q", True, True)
    assert parse_args(["history"]).mode == "history"
    assert parse_args(["--auto", "easy", "--again", "quick"]).again
    assert not parse_args(["--auto", "easy", "quick"]).again


def test_again_without_auto_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--again", "practice"])
    assert "--auto" in capsys.readouterr().err


# --- shown --------------------------------------------------------------------------------


def test_say_alone_lists_every_phrase_with_its_text() -> None:
    shown = text(phrase_lines())
    assert all(p in shown for p in PHRASES)
    assert "  well_played  Well played!" in shown and "laugh" in shown and ":-D" in shown


def test_a_chat_line_names_the_seat_and_is_made_safe() -> None:
    names = ["me", HOSTILE, "bot"]
    shown = plain(chat_line(ChatSaid(seat=1, phrase="well_played"), names, mine=0))
    assert shown == "Ann\ufffd]0;pwned\ufffd\ufffd (S2): Well played!"
    assert plain(chat_line(ChatSaid(seat=0, phrase="smile"), names, mine=0)) == "you (S1): :-)"


def test_the_rematch_prompt_says_who_and_how_long() -> None:
    asked = RematchAsked(code="ABCDE", seat=1, deadline=130.0, server_time=100.0)
    assert plain(rematch_line(asked, ["me", "Ann", "x"])) == (
        "Ann wants a rematch: type again (30 s)"
    )
    assert is_safe(plain(rematch_line(asked, ["me", HOSTILE, "x"])))
    # the server names the asker: shown also where the client knows no names of that room
    named = asked.model_copy(update={"name": "Bo"})
    assert plain(rematch_line(named, [])) == "Bo wants a rematch: type again (30 s)"
    assert is_safe(plain(rematch_line(asked.model_copy(update={"name": HOSTILE}), [])))


def score(scores: list[int]) -> ScoreBreakdown:
    return ScoreBreakdown(
        base=3, bombs=1, rockets=0, spring=False, anti_spring=False, multiplier=2, scores=scores
    )


def replay_data(seats: list[str], code: str = "ABCDE") -> ReplayData:
    hands = [list(range(0, 17)), list(range(17, 34)), list(range(34, 51))]
    deal = ReplayDeal(
        deal_no=1,
        void=False,
        first_bidder=0,
        forced_bid=False,
        hands=hands,
        kitty=[51, 52, 53],
        events=[
            BidMade(seat=0, bid=3, highest=3, version=1),
            LandlordChosen(seat=0, base=3, kitty=[51, 52, 53], card_counts=[20, 17, 17]),
            CardsPlayed(
                seat=0, cards=[0, 1, 2, 3], kind="bomb", rank=3, card_counts=[16, 17, 17],
                multiplier=2, version=2,
            ),
            Passed(seat=1, trick_over=False, leader=None, timeout=True, version=3),
            SeatControl(seat=1, bot=True, reason="timeouts", version=3),
            Passed(seat=2, trick_over=True, leader=0, version=4),
        ],
        end=DealEnded(
            deal_no=1, landlord=0, winner="landlord", hands=[[], hands[1], hands[2]],
            score=score([12, -6, -6]), totals=[12, -6, -6],
        ),
    )  # fmt: skip
    return ReplayData(
        code=code,
        mode="private",
        deals_total=3,
        seats=seats,
        ended="match_over",
        started_at=1_700_000_000.0,
        ended_at=1_700_000_600.0,
        deals=[deal],
        result=MatchEnded(totals=[12, -6, -6], winners=[0], deal_scores=[[12, -6, -6]]),
    )


def test_a_replay_reads_in_words_deal_by_deal_and_trick_by_trick() -> None:
    # Was ddz-replay's journal lines: `S1 ♠3 ♥3 ♣3 ♦3  bomb`, `scores [12, -6, -6]`,
    # `S2: a bot plays (timeouts)`, `triple_single`.
    data = replay_data(["Ann", "easy bot 1", "Bob"])
    shown = text(replay_lines(data, local=time.gmtime))
    assert shown.startswith("replay of room ABCDE · public · 1 deal(s) of 3 · 2023-11-14 22:13\n")
    assert "Ann (S1)   easy bot 1 (S2)   Bob (S3)" in shown
    assert "── deal 1 of 3 ── Ann (S1) bids first" in shown
    assert "\n bidding\n   Ann (S1)           bids 3\n" in shown
    assert "   Ann (S1)           is the landlord (base 3), takes the kitty ♦2 SJ BJ" in shown
    assert "\n trick 1 of 1\n   Ann (S1)           ♠3 ♥3 ♣3 ♦3  BOMB  stake ×2\n" in shown
    assert "   easy bot 1 (S2)    pass  (time ran out)" in shown
    assert "   a bot plays for easy bot 1 (S2) (two timeouts)" in shown
    assert "   deal over: the landlord, Ann (S1), wins (base 3 × multiplier 2: 1 bomb)" in shown
    assert "   easy bot 1 (S2)       -6   total    -6" in shown
    assert "match over: Ann (S1) wins" in shown
    assert "totals: Ann (S1) +12 · easy bot 1 (S2) -6 · Bob (S3) -6" in shown
    for internal in ("[", "]", "scores", "triple_single", " bomb ", "(timeouts)", "landlord win"):
        assert internal not in shown, internal


def test_a_replay_counts_void_deals_apart() -> None:
    data = replay_data(["a", "b", "c"])
    void = data.deals[0].model_copy(update={"void": True, "end": None})
    data = data.model_copy(update={"deals": [void, *data.deals]})
    head = text(replay_lines(data))
    assert "public · 1 deal(s) of 3 · 1 void (dealt again)" in head


def test_a_replay_with_hostile_names_and_code_is_made_safe() -> None:
    shown = text(replay_lines(replay_data([HOSTILE, "x", "y"], code="AB\x1bCD")))
    assert is_safe(shown) and "Ann\ufffd]0;pwned" in shown


def entry(code: str, totals: list[int], result: str = "won") -> HistoryEntry:
    return HistoryEntry.model_validate(
        {
            "code": code,
            "mode": "practice",
            "ended_at": 1_700_000_000.0,
            "deals": 2,
            "deals_total": 9,
            "seats": [HOSTILE, "b", "c"],
            "your_seat": 0,
            "totals": totals,
            "result": result,
            "ended": "match_over",
        }
    )


def test_the_history_fits_80_columns_and_is_made_safe() -> None:
    history = History(
        entries=[
            entry("K7P2Q-M4XTR", [12, -6, -6]),
            entry("LONGCODE\x1b" * 3, [-123456, 61728, 61728], "unfinished"),
        ]
    )
    lines = [plain(line) for line in history_lines(history, time.gmtime)]
    assert all(len(line) <= HISTORY_WIDTH for line in lines), lines
    assert all(is_safe(line) for line in lines)
    assert lines[1].split() == [
        "2023-11-14", "22:13", "practice", "2/9", "[+12]", "-6", "-6", "won", "K7P2Q-M4XTR"
    ]  # fmt: skip
    assert "unfinished" in lines[2]
    assert "no matches yet" in text(history_lines(History(entries=[])))


# --- the interactive client ----------------------------------------------------------------


@pytest.fixture
def said(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the interactive client prints above its prompt, as plain lines."""
    out: list[str] = []
    monkeypatch.setattr(interactive, "say", lambda line: out.append(plain(line)))
    return out


async def test_say_sends_a_phrase_and_mute_hides_the_others(
    pipe: PipeInput, said: list[str]
) -> None:
    client, link = client_with(TableState.from_room(room(mode="private")))
    await client.handle("say well_played")
    assert link.sent == [Chat(phrase="well_played")]
    await client.on_message(ChatSaid(seat=1, phrase="oops"))
    assert said[-1] == "bot 1 (S2): Oops!"
    await client.handle("mute")
    await client.on_message(ChatSaid(seat=1, phrase="oops"))
    await client.on_message(ChatSaid(seat=0, phrase="thanks"))
    assert "bot 1 (S2): Oops!" not in said[-2:] and said[-1] == "you (S1): Thanks!"
    await client.handle("unmute")
    await client.on_message(ChatSaid(seat=2, phrase="bye"))
    assert said[-1] == "bot 2 (S3): Bye!"


async def test_chat_refusals_are_shown_as_chat_refusals(pipe: PipeInput, said: list[str]) -> None:
    client, link = client_with(TableState.from_room(room(your_seat=None, mode="private")))
    await client.handle("say hello")
    assert link.sent == [] and "watchers may not chat" in said[-1]
    client, link = client_with(TableState.from_room(room(mode="private")))
    await client.handle("say hello")
    limit = Error(code=ErrorCode.RATE_LIMITED, message="5 phrases a minute", request_id=1)
    await client.on_message(limit)
    assert said[-1] == "say refused: 5 phrases a minute [rate_limited]"


async def test_again_replay_and_history_after_the_match(pipe: PipeInput, said: list[str]) -> None:
    client, link = client_with(None)
    await client.handle("again")
    await client.handle("replay")
    assert link.sent == []  # no match finished here yet: nothing to name
    client.state = TableState.from_room(room(mode="private"))
    ended = MatchEnded(totals=[2, -1, -1], winners=[0], deal_scores=[[2, -1, -1]])
    await client.on_message(ended)
    await client.on_message(RoomClosed(reason="match_over"))
    await client.on_message(RematchAsked(code="ABCDE", seat=1, deadline=30, server_time=0))
    assert said[-1] == "bot 1 wants a rematch: type again (30 s)"
    await client.handle("again")
    await client.handle("replay")
    await client.handle("history")
    assert link.sent == [Rematch(code="ABCDE"), GetReplay(code="ABCDE"), GetHistory()]
    refusal = Error(code=ErrorCode.NO_ROOM, message="no match of yours", request_id=2)
    await client.on_message(refusal)
    assert said[-1] == "replay ABCDE refused: no match of yours [no_room]"


async def test_a_watcher_may_replay_but_not_ask_again(pipe: PipeInput, said: list[str]) -> None:
    client, link = client_with(TableState.from_room(room(your_seat=None, mode="private")))
    await client.on_message(MatchEnded(totals=[2, -1, -1], winners=[0], deal_scores=[]))
    await client.on_message(RoomClosed(reason="match_over"))
    await client.handle("again")
    assert link.sent == [] and "you watched that match" in said[-1]
    await client.handle("replay")
    assert link.sent == [GetReplay(code="ABCDE")]


async def test_a_replay_at_the_prompt_fits_the_terminal(
    pipe: PipeInput, said: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, _ = client_with(None)
    monkeypatch.setattr(client, "columns", lambda: 50)
    await client.on_message(replay_data(["Ann", "easy bot 1", "Bob"]))
    assert " trick 1 of 1" in said and "match over: Ann (S1) wins" in said
    assert all(len(line) <= 50 for line in said)


# --- the headless client's --again ----------------------------------------------------------


async def test_again_under_auto_asks_once_and_survives_the_race_of_two_askers() -> None:
    # Regression: two ddz --again asking at the same moment; the server opened a room for
    # each, kept one and took the other asker out of theirs (its snapshot, then Left), and
    # that client ended "we left the room" instead of taking its seat in the kept one.
    link = FakeLink()
    opts = Options(server="ws://unused", name="me", auto="easy", json=True, again=True)
    headless = Headless(link, opts, io.StringIO(), io.StringIO())  # type: ignore[arg-type]
    headless.state = TableState.from_room(room(mode="quick"))
    ended = MatchEnded(totals=[2, -1, -1], winners=[0], deal_scores=[[2, -1, -1]])
    assert await headless.handle(ended) is None  # not the end: ask for the rematch
    assert link.sent == [Rematch(code="ABCDE")]
    assert await headless.handle(RoomClosed(reason="match_over")) is None
    ours = room(mode="quick").model_copy(update={"code": "OURS1"})
    kept = room(mode="quick").model_copy(update={"code": "KEPT1"})
    assert await headless.handle(Snapshot(room=ours)) is None
    assert await headless.handle(Left()) is None
    assert await headless.handle(Snapshot(room=kept)) is None
    assert await headless.handle(started()) is None
    assert await headless.handle(ended) == 0  # the rematch's end is the session's
    assert link.sent == [Rematch(code="ABCDE")]


async def test_without_again_a_headless_client_ends_with_the_match() -> None:
    link = FakeLink()
    opts = Options(server="ws://unused", name="me", auto="easy", json=True)
    headless = Headless(link, opts, io.StringIO(), io.StringIO())  # type: ignore[arg-type]
    headless.state = TableState.from_room(room(mode="quick"))
    ended = MatchEnded(totals=[2, -1, -1], winners=[0], deal_scores=[[2, -1, -1]])
    assert await headless.handle(ended) == 0 and link.sent == []


async def test_a_refused_rematch_ends_the_session() -> None:
    link = FakeLink()
    opts = Options(server="ws://unused", name="me", auto="easy", json=True, again=True)
    headless = Headless(link, opts, io.StringIO(), io.StringIO())  # type: ignore[arg-type]
    headless.state = TableState.from_room(room(mode="quick"))
    await headless.handle(MatchEnded(totals=[2, -1, -1], winners=[0], deal_scores=[]))
    full = Error(code=ErrorCode.ROOM_FULL, message="a bot took your seat", request_id=1)
    with pytest.raises(SessionEnded, match="no rematch: a bot took your seat"):
        await headless.handle(full)
