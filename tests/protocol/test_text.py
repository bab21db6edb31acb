"""Names are printable text of 1 to 24 characters: everyone sees them (seats, the room
list), and terminals obey what they print.

Issue 11, item 10: a name holding ``ESC ] 0 ; ... BEL ESC [ 2 J`` was accepted, and a
terminal client printing it had its window title changed and its screen cleared."""

from __future__ import annotations

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
    assert 1 <= len(name) <= NAME_MAX and name == name.strip()
    assert not any(unicodedata.category(char) in REFUSED_CATEGORIES for char in name)
    assert is_name(name)


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
        ("a" + "\u0301" * (5), "combining marks"),
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
        "ㅎㅎ",  # Hangul letters that do draw
        "Robot Rita",
        "bot lover",
        "Abbott",
        "⠿ braille",
    ],
)
def test_names_of_every_script_and_ones_that_merely_mention_bots_are_kept(name: str) -> None:
    assert checked_name(name) == name


def test_a_stored_name_that_is_no_longer_a_name_comes_back_as_the_fallback() -> None:
    assert safe_name("\u3164\u3164") == "player"
    assert safe_name("easy bot 1") == "player"
