"""What typed text means, whether a selection is a legal play, and which hint comes next.

All pure: the interactive client reads a line, asks ``parse_command`` what it is, asks
``assess`` what to show under the prompt while it is typed (SPEC section 10: the client says
whether the selection is legal before it is sent), and steps a ``HintCycle`` through
``hint_options`` for the next legal play to offer. None of them touches the network or the
terminal.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

from client.safe_text import NAME_LIMIT, printable
from client.table import TableState
from protocol.cards import CardTextError, Rank, format_cards, parse_cards
from protocol.chat import PHRASES, TEXT, ChatPhrase
from protocol.events import Phase, TurnAction
from protocol.hints import hint_plays
from protocol.messages import BotLevel, BotSpeed
from protocol.plays import Kind, Play, classify

_LEVELS: dict[str, BotLevel] = {"easy": "easy", "normal": "normal", "strong": "strong"}
_SPEEDS: dict[str, BotSpeed] = {
    "instant": "instant",
    "fast": "fast",
    "normal": "normal",
    "slow": "slow",
}
LEVELS: tuple[str, ...] = tuple(_LEVELS)
SPEEDS: tuple[str, ...] = tuple(_SPEEDS)
PRACTICE_DEALS = (1, 3, 6, 9)
ROOM_DEALS = (3, 6, 9)

# --- commands -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayCards:
    """Play these ranks (sorted)."""

    ranks: tuple[Rank, ...]


@dataclass(frozen=True, slots=True)
class PassTurn:
    """Pass: no bid, or no play in this trick."""


@dataclass(frozen=True, slots=True)
class MakeBid:
    value: int


@dataclass(frozen=True, slots=True)
class ShowHint:
    """Offer the next hint."""


@dataclass(frozen=True, slots=True)
class Ready:
    """Ready to start the match or the next deal."""


@dataclass(frozen=True, slots=True)
class Practice:
    deals: int = 3
    level: BotLevel = "normal"
    speed: BotSpeed = "normal"


@dataclass(frozen=True, slots=True)
class Create:
    deals: int = 3
    public: bool = False
    rated: bool = False


@dataclass(frozen=True, slots=True)
class Join:
    code: str


@dataclass(frozen=True, slots=True)
class WatchRoom:
    code: str


@dataclass(frozen=True, slots=True)
class Quick:
    """Join the quick-match queue."""


@dataclass(frozen=True, slots=True)
class Unqueue:
    """Leave the quick-match queue (``leave`` does too, while queued)."""


@dataclass(frozen=True, slots=True)
class ListLive:
    """Show the live rooms anyone may watch."""


@dataclass(frozen=True, slots=True)
class AddBot:
    """Seat a bot; ``seat`` is 0-based, None for the first empty one."""

    level: BotLevel = "normal"
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Speed:
    speed: BotSpeed


@dataclass(frozen=True, slots=True)
class Resume:
    """Take my seat back from the bot that took it over."""


@dataclass(frozen=True, slots=True)
class LeaveRoom:
    pass


@dataclass(frozen=True, slots=True)
class Quit:
    pass


@dataclass(frozen=True, slots=True)
class Help:
    pass


@dataclass(frozen=True, slots=True)
class ToggleCounter:
    """Show or hide the card counter (the cards of each rank not yet seen)."""


@dataclass(frozen=True, slots=True)
class ToggleAutopass:
    """Pass at once, or not, when nothing in my hand beats the table."""


@dataclass(frozen=True, slots=True)
class Say:
    """Say a quick-chat phrase to the table; ``phrase`` None lists the phrases."""

    phrase: ChatPhrase | None = None


@dataclass(frozen=True, slots=True)
class Mute:
    """Hide (``on``) or show again the others' chat; client-side only."""

    on: bool = True


@dataclass(frozen=True, slots=True)
class Again:
    """Ask for (or accept) a rematch of the match in room ``code`` (None: the one just
    finished)."""

    code: str | None = None


