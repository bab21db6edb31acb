"""``ddz``: the terminal client's command line.

    ddz [--server URL] [--name N] [--auto LEVEL] [--json] [--reconnect-for SECONDS] practice ...
    ddz ... practice [DEALS] [LEVEL] [SPEED]     (as at the prompt: ddz practice 1 strong)
    ddz ... practice --deals 3 [--level L] [--speed S]
    ddz ... create [DEALS] [public] [rated] [--bots L] [--speed S]
    ddz ... create --deals N [--bots L] [--speed S] [--public]
    ddz ... join CODE
    ddz ... watch CODE
    ddz ... quick                            (the quick-match queue: a timed 3-deal match)
    ddz [--server URL] [--json] list         (print the live rooms anyone may watch, and exit)
    ddz [--server URL] [--json] replay CODE  (a finished match of yours, step by step)
    ddz [--server URL] [--json] review CODE [--deal N]  (where its deals were lost)
    ddz [--server URL] [--json] history      (print your last matches)
    ddz [--server URL] [--json] profile [--page N]  (your record, your matches paged)
    ddz [--server URL] key [--new | --use CODE | --forget]  (your player key)
    ddz [--server URL] [--json] top          (print the ladder and your place on it)
    ddz [--server URL] [--json] puzzle [--daily | --id ID]  (a puzzle against the solver)
    ddz ... --auto LEVEL --again practice ... (headless: play one rematch after the match)
    ddz solve FIRST SECOND [--beat PLAY] [--json]  (open hands solved exactly; no server)
    ddz solve --landlord H --farmer1 H --farmer2 H [--turn SEAT] [--beat PLAY --by SEAT]
    ddz [--server URL] [--name N]            (no subcommand: the interactive menu)

With ``--auto`` or ``--json`` the client runs headless (``client.headless``) and exits 0 when
the match ends; ``list``, ``replay``, ``history``, ``profile`` and ``top`` always print and
exit (``client.headless.run_query``; all but the first as the kept player; a replay on a
terminal is paged, ``client.replay_pager``), as does ``key`` (``client.key_command``);
otherwise it
opens the interactive prompt (``client.interactive``), starting with the subcommand's room (or
the quick-match queue) if one is given. Either way a dropped connection is resumed with
backoff for up to ``--reconnect-for`` seconds (env DDZ_RECONNECT_FOR, default 60), and the
session is kept on disk for the next start (``client.saved_session``), with the player key
the server gave (``client.player_key``: the same player on every start), unless
``--no-save-session`` (or env DDZ_NO_SESSION=1) says not to.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys
from collections.abc import Sequence

from client import commands as cmd
from client.backoff import DEFAULT_RECONNECT_FOR
from client.closed_output import EXIT_OUTPUT_CLOSED, OutputClosed, silence_output
from client.commands import LEVELS, PRACTICE_DEALS, ROOM_DEALS, SPEEDS
from client.options import KeyAction, Options
from client.player_key import NameFile
from client.solve_command import add_parser as add_solve_parser
from client.solve_command import run_solve
from protocol.messages import BotSpeed
from protocol.text import checked_name, safe_name

DEFAULT_SERVER = "ws://127.0.0.1:8765"
EXIT_INTERRUPTED = 130


def _default_name() -> str:
    """DDZ_NAME (checked as --name is, when the option is not given), else the login
    name made a name (``player`` if it is none)."""
    if os.environ.get("DDZ_NAME"):
        return os.environ["DDZ_NAME"]
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        login = ""
    return safe_name(login)


def _name(text: str) -> str:
    """The name as the server keeps it (``protocol.text.checked_name``: normalised, then
    checked), or a usage error that says what is wrong (exit 2)."""
    try:
        return checked_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= seconds < float("inf"):
        raise argparse.ArgumentTypeError("seconds are 0 or more")
    return seconds


def _default_reconnect_for() -> float:
    text = os.environ.get("DDZ_RECONNECT_FOR")
    if not text:
        return DEFAULT_RECONNECT_FOR
    try:
        return _seconds(text)
    except argparse.ArgumentTypeError:
        return DEFAULT_RECONNECT_FOR


def _session_not_kept_by_env() -> bool:
    """DDZ_NO_SESSION set to anything but empty or ``0``."""
    return os.environ.get("DDZ_NO_SESSION", "") not in ("", "0")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; its shape is what scripts and load tests rely on."""
    parser = argparse.ArgumentParser(
        prog="ddz",
        description="Play Dou Dizhu (Fight the Landlord) on a ddz server.",
        epilog="With no subcommand, ddz opens the interactive menu.",
    )
    parser.add_argument(
        "--server",
        default=os.environ.get("DDZ_SERVER", DEFAULT_SERVER),
        help=f"the server's websocket URL (env DDZ_SERVER; default {DEFAULT_SERVER})",
    )
    parser.add_argument(
        "--name",
        type=_name,
        default=None,
        help="your name at the table (env DDZ_NAME); kept for the next start on this server "
        "(default: the name kept, else your login name)",
    )
    parser.add_argument(
        "--auto",
        choices=LEVELS,
        metavar="LEVEL",
        help=f"a bot of this level ({', '.join(LEVELS)}) plays for you, headless",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="headless: print every received message as one JSON line",
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="headless: when the match ends, ask for a rematch (or accept the one asked for) "
        "and play it too, then exit; without it a headless client exits at the match's end",
    )
    parser.add_argument(
        "--reconnect-for",
        type=_seconds,
        default=_default_reconnect_for(),
        metavar="SECONDS",
        help="after a dropped connection, keep trying to resume the session this long "
        f"(env DDZ_RECONNECT_FOR; default {DEFAULT_RECONNECT_FOR:g}; 0: do not try)",
    )
    parser.add_argument(
        "--no-save-session",
        action="store_true",
        default=_session_not_kept_by_env(),
        help="do not keep the session and player key on disk (env DDZ_NO_SESSION=1); by "
        "default they are kept per server in $XDG_STATE_HOME/ddz/ (~/.local/state/ddz/), "
        "so that a restarted ddz takes its seat back, as the same player",
    )
    sub = parser.add_subparsers(dest="mode", metavar="COMMAND")

    practice = sub.add_parser(
        "practice",
        help="play against two bots",
        description="Play against two bots; the words as at the prompt (ddz practice 1 strong)"
        " or the flags.",
    )
    practice.add_argument(
        "words",
        nargs="*",
        metavar="DEALS|LEVEL|SPEED",
        help=f"deals ({', '.join(map(str, PRACTICE_DEALS))}), level ({', '.join(LEVELS)}), "
        f"speed ({', '.join(SPEEDS)}), in any order",
    )
    practice.add_argument(
        "--deals", type=int, choices=PRACTICE_DEALS, help="deals in the match (default 3)"
    )
    practice.add_argument("--level", choices=LEVELS, help="the bots' level (default normal)")
    practice.add_argument("--speed", choices=SPEEDS, help="the bots' speed (default normal)")

    create = sub.add_parser(
        "create",
        help="create a private room and print its code",
        description="Create a room; the words as at the prompt (ddz create 6 public) or the flags.",
    )
    create.add_argument(
        "words",
        nargs="*",
        metavar="DEALS|public|rated",
        help=f"deals ({', '.join(map(str, ROOM_DEALS))}); public lists it for watching; rated: "
        "its match rates its three people (no bots may sit)",
    )
    create.add_argument(
        "--deals", type=int, choices=ROOM_DEALS, help="deals in the match (default 3)"
    )
    create.add_argument(
        "--bots",
        choices=LEVELS,
        metavar="LEVEL",
        help=f"seat bots of this level ({', '.join(LEVELS)}) in the empty seats, then ready",
    )
    create.add_argument(
        "--speed", choices=SPEEDS, help="the bots' speed (default: the server's, normal)"
    )
    create.add_argument("--public", action="store_true", help="list the room for watching")

    join = sub.add_parser("join", help="take a seat in a private room")
    join.add_argument("code", help="the room's code")

    watch = sub.add_parser("watch", help="watch a room")
    watch.add_argument("code", help="the room's code")

    sub.add_parser(
        "quick",
        help="join the quick-match queue: a timed 3-deal match with the next two players "
        "(bots fill the seats after the server's wait)",
    )
    sub.add_parser("list", help="print the live rooms anyone may watch, then exit")
    replay = sub.add_parser(
        "replay",
        help="a finished match you played or watched, deal by deal with every hand",
        description="Show a finished match you played or watched (as the session saved for "
        "this server), deal by deal and trick by trick: every hand as dealt, the kitty, bids, "
        "plays, each deal's end and score. On a terminal one step at a time (Enter: the next, "
        "b: back, ] and [: the next and previous deal, q: quit); into a pipe or a file all of "
        "it. --json prints the server's message.",
    )
    replay.add_argument("code", help="the room's code (history lists them)")
    review = sub.add_parser(
        "review",
        help="where each deal of a finished match of yours was won and lost, by the exact solver",
        description="Review a finished match you played or watched: each play and pass with "
        "the side that wins with best play before and after it (from each deal's end back as "
        "far as the server's solver reaches; ? before that), the moves that threw a won "
        "position away marked, with the moves that would have kept the win. The first review "
        "of a match takes the server some seconds per deal. --json prints one JSON object: "
        "per deal its decisions {seat, play, before, after, exact, better}.",
    )
    review.add_argument("code", help="the room's code (history lists them)")
    review.add_argument("--deal", type=int, default=None, help="only deal N of the match")
    sub.add_parser(
        "history",
        help="print your last matches (date, mode, deals, totals, result, code to replay)",
        description="Print your last matches on this server, the newest first. --json "
        "prints the server's message.",
    )
    profile = sub.add_parser(
        "profile",
        help="your record: matches and deals won, points, springs, bombs; your matches",
        description="Print your record on this server (matches won per mode, deals won as "
        "landlord and as farmer, points won and lost, springs, bombs, rockets, the best "
        "match) and a page of your matches with their codes to replay. --json prints the "
        "server's message.",
    )
    profile.add_argument(
        "--page", type=_page, default=1, help="which page of 20 matches (default 1: newest)"
    )
    key = sub.add_parser(
        "key",
        help="show your player key, to play as you on another machine",
        description="Your player key is you on this server: your history, replays and "
        "record. Without an option: show it, as a code to type elsewhere (ddz key --use "
        "CODE); that machine and this one both go on as you.",
    )
    actions = key.add_mutually_exclusive_group()
    actions.add_argument(
        "--new",
        action="store_true",
        help="replace the key: the old one stops working everywhere, your record stays",
    )
    actions.add_argument(
        "--use", metavar="CODE", help="play as the player of this key from now on, here"
    )
    actions.add_argument(
        "--forget",
        action="store_true",
        help="forget the key kept here: the next start is a new player",
    )
    sub.add_parser(
        "top",
        help="print the ladder: the best 100 by rating, and your place",
        description="Print the ladder: the 100 best rated players (the rating shown from "
        "1500, ? while provisional, with its tier; from rated matches with other people: "
        "quick matches and rooms created rated; ranked after 10 of them), each with a tag "
        "that tells two of one name apart, "
        "and your place, as the session saved for this server. --json prints the server's "
        "message.",
    )
    puzzle = sub.add_parser(
        "puzzle",
        help="play a puzzle (残局) cut from real deals, against the server's solver",
        description="Play a puzzle: an open position where your side can force the win with "
        "one move only. Type your side's moves (cards as 33 4, or pass); the server answers "
        "with the defence that lasts longest. A move that lets the win go ends it and shows "
        "the winning line. Your first try at a puzzle changes your puzzle rating (and the "
        "puzzle's); leaving it before the end counts as failed. Exit status 0 when solved, "
        "1 when failed. --json prints the server's "
        "messages.",
    )
    which = puzzle.add_mutually_exclusive_group()
    which.add_argument("--daily", action="store_true", help="the day's puzzle (the same for all)")
    which.add_argument("--id", dest="puzzle_id", default=None, help="the puzzle with this id")
    add_solve_parser(sub)
    return parser


