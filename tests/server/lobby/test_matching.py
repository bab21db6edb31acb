"""Tables between equals (server/lobby/matching.py): pure."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from server.lobby.matching import BASE_WINDOW, Waiter, form_tables, spread, window

WAIT = 15.0


def ids(tables: list[list[Waiter]]) -> list[list[str]]:
    return [[w.player_id for w in table] for table in tables]


def test_three_close_players_sit_at_once_and_a_far_one_waits() -> None:
    waiting = [Waiter("a", 0.0, 25.0), Waiter("b", 0.0, 40.0), Waiter("c", 0.5, 26.0)]
    waiting.append(Waiter("d", 1.0, 24.0))
    assert ids(form_tables(waiting, 1.0, WAIT)) == [["a", "c", "d"]]


def test_the_longest_waiting_takes_the_two_closest_to_them() -> None:
    waiting = [Waiter(p, t, mu) for p, t, mu in [("a", 0, 25), ("b", 1, 20), ("c", 1, 26)]]
    waiting += [Waiter("d", 2, 27), Waiter("e", 2, 30)]
    # a (25) with c (26) and d (27): the narrowest table holding a
    assert ids(form_tables(waiting, 3.0, WAIT)) == [["a", "c", "d"]]


def test_far_apart_players_meet_once_their_window_is_wide_enough() -> None:
    waiting = [Waiter("a", 0.0, 20.0), Waiter("b", 0.0, 27.0), Waiter("c", 0.0, 30.0)]
    assert form_tables(waiting, 1.0, WAIT) == []  # a span of 10, a window of 5.2
    assert ids(form_tables(waiting, 6.0, WAIT)) == [["a", "b", "c"]]


def test_one_who_waited_the_whole_wait_sits_with_whoever_is_closest_or_bots() -> None:
    waiting = [Waiter("a", 0.0, 10.0), Waiter("b", 14.0, 45.0)]
    assert form_tables(waiting, 14.9, WAIT) == []
    assert ids(form_tables(waiting, 15.0, WAIT)) == [["a", "b"]]
    assert ids(form_tables([Waiter("a", 0.0, 10.0)], 15.0, WAIT)) == [["a"]]


def test_one_passed_over_does_not_stop_a_table_among_the_rest() -> None:
    waiting = [Waiter("far", 0.0, 45.0), Waiter("b", 1.0, 25.0), Waiter("c", 1.0, 25.5)]
    waiting.append(Waiter("d", 1.0, 26.0))
    assert ids(form_tables(waiting, 2.0, WAIT)) == [["b", "c", "d"]]


def test_the_window_only_widens_and_is_unbounded_from_the_wait() -> None:
    assert window(0.0, WAIT) == BASE_WINDOW
    assert math.isinf(window(WAIT, WAIT))
    assert spread([25.0, 21.0, 30.0]) == 9.0


@given(st.floats(0, 100), st.floats(0, 100), st.floats(1, 60))
def test_window_is_monotonic(a: float, b: float, wait: float) -> None:
    low, high = sorted((a, b))
    assert window(low, wait) <= window(high, wait)


waiters = st.lists(st.tuples(st.floats(0, 30), st.floats(0, 50)), min_size=0, max_size=25).map(
    lambda xs: [Waiter(f"p{i}", t, mu) for i, (t, mu) in enumerate(xs)]
)


@given(waiters, st.floats(0, 60))
def test_tables_are_of_at_most_three_each_within_the_window_of_its_longest_waiting(
    waiting: list[Waiter], now: float
) -> None:
    waiting = [w for w in waiting if w.joined <= now]
    tables = form_tables(waiting, now, WAIT)
    seated = [w.player_id for table in tables for w in table]
    assert len(seated) == len(set(seated))  # nobody twice
    for table in tables:
        first = min(table, key=lambda w: (w.joined, w.player_id))
        assert 1 <= len(table) <= 3
        assert len(table) == 3 or now - first.joined >= WAIT  # fewer: bots fill
        assert spread([w.mu for w in table]) <= window(now - first.joined, WAIT)


@given(waiters, st.floats(0, 60))
def test_nobody_waits_past_the_bot_fill(waiting: list[Waiter], now: float) -> None:
    """Whoever waited the whole wait is seated at this look (some table takes them)."""
    waiting = [w for w in waiting if w.joined <= now]
    seated = {w.player_id for table in form_tables(waiting, now, WAIT) for w in table}
    for w in waiting:
        if now - w.joined >= WAIT:
            assert w.player_id in seated
