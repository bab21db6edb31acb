"""Quick match and the list of live rooms, from the client's side.

Pure parts first: the words ``quick``, ``unqueue`` and ``list``, the command line, the lines
drawn for the queue and the room list, and the auto player in a quick room (dealt at once:
no ready to start). Then the headless driver over a scripted link: the queue across a
dropped connection. Then end to end against a real ``ddz-server`` with a short queue wait
(``quick_server``): three ``ddz --auto easy --json quick`` processes meet in one room; one
alone gets two bots; ``ddz list`` names a running match; and the interactive ``quick``,
``unqueue`` and ``list`` at the prompt.
"""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pytest
from prompt_toolkit.input import PipeInput

from client import commands as cmd
from client.auto import AutoPlayer
from client.cli import parse_args
from client.connection import Link
from client.headless import EXIT_OK, Headless, SessionEnded
from client.interactive import Interactive
from client.options import Options, setup_request
from client.render import (
    Fragments,
    event_lines,
    lobby_lines,
    plain,
    queued_line,
    room_list_lines,
    room_summary_line,
    table_panel,
)
from client.table import TableState
from protocol.errors import ErrorCode
from protocol.events import SeatControl
from protocol.messages import (
    BidRequest,
    Error,
    LeaveQueue,
    ListRooms,
    PassRequest,
    Queued,
    QueueLeft,
    QuickMatch,
    RatingChanged,
    RatingView,
    ReadyRequest,
    RoomList,
    RoomSummary,
    SeatView,
    Snapshot,
)
from tests.client.conftest import QUICK_MATCH_WAIT
from tests.client.helpers import room, run, started, turn
from tests.client.procs import DDZ
from tests.client.test_interactive import client_with
from tests.client.test_reconnect import ScriptedLink, a_match_end, welcome

URL = "ws://127.0.0.1:8765"
#: Seconds one ``ddz`` process may take here (a quick match against instant bots takes a few).
TIMEOUT = 30


# --- words, the command line, and the lines drawn ------------------------------------------


def test_the_lobby_words() -> None:
    assert cmd.parse_command("quick") == cmd.Quick()
    assert cmd.parse_command(" UNQUEUE ") == cmd.Unqueue()
    assert cmd.parse_command("list") == cmd.ListLive()
    assert isinstance(cmd.parse_command("quick 3"), cmd.Invalid)
    assert isinstance(cmd.parse_command("list all"), cmd.Invalid)
    assert cmd.parse_command("leave") == cmd.LeaveRoom()  # unqueues while queued
    for word in ("quick", "unqueue", "list"):
        assert word in cmd.COMMAND_WORDS and word in cmd.help_text()


def test_the_quick_and_list_subcommands() -> None:
    opts = parse_args(["--server", URL, "--auto", "easy", "--json", "quick"])
    assert (opts.mode, opts.auto, opts.json, opts.headless) == ("quick", "easy", True, True)
    assert setup_request(opts) == QuickMatch()
    assert not parse_args(["quick"]).headless  # the interactive prompt, in the queue
    for argv in (["list"], ["--json", "list"], ["--auto", "easy", "list"]):
        opts = parse_args(argv)
        assert opts.mode == "list" and setup_request(opts) == ListRooms()
    with pytest.raises(SystemExit):
        parse_args(["quick", "now"])


def test_the_queue_lines() -> None:
    assert plain(queued_line(15.0, 1)) == "waiting for players… (bots after 15 s)"
    assert plain(queued_line(0.5, 3)) == "waiting for players… (bots after 0.5 s; 2 others waiting)"
    assert plain(queued_line(15.0, 2, waited=3.4)).startswith("waiting for players… (bots in 12 s")
    assert plain(queued_line(15.0, 1, waited=20.0)) == "waiting for players… (bots in 0 s)"
    (line,) = lobby_lines(Queued(wait=15.0, waiting=1))
    assert "bots after 15 s" in plain(line)
    (line,) = lobby_lines(QueueLeft())
    assert plain(line) == "you left the quick-match queue"
    (line,) = lobby_lines(Error(code=ErrorCode.ALREADY_QUEUED, message="in the queue already"))
    assert plain(line) == "refused: in the queue already [already_queued]"