@dataclass(frozen=True, slots=True)
class ShowReplay:
    """The replay of the finished match in room ``code`` (None: the one just finished)."""

    code: str | None = None


@dataclass(frozen=True, slots=True)
class ShowHistory:
    """My last matches."""


@dataclass(frozen=True, slots=True)
class ShowProfile:
    """My record and my matches, ``page`` (of 20, 1: the newest)."""

    page: int = 1


@dataclass(frozen=True, slots=True)
class ShowLadder:
    """The ladder: the best rated players, and my place."""


@dataclass(frozen=True, slots=True)
class Invalid:
    """Text that is no command and no cards; ``message`` says why. ``as_cards``: the text
    was read as cards (no command word), so outside a deal another reason fits better."""

    message: str
    as_cards: bool = False


Command = (
    PlayCards
    | PassTurn
    | MakeBid
    | ShowHint
    | Ready
    | Practice
    | Create
    | Join
    | WatchRoom
    | Quick
    | Unqueue
    | ListLive
    | AddBot
    | Speed
    | Resume
    | LeaveRoom
    | Quit
    | Help
    | ToggleCounter
    | ToggleAutopass
    | Say
    | Mute
    | Again
    | ShowReplay
    | ShowHistory
    | ShowProfile
    | ShowLadder
    | Invalid
)

#: The commands by where they are used: each section's title and its (usage, what it does).
HELP: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Outside a room",
        (
            ("practice [DEALS] [LEVEL] [SPEED]",
             "a game against two bots: deals 1/3/6/9; level easy/normal/strong; "
             "speed instant/fast/normal/slow"),
            ("quick",
             "the quick-match queue: a timed 3-deal match with the next two players "
             "(bots fill the seats if nobody comes in time)"),
            ("unqueue", "leave the queue (leave does too, while you wait)"),
            ("create [DEALS] [public] [rated]",
             "a room for 3/6/9 deals: share its code; public lists it for watchers; "
             "rated: its match rates its three people (no bots)"),
            ("join CODE", "take a seat in a room"),
            ("watch CODE", "watch a room"),
            ("list", "the live rooms anyone may watch"),
        ),
    ),
    (
        "In a room",
        (
            ("bot [LEVEL] [SEAT]", "seat a bot in an empty seat (the creator only)"),
            ("ready", "start the match, or the next deal (Enter does too)"),
            ("speed SPEED", "the bots' speed"),
            ("counter",
             "show or hide the card counter: how many of each rank you have not seen "
             "(your hand and every play are seen)"),
            ("autopass", "pass at once when nothing in your hand beats the table"),
            ("resume", "take your seat back from the bot that took it over"),
            ("say [PHRASE]",
             "quick chat to the table (Tab completes; say alone lists the phrases)"),
            ("mute | unmute", "hide or show the others' chat"),
            ("leave",
             "give up your seat (a bot plays it) or stop watching; ddz forgets its "
             "saved session"),
        ),
    ),
    (
        "In a deal",
        (
            ("1 2 3 | bid N", "bid (while bidding)"),
            ("333 44 | 10 10 J | 3-7 | sj bj",
             "play these cards (ranks: suits never matter)"),
            ("pass", "pass"),
            ("hint | h | Tab",
             "the legal plays in turn (those keeping bombs, the rocket and chains "
             "whole first), then pass"),
        ),
    ),
    (
        "After a match",
        (
            ("again [CODE]",
             "ask for a rematch with the same seats, or accept the one you were asked for"),
            ("replay [CODE]",
             "a finished match you played or watched, deal by deal with every hand "
             "(no CODE: the match just finished)"),
            ("history", "your last matches, with the codes replay takes"),
            ("profile [PAGE]",
             "your record: matches and deals won, points, springs, bombs; your "
             "matches, 20 a page"),
            ("top", "the ladder: the best rated players, and your place"),
        ),
    ),
    (
        "Any time",
        (
            ("help", "this list"),
            ("quit",
             "close ddz; your seat waits: start ddz again to take it back "
             "(with --no-save-session, quit leaves the room too)"),
        ),
    ),
)  # fmt: skip

