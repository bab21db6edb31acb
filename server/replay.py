"""``ddz-replay CODE``: print a stored match deal by deal, rebuilt from its journal.

For operators and audits: it reads Redis directly, any room, finished or not. Players get
a match they played or watched through the websocket once its room is closed
(``GetReplay``, ``server/lobby/player_replay.py``), with every hand as dealt too. The match is
replayed through the same game core that played it, so the totals printed are the replay's
own; a journal that does not replay (a command the rules refuse) is reported as such.
``--export`` prints the journal as one line of a journal export instead
(``server.analysis.export``), for another server's puzzle mining.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from protocol.cards import format_hand
from protocol.events import (
    BidMade,
    CardsPlayed,
    DealEnded,
    DealStarted,
    DealVoided,
    LandlordChosen,
    MatchEnded,
    Passed,
    SeatControl,
)
from server.analysis.export import export_line
from server.game.errors import GameError
from server.game.journal import close_reason, replay
from server.game.match import Outgoing
from server.store.embedded import EmbeddedRedis
from server.store.keys import DEFAULT_PREFIX
from server.store.redis_store import RedisStore

SEAT_NAMES = ("S1", "S2", "S3")


def describe(records: Iterable[dict[str, Any]], out: TextIO) -> list[int] | None:
    """Print the match the journal records; return its final totals (None if unfinished)."""
    totals: list[int] | None = None
    for _, match, outgoing in replay(records):
        for message in _public(outgoing):
            if isinstance(message, DealStarted):
                deal = match.deal
                print(f"\n== deal {message.deal_no}/{message.deals_total}", file=out)
                for index, hand in enumerate(deal.hands):
                    print(f"   {SEAT_NAMES[index]} dealt {format_hand(hand)}", file=out)
                print(f"   kitty    {format_hand(deal.kitty)}", file=out)
            elif isinstance(message, BidMade):
                what = f"bids {message.bid}" if message.bid else "passes"
                print(f"   {SEAT_NAMES[message.seat]} {what}{_timeout(message.timeout)}", file=out)
            elif isinstance(message, DealVoided):
                print(f"   all passed: void deal ({message.voids_in_row} in a row)", file=out)
            elif isinstance(message, LandlordChosen):
                landlord = SEAT_NAMES[message.seat]
                print(f"   {landlord} is the landlord, base {message.base}", file=out)
            elif isinstance(message, CardsPlayed):
                cards = format_hand(message.cards)
                line = f"   {SEAT_NAMES[message.seat]} {cards}  {message.kind}"
                print(line + _timeout(message.timeout), file=out)
            elif isinstance(message, Passed):
                end = "  (trick over)" if message.trick_over else ""
                print(
                    f"   {SEAT_NAMES[message.seat]} pass{_timeout(message.timeout)}{end}", file=out
                )
            elif isinstance(message, SeatControl):
                who = "a bot plays" if message.bot else "the person plays"
                print(f"   {SEAT_NAMES[message.seat]}: {who} ({message.reason})", file=out)
            elif isinstance(message, DealEnded):
                s = message.score
                extras = [f"{s.bombs} bombs", f"{s.rockets} rockets"]
                extras += ["spring"] * s.spring + ["anti-spring"] * s.anti_spring
                print(
                    f"   {message.winner} win: base {s.base} x{s.multiplier} ({', '.join(extras)})"
                    f"  scores {s.scores}  totals {message.totals}",
                    file=out,
                )
            elif isinstance(message, MatchEnded):
                winners = ", ".join(SEAT_NAMES[w] for w in message.winners)
                print(f"\nmatch over: totals {message.totals}, won by {winners}", file=out)
                totals = list(message.totals)
    return totals


def _public(outgoing: list[Outgoing]) -> Iterable[Any]:
    """Each message once: the everyone copy, or the first seat's copy of a per-seat one."""
    for audience, message in outgoing:
        if audience == "everyone" or (isinstance(message, DealStarted) and audience == 0):
            yield message


def _timeout(timeout: bool) -> str:
    return "  (timeout)" if timeout else ""


async def _read(url: str, prefix: str, code: str) -> list[dict[str, Any]]:
    store = await RedisStore.connect(url, finished_ttl=1, session_ttl=1, prefix=prefix, wait=5)
    try:
        return await store.read_log(code)
    finally:
        await store.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="ddz-replay", description="Print a stored match deal by deal, from its journal."
    )
    parser.add_argument("code", help="the room code")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"), help="(env REDIS_URL)")
    parser.add_argument(
        "--data-dir",
        default=os.environ.get("DDZ_DATA_DIR", "./ddz-data"),
        help="the embedded Redis's directory, when no Redis URL is given (env DDZ_DATA_DIR)",
    )
    parser.add_argument("--key-prefix", default=os.environ.get("DDZ_KEY_PREFIX", DEFAULT_PREFIX))
    parser.add_argument(
        "--export",
        action="store_true",
        help="print the journal as one line of a journal export (ddz-server"
        " --puzzle-mine-journal mines a file of them), not the match in words",
    )
    args = parser.parse_args(argv)
    embedded: EmbeddedRedis | None = None
    url = args.redis_url
    if not url:
        local = EmbeddedRedis(args.data_dir)
        url = local.running_url()  # the server's own, while it runs
        if url is None:
            embedded, url = local, local.start()
    try:
        records = asyncio.run(_read(url, args.key_prefix, args.code.upper()))
    finally:
        if embedded is not None:
            embedded.stop()
    if not records:
        print(f"no journal for room {args.code.upper()}", file=sys.stderr)
        return 1
    if args.export:
        print(export_line(records))
        return 0
    try:
        totals = describe(records, sys.stdout)
    except GameError as exc:
        print(f"the journal does not replay: {exc}", file=sys.stderr)
        return 2
    if totals is None:
        reason = close_reason(records)
        print(f"\n(the match ended early: {reason})" if reason else "\n(the match is not over)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
