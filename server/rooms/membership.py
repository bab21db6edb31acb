"""People come and go: a person takes a seat (``join``), asks for a rematch (``again``),
watches, leaves, loses their connection (``gone``) or comes back (``set_connected``); a
rematch's hold ends (``hold_over``). Each checks, changes the room or raises ``RoomError``
having changed nothing, and says what it sends. The seats' own rules are in
``server/rooms/seating.py``, the watchers' in ``watchers.py``, a rematch's in ``rematch.py``.

A room with no connected person is idle (bots and watchers keep nobody company): from the
moment the last person went (``idle_since``, saved with the room, so a restart does not
reset it) the runtime may end it (``Room.end_idle``) once the idle-room timeout has passed;
anyone coming back first keeps it. Who played, and who watched (the store keeps who did,
beside the room), may have the replay once the room is closed (``check_replay``).
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    Left,
)
from server.game.deal import RandomSource
from server.rooms import rematch, seating
from server.rooms.change import Change, Delivery, RoomError
from server.rooms.state import RoomState
from server.rooms.watchers import add_watcher, drop_watcher


class Membership(RoomState):
    """A room's state, and who comes and goes (see the module)."""

    def invites(self, asker: str, now: float) -> list[Delivery]:
        """Tell each person whose seat is held that ``asker`` wants another match."""
        seat = self.seat_of(asker)
        if self.rematch_of is None or seat is None or self.hold_until is None:
            return []
        return rematch.invites(self.seats, self.rematch_of, seat, self.hold_until, now)

    def join(self, player_id: str, name: str, now: float) -> list[Delivery]:
        """A person takes the first empty seat (private rooms, before the match)."""
        self._check_open()
        if self.seat_of(player_id) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "you are in this room already")
        seating.sit_down(self.seats, player_id, name, self.mode, self.match is not None)
        drop_watcher(self.watchers, player_id)
        self.version += 1
        return self._seats_changed()

    def again(self, player_id: str, name: str, now: float, rng: RandomSource) -> Change:
        """A person asks for this rematch (``rematch.take_seat``); the match starts when
        every seat is ready."""
        self._check_open()
        if self.rematch_of is None:
            raise RoomError(ErrorCode.NOT_ALLOWED, "this room is not a rematch")
        if self.seat_of(player_id) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "you are in this room already")
        rematch.take_seat(self.seats, player_id, name, self.mode, self.match is not None)
        drop_watcher(self.watchers, player_id)
        if not any(s.held for s in self.seats):
            self.hold_until = None
        self.version += 1
        out = self._seats_changed() + self.invites(player_id, now)
        return self._change(out + self._start_if_ready(now, rng))

    def hold_over(self, now: float, rng: RandomSource) -> Change:
        """The rematch's hold ended (``rematch.hold_ends``), and the match starts if every
        seat is ready. RoomError before then (a stale timer)."""
        self._check_open()
        if self.hold_until is None or now < self.hold_until:
            raise RoomError(ErrorCode.NOT_ALLOWED, "no seat is held past its time")
        rematch.hold_ends(self.seats, self.mode)
        self.hold_until = None
        self.version += 1
        return self._change(self._seats_changed() + self._start_if_ready(now, rng))

    def watch(self, player_id: str, max_watchers: int = 0) -> list[Delivery]:
        """A person starts watching; past ``max_watchers`` (0: no cap) the room is full."""
        self._check_open()
        if self.seat_of(player_id) is not None:
            raise RoomError(ErrorCode.ALREADY_SEATED, "you have a seat in this room")
        if add_watcher(self.watchers, player_id, max_watchers):
            self.version += 1
        return self._seats_changed()

    def leave(self, player_id: str) -> list[Delivery]:
        """A person leaves (their seat empties before the match, a bot plays it during the
        match) or a watcher stops watching. The room closes when no person is left."""
        self._check_open()
        out: list[Delivery] = [(player_id, Left())]
        if not drop_watcher(self.watchers, player_id):
            seat = self.seat_of(player_id)
            if seat is None:
                raise RoomError(ErrorCode.NO_ROOM, "you are not in this room")
            seating.stand_up(self.seats, seat, self.mode, self.match is not None)
            if self.match is not None:
                # giving up a dealt match is a move of its own: the match is kept, in the
                # person's history as unfinished (a practice left before a first play was
                # in no history at all)
                self.played = True
        self.version += 1
        if not self.seated():
            return out + self._close("everyone_left")
        return out + self._seats_changed()

    def all_disconnected(self) -> list[Delivery]:
        """After a restart nobody is connected yet; each comes back with their token."""
        for seat in self.seats:
            if seat.kind == "person" and seat.connected:
                seat.connected = False
                self.version += 1
        return []

    def gone(self, player_id: str) -> list[Delivery]:
        """A person's connection ended: a watcher stops watching (nobody is left to send
        to, and a watcher has no seat to come back to); a seated person's seat is marked
        disconnected, theirs until they come back."""
        if drop_watcher(self.watchers, player_id):
            self.version += 1
            return self._seats_changed()
        return self.set_connected(player_id, False)

    def away(self, player_id: str) -> bool:
        """Whether the player sits here with their seat marked disconnected (the room sends
        them nothing until they are back)."""
        return player_id in self.seated() and player_id not in self.connected_people()

    def set_connected(self, player_id: str, connected: bool) -> list[Delivery]:
        seat = self.seat_of(player_id)
        if seat is None or self.seats[seat].connected == connected:
            return []
        self.seats[seat].connected = connected
        self.version += 1
        return self._seats_changed()

    def note_presence(self, now: float) -> None:
        """Start the idle clock when no person is connected, stop it when one is. The
        runtime calls it after every change, so that every way in and out (join, leave,
        back, gone, a restart) is counted alike."""
        if self.closed is not None:
            return
        idle = not self.connected_people()
        if idle and self.idle_since is None:
            self.idle_since = now
        elif not idle and self.idle_since is not None:
            self.idle_since = None
        else:
            return
        self.version += 1

    def idle_deadline(self, timeout: float) -> float | None:
        """When the room ends for want of people (None: someone is here, or no timeout)."""
        if self.idle_since is None or self.closed is not None or timeout <= 0:
            return None
        return self.idle_since + timeout

    def check_replay(self, player_id: str, watched: bool = False) -> None:
        """Raise unless ``player_id`` may have this room's replay: they played in it (or
        left it during the match) or watched it (``watched``: the store says they did, or
        they watch now), and the room is closed, so every hand is past playing. One who
        neither played nor watched is told no more than of a room that does not exist."""
        watched = watched or player_id in self.watchers
        if player_id not in self.people() and not watched:
            raise RoomError(ErrorCode.NO_ROOM, f"no match of yours in room {self.code}")
        if self.closed is None:
            raise RoomError(
                ErrorCode.WRONG_PHASE, "the match is not over: its replay comes when it ends"
            )
        if self.match is None:
            raise RoomError(ErrorCode.NO_ROOM, f"no match was played in room {self.code}")
