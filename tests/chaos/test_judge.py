"""How the chaos run judges a watcher that ends without its match's result: too late (every
try to watch refused until the match had ended) or stuck."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.chaos import Client

ENDED = 50.0  # when the first of the match's clients heard its end


def watcher(*messages: tuple[float, dict[str, Any]]) -> Client:
    client = Client("p1", "watcher", "ws://127.0.0.1:1", ["watch", "ROOM"], Path("/nonexistent"))
    client.times = [at for at, _ in messages]
    client.messages = [message for _, message in messages]
    return client


WELCOME = {"type": "welcome", "room": None}
NO_ROOM = {"type": "error", "code": "no_room"}
REFUSED = {"type": "error", "code": "storage_unavailable"}
SNAPSHOT = {"type": "snapshot", "room": {"code": "ROOM"}}


def test_a_watcher_refused_until_after_the_end_and_told_no_room_came_too_late() -> None:
    assert watcher((1.0, WELCOME), (2.0, REFUSED), (60.0, NO_ROOM)).came_too_late(ENDED)


def test_a_watcher_told_no_room_before_the_end_did_not() -> None:
    assert not watcher((1.0, WELCOME), (2.0, REFUSED), (40.0, NO_ROOM)).came_too_late(ENDED)


def test_a_watcher_that_was_shown_its_room_did_not() -> None:
    """It watched, and then lost its room without the end: that is stuck."""
    client = watcher((1.0, WELCOME), (2.0, SNAPSHOT), (60.0, NO_ROOM))
    assert not client.came_too_late(ENDED)


def test_a_watcher_back_without_its_room_watches_anew_and_can_come_too_late() -> None:
    """Its connection dropped (a watcher is then out of the room), it came back in no room,
    and its new watch was refused until after the end."""
    client = watcher((1.0, WELCOME), (2.0, SNAPSHOT), (30.0, WELCOME), (60.0, NO_ROOM))
    assert client.came_too_late(ENDED)


def test_a_watcher_back_in_its_room_is_still_in_it() -> None:
    resumed = {"type": "welcome", "room": "ROOM"}
    client = watcher((1.0, WELCOME), (2.0, SNAPSHOT), (30.0, resumed), (60.0, NO_ROOM))
    assert not client.came_too_late(ENDED)


def test_a_watcher_still_refused_for_another_reason_did_not() -> None:
    assert not watcher((1.0, WELCOME), (60.0, REFUSED)).came_too_late(ENDED)


def test_a_player_is_never_too_late() -> None:
    client = watcher((1.0, WELCOME), (60.0, NO_ROOM))
    client.role = "joiner"
    assert not client.came_too_late(ENDED)
