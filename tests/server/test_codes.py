"""Room codes: short for listed rooms, long and grouped for rooms found only by their code,
and typed back however a person reads them."""

from __future__ import annotations

import random

import pytest

from server.lobby.codes import (
    ALPHABET,
    LISTED_LENGTH,
    SECRET_LENGTH,
    guesses_per_hit,
    new_code,
    normalize,
)


def test_a_listed_room_has_five_letters_of_the_unambiguous_alphabet() -> None:
    rng = random.Random(1)
    for _ in range(200):
        code = new_code(rng, secret=False)
        assert len(code) == LISTED_LENGTH and set(code) <= set(ALPHABET)


def test_a_private_room_has_ten_letters_shown_in_two_groups() -> None:
    rng = random.Random(2)
    for _ in range(200):
        code = new_code(rng, secret=True)
        first, second = code.split("-")
        assert len(first + second) == SECRET_LENGTH == 10
        assert len(first) == len(second) == 5 and set(first + second) <= set(ALPHABET)


def test_no_letter_that_reads_like_another() -> None:
    assert not set("0O1IL") & set(ALPHABET)
    assert len(ALPHABET) == 31


@pytest.mark.parametrize(
    "typed", ["K7P2Q-M4XTR", "k7p2q-m4xtr", "K7P2QM4XTR", " k7p2q m4xtr ", "K7P2Q—M4XTR"]
)
def test_a_long_code_is_joined_however_it_was_typed(typed: str) -> None:
    assert normalize(typed) == "K7P2Q-M4XTR"


def test_a_short_code_stays_as_it_is() -> None:
    assert normalize(" k7p2q ") == "K7P2Q"
    assert normalize(new_code(random.Random(3), secret=False)) == new_code(
        random.Random(3), secret=False
    )


def test_guessing_a_private_room_takes_tens_of_billions_of_guesses() -> None:
    # The attack: 20,000 private rooms open. Five letters: one hit per 1,431
    # guesses, a seat every 3 s at 475 guesses/s. Ten letters: one per 4.1e10.
    assert round(guesses_per_hit(20_000, secret=False)) == 1_431
    assert guesses_per_hit(20_000) == pytest.approx(4.1e10, rel=0.01)
    # At 10 failed joins a minute per address (waits doubling past it), one address
    # would need 4.1e9 minutes, about 7,800 years, for one hit.
    assert guesses_per_hit(20_000) / 10 / (60 * 24 * 365) == pytest.approx(7_800, rel=0.01)
