"""Room codes: short ones for rooms anyone may find in the list, long unguessable ones for
rooms found only by their code (private rooms, practice).

The alphabet has no 0/O, 1/I/L, so a code read aloud is not mistaken. A long code is shown
in groups (``K7P2Q-M4XTR``); ``normalize`` turns what a person typed (any case, with or
without the dash or with spaces) back into the code as shown.

Guessing: 31^10 = 8.2e14 long codes. With R private rooms open, a guess hits with
probability R / 31^10; at 20,000 open rooms that is one hit per 4.1e10 guesses (a failed
join costs an address a place in its budget of ``failed_joins_per_address`` a minute).
"""

from __future__ import annotations

from server.game.deal import RandomSource

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: Letters of a listed room's code (quick matches, public rooms): it is published anyway.
LISTED_LENGTH = 5
#: Letters of an unlisted room's code: what keeps a private room private.
SECRET_LENGTH = 10
#: Letters per group of a long code as shown, groups joined by ``SEPARATOR``.
GROUP = 5
SEPARATOR = "-"


def new_code(rng: RandomSource, secret: bool) -> str:
    """A fresh random code: long and grouped when ``secret``, else short."""
    length = SECRET_LENGTH if secret else LISTED_LENGTH
    letters = "".join(ALPHABET[rng.randrange(len(ALPHABET))] for _ in range(length))
    return _grouped(letters) if secret else letters


def normalize(text: str) -> str:
    """The code as shown, from what a person typed: upper case, the groups of a long code
    joined by the separator whatever (if anything) the person put between them."""
    letters = "".join(ch for ch in text.upper() if ch.isalnum())
    return _grouped(letters) if len(letters) == SECRET_LENGTH else letters


def _grouped(letters: str) -> str:
    return SEPARATOR.join(letters[i : i + GROUP] for i in range(0, len(letters), GROUP))


def guesses_per_hit(open_rooms: int, secret: bool = True) -> float:
    """Expected guesses at random codes to find one of ``open_rooms`` rooms."""
    space: int = len(ALPHABET) ** (SECRET_LENGTH if secret else LISTED_LENGTH)
    return space / max(1, open_rooms)
