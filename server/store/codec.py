"""The codec of stored data: what the store keeps of a room (its state, its step records,
its journal records) and of the lobby (queue entries, histories), as msgpack.

One codec for every store (``RedisStore``, ``MemoryStore``) and for whoever packs before a
write (the runner, the directory), so that what one writes the other reads byte for byte.
Maps may have integer keys (``strict_map_key=False``); bytes stay bytes.
"""

from __future__ import annotations

from typing import Any, cast

import msgpack


def pack(data: Any) -> bytes:
    """Plain data (dicts, lists, numbers, strings, bytes, None) as stored."""
    return cast(bytes, msgpack.packb(data, use_bin_type=True))


def unpack(blob: bytes) -> Any:
    """What ``pack`` stored, as plain data again."""
    return msgpack.unpackb(blob, raw=False, strict_map_key=False)
