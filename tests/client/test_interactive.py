"""The interactive client's wiring: typed lines become the right requests (or none), Tab
fills in hints, and a whole practice match can be played at the prompt against a real
server with Tab and Enter alone, surviving a dropped connection on the way."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from prompt_toolkit.input import PipeInput
from prompt_toolkit.layout.controls import BufferControl

from client import interactive
from client.interactive import Interactive
from client.options import Options
from client.render import plain
from client.table import TableState
from protocol.events import CardsPlayed, Passed
from protocol.messages import (
    BidRequest,
    CreateRoom,
    Leave,
    Left,
    PassRequest,
    PlayRequest,
    ReadyRequest,
    RematchAsked,
    Request,
    SeatBot,
    SeatView,
    Snapshot,
    StartPractice,
    Watch,
    Welcome,
)
from tests.client.helpers import bidding_done, card, end_of_deal, room, run, started, turn


class FakeLink:
    """Records what the client sends."""

    def __init__(self) -> None:
        self.sent: list[Request] = []

    async def send(self, request: Request) -> int:
        self.sent.append(request)
        return len(self.sent)


def client_with(state: TableState | None) -> tuple[Interactive, FakeLink]:
    client = Interactive(Options(server="ws://unused", name="me"))
    link = FakeLink()
    client.link = link  # type: ignore[assignment]
    client.state = state
    return client, link


async def test_menu_commands_open_rooms(pipe: PipeInput) -> None:
    client, link = client_with(None)
    await client.handle("practice 1 easy fast")
    await client.handle("watch abcde")
    assert link.sent == [StartPractice(deals=1, level="easy", speed="fast"), Watch(code="ABCDE")]
    await client.handle("ready")  # not in a room: nothing to send
    assert len(link.sent) == 2


async def test_bids_and_plays_carry_the_turn_version(pipe: PipeInput) -> None:
    state = run(TableState.from_room(room()), started(), turn(0, 0))
    client, link = client_with(state)
    await client.handle("2")
    assert link.sent == [BidRequest(value=2, version=0)]
    client.state = bidding_done(TableState.from_room(room()))
    await client.handle("3")
    assert link.sent[-1] == PlayRequest(ranks=[3], version=1)


async def test_an_illegal_selection_is_not_sent(pipe: PipeInput) -> None:
    client, link = client_with(bidding_done(TableState.from_room(room())))
    await client.handle("KK")  # not held
    await client.handle("34")  # not a play
    await client.handle("pass")  # the leader must play
    await client.handle("bid 2")  # not bidding
    assert link.sent == []


async def test_nothing_is_sent_out_of_turn(pipe: PipeInput) -> None:
    state = run(TableState.from_room(room()), started(), turn(1, 0))
    client, link = client_with(state)
    await client.handle("3")
    await client.handle("pass")
    assert link.sent == []


async def test_out_of_turn_the_client_says_whose_turn_it_is(
    pipe: PipeInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Was "it is not your turn": the server's "it is Ann (S2)'s turn" never reached the player.
    said = Said(monkeypatch)
    bidding = run(TableState.from_room(room()), started(), turn(1, 0))
    client, link = client_with(bidding)
    for text in ("1", "2", "pass"):  # `1` listed the pre-match commands, `2` was a single 2
        await client.handle(text)
    assert said.lines == ["it is bot 1 (S2)'s turn to bid"] * 3
    said.lines.clear()
    client.state = run(bidding_done(TableState.from_room(room()), landlord=1), turn(2, 3, "play"))
    await client.handle("33")
    await client.handle("pass")
    await client.handle("KK")  # not even held: whose turn it is comes first, as the server says
    assert said.lines == ["it is bot 2 (S3)'s turn to play"] * 3
    assert link.sent == []


async def test_outside_a_room_pass_and_cards_say_there_is_no_match(
    pipe: PipeInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Was "it is not your turn" for pass and "you hold no 3" for 33.
    said = Said(monkeypatch)
    client, link = client_with(None)
    await client.handle("pass")
    await client.handle("33")
    client.state = TableState.from_room(room()).apply(Left())
    await client.handle("pass")
    assert len(said.lines) == 3
    assert all(line.startswith("there is no match to play in") for line in said.lines)
    assert link.sent == []


async def test_hint_prefills_the_next_prompt_and_cycles(pipe: PipeInput) -> None:
    client, link = client_with(bidding_done(TableState.from_room(room())))
    await client.handle("hint")
    first = client.prefill
    await client.handle("hint")
    # 3333 4444 5555 6666 AA SJ BJ: bombs and the rocket kept whole, the pair before one A
    assert (first, client.prefill) == ("AA", "A")
    assert link.sent == []


async def test_enter_between_deals_readies(pipe: PipeInput) -> None:
    state = bidding_done(TableState.from_room(room())).apply(end_of_deal(1, [6, -3, -3]))
    client, link = client_with(state)
    await client.handle("")
    assert link.sent == [ReadyRequest()]


async def test_bot_needs_a_room(pipe: PipeInput) -> None:
    client, link = client_with(TableState.from_room(room(mode="private")))
    await client.handle("bot easy 2")
    assert link.sent == [SeatBot(seat=1, level="easy")]


async def test_a_whole_practice_match_with_tab_and_enter(pipe: PipeInput, server: str) -> None:
    client = Interactive(Options(server=server, name="typist"))
    task = asyncio.create_task(client.run())
    pipe.send_text("practice 1 normal instant\r")
    deadline = time.monotonic() + 30
    moves = 0
    dropped = False
    while time.monotonic() < deadline:
        await asyncio.sleep(0.02)
        state = client.state
        if state is None or state.table is None:
            continue
        if state.match_over:
            break
        if state.my_turn and state.table.turn is not None:
            version = state.table.turn.version
            if moves == 1 and not dropped:
                # Drop the connection: the client resumes its session with its token.
                dropped = True
                assert client.link is not None
                old = client.link
                await old.ws.close()
                while client.link is old and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                continue
            pipe.send_text("\t\r")  # the smallest legal play (or the lowest bid)
            moves += 1
            while (
                client.state is not None
                and client.state.table is not None
                and client.state.table.turn is not None
                and client.state.table.turn.version == version
                and time.monotonic() < deadline
            ):
                await asyncio.sleep(0.02)
    assert client.state is not None and client.state.match_over, "the match did not end"
    assert moves >= 1 and dropped
    assert client.link is not None and client.link.welcome.resumed
    pipe.send_text("quit\r")
    assert await asyncio.wait_for(task, 10) == 0


# --- issue 14: the rough edges a new player hits ---------------------------------------------


class Said:
    """What the client printed above the prompt, as plain lines."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lines: list[str] = []
        monkeypatch.setattr(interactive, "say", lambda f: self.lines.append(plain(f)))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def waiting_room(my_seat: int = 0, ready: bool = False) -> Snapshot:
    seats = [
        SeatView(kind="person", name="host", connected=True, ready=my_seat != 0 or ready),
        SeatView(kind="person", name="me", connected=True, ready=my_seat != 1 or ready),
        SeatView(kind="bot", name="normal bot 2", level="normal", connected=True, ready=True),
    ]
    view = room(your_seat=my_seat, mode="private")
    return Snapshot(room=view.model_copy(update={"seats": seats}))


