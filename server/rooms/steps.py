"""Steps: the changes a room saves as what changed rather than as the whole room.

A request from a seat (a person's or a bot's) and a clock that ran out are the changes of
almost every save. Each is a function of the room as it stood, the request, the time and
the random draws it made, so the store keeps it as a *step record* (``step_record``): the
step, its time, its draws (those its journal records hold), the version it made and when it
was saved. A room is stored as a snapshot (``server/rooms/stored.py``) and the tail of step
records since; loading it replays the tail over the snapshot (``replay_tail``). Every other
change (entering, leaving, a takeover, the lobby's) saves the whole room, which drops the
tail.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from protocol.errors import Refusal
from protocol.messages import CLIENT_ADAPTER, Request
from server.game.deal import RandomSource
from server.game.journal import ReplayRandom
from server.rooms.change import Actor, BotActor, Change
from server.rooms.room import Room
from server.store.base import StepRecord


class TailMismatch(Exception):
    """A stored tail that does not follow its snapshot (a version out of order)."""


@dataclass(slots=True)
class RequestStep:
    """A person's or a bot's request, as ``Room.handle`` takes it."""

    actor: Actor
    request: Request

    def apply(self, room: Room, now: float, rng: RandomSource) -> Change:
        return room.handle(self.actor, self.request, now, rng)

    def to_data(self) -> dict[str, Any]:
        actor = self.actor
        who: Any = {"bot": actor.seat} if isinstance(actor, BotActor) else actor
        # A request's fields are plain data (ints, strs, lists of ints): its attributes
        # are its dump, at a tenth of model_dump's cost.
        return {"actor": who, "request": dict(vars(self.request))}


@dataclass(slots=True)
class ClockStep:
    """The clock of the seat on turn (or of the pause between deals) ran out."""

    def apply(self, room: Room, now: float, rng: RandomSource) -> Change:
        return room.clock_ran_out(now, rng)

    def to_data(self) -> dict[str, Any]:
        return {"clock": True}


Step = RequestStep | ClockStep


def step_from_data(data: dict[str, Any]) -> Step:
    if data.get("clock"):
        return ClockStep()
    who = data["actor"]
    actor: Actor = BotActor(who["bot"]) if isinstance(who, dict) else who
    request = CLIENT_ADAPTER.validate_python(data["request"])
    if not isinstance(request, Request):
        raise TailMismatch(f"a stored step holds a {type(request).__name__}, not a request")
    return RequestStep(actor, request)


def step_record(
    step: Step, now: float, change: Change, version: int, saved_at: float
) -> StepRecord:
    """What the store keeps of ``step``, applied at ``now`` with ``change`` as its outcome:
    the draws it made are those of its journal records, in order."""
    return {
        "step": step.to_data(),
        "now": now,
        "draws": [record for record in change.journal if record["k"] == "draw"],
        "version": version,
        "saved_at": saved_at,
    }


def replay_tail(room: Room, tail: Iterable[StepRecord]) -> None:
    """Apply stored step records, in order, to the room built from their snapshot. Raises
    ``TailMismatch`` when a record is refused or does not lead to the version it recorded
    (a tail that is not this snapshot's)."""
    for record in tail:
        step = step_from_data(record["step"])
        try:
            step.apply(room, record["now"], ReplayRandom(record["draws"]))
        except Refusal as exc:
            raise TailMismatch(f"room {room.code}: a stored step was refused: {exc}") from exc
        room.note_presence(record["now"])  # (its journal records were stored with it)
        if room.version != record["version"]:
            raise TailMismatch(
                f"room {room.code}: a step led to version {room.version}, "
                f"recorded {record['version']}"
            )
        room.saved(record["saved_at"])