def test_the_room_list_lines() -> None:
    quick = RoomSummary(
        code="K7P2Q", mode="quick", deals=3, deal_no=2, seats=["ann", "normal bot 1", "bob"],
        watchers=1,
    )  # fmt: skip
    waiting = RoomSummary(
        code="ABCDE", mode="private", deals=6, deal_no=0, seats=["cat", "", ""], watchers=0
    )
    line = plain(room_summary_line(quick))
    assert line.split()[:4] == ["K7P2Q", "quick", "deal", "2/3"]
    assert "ann, normal bot 1, bob" in line and line.endswith("1 watching")
    assert "not started" in plain(room_summary_line(waiting))
    assert "cat, (empty), (empty)" in plain(room_summary_line(waiting))
    lines = room_list_lines(RoomList(rooms=[quick, waiting]))
    assert [plain(x).split()[0] for x in lines] == ["K7P2Q", "ABCDE"]
    assert [plain(x) for x in room_list_lines(RoomList(rooms=[]))] == ["no live rooms"]


def quick_state() -> TableState:
    """Me in seat 1 of a timed quick match with two bots (undealt: deal with ``started``)."""
    view = room(your_seat=0, mode="quick").model_copy(update={"timed": True})
    return TableState.from_room(view)


def test_a_quick_match_reads_as_one() -> None:
    state = quick_state()
    lines = [plain(x) for x in event_lines(state, state, Snapshot(room=state.room))]
    assert lines[0] == "quick match ABCDE (3 deals, timed)"
    assert not any("share the code" in x for x in lines)  # nobody joins a quick room


def test_my_turn_counts_down_and_a_takeover_says_how_to_resume() -> None:
    state = run(quick_state(), started())
    timed = turn(0, 0).model_copy(update={"deadline": 112.0, "server_time": 100.0})
    state = state.apply(timed, now=50.0)
    panel = plain(table_panel(state, 53.0))
    assert "your turn to bid  9s left" in panel
    takeover = SeatControl(seat=0, bot=True, reason="timeouts", version=1)
    after = state.apply(takeover)
    (line,) = event_lines(state, after, takeover)
    assert "type resume to play again" in plain(line)
    assert "a bot is playing your seat: type resume to play again" in plain(table_panel(after, 54))


def test_the_auto_player_does_not_ready_a_quick_match() -> None:
    auto = AutoPlayer.for_level("easy")
    undealt = TableState.from_room(room(mode="quick"))
    assert auto.next_request(undealt) is None
    assert (
        AutoPlayer.for_level("easy").next_request(TableState.from_room(room(mode="private")))
        == ReadyRequest()
    )
    request = auto.next_request(run(quick_state(), started(), turn(0, 0)))
    assert isinstance(request, BidRequest | PassRequest) and request.version == 0


# --- the headless driver over a scripted link ---------------------------------------------

QUICK_OPTS = Options(server="ws://nowhere", name="ann", mode="quick", auto="easy")


async def test_headless_quick_waits_and_joins_the_queue_again_after_a_drop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = ScriptedLink(welcome())
    second = ScriptedLink(welcome(resumed=True), first.numbers)

    async def reopen(*_args: object, **_kwargs: object) -> Link:
        return second

    monkeypatch.setattr("client.connection.open_with_retry", reopen)
    out, err = io.StringIO(), io.StringIO()
    driver = Headless(first, QUICK_OPTS, out, err)
    task = asyncio.create_task(driver.run())
    (join,) = await first.next_sent()
    assert isinstance(join, QuickMatch)
    first.feed(Queued(wait=15.0, waiting=1))
    waiting = "waiting for players… (bots after 15 s)"
    await wait_until(lambda: waiting in out.getvalue(), 10, "the queued line")
    first.feed(None)  # dropped while queued: the server took us off the queue
    (again,) = await second.next_sent()
    assert isinstance(again, QuickMatch) and again.id > join.id
    # An entry that outlived the drop (the server died): we are waiting still.
    second.feed(Error(code=ErrorCode.ALREADY_QUEUED, message="queued", request_id=again.id))
    await asyncio.sleep(0.05)
    assert not task.done()
    second.feed(Snapshot(room=quick_state().room), started(), turn(0, 0))
    (bid,) = await second.next_sent()
    assert isinstance(bid, BidRequest | PassRequest)  # no ready: the match is dealt
    second.feed(a_match_end())
    assert await asyncio.wait_for(task, 5) == EXIT_OK


