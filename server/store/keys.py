"""Every Redis key name, in one place.

A room's keys share the hash tag ``{CODE}``, so they live on one Redis Cluster slot and one
Lua script may write them together. Keys that index across rooms (the active set) are
written in separate steps, never in a room's script. Every key starts with the prefix
(``ddz:`` unless configured), so several deployments or test runs can share one Redis.

No key lives for ever. While a room is open its state, log and fence never expire; a room
ends when everyone left, its match is over, or nobody was connected for
``idle_room_timeout``, and then its state, log and fence get one TTL: ``finished_ttl``
for a match worth replaying (it ended, or a person played in it), ``CLOSED_BRIEFLY``
(60 s) for any other room (see ``Room.worth_keeping``).

- ``PREFIXroom:{CODE}:state``, hash: ``v`` the version, ``s`` the room as msgpack, ``f``
  the last writer's fencing token; expires after the room closes (above).
- ``PREFIXroom:{CODE}:tail``, list: the step records (msgpack) saved since ``s`` was written
  (``server/rooms/steps.py``); a whole save deletes it, so a closed room has none.
- ``PREFIXroom:{CODE}:log``, stream: one entry ``e`` (msgpack) per journal record (none
  before a match starts); expires with the state.
- ``PREFIXroom:{CODE}:lease``, string ``NODE:FENCE``: the process that runs the room; expires
  ``--lease-ttl`` after its last renewal. ``PREFIXroom:{CODE}:fence``, counter: raised by
  one at every new lease (and above the state's ``f``), so a later owner always holds a
  higher fencing token; expires with the state, and a new room of the same code makes it
  lasting again.
- ``PREFIXroom:{CODE}:watched``, set: player ids who watched the room (at most
  ``WATCHED_MAX``), for the replay; expires ``finished_ttl`` after the last one came.
- ``PREFIXroom:{CODE}:again``, string: the code of the finished room's rematch, set by the
  first who asks; expires after ``finished_ttl``.
- ``PREFIXroom:{CODE}:review``, string: the finished match's review (JSON,
  ``server/lobby/reviews.py``), once computed; expires with the room's state.
- ``PREFIXsession:TOKEN``, hash: ``player_id``, ``name``, ``room``; expires ``session_ttl``
  after its last use.
- ``PREFIXrooms:active``, set: codes of rooms not yet closed; a code leaves it on close.
- ``PREFIXrooms:watchable``, sorted set: codes of live quick matches and public rooms, by
  creation time; a code leaves it on close.
- ``PREFIX{quick}:queue``, sorted set: player ids waiting for a quick match, by the time
  they joined; ``PREFIX{quick}:entries``, hash: player id to its entry (name, token). Both
  share the hash tag ``{quick}`` so one script takes a match from them atomically.
- ``PREFIX{quick}:skill``, hash: player id to the skill (``mu``) they queued with, which
  the matcher (``server/lobby/matching.py``) forms tables by; under the same hash tag.
- ``PREFIX{player:PID}:rating``, hash: ``mu``, ``sigma``, ``matches`` (rated matches),
  ``name`` (the last one rated under); ``PREFIX{player:PID}:rated``, sorted set: the codes of
  the matches already applied to it, by when (so a match is applied once), kept
  ``RATED_KEEP`` seconds; under one hash tag so one script checks and updates
  (``server/store/ratings.py``). Neither expires: a rating is the player's.
- ``PREFIXroom:{CODE}:ratings``, string: the seats' ratings as a rated quick match started
  (msgpack), the base of its update; expires ``finished_ttl`` after it is written.
- ``PREFIX{ladder}:top``, sorted set: player ids by display rating, those with at least
  ``LADDER_MIN_MATCHES`` rated matches; ``PREFIX{ladder}:players``, hash: player id to what
  the ladder shows of them (name, mu, sigma, matches). One script reads both.
- ``PREFIXaddr:{ADDRESS}:...``: what one client address holds, under one hash tag so one
  script checks and counts at once (``server/store/addresses.py``). ``rooms``, sorted set:
  codes of the open rooms it created, by creation time; ``strong``, hash: code to its
  strong-bot seats; both expire ``session_ttl`` after the last room created. ``sessions``
  and ``new-rooms``, counters of a fixed window (a minute, an hour) expiring with it.
  ``misses``, counter of failed joins in a minute; ``blocked``, set while the address must
  wait; ``strikes``, how many waits in a row (each doubles), expiring twice the last wait.
- ``PREFIX{player:PID}:card``, hash: a lasting player's ``k`` (SHA-256 of their key, hex)
  and ``since``; ``:matches``, list: their matches (msgpack of a ``HistoryEntry``), the
  newest first, at most ``bookkeeping.MATCHES_KEPT``; ``:stats``, hash: their counters
  (and the best match); ``:applied``, sorted set: the matches already counted (by when they
  ended), the guard that counts each once. All four share the hash tag ``{player:PID}``, so
  one script updates them together; each expires ``PLAYER_TTL`` after the player's last
  hello or match (the card of a player with no match yet: ``NEW_PLAYER_TTL``).
- ``PREFIXmatches:pending``, set: codes of closed rooms whose match may not be in its
  players' records yet; a code joins before the closing save and leaves once every player
  of the match has it (``server/players/bookkeeping.py``).
- ``PREFIX{puzzles}:data``, hash: puzzle id to the puzzle (msgpack: its cards, side, answer,
  least plays, when found); ``:skill``, hash: id to "mu sigma attempts"; ``:points``, sorted
  set: ids by shown rating; ``:daily:DAY``, string: the UTC day's puzzle id (3 days). One
  hash tag, so one script adds a puzzle once (``server/store/puzzles.py``); none expires.
- ``PREFIX{player:PID}:puzzle_rating``, hash: ``mu``, ``sigma``, ``tried``, ``solved``;
  ``:puzzles_tried``, sorted set: puzzle ids started, by when; ``:puzzle_attempt``, hash:
  the attempt in progress (a rated one kept until counted, failed once past its
  ``until``; a retry a day); ``:own_puzzles``, set: ids cut from their own lost deals;
  ``:turning``, sorted set: their turning points by when (30 days kept).
- ``PREFIXlobby:PID``, string: a random value; held while one lobby request of the player
  is under way (any process); expires after ``player_lock.LOCK_TTL`` if never released.

The pub/sub channels between processes are named here too, under the same prefix
(``server/cluster/relay.py``): ``PREFIXnode:NODE``, what is for process NODE;
``PREFIXplayer:PID``, what is for a player, heard where they are connected;
``PREFIXnodes``, what is for every process.
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

    def room_tail(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:tail"

    def room_log(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:log"

    def room_lease(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:lease"

    @property
    def nodes_alive(self) -> str:
        """Each process's last sign of life (wall time), by node: when a dead one died."""
        return f"{self.prefix}nodes:alive"

    def room_fence(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:fence"

    def room_watched(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:watched"

    def room_review(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:review"

    def room_again(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:again"

    def session(self, token: str) -> str:
        return f"{self.prefix}session:{token}"

    def address(self, address: str, part: str) -> str:
        """One of an address's keys (``part``: rooms, strong, sessions, new-rooms, misses,
        strikes, blocked, reviews). Braces are dropped from the address (they would break the hash
        tag), and an unknown address is ``-``."""
        tag = address.replace("{", "").replace("}", "") or "-"
        return f"{self.prefix}addr:{{{tag}}}:{part}"

    @property
    def watchable(self) -> str:
        return f"{self.prefix}rooms:watchable"

    @property
    def quick_queue(self) -> str:
        return f"{self.prefix}{{quick}}:queue"

    @property
    def quick_entries(self) -> str:
        return f"{self.prefix}{{quick}}:entries"

    def player(self, player_id: str, part: str) -> str:
        """One of a lasting player's keys (``part``: card, matches, stats, applied), under
        the hash tag ``{player:PID}``."""
        return f"{self.prefix}{{player:{player_id}}}:{part}"

    @property
    def pending_matches(self) -> str:
        return f"{self.prefix}matches:pending"

    @property
    def quick_skill(self) -> str:
        return f"{self.prefix}{{quick}}:skill"

    def rating(self, player_id: str) -> str:
        return f"{self.prefix}{{player:{player_id}}}:rating"

    def rated(self, player_id: str) -> str:
        return f"{self.prefix}{{player:{player_id}}}:rated"

    def rating_log(self, player_id: str) -> str:
        """The player's rating after each of their last rated matches (the profile's graph)."""
        return f"{self.prefix}{{player:{player_id}}}:rating_log"

    def room_ratings(self, code: str) -> str:
        return f"{self.prefix}room:{{{code}}}:ratings"

    @property
    def ladder_top(self) -> str:
        return f"{self.prefix}{{ladder}}:top"

    @property
    def ladder_players(self) -> str:
        return f"{self.prefix}{{ladder}}:players"

    @property
    def ladder_shown(self) -> str:
        """The ladder by the rating as shown (its points), which it ranks by."""
        return f"{self.prefix}{{ladder}}:shown"

    def puzzles(self, part: str) -> str:
        """One of the puzzles' keys (``part``: data, skill, points, daily:DAY), under the
        hash tag ``{puzzles}``."""
        return f"{self.prefix}{{puzzles}}:{part}"

    def lobby_lock(self, player_id: str) -> str:
        return f"{self.prefix}lobby:{player_id}"

    # --- pub/sub channels -------------------------------------------------------------

    def node_channel(self, node: str) -> str:
        return f"{self.prefix}node:{node}"

    def player_channel(self, player_id: str) -> str:
        return f"{self.prefix}player:{player_id}"

    @property
    def everyone_channel(self) -> str:
        return f"{self.prefix}nodes"
