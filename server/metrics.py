"""Metrics for Prometheus, served at ``GET /metrics`` on the server's own port.

One registry per ``App`` (so several apps in one test process do not collide). What an
operator watches: connections, rooms by state, requests and their latency (received until
every message it caused was handed to the sockets; frames refused unread over the rate are
``type="unread", outcome="rate_limited"``), connections refused at the caps and dropped for
abuse, timeouts, bot takeovers, Redis errors,
bot decision time, and the pauses of Python's garbage collector (while ``watch_gc``), which
stop every player's requests at once.
"""

from __future__ import annotations

import bisect
import gc
import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector
from pydantic import BaseModel

from protocol.events import BidMade, CardsPlayed, Passed, SeatControl
from server.store.health import StoreHealth

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
GC_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
BOT_BUCKETS = (0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0)
ROOM_STATES = ("waiting", "bidding", "playing", "between_deals", "over")


class _Latency:
    """One request type's latency histogram, as plain counts."""

    __slots__ = ("counts", "sum")

    def __init__(self) -> None:
        #: Requests per bucket (not cumulative): ``LATENCY_BUCKETS``, then above the last.
        self.counts = [0] * (len(LATENCY_BUCKETS) + 1)
        self.sum = 0.0


class _Requests(Collector):
    """``ddz_requests_total{type, outcome}`` and ``ddz_request_latency_seconds{type}``, kept
    as plain numbers and turned into metric families when scraped. Every request counts
    here: prometheus-client's Counter and Histogram take a lock and make several calls for
    each count (about 3 us a request); these are only touched by the event loop's thread."""

    def __init__(self) -> None:
        #: Requests by (type, outcome); the frames refused unread shown from the start.
        self.counts: dict[tuple[str, str], int] = {("unread", "rate_limited"): 0}
        self.latency: dict[str, _Latency] = {}

    def done(self, kind: str, outcome: str, seconds: float) -> None:
        """One request handled (its latency observed)."""
        key = (kind, outcome)
        self.counts[key] = self.counts.get(key, 0) + 1
        latency = self.latency.get(kind)
        if latency is None:
            latency = self.latency[kind] = _Latency()
        latency.counts[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
        latency.sum += seconds

    def refused_unread(self) -> None:
        """A frame refused unread over the rate (counted, not timed)."""
        key = ("unread", "rate_limited")
        self.counts[key] = self.counts.get(key, 0) + 1

    def collect(self) -> Iterator[CounterMetricFamily | HistogramMetricFamily]:
        requests = CounterMetricFamily(
            "ddz_requests", "requests handled, by type and outcome", labels=["type", "outcome"]
        )
        for (kind, outcome), n in self.counts.items():
            requests.add_metric([kind, outcome], n)
        yield requests
        latency = HistogramMetricFamily(
            "ddz_request_latency_seconds",
            "from a request's arrival until every message it caused was sent",
            labels=["type"],
        )
        for kind, histogram in self.latency.items():
            cumulative = list(itertools.accumulate(histogram.counts))
            bounds = [*(str(b) for b in LATENCY_BUCKETS), "+Inf"]
            latency.add_metric([kind], list(zip(bounds, cumulative, strict=True)), histogram.sum)
        yield latency


class _RoomStates(Collector):
    """Rooms of this process by state, counted when scraped."""

    def __init__(self, states: Callable[[], Iterable[str]]) -> None:
        self.states = states

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily("ddz_rooms", "rooms run by this process", labels=["state"])
        counts = dict.fromkeys(ROOM_STATES, 0)
        for state in self.states():
            counts[state] = counts.get(state, 0) + 1
        for state, n in counts.items():
            family.add_metric([state], n)
        yield family


class _Storage(Collector):
    """``ddz_storage_up`` (1 while the storage answers, 0 during an outage: the rooms are
    paused), ``ddz_storage_down_seconds`` (how long the outage under way has lasted) and
    ``ddz_storage_outages_total``, read from the process's ``StoreHealth`` when scraped."""

    def __init__(self, health: StoreHealth) -> None:
        self.health = health

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        health = self.health
        since = health.down_since
        up = GaugeMetricFamily("ddz_storage_up", "1 while Redis answers, 0 while rooms pause")
        up.add_metric([], 1.0 if since is None else 0.0)
        yield up
        down = GaugeMetricFamily(
            "ddz_storage_down_seconds", "seconds the storage outage under way has lasted"
        )
        down.add_metric([], 0.0 if since is None else max(health.clock() - since, 0.0))
        yield down
        outages = CounterMetricFamily(
            "ddz_storage_outages", "times the storage stopped answering (rooms paused)"
        )
        outages.add_metric([], float(health.outages))
        yield outages


class Metrics:
    def __init__(
        self, connections: Callable[[], int], room_states: Callable[[], Iterable[str]]
    ) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.connections = Gauge("ddz_connections", "open websocket connections", registry=r)
        self.connections.set_function(lambda: float(connections()))
        r.register(_RoomStates(room_states))
        self.requests = _Requests()
        r.register(self.requests)
        self.timeouts = Counter("ddz_timeouts", "actions the clock took for a seat", registry=r)
        self.takeovers = Counter(
            "ddz_takeovers", "seats a bot took over after two timeouts", registry=r
        )
        self.room_takeovers = Counter(
            "ddz_room_takeovers",
            "rooms this process took over from a process that died or shut down",
            registry=r,
        )
        self.forwarded = Counter(
            "ddz_forwarded",
            "room changes forwarded to the process running the room",
            registry=r,
        )
        self.refused_connections = Counter(
            "ddz_refused_connections",
            "connections refused before the upgrade, by cap: total or per_address",
            ["cap"],
            registry=r,
        )
        self.dropped_connections = Counter(
            "ddz_dropped_connections",
            "connections the server closed for abuse: flood, hello_timeout or send_buffer",
            ["reason"],
            registry=r,
        )
        self.redis_errors = Counter(
            "ddz_redis_errors", "writes or reads Redis refused or could not answer", registry=r
        )
        self.bot_seconds = Histogram(
            "ddz_bot_decision_seconds",
            "time a bot took to decide, by level",
            ["level"],
            buckets=BOT_BUCKETS,
            registry=r,
        )

        self.gc_pauses = Histogram(
            "ddz_gc_pause_seconds",
            "pauses of the garbage collector, by generation collected",
            ["generation"],
            buckets=GC_BUCKETS,
            registry=r,
        )
        self._gc_children = [self.gc_pauses.labels(str(g)) for g in range(3)]
        self._gc_started = 0.0

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self._gc_children[info["generation"]].observe(time.perf_counter() - self._gc_started)

    def watch_gc(self) -> None:
        """Observe every collection's pause from now on (``unwatch_gc`` stops it)."""
        if self._on_gc not in gc.callbacks:
            gc.callbacks.append(self._on_gc)

    def unwatch_gc(self) -> None:
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def request_done(self, kind: str, outcome: str, seconds: float) -> None:
        """Count one request and observe its latency."""
        self.requests.done(kind, outcome, seconds)

    def observe_event(self, message: BaseModel) -> None:
        """Count a timeout or a takeover among the messages delivered (each message object
        once, however many players it went to: the hub sees to that)."""
        if isinstance(message, BidMade | CardsPlayed | Passed):
            if message.timeout:
                self.timeouts.inc()
        elif isinstance(message, SeatControl) and message.bot and message.reason == "timeouts":
            self.takeovers.inc()

    def watch_storage(self, health: StoreHealth) -> None:
        """Say whether the storage answers (``_Storage``)."""
        self.registry.register(_Storage(health))

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