def _page(text: str) -> int:
    try:
        page = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a page number: {text!r}") from None
    if not 1 <= page <= 5000:
        raise argparse.ArgumentTypeError("a page is 1 to 5000")
    return page


def parse_args(argv: Sequence[str] | None = None) -> Options:
    """The command line as ``Options``; exits with status 2 on a usage error."""
    parser = build_parser()
    return _options(parser, parser.parse_args(argv))


def _options(parser: argparse.ArgumentParser, ns: argparse.Namespace) -> Options:
    if ns.mode is None and (ns.auto or ns.json):
        parser.error(
            "--auto and --json need a subcommand: "
            "practice, create, join, watch, quick, list, replay, review, history, profile or top"
        )
    if getattr(ns, "use", None) is not None and not ns.use.strip():
        parser.error("--use takes a player key (ddz key shows one: PLAYER.SECRET)")
    if ns.again and not ns.auto:
        parser.error("--again is for a headless client that plays: give --auto LEVEL too")
    # One grammar: the words read as the prompt reads them (practice 1 strong, create 6
    # public); a flag, where given, wins over a word.
    words = cmd.parse_command(" ".join([ns.mode, *ns.words])) if hasattr(ns, "words") else None
    if isinstance(words, cmd.Invalid):
        parser.error(words.message)
    if ns.name is None and os.environ.get("DDZ_NAME"):
        try:
            ns.name = _name(os.environ["DDZ_NAME"])
        except argparse.ArgumentTypeError as exc:
            parser.error(f"DDZ_NAME: {exc}")
    practice = words if isinstance(words, cmd.Practice) else cmd.Practice()
    create = words if isinstance(words, cmd.Create) else cmd.Create()
    deals = practice.deals if ns.mode == "practice" else create.deals
    if getattr(ns, "deals", None) is not None:
        deals = ns.deals
    speed: BotSpeed | None = getattr(ns, "speed", None)
    keep = not ns.no_save_session and ns.mode != "list"
    return Options(
        server=ns.server,
        name=_chosen_name(ns.server, ns.name, keep),
        mode=ns.mode,
        auto=ns.auto,
        json=ns.json,
        again=ns.again,
        deals=deals,
        level=getattr(ns, "level", None) or practice.level,
        speed=speed or practice.speed,
        bot_speed=speed if ns.mode == "create" else None,
        bots=getattr(ns, "bots", None),
        public=create.public or getattr(ns, "public", False),
        rated=create.rated,
        code=(ns.code.strip().upper() if getattr(ns, "code", None) else None),
        reconnect_for=ns.reconnect_for,
        keep_session=keep,
        page=getattr(ns, "page", 1),
        key_action=_key_action(ns),
        key_code=getattr(ns, "use", None),
        review_deal=getattr(ns, "deal", None) if ns.mode == "review" else None,
        puzzle_daily=getattr(ns, "daily", False) if ns.mode == "puzzle" else False,
        puzzle_id=getattr(ns, "puzzle_id", None) if ns.mode == "puzzle" else None,
    )


