"""Whole matches over real sockets: real ``ddz`` client processes against a server on a
real Redis. Scores sum to zero in every deal, totals and winners follow from the deals, the
journal in Redis replays to the same result, and no message anyone received holds a card
they could not see."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.game.deal import Deal
from server.game.journal import replay
from tests.client.procs import DDZ
from tests.redis_server import unique_prefix
from tests.server.wire import RunningServer, running_server

TIMEOUT = 90
CARD_FIELDS = ("hand", "kitty", "cards", "hands")


async def run_client(*args: str) -> list[dict[str, Any]]:
    """Run ``ddz --json ...`` to its end; return every message it received."""
    proc = await asyncio.create_subprocess_exec(
        *DDZ, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    return await client_end(proc, [])


async def client_in_room(*args: str) -> tuple[asyncio.subprocess.Process, list[dict[str, Any]]]:
    """Start ``ddz --json ...`` and wait until it is in its room (its first snapshot);
    return the process and the messages so far."""
    proc = await asyncio.create_subprocess_exec(
        *DDZ, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    first: list[dict[str, Any]] = []
    while not first or first[-1]["type"] != "snapshot":
        line = await asyncio.wait_for(proc.stdout.readline(), TIMEOUT)
        assert line, "the client ended before it was in its room"
        first.append(json.loads(line))
    return proc, first


async def client_end(
    proc: asyncio.subprocess.Process, first: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Wait for a ``ddz --json`` client to end; return every message it received."""
    out, err = await asyncio.wait_for(proc.communicate(), TIMEOUT)
    assert proc.returncode == 0, err.decode()
    return [*first, *(json.loads(line) for line in out.decode().splitlines() if line.strip())]


def card_ids(value: Any, key: str | None = None) -> list[int]:
    """Every card id held in a card field anywhere in a message."""
    if isinstance(value, dict):
        return [c for k, v in value.items() for c in card_ids(v, k)]
    if isinstance(value, list):
        if key in CARD_FIELDS and all(isinstance(v, int) for v in value):
            return list(value)
        return [c for v in value for c in card_ids(v, key)]
    return []


def dealt_hands(match_records: list[dict[str, Any]]) -> list[tuple[list[list[int]], list[int]]]:
    """(hands, kitty) of every deal dealt, voids included, in order, from the journal."""
    deals: list[tuple[list[list[int]], list[int]]] = []
    previous: Deal | None = None
    for _, match, _ in replay(match_records):
        if match.deal is not previous:  # a new deal, as dealt: no action on it yet
            previous = match.deal
            deals.append(([list(h) for h in previous.hands], list(previous.kitty)))
    return deals


def check_no_leaks(
    messages: list[dict[str, Any]], seat: int | None, deals: list[tuple[list[list[int]], list[int]]]
) -> None:
    """Each message holds only the viewer's own cards and cards already public."""
    deal_index = -1
    own: set[int] = set()
    public: set[int] = set()
    for message in messages:
        kind = message["type"]
        if kind == "deal_started":
            deal_index += 1
            hands, _ = deals[deal_index]
            own = set(hands[seat]) if seat is not None else set()
            public = set()
            assert message["hand"] == (sorted(own) if seat is not None else None)
        elif kind == "landlord":
            public |= set(message["kitty"])
            assert message["kitty"] == sorted(deals[deal_index][1])
        elif kind == "played":
            public |= set(message["cards"])
        elif kind in ("deal_end", "match_end"):
            continue  # every remaining card is public once the deal is over
        elif kind == "snapshot" and message["room"]["table"] is not None:
            # These tests take their snapshots at the start: a practice room's first deal.
            assert deal_index == -1
            deal_index = 0
            table = message["room"]["table"]
            hands, _ = deals[0]
            own = set(hands[seat]) if seat is not None else set()
            assert table["hand"] == (sorted(own) if seat is not None else None)
        seen = set(card_ids(message))
        assert seen <= own | public, f"{kind} showed seat {seat} cards {seen - own - public}"


