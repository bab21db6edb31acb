"""The flood guard's rules on a clock of its own: a frame costs a token before it is read,
a burst over the rate is told once, and a window full of refusals closes the connection."""

from __future__ import annotations

from server.edge.flood import FLOOD_WINDOW, FloodGuard, TokenBucket, Verdict


def guard(rate: float = 1.0, burst: int = 2, close_after: int = 5) -> FloodGuard:
    return FloodGuard(TokenBucket(rate, burst, clock=0.0), close_after)


def test_frames_within_the_burst_are_charged_and_pass() -> None:
    g = guard(burst=2)
    assert g.charge(0.0) and g.charge(0.0)
    assert not g.charge(0.0)


def test_a_burst_over_the_rate_is_told_once_then_refused_in_silence() -> None:
    g = guard(burst=1, close_after=0)
    assert g.charge(0.0)
    assert not g.charge(0.0)
    assert g.over_rate(0.0) is Verdict.ANSWER
    for _ in range(50):
        assert not g.charge(0.0)
        assert g.over_rate(0.0) is Verdict.SILENT


def test_a_token_back_means_the_next_burst_is_told_again() -> None:
    g = guard(rate=1.0, burst=1, close_after=0)
    g.charge(0.0)
    g.charge(0.0)
    g.over_rate(0.0)
    assert g.charge(1.0)  # a second later: a token
    assert not g.charge(1.0)
    assert g.over_rate(1.0) is Verdict.ANSWER


def test_refusals_over_the_rate_and_malformed_alike_close_a_flood() -> None:
    g = guard(burst=10, close_after=5)
    assert not any(g.refuse(0.0) for _ in range(3))  # three malformed frames
    g.told = True
    assert g.over_rate(0.1) is Verdict.SILENT  # the fourth refusal
    assert g.over_rate(0.2) is Verdict.CLOSE  # the fifth


def test_refusals_are_counted_in_a_window_of_their_own() -> None:
    g = guard(close_after=3)
    assert not g.refuse(0.0) and not g.refuse(1.0)
    assert not g.refuse(FLOOD_WINDOW + 0.5)  # a new window: one so far
    assert not g.refuse(FLOOD_WINDOW + 1.0)
    assert g.refuse(FLOOD_WINDOW + 2.0)


def test_close_after_zero_never_closes() -> None:
    g = guard(close_after=0)
    assert not any(g.refuse(0.0) for _ in range(10_000))
