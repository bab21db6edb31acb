"""Every Redis key name, in one place.

A room's keys share the hash tag ``{CODE}``, so they live on one Redis Cluster slot and one
Lua script may write them together. Keys that index across rooms (the active set) are
written in separate steps, never in a room's script. Every key starts with the prefix
(``ddz:`` unless configured), so several deployments or test runs can share one Redis.

- ``PREFIXroom:{CODE}:state``, hash: ``v`` the version, ``s`` the room as msgpack; expires
  ``finished_ttl`` after the room closes.
- ``PREFIXroom:{CODE}:log``, stream: one entry ``e`` (msgpack) per journal record; expires
  with the state.
- ``PREFIXroom:{CODE}:lease``, string ``NODE:FENCE``: the process that runs the room; expires
  ``--lease-ttl`` after its last renewal. ``PREFIXroom:{CODE}:fence``, counter: raised by
  one at every new lease, so a later owner always holds a higher fencing token.
- ``PREFIXsession:TOKEN``, hash: ``player_id``, ``name``, ``room``; expires ``session_ttl``
  after its last use.
- ``PREFIXrooms:active``, set: codes of rooms not yet closed; a code leaves it on close.
- ``PREFIXrooms:watchable``, sorted set: codes of live quick matches and public rooms, by
  creation time; a code leaves it on close.
- ``PREFIX{quick}:queue``, sorted set: player ids waiting for a quick match, by the time
  they joined; ``PREFIX{quick}:entries``, hash: player id to its entry (name, token). Both
  share the hash tag ``{quick}`` so one script takes a match from them atomically.
- ``PREFIXlobby:PID``, string: a random value; held while one lobby request of the player
  is under way (any process); expires after ``player_lock.LOCK_TTL`` if never released.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PREFIX = "ddz:"


@dataclass(frozen=True)
class Keys:
    prefix: str = DEFAULT_PREFIX

    @property
    def active_rooms(self) -> str:
        return f"{self.prefix}rooms:active"

    def room_state(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:state"

    def room_log(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:log"

    def room_lease(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:lease"

    def room_fence(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:fence"

    def session(self, token: str) -> str:
        return f"{self.prefix}session:{token}"

    @property
    def watchable(self) -> str:
        return f"{self.prefix}rooms:watchable"

    @property
    def quick_queue(self) -> str:
        return f"{self.prefix}{{quick}}:queue"

    @property
    def quick_entries(self) -> str:
        return f"{self.prefix}{{quick}}:entries"

    def lobby_lock(self, player_id: str) -> str:
        return f"{self.prefix}lobby:{player_id}"
