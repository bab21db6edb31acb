"""The heap is trimmed once many sockets went, not for each, and not too often."""

from __future__ import annotations

from server.edge.heap import HeapTrimmer, _malloc_trim


def test_a_trim_comes_after_enough_sockets_went_and_not_too_soon() -> None:
    calls: list[int] = []
    now = [0.0]
    trimmer = HeapTrimmer(after=3, interval=5.0, trim=lambda pad: calls.append(pad) or 1,
                          clock=lambda: now[0])  # fmt: skip
    trimmer.went()
    trimmer.went()
    assert not trimmer.maybe_trim()  # two gone: not worth it
    trimmer.went()
    assert trimmer.maybe_trim() and calls == [0]
    for _ in range(10):
        trimmer.went()
    now[0] = 4.0
    assert not trimmer.maybe_trim()  # too soon after the last
    now[0] = 5.0
    assert trimmer.maybe_trim() and len(calls) == 2


def test_glibc_has_malloc_trim_here() -> None:
    trim = _malloc_trim()
    assert trim is not None and trim(0) in (0, 1)
