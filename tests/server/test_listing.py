"""Which live rooms the list shows: rooms with people first, then watchers, then the
newest; few of any one client address."""

from __future__ import annotations

from protocol.messages import RoomSummary
from server.lobby.listing import Listed, choose


def room(
    code: str, present: int = 0, created: float = 0.0, origin: str = "", watchers: int = 0
) -> Listed:
    summary = RoomSummary(
        code=code, mode="private", deals=3, deal_no=0, seats=["a", "", ""], watchers=watchers
    )
    return Listed(summary, present, created, origin)


def codes(rooms: list[Listed], **limits: int) -> list[str]:
    return [s.code for s in choose(rooms, **limits)]


def test_rooms_with_people_come_before_newer_empty_ones() -> None:
    rooms = [
        room("OLD", present=2, created=1),
        room("NEW", created=9),
        room("MID", present=1, created=5),
    ]
    assert codes(rooms) == ["OLD", "MID", "NEW"]


def test_then_watchers_then_the_newest() -> None:
    rooms = [
        room("A", present=1, created=1),
        room("B", present=1, created=2, watchers=3),
        room("C", present=1, created=3),
    ]
    assert codes(rooms) == ["B", "C", "A"]


def test_one_address_shows_only_its_share() -> None:
    flood = [room(f"S{i}", created=100 + i, origin="10.0.0.9") for i in range(60)]
    real = room("REAL", present=1, created=1, origin="10.0.0.1")
    shown = codes([*flood, real], limit=50, per_origin=5)
    assert shown[0] == "REAL"
    assert shown[1:] == ["S59", "S58", "S57", "S56", "S55"]


def test_quick_matches_have_no_origin_and_no_share() -> None:
    quick = [room(f"Q{i}", present=1, created=i) for i in range(8)]
    assert len(codes(quick, limit=50, per_origin=5)) == 8


def test_the_list_has_at_most_its_limit() -> None:
    rooms = [room(f"R{i}", created=i, origin=f"10.0.0.{i}") for i in range(80)]
    assert len(codes(rooms, limit=50)) == 50
