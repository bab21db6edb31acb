"""Names are printable text of 1 to 24 characters: everyone sees them (seats, the room
list), and terminals obey what they print.

Issue 11, item 10: a name holding ``ESC ] 0 ; ... BEL ESC [ 2 J`` was accepted, and a
terminal client printing it had its window title changed and its screen cleared."""

from __future__ import annotations

import re
import unicodedata

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from protocol.codec import ProtocolError, decode
from protocol.errors import ErrorCode
from protocol.messages import Hello, JoinRoom, Watch
from protocol.text import NAME_MAX, REFUSED_CATEGORIES, checked_name, is_name, safe_name

TERMINAL_ATTACK = "\x1b]0;pwned\x07\x1b[2J"


def hello_frame(name: str) -> bytes:
    frame: bytes = msgpack.packb({"type": "hello", "id": 4, "version": 1, "name": name})
    return frame


@pytest.mark.parametrize(
    "name",
    [
        "Ann",
        "张伟",
        "José María",
        "Zoë-Ø 3",
        "😀 lucky",
        "x" * NAME_MAX,
    ],
)
def test_printable_names_are_accepted_as_they_are(name: str) -> None:
    assert checked_name(name) == name
    assert Hello(name=name, version=1).name == name


def test_whitespace_at_the_ends_is_stripped_and_does_not_count() -> None:
    assert Hello(name="  Ann B\t", version=1).name == "Ann B"
    assert Hello(name=" " + "x" * NAME_MAX + " ", version=1).name == "x" * NAME_MAX


@pytest.mark.parametrize(
    "name",
    [
        TERMINAL_ATTACK,
        "Ann\x07",  # BEL (C0)
        "Ann\x7f",  # DEL
        "Ann\x9b2J",  # CSI (C1)
        "a\nb",  # a line break inside
        "abc\u202efed",  # right-to-left override (Cf)
        "a\u2066b\u2069",  # bidi isolates (Cf)
        "a\u200bb",  # zero-width space (Cf)
        "a\u2028b",  # line separator (Zl)
        "a\u2029b",  # paragraph separator (Zp)
        "a\ud800b",  # a lone surrogate (Cs)
        "a\ue000b",  # private use (Co)
        "a\U000e0001b",  # language tag (Cf)
    ],
)
def test_control_and_format_characters_are_refused(name: str) -> None:
    with pytest.raises(ValidationError):
        Hello(name=name, version=1)
    assert not is_name(name)


@pytest.mark.parametrize("name", ["", "   ", "\t\n", "x" * (NAME_MAX + 1)])
def test_empty_or_too_long_names_are_refused(name: str) -> None:
    with pytest.raises(ValidationError):
        Hello(name=name, version=1)


def test_a_bad_name_is_malformed_and_the_refusal_does_not_repeat_it() -> None:
    with pytest.raises(ProtocolError) as exc:
        decode(hello_frame(TERMINAL_ATTACK))
    assert exc.value.code == ErrorCode.MALFORMED and exc.value.request_id == 4
    assert "U+001B" in exc.value.message
    assert "\x1b" not in exc.value.message and "pwned" not in exc.value.message


@given(st.text(max_size=40))
def test_whatever_is_accepted_is_printable_stripped_and_bounded(text: str) -> None:
    try:
        name = checked_name(text)
    except ValueError:
        return
    assert 1 <= len(name) <= NAME_MAX and name == name.strip() and "  " not in name
    assert not any(unicodedata.category(char) in REFUSED_CATEGORIES for char in name)
    assert is_name(name) and checked_name(name) == name  # normalising again changes nothing