def check_scores(messages: list[dict[str, Any]]) -> list[int]:
    ends = [m for m in messages if m["type"] == "deal_end"]
    for end in ends:
        assert sum(end["score"]["scores"]) == 0
    (final,) = [m for m in messages if m["type"] == "match_end"]
    totals = [sum(e["score"]["scores"][s] for e in ends) for s in range(3)]
    assert final["totals"] == totals
    assert final["winners"] == [s for s in range(3) if totals[s] == max(totals)]
    return totals


async def journal_totals(srv: RunningServer, code: str) -> list[int]:
    records = await srv.app.store.read_log(code)
    *_, (_, match, _) = replay(records)
    assert match.phase == "over"
    return list(match.totals)


async def test_a_practice_match_to_the_end(redis_url: str) -> None:
    async with running_server(redis_url) as srv:
        messages = await run_client(
            "--server", srv.url, "--auto", "easy", "--json",
            "practice", "--deals", "3", "--speed", "instant",
        )  # fmt: skip
        code = next(m["room"]["code"] for m in messages if m["type"] == "snapshot")
        totals = check_scores(messages)
        assert len([m for m in messages if m["type"] == "deal_end"]) == 3
        assert await journal_totals(srv, code) == totals
        records = await srv.app.store.read_log(code)
        check_no_leaks(messages, 0, dealt_hands(records))


@contextlib.asynccontextmanager
async def servers(redis_url: str, n: int, **settings: Any) -> AsyncIterator[list[RunningServer]]:
    """``n`` server processes' apps on one Redis (one key prefix): a room runs on one, and
    the players connected to another are served through it."""
    prefix = unique_prefix()
    async with contextlib.AsyncExitStack() as stack:
        yield [
            await stack.enter_async_context(
                running_server(redis_url, key_prefix=prefix, **settings)
            )
            for _ in range(n)
        ]


@pytest.mark.parametrize("processes", [1, 2])
async def test_a_private_room_of_three_people_and_a_watcher(redis_url: str, processes: int) -> None:
    """With two processes the room runs on the first; ann and the watcher are connected to
    the second, so their requests and everything sent to them cross through Redis."""
    async with servers(redis_url, processes, bid_timeout=30, play_timeout=30) as running:
        srv, other = running[0], running[-1]
        base = ["--server", srv.url, "--auto", "normal", "--json"]
        elsewhere = ["--server", other.url, "--auto", "normal", "--json"]
        creator, host_first = await client_in_room(
            *base, "--name", "host", "create", "--deals", "3"
        )
        code = host_first[-1]["room"]["code"]
        # the watcher is in before anyone joins, so it sees the match from its start
        watcher, watched_first = await client_in_room(
            "--server", other.url, "--json", "watch", code
        )
        joiners = [
            asyncio.create_task(run_client(*args, "--name", name, "join", code))
            for name, args in (("ann", elsewhere), ("bo", base))
        ]
        host = await client_end(creator, host_first)
        ann, bo = await asyncio.gather(*joiners)
        watched = await client_end(watcher, watched_first)

        records = await srv.app.store.read_log(code)
        deals = dealt_hands(records)
        totals = check_scores(host)
        assert check_scores(ann) == check_scores(bo) == check_scores(watched) == totals
        assert await journal_totals(srv, code) == totals
        seats = {
            name: next(m["room"]["your_seat"] for m in msgs if m["type"] == "snapshot")
            for name, msgs in (("host", host), ("ann", ann), ("bo", bo))
        }
        assert sorted(seats.values()) == [0, 1, 2]
        for name, msgs in (("host", host), ("ann", ann), ("bo", bo)):
            check_no_leaks(msgs, seats[name], deals)
        check_no_leaks(watched, None, deals)
        assert all(m.get("hand") is None for m in watched if m["type"] == "deal_started")


def test_the_leak_check_catches_a_card_of_another_seat() -> None:
    """The check above must fail on a leak: here a turn message carrying seat 1's card."""
    hands = [[0, 1], [2, 3], [4, 5]]
    started = {"type": "deal_started", "hand": [0, 1]}
    leaking = {"type": "turn", "cards": [2]}
    check_no_leaks([started], 0, [(hands, [6, 7, 8])])
    try:
        check_no_leaks([started, leaking], 0, [(hands, [6, 7, 8])])
    except AssertionError:
        return
    raise AssertionError("a leaked card went unnoticed")