#: The usage column is at most this wide; a longer usage puts its text on the next line.
_USAGE_WIDTH = 24
#: Below this many columns for the text, every text goes under its usage.
_NARROW_TEXT = 30


def help_text(width: int = 80) -> str:
    """The commands laid out in ``width`` columns (the terminal's, 80 when unknown): a
    usage column and its text beside it, wrapped between words; in a narrow terminal each
    text goes under its usage."""
    width = max(width, 20)
    column = 2 + _USAGE_WIDTH + 2
    narrow = width - column < _NARROW_TEXT
    lines: list[str] = []
    for title, entries in HELP:
        lines.append(f"{title}:")
        for usage, text in entries:
            beside = not narrow and len(usage) <= _USAGE_WIDTH
            indent = " " * (column if beside else 6)
            wrapped = textwrap.wrap(
                text,
                width - len(indent),
                break_long_words=False,
                break_on_hyphens=False,
            )
            if beside:
                lines.append(f"  {usage:<{_USAGE_WIDTH}}  {wrapped[0]}")
                wrapped = wrapped[1:]
            else:
                lines.append(f"  {usage}")
            lines.extend(indent + part for part in wrapped)
    return "\n".join(lines) + "\n"


def _deals(word: str, allowed: Sequence[int]) -> int | Invalid:
    if not word.isdigit() or int(word) not in allowed:
        return Invalid(f"deals must be one of {', '.join(map(str, allowed))}, not {word!r}")
    return int(word)


def _parse_practice(args: list[str]) -> Command:
    deals, level, speed = 3, "normal", "normal"
    seen_level = seen_speed = False
    for arg in args:
        if arg.isdigit():
            got = _deals(arg, PRACTICE_DEALS)
            if isinstance(got, Invalid):
                return got
            deals = got
        elif arg in LEVELS and not seen_level:
            level, seen_level = arg, True
        elif arg in SPEEDS and not seen_speed:
            speed, seen_speed = arg, True
        else:
            return Invalid(f"practice: {arg!r} is no deal count, level or speed")
    return Practice(deals, _LEVELS[level], _SPEEDS[speed])


def _parse_create(args: list[str]) -> Command:
    deals, public, rated = 3, False, False
    for arg in args:
        if arg == "public":
            public = True
        elif arg == "rated":
            rated = True
        elif arg.isdigit():
            got = _deals(arg, ROOM_DEALS)
            if isinstance(got, Invalid):
                return got
            deals = got
        else:
            return Invalid(f"create: {arg!r} is no deal count (3, 6, 9), 'public' or 'rated'")
    return Create(deals, public, rated)


def _parse_bot(args: list[str]) -> Command:
    level, seat = "normal", None
    for arg in args:
        if arg in LEVELS:
            level = arg
        elif arg in ("1", "2", "3"):
            seat = int(arg) - 1
        else:
            return Invalid(f"bot: {arg!r} is no level ({', '.join(LEVELS)}) or seat (1-3)")
    return AddBot(_LEVELS[level], seat)


def _parse_bid(args: list[str]) -> Command:
    if len(args) != 1 or args[0] not in ("0", "1", "2", "3"):
        return Invalid("bid 1, 2 or 3 (or pass)")
    value = int(args[0])
    return PassTurn() if value == 0 else MakeBid(value)


def _parse_say(args: list[str]) -> Command:
    if not args:
        return Say()
    if len(args) == 1 and args[0] in PHRASES:
        return Say(_PHRASES[args[0]])
    return Invalid(f"say one of: {', '.join(PHRASES)} (say alone shows their text)")


_PHRASES: dict[str, ChatPhrase] = {p: p for p in PHRASES}


