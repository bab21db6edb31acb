"""The server's settings: one typed object from the command line and the environment.

Every option has an environment variable (shown by ``ddz-server --help``); the command line
wins over the environment, which wins over the default. Times are seconds as decimals, so
tests run the clocks in milliseconds.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from server.store.clients import TIMEOUT as REDIS_REPLY_TIMEOUT
from server.store.embedded import APPENDFSYNC_CHOICES

BOT_DELAYS = {"instant": 0.0, "fast": 0.3, "normal": 1.0, "slow": 2.0}
"""Seconds a bot waits before it acts, by the bot speed a practice player picks."""


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None
    data_dir: str = "./ddz-data"
    redis_appendfsync: str = "everysec"
    redis_wait_replicas: int = 0
    redis_wait_timeout_ms: int = 500
    bid_timeout: float = 15.0
    play_timeout: float = 20.0
    ready_timeout: float = 10.0
    resume_grace: float = 5.0
    quick_match_wait: float = 15.0
    rematch_wait: float = 30.0
    bot_speed: str = "normal"
    max_frame: int = 16 * 1024
    rate_limit: float = 20.0
    rate_burst: int = 40
    shutdown_grace: float = 5.0
    finished_ttl: float = 7 * 24 * 3600.0
    session_ttl: float = 24 * 3600.0
    key_prefix: str = "ddz:"
    lease_ttl: float = 10.0
    forward_timeout: float = 3.0
    event_loop: str = "uvloop"
    gc_interval: float = 1.0
    log_level: str = "INFO"
    # --- limits against hostile clients; 0 switches a cap off ---
    max_connections: int = 25_000
    max_connections_per_address: int = 64
    trusted_proxies: str = ""
    allowed_origins: str = ""
    metrics_host: str = "127.0.0.1"
    metrics_port: int = 0
    metrics_on_game_port: bool = False
    tls_cert: str = ""
    tls_key: str = ""
    hello_timeout: float = 10.0
    send_buffer_limit: int = 1 << 20
    flood_close_after: int = 200
    idle_room_timeout: float = 300.0
    open_rooms_per_address: int = 20
    new_rooms_per_address: int = 30
    new_sessions_per_address: int = 60
    failed_joins_per_address: int = 10
    strong_bots_per_address: int = 4
    bot_queue_limit: int = 16
    bot_workers: int = 0
    review_seconds: float = 8.0
    review_niceness: int = 10
    puzzle_mine_seconds: float = 2.0
    puzzle_mine_nodes: int = 0
    puzzle_seed_deals: int = 0
    puzzle_mine_journal: str = ""
    bot_pool_start: str = "warm"
    max_watchers: int = 50


_HELP: dict[str, tuple[str, str]] = {
    "host": ("DDZ_HOST", "address to listen on"),
    "port": ("DDZ_PORT", "port to listen on"),
    "redis_url": ("REDIS_URL", "Redis to keep matches in; none: an embedded Redis in --data-dir"),
    "data_dir": ("DDZ_DATA_DIR", "directory of the embedded Redis's data"),
    "redis_appendfsync": (
        "DDZ_REDIS_APPENDFSYNC",
        "when the embedded Redis syncs its append-only file: everysec (a crash of Redis or"
        " the machine may lose the last second) or always (nothing acknowledged is lost;"
        " slower)",
    ),
    "redis_wait_replicas": (
        "DDZ_REDIS_WAIT_REPLICAS",
        "replicas of an operator's Redis (--redis-url; not a Cluster) that must acknowledge"
        " each batch of saves (WAIT) before anyone is told of them; fewer within"
        " --redis-wait-timeout-ms and the batch is refused as unsaved (players get a"
        " retryable unavailable). 0: do not wait (a failover may lose the last writes)",
    ),
    "redis_wait_timeout_ms": (
        "DDZ_REDIS_WAIT_TIMEOUT_MS",
        "milliseconds each batch of saves waits for --redis-wait-replicas (1 to"
        f" {int(REDIS_REPLY_TIMEOUT * 1000) - 500})",
    ),
    "bid_timeout": ("DDZ_BID_TIMEOUT", "seconds to bid in timed rooms"),
    "play_timeout": ("DDZ_PLAY_TIMEOUT", "seconds to play in timed rooms"),
    "ready_timeout": ("DDZ_READY_TIMEOUT", "seconds between deals before the next one starts"),
    "resume_grace": (
        "DDZ_RESUME_GRACE",
        "seconds a clock given back after a restart waits for its seat's person to return",
    ),
    "quick_match_wait": (
        "DDZ_QUICK_MATCH_WAIT",
        "seconds in the quick-match queue before bots fill",
    ),
    "rematch_wait": (
        "DDZ_REMATCH_WAIT",
        "seconds a rematch holds the seats of the players who have not asked for it yet",
    ),
    "bot_speed": (
        "DDZ_BOT_SPEED",
        "how fast bots act where no player chose (quick matches, new private rooms):"
        " instant, fast, normal or slow",
    ),
    "max_frame": ("DDZ_MAX_FRAME", "largest request frame in bytes; larger ones are refused"),
    "rate_limit": ("DDZ_RATE_LIMIT", "requests per second a connection may send on average"),
    "rate_burst": ("DDZ_RATE_BURST", "requests a connection may send at once above the rate"),
    "shutdown_grace": ("DDZ_SHUTDOWN_GRACE", "seconds SIGTERM waits for connections to close"),
    "finished_ttl": ("DDZ_FINISHED_TTL", "seconds a finished match's result and log are kept"),
    "session_ttl": ("DDZ_SESSION_TTL", "seconds an unused session token stays valid"),
    "key_prefix": ("DDZ_KEY_PREFIX", "prefix of every Redis key this server writes"),
    "lease_ttl": (
        "DDZ_LEASE_TTL",
        "seconds a room's lease lasts unrenewed: how soon another process takes over a room"
        " whose process died",
    ),
    "forward_timeout": (
        "DDZ_FORWARD_TIMEOUT",
        "seconds to wait for the process running a room to answer a forwarded request",
    ),
    "event_loop": (
        "DDZ_EVENT_LOOP",
        "uvloop (libuv: less CPU per message) or asyncio (the standard library's loop)",
    ),
    "gc_interval": (
        "DDZ_GC_INTERVAL",
        "seconds between the server's own young garbage collections, which keep each pause"
        " short (0: CPython's automatic collector)",
    ),
    "log_level": ("DDZ_LOG_LEVEL", "logging level"),
    "max_connections": (
        "DDZ_MAX_CONNECTIONS",
        "most connections this process holds, lowered to what its open-file limit allows;"
        " past it HTTP 503 (0: no cap)",
    ),
    "max_connections_per_address": (
        "DDZ_MAX_CONNECTIONS_PER_ADDRESS",
        "most connections from one client address; past it HTTP 429 (0: no cap)",
    ),
    "trusted_proxies": (
        "DDZ_TRUSTED_PROXIES",
        "comma-separated addresses or networks of reverse proxies whose X-Forwarded-For"
        " (its last address) or X-Real-IP names the client",
    ),
    "allowed_origins": (
        "DDZ_ALLOWED_ORIGINS",
        "comma-separated origins (https://host[:port]) whose pages may open a websocket here,"
        " besides this server's own page (scheme://Host of the request); others, Origin: null"
        " included, get HTTP 403; * allows any page. Clients that send no Origin (the"
        " terminal client, bots) are not affected",
    ),
    "metrics_host": ("DDZ_METRICS_HOST", "address --metrics-port listens on"),
    "metrics_port": (
        "DDZ_METRICS_PORT",
        "port to serve /metrics (and /healthz) on, on --metrics-host (0: no such port)",
    ),
    "metrics_on_game_port": (
        "DDZ_METRICS_ON_GAME_PORT",
        "also serve /metrics on the game port, to whoever reaches it (behind a proxy that"
        " keeps it internal; env: 1 or 0). Off, and no --metrics-port: /metrics is served"
        " nowhere",
    ),
    "tls_cert": (
        "DDZ_TLS_CERT",
        "PEM certificate chain to serve https and wss with (with --tls-key; read again on"
        " SIGHUP). Empty: plain http and ws",
    ),
    "tls_key": ("DDZ_TLS_KEY", "PEM private key of --tls-cert"),
    "hello_timeout": (
        "DDZ_HELLO_TIMEOUT",
        "seconds a new connection has to say hello before it is closed (1008; 0: no limit)",
    ),
    "send_buffer_limit": (
        "DDZ_SEND_BUFFER_LIMIT",
        "bytes of unsent output a connection may hold before it is cut off (a client that"
        " does not read; 0: no limit)",
    ),
    "flood_close_after": (
        "DDZ_FLOOD_CLOSE_AFTER",
        "refused frames (over the rate, or malformed) within 10 s after which a connection"
        " is closed (1008; 0: never)",
    ),
    "idle_room_timeout": (
        "DDZ_IDLE_ROOM_TIMEOUT",
        "seconds a room with no connected person lives before it ends",
    ),
    "open_rooms_per_address": (
        "DDZ_OPEN_ROOMS_PER_ADDRESS",
        "most open rooms created from one client address (0: no cap)",
    ),
    "new_rooms_per_address": (
        "DDZ_NEW_ROOMS_PER_ADDRESS",
        "most rooms one client address may create per hour (a closed room's record is kept"
        " --finished-ttl; 0: no cap)",
    ),
    "new_sessions_per_address": (
        "DDZ_NEW_SESSIONS_PER_ADDRESS",
        "most new sessions one client address may open per minute (0: no cap)",
    ),
    "failed_joins_per_address": (
        "DDZ_FAILED_JOINS_PER_ADDRESS",
        "failed joins or watches (unknown code) one client address may make per minute"
        " before it must wait (0: no cap)",
    ),
    "strong_bots_per_address": (
        "DDZ_STRONG_BOTS_PER_ADDRESS",
        "most strong-bot seats in open rooms created from one client address (0: no cap)",
    ),
    "bot_queue_limit": (
        "DDZ_BOT_QUEUE_LIMIT",
        "most strong-bot decisions waiting for the bot pool; past it new strong rooms are refused",
    ),
    "bot_workers": ("DDZ_BOT_WORKERS", "processes deciding for strong bots (0: up to 2)"),
    "review_seconds": (
        "DDZ_REVIEW_SECONDS",
        "seconds of one core the exact solver may spend on each deal of a match's review",
    ),
    "review_niceness": (
        "DDZ_REVIEW_NICENESS",
        "niceness added to the process of reviews and puzzle mining, so that the rooms and the"
        " strong bots' decisions take the CPU first (0 to 19; 0: the server's own priority)",
    ),
    "puzzle_mine_seconds": (
        "DDZ_PUZZLE_MINE_SECONDS",
        "seconds of one core the solver may spend on each deal of a closed match when mining"
        " it for puzzles, in the background (0: closed matches are not mined)",
    ),
    "puzzle_mine_nodes": (
        "DDZ_PUZZLE_MINE_NODES",
        "positions the solver may search in each deal when mining, besides its seconds: the"
        " same puzzles found on a busy machine as on an idle one (0: no bound in positions)",
    ),
    "puzzle_seed_deals": (
        "DDZ_PUZZLE_SEED_DEALS",
        "deals of the bots' self-play mined for puzzles in the background after the start,"
        " so a new server has puzzles (0: none)",
    ),
    "puzzle_mine_journal": (
        "DDZ_PUZZLE_MINE_JOURNAL",
        "a journal export (ddz-replay CODE --export, one match a line) whose deals are mined"
        " for puzzles in the background after the start, so a new server has puzzles from"
        " real deals (empty: none)",
    ),
    "bot_pool_start": (
        "DDZ_BOT_POOL_START",
        "when those processes start: warm (with the server, so that the first strong"
        " decision waits for none) or lazy (at the first strong decision)",
    ),
    "max_watchers": ("DDZ_MAX_WATCHERS", "most watchers in one room (0: no cap)"),
}

EVENT_LOOPS = ("uvloop", "asyncio")
BOT_POOL_STARTS = ("warm", "lazy")

#: The longest wait for replicas: below the time Redis has to answer a batch at all.
MAX_WAIT_TIMEOUT_MS = int(REDIS_REPLY_TIMEOUT * 1000) - 500


def _check_replica_wait(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> None:
    if parsed.redis_wait_replicas < 0:
        parser.error("--redis-wait-replicas must be 0 or more")
    if not 1 <= parsed.redis_wait_timeout_ms <= MAX_WAIT_TIMEOUT_MS:
        parser.error(f"--redis-wait-timeout-ms must be from 1 to {MAX_WAIT_TIMEOUT_MS}")
    if parsed.redis_wait_replicas and not parsed.redis_url:
        parser.error("--redis-wait-replicas needs --redis-url: the embedded Redis has no replicas")


def _parser(env: Mapping[str, str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ddz-server",
        description="The Dou Dizhu websocket server.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    defaults = Settings()
    for f in fields(Settings):
        var, text = _HELP[f.name]
        default: Any = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(default, bool):  # --NAME / --no-NAME; env 1/0, true/false, yes/no
            if var in env:
                default = _switch(parser, var, env[var])
            parser.add_argument(
                flag,
                action=argparse.BooleanOptionalAction,
                default=default,
                help=f"{text} (env {var})",
            )
            continue
        kind: Any = type(default) if default is not None else str
        if var in env:
            default = kind(env[var])
        parser.add_argument(flag, type=kind, default=default, help=f"{text} (env {var})")
    return parser


def _switch(parser: argparse.ArgumentParser, var: str, text: str) -> bool:
    word = text.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("", "0", "false", "no", "off"):
        return False
    parser.error(f"{var} must be 1 or 0 (true or false), not {text!r}")


def load_settings(
    argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None
) -> Settings:
    """Settings from ``argv`` (default: sys.argv) over ``env`` (default: os.environ)."""
    parser = _parser(os.environ if env is None else env)
    parsed = parser.parse_args(argv)
    if parsed.bot_speed not in BOT_DELAYS:
        parser.error(f"--bot-speed must be one of {', '.join(BOT_DELAYS)}")
    if parsed.event_loop not in EVENT_LOOPS:
        parser.error(f"--event-loop must be one of {', '.join(EVENT_LOOPS)}")
    if parsed.bot_pool_start not in BOT_POOL_STARTS:
        parser.error(f"--bot-pool-start must be one of {', '.join(BOT_POOL_STARTS)}")
    if parsed.redis_appendfsync not in APPENDFSYNC_CHOICES:
        parser.error(f"--redis-appendfsync must be one of {', '.join(APPENDFSYNC_CHOICES)}")
    _check_replica_wait(parser, parsed)
    from server.edge.admission import parse_origins, parse_proxies

    try:
        parse_proxies(parsed.trusted_proxies)
    except ValueError as exc:
        parser.error(f"--trusted-proxies: {exc}")
    try:
        parse_origins(parsed.allowed_origins)
    except ValueError as exc:
        parser.error(f"--allowed-origins: {exc}")
    if bool(parsed.tls_cert) != bool(parsed.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    if not 0 <= parsed.puzzle_mine_seconds <= 60:
        parser.error("--puzzle-mine-seconds must be from 0 to 60")
    if not 0 <= parsed.review_niceness <= 19:
        parser.error("--review-niceness must be from 0 to 19")
    if parsed.puzzle_mine_nodes < 0:
        parser.error("--puzzle-mine-nodes must be 0 or more")
    if not 0 <= parsed.puzzle_seed_deals <= 100_000:
        parser.error("--puzzle-seed-deals must be from 0 to 100000")
    if parsed.puzzle_mine_journal and not os.path.isfile(parsed.puzzle_mine_journal):
        parser.error(f"--puzzle-mine-journal: no such file {parsed.puzzle_mine_journal}")
    return Settings(**vars(parsed))
