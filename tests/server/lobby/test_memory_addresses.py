"""``MemoryAddresses``, the in-memory twin of the counts per client address: windows that
start at their first count, waits that double, open rooms dropped once closed."""

from __future__ import annotations

from server.store.addresses import Claim
from server.store.memory import MemoryRedis, MemoryStore
from server.store.memory_lobby import MemoryAddresses
from tests.server.lobby.harness import Clock

A, B = "192.0.2.1", "192.0.2.2"


def twin() -> tuple[MemoryAddresses, MemoryStore, Clock]:
    clock = Clock()
    store = MemoryStore(MemoryRedis(clock))
    return MemoryAddresses(store), store, clock


async def claim(addresses: MemoryAddresses, code: str, now: float, strong: int = 0) -> Claim:
    return await addresses.claim(
        A, code, new_room=True, strong=strong, room_cap=2, strong_cap=2,
        now=now, ttl=3600, grace=30,
    )  # fmt: skip


async def test_a_window_counts_from_its_first_count_per_address() -> None:
    addresses, _, clock = twin()
    assert [await addresses.count(A, "rooms", 2, 60) for _ in range(2)] == [0.0, 0.0]
    clock.now += 20
    assert await addresses.count(A, "rooms", 2, 60) == 40.0
    assert await addresses.count(B, "rooms", 2, 60) == 0.0
    clock.now += 40
    assert await addresses.count(A, "rooms", 2, 60) == 0.0


async def test_failed_joins_start_a_wait_that_doubles_while_they_go_on() -> None:
    addresses, _, clock = twin()
    assert await addresses.missed(A, 2, 60, 150) == 0.0
    assert await addresses.missed(A, 2, 60, 150) == 60.0
    assert await addresses.blocked(A) == 60.0 and await addresses.blocked(B) == 0.0
    clock.now += 60
    assert await addresses.blocked(A) == 0.0
    await addresses.missed(A, 2, 60, 150)
    assert await addresses.missed(A, 2, 60, 150) == 120.0  # a second wait in a row
    clock.now += 120
    await addresses.missed(A, 2, 60, 150)
    assert await addresses.missed(A, 2, 60, 150) == 150.0  # at most the longest
    clock.now += 1000
    await addresses.missed(A, 2, 60, 150)
    assert await addresses.missed(A, 2, 60, 150) == 60.0  # the strikes ran out


async def test_open_rooms_and_strong_seats_are_capped_until_their_rooms_close() -> None:
    addresses, store, clock = twin()
    assert await claim(addresses, "R1", clock.now, strong=2) == Claim.OK
    assert await claim(addresses, "R2", clock.now, strong=1) == Claim.STRONG
    assert await claim(addresses, "R2", clock.now) == Claim.OK
    assert await claim(addresses, "R3", clock.now) == Claim.ROOMS
    store.data.active.add("R2")  # R2 is stored and open; R1 never was
    assert await claim(addresses, "R3", clock.now + 10) == Claim.ROOMS  # R1: in its grace
    assert await claim(addresses, "R3", clock.now + 31) == Claim.OK  # R1 dropped
    await addresses.release(A, "R3", room=True)
    assert await claim(addresses, "R4", clock.now + 31, strong=2) == Claim.OK


async def test_listed_rooms_come_newest_first_with_their_origin() -> None:
    addresses, store, _ = twin()
    for code, created in (("OLD", 1.0), ("NEW", 2.0), ("GONE", 3.0)):
        await store.add_watchable(code, created)
    await addresses.set_origin("NEW", A)
    listed = await addresses.listed(2)
    assert [(x.code, x.origin, x.data) for x in listed] == [("GONE", "", None), ("NEW", A, None)]