def _parse_optional_code(word: str, args: list[str]) -> Command:
    """``again``, ``replay``: an optional room code (the match just finished without)."""
    if len(args) > 1:
        return Invalid(f"{word} takes one room code at most, like: {word} K7P2Q")
    room = args[0].upper() if args else None
    return Again(room) if word == "again" else ShowReplay(room)


def phrase_completions(text: str) -> list[str]:
    """The lines Tab offers for ``say ...``: ``say`` and each phrase id starting with what
    is typed after it (all of them when nothing is); empty for any other line."""
    words = text.split()
    if not words or words[0].lower() != "say" or len(words) > 2:
        return []
    typed = words[1].lower() if len(words) == 2 else ""
    if typed in PHRASES and text.endswith(typed):
        typed = ""  # a whole phrase typed (or offered): Tab goes on through all of them
    return [f"say {p}" for p in PHRASES if p.startswith(typed)]


def next_completion(text: str) -> str | None:
    """The line Tab puts at the prompt for ``say ...``: the phrase after the one shown, or
    the first that fits what is typed; None when the line is no ``say``."""
    options = phrase_completions(text)
    if not options:
        return None
    current = " ".join(text.split()).lower()
    if current in options:
        return options[(options.index(current) + 1) % len(options)]
    return options[0]


def _parse_code(word: str, args: list[str]) -> Command:
    if len(args) != 1:
        return Invalid(f"{word} needs a room code, like: {word} K7P2Q")
    code = args[0].upper()
    return Join(code) if word == "join" else WatchRoom(code)


_SIMPLE: dict[str, Command] = {
    "pass": PassTurn(),
    "hint": ShowHint(),
    "h": ShowHint(),
    "ready": Ready(),
    "resume": Resume(),
    "quick": Quick(),
    "unqueue": Unqueue(),
    "list": ListLive(),
    "leave": LeaveRoom(),
    "quit": Quit(),
    "exit": Quit(),
    "help": Help(),
    "?": Help(),
    "counter": ToggleCounter(),
    "autopass": ToggleAutopass(),
    "mute": Mute(True),
    "unmute": Mute(False),
    "history": ShowHistory(),
    "top": ShowLadder(),
}

COMMAND_WORDS: frozenset[str] = frozenset(
    [*_SIMPLE, "practice", "create", "join", "watch", "bot", "speed", "bid"]
    + ["say", "again", "replay", "profile"]
)


def parse_command(text: str, action: TurnAction | None = None) -> Command | None:
    """What a typed line means; None for an empty line.

    ``action`` is how the table reads a bare digit now (``TurnContext.reading``): while
    bidding a bare ``1``, ``2`` or ``3`` is a bid (and ``0`` a pass); otherwise digits are
    cards.
    """
    words = text.strip().split()
    if not words:
        return None
    head, args = words[0].lower(), [w.lower() for w in words[1:]]
    if head in _SIMPLE:
        if args:
            return Invalid(f"{head} takes no arguments")
        return _SIMPLE[head]
    if head == "practice":
        return _parse_practice(args)
    if head == "create":
        return _parse_create(args)
    if head in ("join", "watch"):
        return _parse_code(head, words[1:])
    if head == "bot":
        return _parse_bot(args)
    if head == "speed":
        if len(args) != 1 or args[0] not in SPEEDS:
            return Invalid(f"speed one of: {', '.join(SPEEDS)}")
        return Speed(_SPEEDS[args[0]])
    if head == "bid":
        return _parse_bid(args)
    if head == "say":
        return _parse_say(args)
    if head in ("again", "replay"):
        return _parse_optional_code(head, words[1:])
    if head == "profile":
        if not args:
            return ShowProfile()
        if len(args) == 1 and args[0].isdigit() and 1 <= int(args[0]) <= 5000:
            return ShowProfile(int(args[0]))
        return Invalid("profile takes a page number: profile 2")
    if action == "bid" and len(words) == 1 and head in ("0", "1", "2", "3"):
        return _parse_bid([head])
    try:
        return PlayCards(tuple(parse_cards(text)))
    except CardTextError as exc:
        return Invalid(f"{exc} (type help for commands)", as_cards=True)


