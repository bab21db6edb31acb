"""Player ids and player keys.

A player id is public (seats, channels, records are keyed by it); a player key is the
secret that proves one is that player: ``PID.SECRET``, the secret 24 random bytes (192
bits) from ``secrets``. The id inside lets the server find the player's record directly
(one hash tag, one Cluster slot: no index from key to player), and the server keeps only
the SHA-256 of the whole key, so what the store holds cannot be used as a key.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

#: A player id: ``p`` and 16 hex digits (64 random bits: no two players meet on one).
_PLAYER_ID = re.compile(r"^p[0-9a-f]{12,32}$")
#: The secret part: URL-safe base64 of at least 16 bytes.
_SECRET = re.compile(r"^[A-Za-z0-9_-]{22,86}$")


#: Hex digits of a player's public tag.
TAG_DIGITS = 6


def public_tag(player_id: str) -> str:
    """A short public tag of a player (6 hex digits of a hash of their id): what tells two
    players of the same name apart on the ladder, and opens one's public profile from it,
    without showing the id."""
    return hashlib.sha256(f"ddz-tag:{player_id}".encode()).hexdigest()[:TAG_DIGITS]


def new_player_id() -> str:
    return "p" + secrets.token_hex(8)


def new_key(player_id: str) -> str:
    """A fresh key for ``player_id``."""
    return f"{player_id}.{secrets.token_urlsafe(24)}"


def key_hash(key: str) -> str:
    """What the store keeps of a key: its SHA-256, hex."""
    return hashlib.sha256(key.encode()).hexdigest()


def player_of(key: str) -> str | None:
    """The player id a key names, or None when it is not a key's shape."""
    player_id, dot, secret = key.strip().rpartition(".")
    if not dot or not _PLAYER_ID.match(player_id) or not _SECRET.match(secret):
        return None
    return player_id


def matches(key: str, stored_hash: str) -> bool:
    """Whether ``key`` is the one whose hash is stored (compared in constant time)."""
    return hmac.compare_digest(key_hash(key.strip()), stored_hash)
