"""The match journal: what a store appends to a room's log so the match can be replayed.

Four kinds of record, plain data each: ``start`` (the config, the given first bidder and
the time), ``cmd`` (one accepted command and the time it was applied), ``draw`` (one
result of the random source: a shuffled deck or a drawn seat), and ``close`` (the room
ended the match before its end, and why: ``abandoned`` when nobody was connected).
Replaying the commands in order against the recorded draws rebuilds the match exactly
(``replay``; a ``close`` changes nothing in the match).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from protocol.cards import Rank
from server.game.commands import (
    Bid,
    Command,
    Pass,
    PlayCards,
    Ready,
    ReadyTimeout,
    Resume,
    Timeout,
)
from server.game.deal import RandomSource
from server.game.match import Match, MatchConfig, Outgoing

Record = dict[str, Any]
_COMMANDS: dict[str, type[Command]] = {
    cls.__name__: cls for cls in (Bid, Pass, PlayCards, Timeout, Ready, ReadyTimeout, Resume)
}


def command_to_data(command: Command) -> Record:
    data: Record = {"type": type(command).__name__}
    if isinstance(command, PlayCards):
        data.update(seat=command.seat, ranks=[int(r) for r in command.ranks])
    elif isinstance(command, Bid):
        data.update(seat=command.seat, value=command.value)
    elif not isinstance(command, ReadyTimeout):
        data.update(seat=command.seat)
    return data


def command_from_data(data: Record) -> Command:
    fields = {k: v for k, v in data.items() if k != "type"}
    if data["type"] == "PlayCards":
        return PlayCards(fields["seat"], tuple(Rank(r) for r in fields["ranks"]))
    return _COMMANDS[data["type"]](**fields)


class RecordingRandom:
    """A random source that appends a ``draw`` record for each result it gives."""

    def __init__(self, rng: RandomSource, records: list[Record]) -> None:
        self.rng = rng
        self.records = records

    def shuffle(self, x: list[Any], /) -> None:
        self.rng.shuffle(x)
        self.records.append({"k": "draw", "shuffle": list(x)})

    def randrange(self, stop: int, /) -> int:
        value = self.rng.randrange(stop)
        self.records.append({"k": "draw", "randrange": value})
        return value


class ReplayRandom:
    """A random source that gives back recorded draws, in order."""

    def __init__(self, draws: Iterable[Record]) -> None:
        self.draws = deque(draws)

    def shuffle(self, x: list[Any], /) -> None:
        x[:] = self.draws.popleft()["shuffle"]

    def randrange(self, stop: int, /) -> int:
        value: int = self.draws.popleft()["randrange"]
        return value


def start_record(config: MatchConfig, first_bidder: int | None, now: float) -> Record:
    return {"k": "start", "config": dict(vars(config)), "first_bidder": first_bidder, "now": now}


def command_record(command: Command, now: float) -> Record:
    return {"k": "cmd", "cmd": command_to_data(command), "now": now}


def close_record(reason: str, now: float) -> Record:
    return {"k": "close", "reason": reason, "now": now}


def close_reason(records: Iterable[Record]) -> str | None:
    """Why the room ended the match early, as journalled (None: it did not say)."""
    reasons = [r["reason"] for r in records if r["k"] == "close"]
    return reasons[-1] if reasons else None


def replay(records: Iterable[Record]) -> Iterator[tuple[Record, Match, list[Outgoing]]]:
    """Rebuild a match from its journal, yielding after the start and after each command
    the record, the match as it then stands, and what it sent."""
    records = list(records)
    rng = ReplayRandom(r for r in records if r["k"] == "draw")
    match: Match | None = None
    for record in records:
        if record["k"] == "start":
            config = MatchConfig(**record["config"])
            match, out = Match.start(config, rng, record["now"], record["first_bidder"])
            yield record, match, out
        elif record["k"] == "cmd":
            if match is None:
                raise ValueError("a command before the match started")
            out = match.apply(command_from_data(record["cmd"]), record["now"], rng)
            yield record, match, out
