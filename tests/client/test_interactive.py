"""The interactive client's wiring: typed lines become the right requests (or none), Tab
fills in hints, and a whole practice match can be played at the prompt against a real
server with Tab and Enter alone, surviving a dropped connection on the way."""

from __future__ import annotations

import asyncio
import time

from prompt_toolkit.input import PipeInput

from client.interactive import Interactive
from client.options import Options
from client.table import TableState
from protocol.messages import (
    BidRequest,
    PlayRequest,
    ReadyRequest,
    Request,
    SeatBot,
    StartPractice,
    Watch,
)
from tests.client.helpers import bidding_done, end_of_deal, room, run, started, turn


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
