"""A finished match for the players who played or watched it (``GetReplay``), deal by deal.

The match is rebuilt from its journal through the same game core that played it (as the
operator's ``ddz-replay`` does): every deal as dealt (void deals too: every hand and the
kitty), then its public events in order (bids, the landlord and kitty, plays, passes, bots
taking seats over and giving them back), and its end. Nothing of it is hidden any more: the
room is closed, so no decision is left that a hand could inform (``Room.check_replay``
refuses it before). The clocks' prompts (turns, readiness) are left out.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from protocol.codec import encode
from protocol.events import (
    BidMade,
    CardsPlayed,
    DealEnded,
    DealStarted,
    DealVoided,
    LandlordChosen,
    MatchEnded,
    Passed,
    SeatControl,
)
from protocol.messages import ReplayData, ReplayDeal, ReplayEvent
from server.game.journal import replay
from server.game.match import EVERYONE
from server.rooms.room import CloseReason, Room
from server.store.codec import pack

#: Watchers a room remembers for its replay (``RedisStore.note_watched``): past it, a
#: newcomer who only watched does not get the replay.
WATCHED_MAX = 200
#: Replays a process keeps built and encoded (a closed room's never changes; a 9-deal one
#: takes ~10 ms to build and its encoding, about 37 KB, was most of the cost of a request),
#: and the most bytes they may hold together.
CACHED = 32
CACHED_BYTES = 4 * 1024 * 1024
_EVENTS = (BidMade, DealVoided, LandlordChosen, CardsPlayed, Passed, SeatControl)


def replay_data(room: Room, records: Iterable[dict[str, Any]]) -> ReplayData:
    """The closed ``room``'s match from its journal ``records``."""
    records = list(records)
    deals: list[dict[str, Any]] = []
    result: MatchEnded | None = None
    for _, match, outgoing in replay(records):
        for audience, message in outgoing:
            if isinstance(message, DealStarted):
                if audience != 0:
                    continue  # one copy of each deal (seat 0's; the deal is the match's now)
                deal = match.deal
                deals.append(
                    {
                        "deal_no": message.deal_no,
                        "void": False,
                        "first_bidder": message.first_bidder,
                        "forced_bid": message.forced_bid,
                        "hands": [sorted(h) for h in deal.hands],
                        "kitty": sorted(deal.kitty),
                        "events": [],
                        "end": None,
                    }
                )
            elif audience != EVERYONE:
                continue
            elif isinstance(message, _EVENTS):
                event: ReplayEvent = message
                deals[-1]["events"].append(event)
                if isinstance(message, DealVoided):
                    deals[-1]["void"] = True
            elif isinstance(message, DealEnded):
                deals[-1]["end"] = message
            elif isinstance(message, MatchEnded):
                result = message
    times = [float(r["now"]) for r in records if "now" in r]
    ended: CloseReason = "abandoned"
    if room.closed == "match_over":
        ended = "match_over"
    elif room.closed == "everyone_left":
        ended = "everyone_left"
    return ReplayData(
        code=room.code,
        mode=room.mode,
        deals_total=room.deals,
        seats=[s.name or "" for s in room.seats],
        ended=ended,
        started_at=times[0] if times else 0.0,
        ended_at=times[-1] if times else 0.0,
        deals=[ReplayDeal(**d) for d in deals],
        result=result,
    )


class ReplayCache:
    """The last replays built, encoded once (``protocol.codec.encode``'s bytes, the same for
    every asker), by the closed room's stored state (its code and digest: a code given to a
    new room once the old one expired is another key); at most ``size`` of them and
    ``max_bytes`` in all. The permission is checked at each request."""

    def __init__(self, size: int = CACHED, max_bytes: int = CACHED_BYTES) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self._built: OrderedDict[tuple[str, bytes], bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._built)

    @staticmethod
    def key(room_data: dict[str, Any]) -> tuple[str, bytes]:
        digest = hashlib.blake2b(pack(room_data), digest_size=16).digest()
        return str(room_data["code"]), digest

    def get(self, key: tuple[str, bytes]) -> bytes | None:
        """The encoded replay kept under ``key``, if it is."""
        payload = self._built.get(key)
        if payload is not None:
            self._built.move_to_end(key)
        return payload

    def put(self, key: tuple[str, bytes], data: ReplayData) -> bytes:
        """Encode ``data`` and keep it (the least recently asked go past the bounds)."""
        payload = encode(data)
        old = self._built.pop(key, None)
        if old is not None:
            self.bytes -= len(old)
        self._built[key] = payload
        self.bytes += len(payload)
        while len(self._built) > self.size or (self.bytes > self.max_bytes and self._built):
            _, dropped = self._built.popitem(last=False)
            self.bytes -= len(dropped)
        return payload
