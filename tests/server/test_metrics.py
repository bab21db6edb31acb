"""GET /metrics: what an operator watches, in Prometheus's text format."""

from __future__ import annotations

import asyncio
import gc
import urllib.request

from protocol.events import MatchEnded, SeatControl
from protocol.messages import CreateRoom, ReadyRequest, SeatBot, SetBotSpeed, StartPractice
from tests.server.wire import AutoSeat, running_server, wire_client

#: /metrics is served nowhere by default: these servers serve it on their game port.
METRICS = {"metrics_on_game_port": True}


def scrape(url: str) -> str:
    http = url.replace("ws://", "http://") + "/metrics"
    with urllib.request.urlopen(http, timeout=5) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        return str(response.read().decode())


def value(text: str, sample: str) -> float:
    for line in text.splitlines():
        if line.startswith(sample + " "):
            return float(line.split()[-1])
    raise AssertionError(f"no sample {sample}")


async def test_metrics_count_connections_rooms_requests_and_latency(redis_url: str) -> None:
    async with running_server(redis_url, **METRICS) as srv, wire_client(srv.url) as (client, _):
        seat = AutoSeat(client)
        await client.send(StartPractice(deals=1, speed="instant"))
        await seat.until(MatchEnded, timeout=60)
        text = await asyncio.to_thread(scrape, srv.url)
        assert value(text, "ddz_connections") == 1
        assert value(text, 'ddz_requests_total{outcome="ok",type="start_practice"}') == 1
        actions = [f'ddz_requests_total{{outcome="ok",type="{t}"}}' for t in ("bid", "pass")]
        assert any(a in text for a in actions)  # the practice player's first bid or pass
        assert value(text, 'ddz_request_latency_seconds_count{type="start_practice"}') == 1
        assert 'ddz_rooms{state="bidding"}' in text
        assert "ddz_redis_errors_total 0.0" in text
        assert "ddz_bot_decision_seconds" in text


async def test_metrics_count_timeouts_and_takeovers(redis_url: str) -> None:
    clocks = {"bid_timeout": 0.1, "play_timeout": 0.1, "ready_timeout": 0.2}
    async with (
        running_server(redis_url, **clocks, **METRICS) as srv,
        wire_client(srv.url) as (client, _),
    ):
        await client.send(CreateRoom(deals=3))
        await client.send(SetBotSpeed(speed="instant"))
        await client.send(SeatBot(level="easy"))
        await client.send(SeatBot(level="easy"))
        await client.send(ReadyRequest())
        await client.recv_type(SeatControl, timeout=10)  # the idle seat was taken over
        text = await asyncio.to_thread(scrape, srv.url)
        assert value(text, "ddz_timeouts_total") >= 2
        assert value(text, "ddz_takeovers_total") == 1
        assert (
            value(text, 'ddz_rooms{state="bidding"}') + value(text, 'ddz_rooms{state="playing"}')
            == 1
        )


async def test_the_garbage_collectors_pauses_are_observed_while_the_server_runs(
    redis_url: str,
) -> None:
    async with running_server(redis_url, **METRICS) as srv:
        before = value(await asyncio.to_thread(scrape, srv.url), FULL_PAUSES)
        gc.collect()
        assert value(await asyncio.to_thread(scrape, srv.url), FULL_PAUSES) == before + 1
        metrics = srv.app.metrics
    assert metrics._on_gc not in gc.callbacks  # the app closed: nothing left behind


FULL_PAUSES = 'ddz_gc_pause_seconds_count{generation="2"}'


def test_request_counts_and_latency_read_as_prometheus_own_counter_and_histogram() -> None:
    """The requests' numbers are kept by hand (the hot path); scraped, they are the lines
    prometheus-client's own Counter and Histogram give for the same requests."""
    from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

    from server.metrics import LATENCY_BUCKETS, Metrics

    ours = Metrics(lambda: 0, lambda: [])
    registry = CollectorRegistry()
    counter = Counter("ddz_requests", "n", ["type", "outcome"], registry=registry)
    histogram = Histogram(
        "ddz_request_latency_seconds", "s", ["type"], buckets=LATENCY_BUCKETS, registry=registry
    )
    counter.labels("unread", "rate_limited")
    seconds = [0.0, 0.0005, 0.00051, 0.003, 0.1, 2.5, 2.6, 30.0]  # edges, between, beyond
    for i, s in enumerate(seconds):
        kind, outcome = ("play", "ok") if i % 3 else ("bid", "refused")
        ours.request_done(kind, outcome, s)
        counter.labels(kind, outcome).inc()
        histogram.labels(kind).observe(s)
    ours.requests.refused_unread()
    counter.labels("unread", "rate_limited").inc()

    def samples(text: str) -> set[str]:  # (not their creation times: those are not kept)
        names = ("ddz_requests_total", "ddz_request_latency_seconds_")
        lines = text.splitlines()
        return {line for line in lines if line.startswith(names) and "_created" not in line}

    assert samples(generate_latest(ours.registry).decode()) == samples(
        generate_latest(registry).decode()
    )