async def test_headless_quick_ends_when_refused_or_unqueued() -> None:
    link = ScriptedLink(welcome())
    driver = Headless(link, QUICK_OPTS, io.StringIO(), io.StringIO())
    task = asyncio.create_task(driver.run())
    (join,) = await link.next_sent()
    link.feed(Error(code=ErrorCode.ALREADY_SEATED, message="leave first", request_id=join.id))
    with pytest.raises(SessionEnded, match="leave first"):
        await asyncio.wait_for(task, 5)
    link = ScriptedLink(welcome())
    driver = Headless(link, QUICK_OPTS, io.StringIO(), io.StringIO())
    task = asyncio.create_task(driver.run())
    await link.next_sent()
    link.feed(Queued(wait=1.0, waiting=1), QueueLeft())
    with pytest.raises(SessionEnded, match="left the quick-match queue"):
        await asyncio.wait_for(task, 5)


@pytest.mark.parametrize("rated", [True, False])
async def test_headless_waits_for_a_rating_change_only_after_a_rated_match(rated: bool) -> None:
    """A quick match waits for its rating's change; its rematch (a "quick" room that is
    not rated) ends at its result: no change comes for it (issue 31: each such rematch
    waited the whole ``RATING_WAIT``)."""
    two = room(your_seat=0, mode="quick").model_copy(update={"rated": rated})
    two.seats[1] = SeatView(kind="person", name="bob", connected=True)
    link = ScriptedLink(welcome())
    driver = Headless(link, QUICK_OPTS, io.StringIO(), io.StringIO())
    task = asyncio.create_task(driver.run())
    await link.next_sent()
    link.feed(Snapshot(room=two), a_match_end())
    if rated:
        await asyncio.sleep(0.2)
        assert not task.done()  # waiting for its rating's change
        change = RatingView(
            points=1500, provisional=True, tier="bronze", rating=0.0, mu=25.0, sigma=8.3, matches=0
        )
        link.feed(RatingChanged(code=two.code, before=change, after=change))
    assert await asyncio.wait_for(task, 2) == EXIT_OK


# --- end to end ----------------------------------------------------------------------------


