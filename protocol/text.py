"""Printable text: what a player's name may hold.

A name reaches everyone (seats, the room list) and is printed by terminals and pages, so it
is plain printable text of a bounded length: no control characters (C0, C1, DEL: a terminal
obeys ``ESC ] 0 ;`` or ``ESC [ 2 J``), no format characters (bidi overrides that reorder
what follows, zero-width joiners, soft hyphens), no line or paragraph separators, no lone
surrogates, private-use or unassigned code points. Whitespace at either end is stripped;
spaces inside are kept. A refusal names the first bad character by its code point, never
the text itself.
"""

from __future__ import annotations

import unicodedata

#: Most characters in a name, after stripping.
NAME_MAX = 24
#: Unicode general categories a name may not hold: control, format, surrogate, private
#: use, unassigned, line and paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def unprintable(text: str) -> str | None:
    """The first character of ``text`` a name may not hold, or None."""
    for char in text:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            return char
    return None


def checked_name(value: str) -> str:
    """``value`` stripped of surrounding whitespace, if it is a name; ValueError (with a
    message that does not repeat it) if it is not."""
    name = value.strip()
    bad = unprintable(name)
    if bad is not None:
        raise ValueError(f"a name is printable text: U+{ord(bad):04X} is not allowed")
    if not 1 <= len(name) <= NAME_MAX:
        raise ValueError(f"a name has 1 to {NAME_MAX} characters (spaces at the ends do not count)")
    return name


def is_name(value: str) -> bool:
    """Whether ``value`` is a name as it stands (stripped and printable)."""
    try:
        return checked_name(value) == value
    except ValueError:
        return False


def safe_name(text: str, fallback: str = "player") -> str:
    """A name made from ``text`` that was stored before names were checked: the characters
    a name may not hold dropped, stripped, cut to length; ``fallback`` if nothing is left."""
    kept = "".join(char for char in text if unprintable(char) is None).strip()[:NAME_MAX].strip()
    return kept or fallback
