"""The server's randomness (``server.os_random``): the system's bytes, read a block at a time,
every outcome as likely, never shared with a forked child."""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections import Counter
from itertools import permutations

import pytest

from server import os_random
from server.os_random import OsRandom


def test_a_shuffle_keeps_the_cards_and_gives_every_order_as_often() -> None:
    rng = OsRandom()
    deck = list(range(54))
    rng.shuffle(deck)
    assert sorted(deck) == list(range(54))
    orders: Counter[tuple[int, ...]] = Counter()
    for _ in range(60_000):
        cards = [0, 1, 2]
        rng.shuffle(cards)
        orders[tuple(cards)] += 1
    assert set(orders) == set(permutations(range(3)))
    assert all(abs(n - 10_000) < 600 for n in orders.values())  # (6 standard deviations)


@pytest.mark.parametrize("stop", [1, 2, 3, 7, 8, 54, 256, 257])
def test_randrange_gives_each_number_below_the_bound_as_often(stop: int) -> None:
    rng = OsRandom()
    draws = Counter(rng.randrange(stop) for _ in range(2_000 * stop))
    assert set(draws) == set(range(stop))
    assert all(abs(n - 2_000) < 6 * 45 for n in draws.values())  # (std ~ sqrt(2000))


def test_an_empty_range_is_refused() -> None:
    with pytest.raises(ValueError):
        OsRandom().randrange(0)


def test_the_system_is_asked_once_a_block_not_once_a_draw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = os.urandom

    def counted(n: int) -> bytes:
        calls.append(n)
        return real(n)

    monkeypatch.setattr(os_random.os, "urandom", counted)
    rng = OsRandom()
    for _ in range(100):
        rng.shuffle(list(range(54)))  # 53 draws each
    assert 0 < len(calls) <= 100 * 80 // os_random.BLOCK + 1


SHARED = OsRandom()


def _first_draws() -> list[int]:
    return [SHARED.randrange(1 << 16) for _ in range(16)]


def test_a_forked_child_does_not_replay_its_parents_bytes() -> None:
    SHARED.randrange(10)  # the parent holds a block, most of it not drawn yet
    with multiprocessing.get_context("fork").Pool(1) as pool:
        child = pool.apply(_first_draws)
    assert child != _first_draws()


def test_a_copy_carries_no_bytes() -> None:
    rng = OsRandom()
    rng.randrange(10)
    copy = pickle.loads(pickle.dumps(rng))
    assert [copy.randrange(1 << 16) for _ in range(16)] != [
        rng.randrange(1 << 16) for _ in range(16)
    ]
