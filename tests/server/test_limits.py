"""The arithmetic of the caps: what one client address can make Redis hold at most."""

from __future__ import annotations

from dataclasses import replace

from server.lobby.limits import MATCH_BYTES, SESSION_BYTES, redis_bound
from server.settings import Settings

MB = 1_000_000


def test_the_default_caps_bound_what_one_address_makes_redis_hold() -> None:
    bound = redis_bound(Settings())
    assert bound is not None
    # 60 new sessions a minute, each kept a day: 86,400 sessions
    assert bound.sessions == 60 * 1440 * SESSION_BYTES == 43_200_000
    # 20 open rooms, each at most a played-out 9-deal match
    assert bound.open_rooms == 20 * MATCH_BYTES == 900_000
    # 30 new rooms an hour, each kept a week after it ends: 5,040 records
    assert bound.closed_rooms == 30 * 168 * MATCH_BYTES == 226_800_000
    assert 270 * MB < bound.total < 272 * MB


def test_the_bound_follows_the_settings() -> None:
    small = replace(Settings(), session_ttl=3600.0, finished_ttl=86_400.0)
    bound = redis_bound(small)
    assert bound is not None and bound.total < 36 * MB


def test_no_bound_with_a_cap_switched_off() -> None:
    assert redis_bound(replace(Settings(), new_sessions_per_address=0)) is None
    assert redis_bound(replace(Settings(), open_rooms_per_address=0)) is None
