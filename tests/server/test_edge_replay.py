"""A finished match's replay is encoded once and kept (a bounded number, bounded bytes),
then served from those bytes to each asker allowed it; a replay or a history request costs
its connection tokens in proportion to what it makes the server send."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.codec import decode_server
from protocol.events import MatchEnded
from protocol.messages import GetHistory, GetReplay, History, ReplayData, StartPractice
from server.edge.flood import (
    HISTORY_COST,
    REPLY_BYTES_PER_TOKEN,
    REPLY_COST_MOST,
    TokenBucket,
    reply_cost,
)
from server.lobby import player_replay
from server.lobby.player_replay import ReplayCache
from tests.server.wire import AutoSeat, running_server, wire_client


def replay(code: str, deals: int = 1) -> ReplayData:
    return ReplayData(
        code=code,
        mode="practice",
        deals_total=deals,
        seats=["a", "b", "c"],
        ended="abandoned",
        started_at=0.0,
        ended_at=1.0,
        deals=[],
        result=None,
    )


def test_the_cache_keeps_encoded_replays_within_its_count_and_bytes() -> None:
    one = ReplayCache(size=3, max_bytes=10_000)
    payloads = [one.put((f"C{n}", b""), replay(f"C{n}")) for n in range(5)]
    assert len(one) == 3 and one.get(("C0", b"")) is None
    assert one.get(("C4", b"")) is payloads[4]  # the very bytes kept, not encoded again
    assert decode_server(payloads[4]) == replay("C4")
    small = ReplayCache(size=100, max_bytes=2 * len(payloads[0]))
    for n in range(5):
        small.put((f"C{n}", b""), replay(f"C{n}"))
    assert len(small) == 2 and small.bytes <= small.max_bytes


def test_a_reply_costs_a_token_per_block_of_its_bytes_up_to_a_bound() -> None:
    assert reply_cost(100) == 0
    assert reply_cost(37_000) == 37_000 // REPLY_BYTES_PER_TOKEN
    assert reply_cost(10_000_000) == REPLY_COST_MOST
    bucket = TokenBucket(rate=1.0, burst=10, clock=0.0)
    bucket.spend(25, now=0.0)
    assert bucket.tokens == -10  # in debt, at most a burst deep
    assert not bucket.take(now=10.0)  # ten seconds repay it
    assert bucket.take(now=11.0)


async def test_a_replay_is_encoded_once_and_each_request_is_charged_its_size(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoded: list[Any] = []
    encode = player_replay.encode

    def counting(message: Any) -> bytes:
        encoded.append(message)
        return encode(message)

    monkeypatch.setattr(player_replay, "encode", counting)
    async with (
        # (a bucket that hardly refills: what a request took is read exactly)
        running_server(redis_url, bot_speed="instant", rate_limit=0.01, rate_burst=1000) as srv,
        wire_client(srv.url) as (client, welcome),
    ):
        seat = AutoSeat(client)
        await client.send(StartPractice(deals=1, speed="instant"))
        ended = await seat.until(MatchEnded)
        assert ended is not None
        conn = srv.app.hub.connections(welcome.player_id)[0]
        code = seat.state.room.code if seat.state is not None else ""
        replies = []
        for _ in range(3):
            before = conn.bucket.tokens
            await client.send(GetReplay(code=code))
            data = await client.recv_type(ReplayData, timeout=15)
            replies.append(data)
            charged = before - conn.bucket.tokens  # (a little refill meanwhile)
            cost = 1 + reply_cost(len(encode(data)))  # (the same bytes as were sent)
            assert cost - 0.1 < charged <= cost
        assert replies[0] == replies[1] == replies[2]
        assert len(encoded) == 1
        before = conn.bucket.tokens
        await client.send(GetHistory())
        await client.recv_type(History)
        assert 1 + HISTORY_COST - 0.1 < before - conn.bucket.tokens <= 1 + HISTORY_COST