# --- legality ---------------------------------------------------------------------------

KIND_LABELS: dict[Kind, str] = {
    Kind.SINGLE: "single",
    Kind.PAIR: "pair",
    Kind.TRIPLE: "triple",
    Kind.TRIPLE_SINGLE: "triple + single",
    Kind.TRIPLE_PAIR: "triple + pair",
    Kind.STRAIGHT: "straight",
    Kind.PAIR_CHAIN: "pair chain",
    Kind.AIRPLANE: "airplane",
    Kind.AIRPLANE_SINGLES: "airplane + singles",
    Kind.AIRPLANE_PAIRS: "airplane + pairs",
    Kind.FOUR_TWO_SINGLES: "four + two singles",
    Kind.FOUR_TWO_PAIRS: "four + two pairs",
    Kind.BOMB: "BOMB",
    Kind.ROCKET: "ROCKET",
}


def kind_label(kind: str) -> str:
    """A play kind (its wire name) as people say it."""
    try:
        return KIND_LABELS[Kind(kind)]
    except ValueError:
        return kind


#: Kinds with kickers, and how many cards of a rank its main part holds.
_MAIN_WIDTH: dict[Kind, int] = {
    Kind.TRIPLE_SINGLE: 3,
    Kind.TRIPLE_PAIR: 3,
    Kind.AIRPLANE_SINGLES: 3,
    Kind.AIRPLANE_PAIRS: 3,
    Kind.FOUR_TWO_SINGLES: 4,
    Kind.FOUR_TWO_PAIRS: 4,
}


def main_ranks(play: Play) -> frozenset[Rank]:
    """The ranks of a play's main part (every rank, for a kind without kickers)."""
    width = _MAIN_WIDTH.get(play.kind)
    counts = Counter(play.cards)
    return frozenset(r for r in counts if width is None or counts[r] == width)


def play_text(play: Play) -> str:
    """A play as one types it, the main part first: ``AAA 66``, ``5555 33 44``."""
    main = main_ranks(play)
    kickers = [r for r in play.cards if r not in main]
    text = format_cards([r for r in play.cards if r in main])
    return f"{text} {format_cards(kickers)}" if kickers else text


def describe_play(play: Play) -> str:
    """``pair 55``, ``triple + single 333 4``, ``triple + pair AAA 66``, ``ROCKET SJ BJ``."""
    return f"{KIND_LABELS[play.kind]} {play_text(play)}"


_COUNT_WORDS = ("no", "only one", "only two", "only three")


def _not_held(ranks: Sequence[Rank], hand: Sequence[Rank]) -> str:
    """How many of each rank short the hand holds: ``you hold only one 4 and no K``."""
    want, have = Counter(ranks), Counter(hand)
    parts = []
    for rank in sorted(want):
        n = have[rank]
        if want[rank] > n:
            parts.append(f"{_COUNT_WORDS[n]} {rank}{'s' if n > 1 else ''}")
    return "you hold " + " and ".join(parts)


def missing_cards(ranks: Sequence[Rank], hand: Sequence[Rank]) -> list[Rank]:
    """The ranks of ``ranks`` that ``hand`` does not hold (with multiplicity)."""
    short = Counter(ranks) - Counter(hand)
    return sorted(short.elements())