def _chosen_name(server: str, given: str | None, keep: bool) -> str:
    """The name to say hello with: the one given (``--name``, else ``DDZ_NAME``), kept for
    the next start when sessions are kept; else the one kept for this server; else the
    login name. The player's profile and the ladder show what the player chose, not the
    account's login name."""
    if given is not None:
        if keep:
            NameFile.of(server).save(given)
        return given
    kept = NameFile.of(server).load() if keep else None
    return kept or _default_name()


def _key_action(ns: argparse.Namespace) -> KeyAction:
    if getattr(ns, "new", False):
        return "new"
    if getattr(ns, "use", None):
        return "use"
    if getattr(ns, "forget", False):
        return "forget"
    return "show"


def main(argv: Sequence[str] | None = None) -> int:
    """The ``ddz`` console script."""
    parser = build_parser()
    ns = parser.parse_args(argv)
    if ns.mode == "solve":
        return run_solve(ns, sys.stdout, sys.stderr)
    opts = _options(parser, ns)
    try:
        if opts.mode == "key" and opts.key_action != "new":
            from client.key_command import run_key

            return asyncio.run(run_key(opts, sys.stdout, sys.stderr))
        if opts.mode == "puzzle":
            from client.puzzle_command import run_puzzle

            return asyncio.run(run_puzzle(opts, sys.stdin, sys.stdout, sys.stderr))
        if opts.mode in ("list", "replay", "review", "history", "profile", "key", "top"):
            from client.headless import run_query

            return asyncio.run(run_query(opts, sys.stdout, sys.stderr))
        if opts.headless:
            from client.headless import run_headless

            return asyncio.run(run_headless(opts, sys.stdout, sys.stderr))
        from client.interactive import run_interactive

        return asyncio.run(run_interactive(opts))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except (BrokenPipeError, OutputClosed):
        silence_output()  # nobody reads what we write (ddz ... | head): end quietly
        return EXIT_OUTPUT_CLOSED


if __name__ == "__main__":
    sys.exit(main())
