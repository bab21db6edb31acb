"""Error codes shared by server and client: every refused request is answered with one."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Why a request was refused. Grouped in the order the server checks a request."""

    # the frame itself
    MALFORMED = "malformed"  # not msgpack, not a map, or fields of the wrong shape
    UNKNOWN_TYPE = "unknown_type"  # a message type this protocol does not have
    TOO_LARGE = "too_large"  # a frame over the size limit
    RATE_LIMITED = "rate_limited"  # too many requests in a short time
    LIMIT_REACHED = "limit_reached"  # a cap per client address or session (rooms, sessions, bots)
    BUSY = "busy"  # the server is at capacity for this (e.g. the strong bots' pool): retry later
    VERSION_MISMATCH = "version_mismatch"  # the client speaks another protocol version
    # session and room
    NO_SESSION = "no_session"  # hello first
    BAD_TOKEN = "bad_token"  # an unknown or expired session token
    BAD_KEY = "bad_key"  # an unknown or replaced player key
    NO_ROOM = "no_room"  # not in a room, or no room with that code
    ROOM_FULL = "room_full"
    ALREADY_SEATED = "already_seated"  # one person, one seat
    ALREADY_QUEUED = "already_queued"  # one person, one queue entry
    NOT_QUEUED = "not_queued"
    NOT_ALLOWED = "not_allowed"  # e.g. only the creator seats bots
    STALE = "stale"  # the request names a state version that has moved on
    DUPLICATE = "duplicate"  # a request id already applied (resent after a drop)
    UNAVAILABLE = "unavailable"  # the server cannot save right now: retry
    STORAGE_UNAVAILABLE = "storage_unavailable"  # storage is down: the room is paused, wait
    # the game
    WRONG_PHASE = "wrong_phase"
    NOT_YOUR_TURN = "not_your_turn"
    BID_OUT_OF_RANGE = "bid_out_of_range"
    BID_NOT_HIGHER = "bid_not_higher"
    MUST_BID = "must_bid"  # the first bidder after three void deals may not pass
    LEADER_MUST_PLAY = "leader_must_play"
    CARDS_NOT_HELD = "cards_not_held"
    NOT_A_PLAY = "not_a_play"
    DOES_NOT_BEAT = "does_not_beat"
    CLOCK_RUNNING = "clock_running"  # a timeout before the deadline
    NO_CLOCK = "no_clock"  # a timeout in an untimed match
    ALREADY_READY = "already_ready"
    NOT_TAKEN_OVER = "not_taken_over"  # resume while playing oneself
    MATCH_OVER = "match_over"
    # puzzles
    NO_PUZZLE = "no_puzzle"  # no puzzle with that id, none left to offer, or none being played


#: Most characters of a client's input that an error message repeats.
QUOTE_LIMIT = 32


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as an error message quotes it: its repr, cut to ``limit`` characters with an
    ellipsis. A refusal never echoes a large input back (a 16 KB frame answered with 16 KB)."""
    if isinstance(value, str | bytes):
        value = value[: limit + 1]  # repr only what can be shown
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Refusal(ValueError):
    """A request refused: ``code`` for the wire, ``message`` for the sender. A refusal changes
    nothing. The families (a bad frame, a room's checks, the game's rules) subclass it, so
    the server answers every one in one place; ``request_id`` names the refused request
    when the refusal itself knows it (a frame whose id was read)."""

    code: ErrorCode = ErrorCode.MALFORMED
    request_id: int | None = None

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
