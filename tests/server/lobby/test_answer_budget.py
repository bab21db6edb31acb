"""The solver's time for puzzle answers per address: one answer at a time, and a bound on
the seconds of CPU in a window; a refusal says when to come back."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode
from server.analysis.puzzle_play import PuzzleError
from server.lobby.answer_budget import AnswerBudget


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def refused(budget: AnswerBudget, address: str) -> PuzzleError:
    with pytest.raises(PuzzleError) as caught:
        budget.begin(address)
    return caught.value


def test_one_answer_at_a_time_per_address_others_go_on() -> None:
    budget = AnswerBudget(10.0, 60.0, Clock())
    budget.begin("1.2.3.4")
    assert refused(budget, "1.2.3.4").code == ErrorCode.BUSY
    budget.begin("5.6.7.8")  # another address is not held up
    budget.end("1.2.3.4", 0.5)
    budget.begin("1.2.3.4")


def test_past_its_seconds_an_address_waits_until_the_oldest_leave_the_window() -> None:
    clock = Clock()
    budget = AnswerBudget(10.0, 60.0, clock)
    for seconds in (4.0, 4.0, 3.0):  # 11 s of solver time, at 100, 110 and 120
        budget.begin("a")
        budget.end("a", seconds)
        clock.now += 10
    error = refused(budget, "a")
    assert error.code == ErrorCode.RATE_LIMITED
    # back under 10 s once the first 4 s leave the window (at 160): 30 s from 130
    assert "retry in 30 s" in str(error)
    budget.begin("b")  # (the others' budgets are their own)
    clock.now = 159.0
    assert refused(budget, "a").code == ErrorCode.RATE_LIMITED
    clock.now = 160.5
    budget.begin("a")


def test_a_refused_move_spends_nothing_and_forgotten_addresses_leave_no_trace() -> None:
    clock = Clock()
    budget = AnswerBudget(1.0, 60.0, clock)
    budget.begin("a")
    budget.end("a", 2.0)
    for _ in range(5):
        refused(budget, "a")
    clock.now += 61
    budget.begin("a")
    budget.end("a", 0.0)
    assert budget._spent == {}
