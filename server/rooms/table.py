"""The match as a room drives it: each command applied and journalled with the random draws
it made, the bots made ready between deals, and one ready prompt per change.

Journal records (``server/game/journal.py``) are what replays the match: its start, each
accepted command, each draw. The room keeps them with the change that made them.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.events import AwaitingReady
from server.game.commands import Command, Ready
from server.game.deal import RandomSource
from server.game.journal import Record, RecordingRandom, command_record, start_record
from server.game.match import Match, MatchConfig, Outgoing


def start(
    config: MatchConfig, now: float, rng: RandomSource, first_bidder: int | None
) -> tuple[Match, list[Outgoing], list[Record]]:
    """Deal a match's first deal: the match, what it sends, its journal records."""
    draws: list[Record] = []
    match, outgoing = Match.start(config, RecordingRandom(rng, draws), now, first_bidder)
    return match, outgoing, [start_record(config, first_bidder, now), *draws]


def play(
    match: Match,
    command: Command,
    now: float,
    rng: RandomSource,
    bots: Callable[[], list[int]],
    label: Callable[[int], str],
) -> tuple[list[Outgoing], list[Record]]:
    """Apply ``command`` (``label`` names seats in a refusal), then ready the seats a bot
    acts for (``bots``) if the deal ended (bots are always ready: SPEC section 8): what it
    all sends, keeping the newest ``AwaitingReady`` only, and its journal records."""
    records: list[Record] = []
    out = _apply(match, command, now, rng, records, label)
    if match.phase == "between_deals":
        for seat in bots():
            if match.phase == "between_deals" and not match.ready[seat]:
                out += _apply(match, Ready(seat), now, rng, records, label)
    return _latest_ready_prompt(out, match.phase == "between_deals"), records


def _apply(
    match: Match,
    command: Command,
    now: float,
    rng: RandomSource,
    records: list[Record],
    label: Callable[[int], str],
) -> list[Outgoing]:
    draws: list[Record] = []
    out = match.apply(command, now, RecordingRandom(rng, draws), label)
    records += [command_record(command, now), *draws]
    return out


def _latest_ready_prompt(out: list[Outgoing], between_deals: bool) -> list[Outgoing]:
    """Keep only the newest AwaitingReady of one change (none once the next deal began), so
    a client is asked once, with the bots' readiness already in it."""
    prompts = [i for i, (_, m) in enumerate(out) if isinstance(m, AwaitingReady)]
    if not prompts:
        return out
    keep = prompts[-1] if between_deals else None
    return [pair for i, pair in enumerate(out) if i not in prompts or i == keep]
