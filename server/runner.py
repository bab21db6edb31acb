"""The asyncio side of one room: apply requests, deliver what they cause, run the clock and
the bots. All game logic is in the sans-I/O ``Room``; this is wiring.

After every change the runner looks at the room once: if the seat on turn is a bot's (or a
person's seat a bot took over) it schedules that bot; if the room is timed it sets a timer
for the stored absolute deadline. A timer that fires late, or for a turn that has passed, is
refused by the room and simply replaced.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from protocol.messages import Request
from server.bots import decide, policy_for
from server.bots.simple import SimpleBot
from server.game.deal import RandomSource
from server.game.errors import GameError
from server.hub import Hub
from server.rooms.room import Actor, BotActor, Delivery, Room, RoomError
from server.settings import BOT_DELAYS

log = logging.getLogger(__name__)
#: Level of the bot that plays a person's seat after two timeouts or a departure.
TAKEOVER_LEVEL = "normal"


class RoomRunner:
    def __init__(
        self,
        room: Room,
        hub: Hub,
        rng: RandomSource,
        on_closed: Callable[[Room], None],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.room = room
        self.hub = hub
        self.rng = rng
        self.clock = clock
        self.on_closed = on_closed
        self._timer: asyncio.TimerHandle | None = None
        self._bot: asyncio.TimerHandle | None = None

    # --- requests ---------------------------------------------------------------------

    def request(self, actor: Actor, request: Request) -> None:
        """Apply a request; RoomError or GameError when refused (nothing changed)."""
        self.publish(self.room.handle(actor, request, self.clock(), self.rng))

    def publish(self, deliveries: list[Delivery]) -> None:
        """Deliver the messages of a change, then look at the room anew."""
        self.hub.deliver(deliveries)
        self.reschedule()

    def reschedule(self) -> None:
        """Set the bot and the clock for the room as it now stands."""
        for handle in (self._timer, self._bot):
            if handle is not None:
                handle.cancel()
        self._timer = self._bot = None
        room = self.room
        if room.closed is not None:
            self.on_closed(room)
            return
        match = room.match
        if match is None:
            return
        loop = asyncio.get_running_loop()
        turn = match.turn
        if turn is not None and turn in room.bot_seats():
            seat = room.seats[turn]
            delay = BOT_DELAYS[room.bot_speed] if seat.kind == "bot" else 0.0
            self._bot = loop.call_later(delay, self._bot_acts, turn)
            return
        if match.deadline is not None:
            self._timer = loop.call_later(
                max(0.0, match.deadline - self.clock()), self._clock_ran_out
            )

    def stop(self) -> None:
        for handle in (self._timer, self._bot):
            if handle is not None:
                handle.cancel()

    # --- the clock and the bots -------------------------------------------------------

    def _clock_ran_out(self) -> None:
        self._timer = None
        try:
            self.publish(self.room.clock_ran_out(self.clock(), self.rng))
        except (GameError, RoomError) as exc:
            log.debug("room %s: timer refused (%s); rescheduling", self.room.code, exc)
            self.reschedule()

    def _bot_acts(self, seat: int) -> None:
        self._bot = None
        room = self.room
        match = room.match
        if match is None or room.closed is not None:
            return
        level = room.seats[seat].level or TAKEOVER_LEVEL
        view = match.view_for(seat, self.clock())
        for policy in (policy_for(level), SimpleBot()):
            request = decide(policy, view)
            if request is None:
                return
            try:
                self.request(BotActor(seat), request)
                return
            except (GameError, RoomError):
                log.exception(
                    "room %s: the bot in seat %d was refused %r", room.code, seat, request
                )