async def test_create_in_the_client_readies_the_creator_as_ddz_create_does(
    pipe: PipeInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = Said(monkeypatch)
    client, link = client_with(None)
    await client.handle("create 3 public")
    assert link.sent == [CreateRoom(deals=3, public=True)]
    await client.on_message(waiting_room())
    assert link.sent[-1] == ReadyRequest()
    # and the room is announced as public (it said "(private, 3 deals)")
    assert "public" in said.text and "private" not in said.text


async def test_enter_readies_in_the_lobby_too(pipe: PipeInput) -> None:
    client, link = client_with(TableState.from_snapshot(waiting_room(my_seat=1)))
    await client.handle("")
    assert link.sent == [ReadyRequest()]
    client, link = client_with(TableState.from_snapshot(waiting_room(my_seat=1, ready=True)))
    await client.handle("")
    assert link.sent == []


async def test_leave_mid_match_asks_first(pipe: PipeInput, monkeypatch: pytest.MonkeyPatch) -> None:
    said = Said(monkeypatch)
    client, link = client_with(bidding_done(TableState.from_room(room())))
    await client.handle("leave")
    assert link.sent == []
    assert "leave again" in said.text and "bot" in said.text
    await client.handle("hint")  # anything else: the question is dropped
    await client.handle("leave")
    assert link.sent == []
    await client.handle("leave")
    assert link.sent == [Leave()]


async def test_leave_outside_a_deal_does_not_ask(pipe: PipeInput) -> None:
    client, link = client_with(TableState.from_snapshot(waiting_room()))
    await client.handle("leave")
    assert link.sent == [Leave()]


async def test_ctrl_d_mid_match_asks_first(
    pipe: PipeInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = Said(monkeypatch)
    client, _link = client_with(bidding_done(TableState.from_room(room())))
    assert await client.on_eof() is False
    assert "Ctrl-D again" in said.text
    assert await client.on_eof() is True
    client, _ = client_with(None)
    assert await client.on_eof() is True


async def test_the_prompt_reflects_leaving(pipe: PipeInput) -> None:
    state = run(TableState.from_room(room()), started(), turn(0, 0))
    client, _ = client_with(state)
    assert client.prompt() == "bid> "
    client.state = state.apply(Left())
    assert client.prompt() == "ddz> "


async def test_ctrl_c_says_how_to_quit(pipe: PipeInput, monkeypatch: pytest.MonkeyPatch) -> None:
    said = Said(monkeypatch)
    client, _ = client_with(None)
    client.on_interrupt()
    assert "quit" in said.text and "Ctrl-D" in said.text


async def test_autopass_passes_at_once_when_nothing_beats_the_table(
    pipe: PipeInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = Said(monkeypatch)
    rocket = CardsPlayed(
        seat=2,
        cards=[52, 53],
        kind="rocket",
        rank=16,
        card_counts=[17, 20, 15],
        multiplier=2,
        version=3,
    )
    state = run(bidding_done(TableState.from_room(room()), landlord=1), turn(2, 2, "play"))
    client, link = client_with(state)
    await client.on_message(rocket)
    await client.on_message(turn(0, 3, "play"))
    assert link.sent == []  # off by default
    await client.handle("autopass")
    assert "auto-pass on" in said.text
    client.state = state
    await client.on_message(rocket)
    await client.on_message(turn(0, 3, "play"))
    assert link.sent == [PassRequest(version=3)]  # turned on during the turn: passed then
    (notice,) = [line for line in said.lines if line.startswith("auto-pass: ")]
    assert "nothing in your hand beats ROCKET SJ BJ" in notice
    assert "♠" not in notice and "3333" not in notice  # no card of my hand in the notice
    # the next turn with nothing to beat the table is passed when it starts
    await client.on_message(turn(1, 4, "play"))
    await client.on_message(Passed(seat=1, trick_over=False, leader=None, version=5))
    await client.on_message(turn(0, 5, "play"))
    assert link.sent[-1] == PassRequest(version=5)


async def test_autopass_never_passes_a_play_i_can_beat_or_a_lead(pipe: PipeInput) -> None:
    client, link = client_with(bidding_done(TableState.from_room(room())))
    client.autopass = True
    await client.on_message(turn(0, 1, "play", may_pass=False))
    single = CardsPlayed(
        seat=0,
        cards=[card(3)],
        kind="single",
        rank=3,
        card_counts=[19, 17, 17],
        multiplier=1,
        version=2,
    )
    await client.on_message(single)
    await client.on_message(turn(1, 2, "play"))
    assert link.sent == []


async def test_counter_toggles(pipe: PipeInput, monkeypatch: pytest.MonkeyPatch) -> None:
    said = Said(monkeypatch)
    client, link = client_with(bidding_done(TableState.from_room(room())))
    assert not client.counter
    await client.handle("counter")
    assert client.counter and "card counter on" in said.text
    assert "unseen" in plain(client.toolbar())
    await client.handle("counter")
    assert not client.counter
    assert link.sent == []


def test_the_panel_sits_under_the_prompt_not_at_the_screens_foot(pipe: PipeInput) -> None:
    # Item 11: in a 40-line terminal the prompt sat at the top, 25 blank lines above the
    # panel, until the log filled the screen: prompt_toolkit fills every line below the
    # cursor, and the input window took the slack. It must not grow.
    client = Interactive(Options(server="ws://unused", name="me"))
    buffer = client.session.default_buffer
    windows = [
        w
        for w in client.session.app.layout.find_all_windows()
        if isinstance(w.content, BufferControl) and w.content.buffer is buffer
    ]
    assert windows and all(w.dont_extend_height() for w in windows)


def test_the_menu_fits_80_columns() -> None:
    lines = [plain(line) for line in interactive.menu_lines()]
    assert all(len(line) <= 80 for line in [*lines, plain(interactive.LOBBY_PANEL)])
    assert "public" in "\n".join(lines)


class Welcomed(FakeLink):
    """A fake link whose session was just opened."""

    welcome = Welcome(token="t", player_id="p", name="me")


async def test_ddz_alone_prints_a_menu_once(
    pipe: PipeInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `ddz` with no subcommand printed a two-line word list, and the panel under the prompt
    # the same list again.
    said = Said(monkeypatch)
    client = Interactive(Options(server="ws://unused", name="me"))
    client.link = Welcomed()  # type: ignore[assignment]
    await client.start()
    panel = plain(client.toolbar()).splitlines()
    menu = said.lines[1:]
    assert menu[0] == "What would you like to do? Type one of:"
    for word in ("practice", "quick", "create", "join CODE", "watch CODE", "history", "quit"):
        # each on its own line with what it does
        (line,) = [x for x in menu[1:] if word in x.split("  ")[0] + x.split("  ")[1]]
        assert len(line.split()) > 4, line
    assert len(panel) == 1 and panel[0] not in menu


async def test_help_fits_the_terminals_width(
    pipe: PipeInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Was laid out for about 95 columns whatever the terminal: words broke at column 80.
    said = Said(monkeypatch)
    client, _ = client_with(None)
    for columns in (80, 56):
        monkeypatch.setattr(client, "columns", lambda n=columns: n)
        said.lines.clear()
        await client.handle("help")
        assert said.lines and all(len(line) <= columns for line in said.lines)
        assert "hint | h | Tab" in said.text


async def test_the_rematch_offer_counts_down_in_the_panel(
    pipe: PipeInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "Ann wants a rematch: type again (30 s)" was printed once and never counted down.
    said = Said(monkeypatch)
    client, _ = client_with(None)
    now = [1000.0]
    client.clock = lambda: now[0]
    offer = RematchAsked(code="ABCDE", seat=1, deadline=130.0, server_time=100.0, name="Ann")
    await client.on_message(offer)
    assert said.lines == ["Ann wants a rematch: type again (30 s)"]
    panel = plain(client.toolbar()).splitlines()
    assert panel[-1] == "Ann wants a rematch: type again (30 s)"
    now[0] += 12
    assert plain(client.toolbar()).splitlines()[-1] == "Ann wants a rematch: type again (18 s)"
    now[0] += 18
    assert "rematch" not in plain(client.toolbar())  # the seat is no longer held


async def test_ctrl_c_clears_a_hint_put_at_the_prompt(
    pipe: PipeInput, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `hint` put a play at the next prompt; Ctrl-C "cleared the line" and the next prompt
    # showed the hint again.
    said = Said(monkeypatch)
    client = Interactive(Options(server=server, name="typist", keep_session=False))
    buffer = client.session.default_buffer
    task = asyncio.create_task(client.run())

    async def until(what: Callable[[], bool], why: str) -> None:
        deadline = time.monotonic() + 30
        while not what():
            assert time.monotonic() < deadline, f"timed out waiting: {why}"
            await asyncio.sleep(0.02)

    try:
        pipe.send_text("practice 1 normal instant\r")
        await until(lambda: client.context().action is not None, "my turn")
        pipe.send_text("hint\r")
        await until(lambda: buffer.text != "", "the hint at the prompt")
        pipe.send_text("\x03")  # Ctrl-C
        await until(lambda: "Ctrl-C clears the line" in said.text, "Ctrl-C")
        await until(lambda: client.session.app.is_running, "the next prompt")
        assert buffer.text == ""
        pipe.send_text("quit\r")
        await until(lambda: "quit again" in said.text, "the question")
        pipe.send_text("quit\r")
        assert await asyncio.wait_for(task, 10) == 0
    finally:
        if not task.done():
            task.cancel()
