"""Text from the network made safe to show on a terminal.

Anyone can connect to a server and pick a name, so every string the server sends (names,
room codes, the room list, refusals, a close reason) is a stranger's text. Shown raw, an
``ESC ] 0 ; ... BEL`` retitles the window, ``ESC [ 2 J`` clears the screen, a right-to-left
override (U+202E) turns the rest of the line around, and a newline forges a line of its own.
So nothing from the network reaches the terminal without passing ``printable``: every control
or format character (Unicode categories Cc, Cf, Zl, Zp, and lone surrogates, Cs) becomes
``PLACEHOLDER``, and the text is cut to a bounded length.

``printable_fragments`` applies it to styled lines on their way out (the interactive prompt,
its panel, and the headless client's plain text): the renderer's own line breaks, fragments
that are exactly ``"\\n"``, are the only control characters that pass.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

#: What a control or format character is shown as.
PLACEHOLDER = "\N{REPLACEMENT CHARACTER}"
#: What ends a string cut to its limit.
ELLIPSIS = "\N{HORIZONTAL ELLIPSIS}"
#: Unicode categories never shown: controls, formats (bidi overrides, zero-width joiners...),
#: line and paragraph separators, and surrogates (which cannot even be encoded).
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
#: A name at the table: the protocol allows 24 characters; a little room for a longer one.
NAME_LIMIT = 32
#: A room code (the protocol allows 16).
CODE_LIMIT = 16
#: A refusal's message, a close reason, an error line.
MESSAGE_LIMIT = 200
#: Any other text on its way to the terminal.
LINE_LIMIT = 4000
#: The renderer's line break: the one control character that may reach the terminal.
LINE_BREAK = "\n"


def is_unsafe(char: str) -> bool:
    """Whether one character is a control or format character (never shown as it is)."""
    return unicodedata.category(char) in UNSAFE_CATEGORIES


def printable(text: str, limit: int = LINE_LIMIT) -> str:
    """``text`` with every control or format character replaced by ``PLACEHOLDER`` and cut
    to at most ``limit`` characters (the last one an ellipsis when cut)."""
    if len(text) > limit:
        text = text[: max(limit - 1, 0)] + ELLIPSIS if limit > 0 else ""
    if text.isascii() and text.isprintable():
        return text  # the common case, at C speed
    return "".join(PLACEHOLDER if is_unsafe(c) else c for c in text)


def printable_fragments(fragments: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Styled text made safe for the terminal: each fragment's text through ``printable``,
    except the renderer's own line breaks (a fragment that is exactly ``"\\n"``)."""
    return [(style, text if text == LINE_BREAK else printable(text)) for style, text in fragments]