def messages(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def first_of(kind: str, msgs: list[dict[str, Any]]) -> dict[str, Any]:
    return next(m for m in msgs if m["type"] == kind)


def quick_player(url: str, name: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*DDZ, "--server", url, "--name", name, "--auto", "easy", "--json", "quick"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish_all(procs: list[subprocess.Popen[str]]) -> list[tuple[str, str]]:
    try:
        return [p.communicate(timeout=TIMEOUT) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()


def test_three_quick_players_meet_in_one_room(quick_server: str) -> None:
    procs = [quick_player(quick_server, name) for name in ("ann", "bob", "cat")]
    results = finish_all(procs)
    codes = set()
    for proc, (out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
        msgs = messages(out)
        assert [m["type"] for m in msgs[:2]] == ["welcome", "queued"]
        snapshot = first_of("snapshot", msgs)["room"]
        assert snapshot["mode"] == "quick" and snapshot["timed"] and snapshot["table"]
        assert [s["kind"] for s in snapshot["seats"]] == ["person"] * 3
        assert sorted(s["name"] for s in snapshot["seats"]) == ["ann", "bob", "cat"]
        codes.add(snapshot["code"])
        assert [m["type"] for m in msgs].count("deal_end") == 3
        assert "match_end" in [m["type"] for m in msgs]
        # issue 34: the headless client waited for no rating change, so --json never showed it
        assert msgs[-1]["type"] == "rating_changed" and msgs[-1]["code"] == snapshot["code"]
        assert msgs[-1]["before"]["points"] == 1500 and msgs[-1]["after"]["provisional"]
    assert len(codes) == 1


def test_one_quick_player_alone_gets_two_bots(quick_server: str) -> None:
    started_at = time.monotonic()
    ((out, err),) = finish_all([proc := quick_player(quick_server, "solo")])
    assert proc.returncode == 0, err
    assert time.monotonic() - started_at >= QUICK_MATCH_WAIT
    msgs = messages(out)
    queued = first_of("queued", msgs)
    assert (queued["wait"], queued["waiting"]) == (QUICK_MATCH_WAIT, 1)
    seats = first_of("snapshot", msgs)["room"]["seats"]
    assert [s["kind"] for s in seats] == ["person", "bot", "bot"]
    assert msgs[-1]["type"] == "match_end"


async def wait_until(what: Callable[[], bool], seconds: float, why: str) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting: {why}")
        await asyncio.sleep(0.02)


async def ddz(*args: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        *DDZ, *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), TIMEOUT)
    assert proc.returncode is not None
    return proc.returncode, out.decode() + err.decode()


async def test_interactive_quick_unqueue_and_list_with_ddz_list_alongside(
    pipe: PipeInput, quick_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[Fragments] = []
    monkeypatch.setattr("client.interactive.say", said.append)

    def lines() -> list[str]:
        return [plain(x) for x in said]

    client = Interactive(Options(server=quick_server, name="typist"))
    task = asyncio.create_task(client.run())
    try:
        pipe.send_text("quick\r")
        await wait_until(lambda: client.queued is not None, 5, "queued")
        assert f"waiting for players… (bots after {QUICK_MATCH_WAIT:g} s)" in lines()
        toolbar = "".join(fragment[1] for fragment in client.toolbar())
        assert "waiting for players… (bots in " in toolbar
        pipe.send_text("unqueue\r")
        await wait_until(lambda: client.queued is None, 5, "unqueued")
        assert "you left the quick-match queue" in lines()
        pipe.send_text("quick\r")
        await wait_until(lambda: client.state is not None, QUICK_MATCH_WAIT + 5, "matched")
        state = client.state
        assert state is not None and client.queued is None
        assert state.room.mode == "quick" and state.table is not None
        assert [s.kind for s in state.room.seats] == ["person", "bot", "bot"]
        code = state.room.code
        assert f"quick match {code} (3 deals, timed)" in lines()
        # The match waits on me at some point (5 s clocks): it is live while we list.
        status, out = await ddz("--server", quick_server, "--json", "list")
        assert status == 0, out
        (listed,) = [r for r in json.loads(out)["rooms"] if r["code"] == code]
        assert listed["mode"] == "quick" and listed["seats"][0] == "typist"
        status, out = await ddz("--server", quick_server, "list")
        assert status == 0 and any(x.startswith(code) and "quick" in x for x in out.splitlines())
        pipe.send_text("list\r")
        await wait_until(lambda: any(x.startswith(code) for x in lines()), 5, "the list")
        # Mid-match, with no saved session, quit gives up the seat: it asks once (issue 14).
        pipe.send_text("quit\r")
        await wait_until(lambda: any("quit again" in x for x in lines()), 5, "the question")
        pipe.send_text("quit\r")
        assert await asyncio.wait_for(task, 10) == 0
    finally:
        if not task.done():
            task.cancel()


async def test_interactive_quick_needs_no_room_and_one_place(pipe: PipeInput) -> None:
    """The lobby commands' guards: no queue from a room, one queue entry, and leave/unqueue
    while queued sends LeaveQueue."""
    client, link = client_with(quick_state())
    said: list[Fragments] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("client.interactive.say", said.append)
        await client.handle("quick")
        assert link.sent == [] and "leave it first" in plain(said[-1])
        client.state = None
        await client.handle("unqueue")
        assert link.sent == [] and "not in the quick-match queue" in plain(said[-1])
        await client.handle("quick")
        assert link.sent == [QuickMatch()]
        await client.on_message(Queued(wait=15.0, waiting=1))
        await client.handle("quick")
        await client.handle("practice")
        assert link.sent == [QuickMatch()]
        await client.handle("leave")
        await client.handle("list")
        assert link.sent == [QuickMatch(), LeaveQueue(), ListRooms()]
        await client.on_message(QueueLeft())
        assert client.queued is None


async def test_interactive_rejoins_the_queue_after_a_drop(
    pipe: PipeInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = Interactive(Options(server="ws://nowhere", name="ann", reconnect_for=5))
    first = ScriptedLink(welcome())
    second = ScriptedLink(welcome(resumed=True), first.numbers)

    async def reopen(*_args: object, **_kwargs: object) -> Link:
        return second

    monkeypatch.setattr("client.connection.open_with_retry", reopen)
    monkeypatch.setattr("client.interactive.say", lambda _line: None)
    client.link = first
    await client.on_message(Queued(wait=15.0, waiting=1))
    assert await client.reconnect()
    assert [type(r) for r in second.sent] == [QuickMatch]