@pytest.mark.parametrize("message", [JoinRoom, Watch])
def test_a_room_code_is_letters_and_digits(message: type[JoinRoom | Watch]) -> None:
    assert message(code=" abc23 ").code == " abc23 "  # the server strips and upper-cases it
    assert message(code="k7p2q m4xtr").code == "k7p2q m4xtr"  # a long code's groups, as typed
    assert message(code="K7P2Q-M4XTR").code == "K7P2Q-M4XTR"  # ... or as shown
    for code in ("AB\x1bC", "AB\tCD", "ABC}", "ABC\u202e", " - "):
        with pytest.raises(ValidationError):
            message(code=code)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\u3164", "visible"),  # Hangul filler: a letter that draws nothing
        ("\u2800\u2800", "visible"),  # blank braille patterns
        ("\uffa0 \u3164", "visible"),
        ("\u0301\u0301", "visible"),  # marks on nothing
        ("\u3164\u00a0\u3000\u3164", "visible"),  # fillers around no-break and ideographic spaces
        ("Z" + "\u0336\u0334\u0335\u0337\u0338" * 4 + "a", "combining marks"),  # 20 marks
        ("x" + "\u0301" * (5), "combining marks"),  # (no precomposed x with an acute)
        ("easy bot 1", "bot"),
        ("Normal Bot 2", "bot"),
        ("strong  bot 0 (2)", "bot"),
        ("ＥＡＳＹ ＢＯＴ １", "bot"),  # full-width letters read the same
        ("bot", "bot"),
        ("Bot 7", "bot"),
    ],
)
def test_invisible_stacked_or_bot_like_names_are_refused_with_a_reason(name: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        checked_name(name)
    with pytest.raises(ValidationError):
        Hello(name=name, version=1)


@pytest.mark.parametrize(
    "name",
    [
        "Nguyễn Việt",  # precomposed
        "Nguye\u0302\u0303n",  # decomposed: two marks on one letter
        "กุ้ง",  # Thai: a vowel sign and a tone mark stacked
        "שָׁלוֹם",  # Hebrew points
        "Robot Rita",
        "bot lover",
        "Abbott",
        "⠿ braille",
    ],
)
def test_names_of_every_script_and_ones_that_merely_mention_bots_are_kept(name: str) -> None:
    """Kept as typed, in NFKC (the decomposed Vietnamese is composed)."""
    assert checked_name(name) == unicodedata.normalize("NFKC", name)


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Ａｄｍｉｎ", "Admin"),  # full-width look-alikes are the plain letters
        ("Admin\ufe0f", "Admin"),  # a variation selector picks a glyph: dropped
        ("\u2764\ufe0f Lily", "\u2764 Lily"),  # ... as an emoji keyboard adds it
        ("Ann" + " " * 72, "Ann"),  # (96 characters at most as sent, 24 once normalised)
        ("Ann  \u00a0 \u3000B", "Ann B"),  # inner runs of spaces: one space
        ("\u3000Ann\u2003", "Ann"),
        ("ﬁsh", "fish"),  # the ligature is its letters
        ("ㅎㅎ", "ㅎㅎ"),  # Hangul letters typed alone are kept, not made conjoining jamo
        ("ㅎㅏ", "ㅎㅏ"),  # ... nor composed into a syllable
    ],
)
def test_a_name_is_normalised_before_it_is_checked(typed: str, kept: str) -> None:
    """Issue 35: full-width look-alikes of other names, U+FE0F, and a name followed by 72
    spaces were accepted as they were."""
    assert checked_name(typed) == kept
    assert Hello(name=typed, version=1).name == kept
    assert is_name(kept) and is_name(typed) == (typed == kept)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("ＥＡＳＹ　ＢＯＴ　１", "bot"),  # checked as what it normalises to
        ("ｂｏｔ", "bot"),
        ("Admin\u3164", "U+3164"),  # a letter that draws nothing, beside visible ones
        ("Admin\u2800", "U+2800"),
        ("a\u034fb", "U+034F"),  # the combining grapheme joiner
        ("a\u200db", "U+200D"),  # the zero-width joiner (format)
        ("ab\u2060", "U+2060"),  # the word joiner (format)
        ("x" * 20 + "\ufdfa", "1 to 24"),  # one character that is 18 once normalised
    ],
)
def test_invisible_characters_and_look_alikes_are_refused_once_normalised(
    name: str, why: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        checked_name(name)


def test_a_stored_name_that_is_no_longer_a_name_comes_back_as_the_fallback() -> None:
    assert safe_name("\u3164\u3164") == "player"
    assert safe_name("easy bot 1") == "player"
