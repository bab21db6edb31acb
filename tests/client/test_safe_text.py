"""Nothing from the network is printed raw: names, room codes, the room list and refusals
reach the terminal only through ``client.safe_text.printable``.

Regression (issue 11, item 10): a name ``ESC ] 0 ; pwned BEL ESC [ 2 J`` was accepted by the
server and printed raw by ``ddz``: the window title changed and the screen was cleared, on
every client that listed the rooms or shared a table with it.
"""

from __future__ import annotations

import io
import json

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput
from prompt_toolkit.output.plain_text import PlainTextOutput

from client.connection import to_json_line
from client.headless import Headless
from client.interactive import Interactive
from client.options import Options
from client.render import event_lines, lobby_lines, plain, room_list_lines, table_panel
from client.safe_text import PLACEHOLDER, printable, printable_fragments
from client.table import TableState
from protocol.errors import ErrorCode
from protocol.events import BidMade
from protocol.messages import (
    Error,
    RoomList,
    RoomSummary,
    RoomView,
    SeatsChanged,
    SeatView,
    ServerMessage,
    Snapshot,
    Welcome,
)
from tests.client.helpers import bidding_done, room, run, started, turn

#: Retitles the window, then clears the screen.
TITLE_AND_CLEAR = "\x1b]0;pwned\x07\x1b[2J"
#: Right-to-left override: the rest of the line reads backwards.
RLO = "\u202e"
#: A C1 control: CSI on terminals that take 8-bit controls.
CSI_8BIT = "\x9b"
HOSTILE = f"{TITLE_AND_CLEAR}{RLO}eve{CSI_8BIT}\n"
#: What must never reach the terminal.
FORBIDDEN = ("\x1b", "\x07", RLO, CSI_8BIT)


def assert_clean(text: str) -> None:
    for char in FORBIDDEN:
        assert char not in text, f"{char!r} reached the terminal in {text!r}"


def hostile_room() -> RoomView:
    view = room(mode="private").model_dump()
    view["code"] = "AB" + RLO + "CD"
    view["seats"][1]["name"] = HOSTILE
    view["seats"][2]["name"] = "x" * 500
    return RoomView.model_validate(view)


def hostile_error() -> Error:
    return Error(code=ErrorCode.NO_ROOM, message=f"no room {HOSTILE}", request_id=1)


def renamed_seat_0() -> SeatsChanged:
    """Seat 1 now holds someone with a hostile name."""
    seats = [SeatView(kind="person", name=HOSTILE), *hostile_room().seats[1:]]
    return SeatsChanged(seats=seats, watchers=0)


def hostile_list() -> RoomList:
    summary = RoomSummary(
        code=TITLE_AND_CLEAR, mode="quick", deals=3, deal_no=1, seats=[HOSTILE, ""], watchers=0
    )
    return RoomList(rooms=[summary])


# --- the rule -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "char",
    ["\x00", "\x07", "\x08", "\t", "\n", "\r", "\x1b", "\x7f", "\x9b", "\u200b", "\u200e",
     "\u202e", "\u2066", "\u2028", "\u2029", "\ufeff", "\ud800"],
)  # fmt: skip
def test_every_control_and_format_character_becomes_the_placeholder(char: str) -> None:
    assert printable(f"a{char}b") == f"a{PLACEHOLDER}b"


def test_ordinary_text_is_left_alone() -> None:
    for text in ["bob", "斗地主 王", "Zoë ♠♥", "emoji 🂡", "a b"]:
        assert printable(text) == text


def test_length_is_bounded() -> None:
    assert printable("x" * 10, limit=4) == "xxx…"
    assert printable("x" * 4, limit=4) == "xxxx"
    assert len(printable("\x1b" * 10_000)) <= 4000


def test_only_the_renderers_own_line_breaks_pass() -> None:
    out = printable_fragments([("", "a\nb"), ("", "\n"), ("bold", "\x1b[2J")])
    assert out == [("", f"a{PLACEHOLDER}b"), ("", "\n"), ("bold", f"{PLACEHOLDER}[2J")]


# --- the renderer -------------------------------------------------------------------------


def test_the_table_panel_shows_hostile_names_and_codes_defused() -> None:
    state = bidding_done(TableState.from_snapshot(Snapshot(room=hostile_room())), landlord=1)
    panel = plain(table_panel(state, now=0.0))
    assert_clean(panel)
    assert f"{PLACEHOLDER}]0;pwned" in panel and "AB\ufffdCD" in panel
    # head, three seats, kitty, table, hand, each ending its line; the turn: no forged line
    assert panel.count("\n") == 7
    assert "x" * 40 not in panel  # the long name was cut


def test_event_lines_show_hostile_names_defused() -> None:
    before = run(TableState.from_snapshot(Snapshot(room=hostile_room())), started(), turn(1, 0))
    message = BidMade(seat=1, bid=2, highest=2, version=1)
    (line,) = event_lines(before, before.apply(message), message)
    assert_clean(plain(line))
    for _, text in line:
        assert_clean(text)  # each fragment, as the interactive client gets it
    renamed = renamed_seat_0()
    lines = event_lines(before, before.apply(renamed), renamed)
    assert lines and all(not any(c in t for c in FORBIDDEN) for ln in lines for _, t in ln)


def test_refusals_the_room_list_and_the_welcome_are_defused() -> None:
    welcome = Welcome(token="t", player_id="p", name=HOSTILE)
    for message in [hostile_error(), hostile_list(), welcome]:
        for line in lobby_lines(message):
            for _, text in line:
                assert_clean(text)
    (line,) = room_list_lines(hostile_list())
    assert "\n" not in plain(line)


# --- the interactive client's output ------------------------------------------------------


async def test_the_interactive_client_prints_nothing_raw(pipe: PipeInput) -> None:
    out = io.StringIO()
    with create_app_session(input=pipe, output=PlainTextOutput(out)):
        client = Interactive(Options(server="ws://unused", name="me"))
        messages: list[ServerMessage] = [
            hostile_list(),
            hostile_error(),
            Snapshot(room=hostile_room()),
            renamed_seat_0(),
            hostile_error(),
        ]
        for message in messages:
            await client.on_message(message)
        toolbar = "".join(text for _, text, *_ in client.toolbar())
    printed = out.getvalue()
    assert "pwned" in printed and "no room" in printed  # it was shown, defused
    assert_clean(printed)
    assert_clean(toolbar)


# --- the headless client's output ---------------------------------------------------------


def test_headless_plain_text_and_json_lines_are_defused() -> None:
    for json_mode in (False, True):
        out, err = io.StringIO(), io.StringIO()
        opts = Options(server="ws://unused", name="me", json=json_mode, mode="watch", code="X")
        headless = Headless(link=None, opts=opts, out=out, err=err)  # type: ignore[arg-type]
        headless.emit(None, hostile_list())
        headless.state = TableState.from_snapshot(Snapshot(room=hostile_room()))
        headless.emit(None, Snapshot(room=hostile_room()))
        headless.emit(headless.state, hostile_error())
        headless.note(f"connection lost ({HOSTILE})")
        assert_clean(out.getvalue())
        assert_clean(err.getvalue())
        assert "pwned" in out.getvalue()


def test_a_json_line_is_ascii_and_means_the_same() -> None:
    message = hostile_error()
    line = to_json_line(message)
    assert line.isascii() and "\n" not in line
    assert_clean(line)
    assert Error.model_validate(json.loads(line)) == message
