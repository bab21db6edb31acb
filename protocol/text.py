"""Printable text: what a player's name may hold.

A name reaches everyone (seats, the room list) and is printed by terminals and pages, so it
is plain printable text of a bounded length: no control characters (C0, C1, DEL: a terminal
obeys ``ESC ] 0 ;`` or ``ESC [ 2 J``), no format characters (bidi overrides that reorder
what follows, zero-width joiners, soft hyphens), no line or paragraph separators, no lone
surrogates, private-use or unassigned code points. Whitespace at either end is stripped;
spaces inside are kept. A refusal names the first bad character by its code point, never
the text itself.

A name is normalised before it is checked (``normalized_name``), so that names that look
the same are the same text: NFKC (compatibility forms become their plain letters, so the
full-width "Ａｄｍｉｎ" is "Admin", and is then checked as "Admin"; no-break and
ideographic spaces become spaces; the Hangul letters a Korean keyboard types alone are
kept as they are, ``COMPATIBILITY_JAMO``), variation selectors dropped (U+FE00-FE0F and the
like: they choose how the character before them is drawn, never which character it is, and
an emoji keyboard adds U+FE0F after a heart, so refusing them would refuse names people
type), whitespace at the ends trimmed and each inner run of spaces made one space. Other
characters that draw nothing at all are refused, not dropped (``INVISIBLE``: a name that
showed them would look like another; format characters are refused as before): a silent
drop would change a name beyond what its owner sees, where a refusal says which one.

A name must also show something and be told from the table's own names: at least one
visible character (not only spaces, combining marks, or letters that draw nothing such as
the Hangul filler U+3164 or the blank braille pattern U+2800), no more than
``MARKS_IN_A_ROW`` combining marks on one character (stacked marks spill over the lines
around it), and nothing that reads as a bot's name ("easy bot 1").
"""

from __future__ import annotations

import re
import unicodedata

#: Most characters in a name, once normalised.
NAME_MAX = 24
#: Unicode general categories a name may not hold: control, format, surrogate, private
#: use, unassigned, line and paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: Combining marks one character may carry: enough for any script's stacked diacritics
#: (Vietnamese, Thai, Hebrew points), not for marks piled into the lines above and below.
MARKS_IN_A_ROW = 4
#: Characters that are letters or symbols and yet draw nothing: the Hangul fillers, the
#: blank braille pattern, the Mongolian vowel separator, the Khmer inherent vowels.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")
#: Characters a name may not hold although they are not control or format characters:
#: the blanks, and the combining grapheme joiner (a mark that draws nothing).
INVISIBLE = BLANKS | {"\u034f"}
#: Hangul compatibility jamo, the letters a Korean keyboard types alone ("ㅋㅋ"): NFKC
#: would make them conjoining jamo, which draw as part of a syllable block (and compose
#: with each other: "ㅎㅏ" would become "하"), so they are kept as typed.
COMPATIBILITY_JAMO = re.compile(r"([\u3131-\u318e]+)")
#: Inner runs of spaces (whitespace that is not a control character or a line or
#: paragraph separator, which are refused), each made one space.
SPACES = re.compile(r"[^\S\x00-\x1f\x85\u2028\u2029]+")
#: What the server names its bots ("easy bot 1", "strong bot 2 (2)"), read case-folded
#: with spaces collapsed.
BOT_NAME = re.compile(r"(?:(?:easy|normal|strong)\s*)?bot\s*\d*(?:\s*\(\d+\))?")


def unprintable(text: str) -> str | None:
    """The first character of ``text`` a name may not hold, or None."""
    for char in text:
        if unicodedata.category(char) in REFUSED_CATEGORIES or char in INVISIBLE:
            return char
    return None


def selector(char: str) -> bool:
    """Whether ``char`` is a variation selector (it picks a glyph for the character before
    it): U+FE00-FE0F, U+E0100-E01EF, the Mongolian free variation selectors."""
    code = ord(char)
    return (
        0xFE00 <= code <= 0xFE0F
        or 0xE0100 <= code <= 0xE01EF
        or 0x180B <= code <= 0x180D
        or code == 0x180F
    )


def normalized_name(value: str) -> str:
    """``value`` as a name is kept: NFKC, variation selectors dropped, trimmed, each inner
    run of spaces one space. Nothing is checked here (``checked_name`` does)."""
    parts = COMPATIBILITY_JAMO.split(value)  # the jamo at odd places, kept as they are
    text = "".join(p if i % 2 else unicodedata.normalize("NFKC", p) for i, p in enumerate(parts))
    text = "".join(char for char in text if not selector(char))
    return SPACES.sub(" ", text.strip())


def visible(char: str) -> bool:
    """Whether ``char`` draws something of its own (a space, a mark or a blank does not)."""
    return not (
        char.isspace()
        or unicodedata.category(char)[0] in "MZ"
        or char in BLANKS
        or unicodedata.category(char) in REFUSED_CATEGORIES
    )


def longest_marks(text: str) -> int:
    """The most combining marks in a row in ``text``."""
    longest = run = 0
    for char in text:
        run = run + 1 if unicodedata.category(char)[0] == "M" else 0
        longest = max(longest, run)
    return longest


def looks_like_a_bot(text: str) -> bool:
    """Whether ``text`` reads as one of the server's bot names."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return BOT_NAME.fullmatch(folded) is not None


def checked_name(value: str) -> str:
    """``value`` normalised (``normalized_name``), if that is a name; ValueError (with a
    message that does not repeat it) if it is not."""
    name = normalized_name(value)
    bad = unprintable(value.strip()) or unprintable(name)  # named as it was typed
    if bad is not None:
        raise ValueError(f"a name is printable, visible text: U+{ord(bad):04X} is not allowed")
    if not 1 <= len(name) <= NAME_MAX:
        raise ValueError(f"a name has 1 to {NAME_MAX} characters (spaces at the ends do not count)")
    if not any(visible(char) for char in name):
        raise ValueError("a name needs a visible character (letters, digits or symbols)")
    if longest_marks(name) > MARKS_IN_A_ROW:
        raise ValueError(f"a name has at most {MARKS_IN_A_ROW} combining marks in a row")
    if looks_like_a_bot(name):
        raise ValueError("a name may not look like a bot's (such as 'easy bot 1')")
    return name


def is_name(value: str) -> bool:
    """Whether ``value`` is a name as it stands (normalised and printable)."""
    try:
        return checked_name(value) == value
    except ValueError:
        return False


def safe_name(text: str, fallback: str = "player") -> str:
    """A name made from ``text`` that was stored before names were checked: the characters
    a name may not hold dropped, stripped, cut to length; ``fallback`` if nothing is left."""
    kept = "".join(char for char in normalized_name(text) if unprintable(char) is None)
    kept = normalized_name(kept)[:NAME_MAX].strip()
    return kept if is_name(kept) else fallback
