"""What a chaos run checks: each match's journal replayed, against what each client saw.

A client's view is the JSON lines of its ``ddz --json`` processes (one per incarnation: a
client dropped and started again keeps its session and goes on). Each public action it saw
(bid, pass, play) carries the match's state version it left; the journal, replayed through
the game core, gives the action at each version. So:

- *lost*: an action a client saw that the journal does not hold at that version (the storage
  forgot something a player was shown), or final totals a client saw that differ from the
  journal's;
- *doubled*: an action delivered to a client twice (the same version again), or a version
  below one it had already seen (the match went back for it);
- *unfinished*: a journal that does not replay to the match's end.

A client saw its match's end when it got ``match_end``, or a snapshot of the table over
(the room as it ended, sent when the end's own messages were lost on the way); its totals
are held to the journal's either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.events import BidMade, CardsPlayed, Passed
from server.game.journal import close_reason, replay

Message = dict[str, Any]
Action = tuple[str, int, tuple[int, ...]]
"""(kind, seat, what): one public action."""


@dataclass
class Journal:
    """A match as its journal replays: the actions at each version, and the end."""

    actions: dict[int, list[Action]] = field(default_factory=dict)
    totals: list[int] | None = None
    closed: str | None = None
    error: str | None = None


def read_journal(records: list[dict[str, Any]]) -> Journal:
    journal = Journal(closed=close_reason(records))
    try:
        for _, match, out in replay(records):
            for audience, event in out:
                action = _action(event)
                version = getattr(event, "version", None)
                if audience == "everyone" and action is not None and version is not None:
                    journal.actions.setdefault(version, []).append(action)
            if match.phase == "over":
                journal.totals = list(match.totals)
    except Exception as exc:  # a journal the rules refuse is a finding, not a crash
        journal.error = f"{type(exc).__name__}: {exc}"
    return journal


def _action(event: Any) -> Action | None:
    if isinstance(event, BidMade):
        return ("bid", event.seat, (event.bid,))
    if isinstance(event, CardsPlayed):
        return ("played", event.seat, tuple(event.cards))
    if isinstance(event, Passed):
        return ("passed", event.seat, ())
    return None


def seen_action(message: Message) -> tuple[int | None, Action] | None:
    kind = message.get("type")
    if kind == "bid":
        return message.get("version"), ("bid", message["seat"], (message["bid"],))
    if kind == "played":
        return message.get("version"), ("played", message["seat"], tuple(message["cards"]))
    if kind == "passed":
        return message.get("version"), ("passed", message["seat"], ())
    return None


@dataclass
class Verdict:
    """One client's view held to its match's journal."""

    seen: int = 0
    lost: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    saw_end: bool = False


def judge(messages: list[Message], journal: Journal) -> Verdict:
    verdict = Verdict()
    versions: dict[int, Action] = {}
    highest = -1
    for message in messages:
        totals = end_totals(message)
        if totals is not None:
            verdict.saw_end = True
            if journal.totals is not None and totals != journal.totals:
                verdict.lost.append(f"totals {totals} != journal {journal.totals}")
            continue
        seen = seen_action(message)
        if seen is None:
            continue
        version, action = seen
        verdict.seen += 1
        if version is None:
            verdict.lost.append(f"{action} carries no version")
            continue
        if action not in journal.actions.get(version, []):
            verdict.lost.append(f"v{version} {action}: journal has {journal.actions.get(version)}")
        if version in versions:
            verdict.doubled.append(f"v{version} {action} delivered again")
        elif version < highest:
            verdict.doubled.append(f"v{version} {action} after v{highest}: went back")
        versions[version] = action
        highest = max(highest, version)
    return verdict


def end_totals(message: Message) -> list[int] | None:
    """The match's final totals, when ``message`` shows its end: its ``match_end``, or a
    snapshot of the table over (what a client gets when the end's own message was lost on
    the way: the room as it ended)."""
    if message.get("type") == "match_end":
        return list(message["totals"])
    room = message.get("room") if message.get("type") == "snapshot" else None
    table = room.get("table") if isinstance(room, dict) else None
    if isinstance(table, dict) and table.get("phase") == "over":
        return list(table["totals"])
    return None
