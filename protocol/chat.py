"""Quick chat: a closed set of phrases and emotes, the same for every client.

There is no free text (nothing to moderate, nothing to escape): a client sends a phrase id,
the server checks it against ``ChatPhrase`` and passes the id on; each client shows its own
text for it (``TEXT`` is the English one; a client may translate). Muting is the client's:
the server sends every phrase to the table and its watchers, a client hides what its person
muted.
"""

from __future__ import annotations

from typing import Literal, get_args

ChatPhrase = Literal[
    "hello",
    "good_luck",
    "well_played",
    "nice_bomb",
    "hurry_up",
    "oops",
    "sorry",
    "thanks",
    "good_game",
    "one_more",
    "bye",
    "smile",
    "laugh",
    "cry",
    "angry",
    "thumbs_up",
    "surprised",
]
"""Every phrase id a client may send."""

PHRASES: tuple[ChatPhrase, ...] = get_args(ChatPhrase)

TEXT: dict[ChatPhrase, str] = {
    "hello": "Hello!",
    "good_luck": "Good luck!",
    "well_played": "Well played!",
    "nice_bomb": "Nice bomb!",
    "hurry_up": "Hurry up, please.",
    "oops": "Oops!",
    "sorry": "Sorry!",
    "thanks": "Thanks!",
    "good_game": "Good game.",
    "one_more": "One more match?",
    "bye": "Bye!",
    "smile": ":-)",
    "laugh": ":-D",
    "cry": ":'-(",
    "angry": ">:-(",
    "thumbs_up": "(thumbs up)",
    "surprised": ":-O",
}
"""The English text of each phrase; an emote's is a plain-text face (any terminal shows it)."""

EMOTES: frozenset[ChatPhrase] = frozenset(
    {"smile", "laugh", "cry", "angry", "thumbs_up", "surprised"}
)
"""The phrases that are emotes (a client may show them as a picture instead)."""