VerdictLevel = Literal["ok", "bad", "info"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What to say of a selection: ``ok`` (send it), ``bad`` (the server would refuse it),
    or ``info`` (not a play: a command, or nothing typed yet)."""

    level: VerdictLevel
    message: str
    play: Play | None = None

    @property
    def ok(self) -> bool:
        return self.level == "ok"


def check_play(ranks: Sequence[Rank], hand: Sequence[Rank], to_beat: Play | None) -> Verdict:
    """Whether ``ranks`` is a legal play from ``hand`` against ``to_beat``: held, one of the
    14 kinds, and beating the table (in the order the server checks them)."""
    if missing_cards(ranks, hand):
        return Verdict("bad", _not_held(ranks, hand))
    play = classify(ranks)
    if play is None:
        return Verdict("bad", f"{format_cards(ranks)} is not a play")
    if to_beat is not None and not play.beats(to_beat):
        return Verdict("bad", f"{describe_play(play)} does not beat {describe_play(to_beat)}", play)
    verb = "beats " + describe_play(to_beat) if to_beat is not None else "leads"
    return Verdict("ok", f"{describe_play(play)} {verb}", play)


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What the legality check needs to know of the table (built from a ``TableState``).

    ``action`` is what my turn asks for now (None when it is not my turn), ``phase`` the
    table's (None before the match starts), ``to_beat`` the play on the table, ``in_room``
    whether I am in a room at all (not after leaving it or its closing), ``turn_of`` whose
    turn it is as the server names the seat (``Ann (S2)``), ``bot_holds`` whether a bot
    plays my seat.
    """

    hand: tuple[Rank, ...] = ()
    to_beat: Play | None = None
    action: TurnAction | None = None
    may_pass: bool = True
    highest_bid: int = 0
    phase: Phase | None = None
    seated: bool = True
    in_room: bool = False
    turn_of: str = ""
    bot_holds: bool = False

    @property
    def playing(self) -> bool:
        """A deal is in its playing phase."""
        return self.phase == "playing"

    @property
    def reading(self) -> TurnAction | None:
        """How a bare ``0``..``3`` reads: as a bid while anyone bids (so that ``2`` typed
        during another's bid is a bid too early, not a single 2), else as cards."""
        return "bid" if self.phase == "bidding" else self.action


def turn_context(state: TableState) -> TurnContext:
    """The legality check's view of a table state (no action of mine while a bot holds my
    seat, the server would refuse it; nor after I left the room or it closed)."""
    table = state.table
    turn = table.turn if table is not None else None
    seat = state.my_seat
    in_room = state.closed is None and not state.left
    bot_holds = table is not None and seat is not None and table.bot_control[seat]
    mine = state.my_turn and not bot_holds and in_room
    action = turn.action if turn is not None and mine else None
    turn_of = ""
    if turn is not None:
        turn_of = f"{printable(state.seat_name(turn.seat), NAME_LIMIT)} (S{turn.seat + 1})"
    return TurnContext(
        hand=tuple(state.hand_ranks),
        to_beat=state.to_beat,
        action=action,
        may_pass=turn.may_pass if turn is not None else True,
        highest_bid=state.highest_bid,
        phase=table.phase if table is not None else None,
        seated=not state.is_watcher,
        in_room=in_room,
        turn_of=turn_of,
        bot_holds=bool(bot_holds),
    )


#: What one types to get into a match, for the refusals outside one.
START_WORDS = "practice, quick, create or join CODE"


def not_now(ctx: TurnContext) -> str | None:
    """Why no bid, pass or play can be made at all now (no match, a watcher, no deal under
    way, a bot in my seat), in the words the server would use; None while a deal is played
    and I hold my seat (whose turn it is is ``out_of_turn``'s)."""
    if not ctx.in_room:
        return f"there is no match to play in: type {START_WORDS}"
    if not ctx.seated:
        return "watchers do not play"
    if ctx.phase is None:
        return "the match has not started: it starts when all three seats are ready"
    if ctx.phase == "between_deals":
        return "the deal is over: type ready (or press Enter) for the next"
    if ctx.phase == "over":
        return "the match is over"
    if ctx.bot_holds:
        return "a bot holds your seat: type resume to play again"
    return None


def out_of_turn(ctx: TurnContext) -> str:
    """Whose turn it is when it is not mine, as the server says it: ``it is Ann (S2)'s turn
    to bid``."""
    if ctx.action is not None:
        return "it is your turn"
    verb = "bid" if ctx.phase == "bidding" else "play"
    return f"it is {ctx.turn_of or 'nobody'}'s turn to {verb}"


def hint_key(state: TableState) -> Hashable:
    """Names the turn a hint cycle belongs to: a new turn starts the cycle afresh."""
    table = state.table
    if table is None or table.turn is None:
        return None
    return (table.deal_no, table.turn.version, tuple(table.hand or ()))


def assess(text: str, ctx: TurnContext) -> Verdict:
    """What the prompt says about ``text`` while it is being typed."""
    command = parse_command(text, ctx.reading)
    if command is None:
        if ctx.action == "play":
            lead = "you lead" if ctx.to_beat is None else "beat " + describe_play(ctx.to_beat)
            return Verdict("info", f"your turn: {lead} (type cards, pass, or hint)")
        if ctx.action == "bid":
            return Verdict("info", f"your bid: above {ctx.highest_bid}, or pass")
        return Verdict("info", "")
    if isinstance(command, Invalid):
        return Verdict("bad", invalid_reason(text, command, ctx))
    if isinstance(command, PassTurn | MakeBid | PlayCards):
        return _assess_action(command, ctx)
    return Verdict("info", command_text(command))


def _assess_action(command: PassTurn | MakeBid | PlayCards, ctx: TurnContext) -> Verdict:
    """A bid, pass or play: ``ok`` to send; ``bad`` with the reason the server would give
    (no match, a watcher, the wrong phase, an illegal play); ``info`` for a legal one typed
    out of turn (``out_of_turn`` says whose turn it is)."""
    reason = not_now(ctx)
    if reason is not None:
        return Verdict("bad", reason)
    if isinstance(command, PassTurn):
        if ctx.action is None:
            return Verdict("info", f"pass ({out_of_turn(ctx)})")
        if not ctx.may_pass:
            must = "bid" if ctx.action == "bid" else "play: you lead this trick"
            return Verdict("bad", f"you may not pass: you must {must}")
        return Verdict("ok", "pass")
    if isinstance(command, MakeBid):
        if ctx.phase != "bidding":
            return Verdict("bad", "the bidding is over")
        if ctx.action != "bid":
            return Verdict("bad", out_of_turn(ctx))
        if command.value <= ctx.highest_bid:
            return Verdict("bad", f"a bid must be higher than {ctx.highest_bid}")
        return Verdict("ok", f"bid {command.value}")
    if ctx.action == "bid":
        return Verdict("bad", "you are bidding: type 1, 2 or 3, or pass")
    if ctx.phase == "bidding":
        return Verdict("bad", f"no cards are played while bidding: {out_of_turn(ctx)}")
    verdict = check_play(command.ranks, ctx.hand, ctx.to_beat)
    if ctx.action != "play":  # typed ahead: whose turn it is comes first, as the server says
        return Verdict("info", f"{verdict.message} ({out_of_turn(ctx)})", verdict.play)
    return verdict


LOBBY_WORDS = (
    "quick, practice, create, join CODE, watch CODE, list, again, replay, history, help or quit"
)
ROOM_WORDS = "ready, bot, speed, counter, autopass, say, leave, help or quit"


def invalid_reason(text: str, command: Invalid, ctx: TurnContext) -> str:
    """Why a line is refused: text read as cards outside a deal says what one may type
    there instead of what is wrong with it as cards."""
    if not command.as_cards:
        return command.message
    word = text.strip()
    if not ctx.in_room:
        return f"{word!r} is not a command here: type {LOBBY_WORDS}"
    if ctx.seated and (ctx.playing or ctx.action is not None):
        return command.message
    return f"{word!r} is not a command here: type {ROOM_WORDS}"


def command_text(command: Command) -> str:
    """What a command word does, for the line under the prompt while it is typed."""
    if isinstance(command, Practice):
        return (
            f"practice: {command.deals} deal(s) against two {command.level} bots, "
            f"speed {command.speed}"
        )
    if isinstance(command, Create):
        kind = "a public room (listed for watchers)" if command.public else "a private room"
        rated = ", rated (people only)" if command.rated else ""
        return f"create {kind} for {command.deals} deals{rated}"
    if isinstance(command, Join):
        return f"join room {command.code}"
    if isinstance(command, WatchRoom):
        return f"watch room {command.code}"
    if isinstance(command, AddBot):
        where = f" in seat {command.seat + 1}" if command.seat is not None else ""
        return f"bot: seat a {command.level} bot{where}"
    if isinstance(command, Speed):
        return f"set the bots' speed to {command.speed}"
    if isinstance(command, Say):
        if command.phrase is None:
            return "say: list the phrases (Tab goes through them)"
        return f"say {TEXT[command.phrase]!r} to the table"
    if isinstance(command, Mute):
        return "mute: hide the others' chat" if command.on else "unmute: show the others' chat"
    if isinstance(command, Again):
        where = f"room {command.code}" if command.code else "the match just finished"
        return f"again: a rematch of {where}"
    if isinstance(command, ShowReplay):
        where = f"room {command.code}" if command.code else "the match just finished"
        return f"replay: {where}, deal by deal"
    return _COMMAND_TEXT.get(type(command), "")


_COMMAND_TEXT: dict[type, str] = {
    ShowHint: "hint: the next legal play at the prompt (Tab does too)",
    Ready: "ready: start the match, or the next deal",
    Quick: "quick: join the quick-match queue",
    Unqueue: "unqueue: leave the quick-match queue",
    ListLive: "list the live rooms you can watch",
    Resume: "resume: take your seat back from the bot",
    LeaveRoom: "leave the room (mid-match a bot plays your seat)",
    Quit: "quit: close ddz (your seat waits: start ddz again to take it back)",
    Help: "help: list the commands",
    ToggleCounter: "counter: show or hide the card counter",
    ToggleAutopass: "autopass: auto-pass when nothing beats the table",
    ShowHistory: "history: your last matches",
    ShowProfile: "profile: your record and matches",
    ShowLadder: "top: the ladder and your place",
}


# --- hints --------------------------------------------------------------------------------

Hint = Play | int | None
"""A play to offer, a bid value to offer, or None for pass."""


def hint_options(ctx: TurnContext) -> list[Hint]:
    """What the hint cycles through on my turn: the legal plays that beat the table, those
    that keep bombs, the rocket and chains whole first (``protocol.hints.hint_plays``), then
    pass when I may pass; while bidding, the bids above the highest, then pass. Empty when it
    is not my turn."""
    options: list[Hint] = []
    if ctx.action == "play":
        options.extend(hint_plays(ctx.hand, ctx.to_beat))
    elif ctx.action == "bid":
        options.extend(range(ctx.highest_bid + 1, 4))
    else:
        return []
    if ctx.may_pass:
        options.append(None)
    return options


def hint_text(hint: Hint) -> str:
    """The text a hint puts at the prompt (what the person would type)."""
    if hint is None:
        return "pass"
    if isinstance(hint, int):
        return str(hint)
    return play_text(hint)


@dataclass(frozen=True, slots=True)
class HintCycle:
    """Where the hint button is in its cycle, for the turn named by ``key``.

    A new key (another turn, or another hand) starts the cycle over from the smallest play.
    """

    key: Hashable = None
    index: int = -1

    def advance(self, key: Hashable, options: Sequence[Hint]) -> tuple[HintCycle, Hint, bool]:
        """The next cycle position, its hint, and whether there was one at all."""
        if not options:
            return HintCycle(key, -1), None, False
        index = self.index + 1 if key == self.key else 0
        index %= len(options)
        return HintCycle(key, index), options[index], True
