"""What typed text means, whether a selection is a legal play, and which hint comes next.

All pure: the interactive client reads a line, asks ``parse_command`` what it is, asks
``assess`` what to show under the prompt while it is typed (SPEC section 10: the client says
whether the selection is legal before it is sent), and steps a ``HintCycle`` through
``hint_options`` for the next legal play to offer. None of them touches the network or the
terminal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

from client.table import TableState
from protocol.cards import CardTextError, Rank, format_cards, parse_cards
from protocol.events import TurnAction
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
class Invalid:
    """Text that is no command and no cards; ``message`` says why."""

    message: str


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
    | Invalid
)

HELP_TEXT = """\
Commands (a word, or cards to play):
  quick                             the quick-match queue: a timed 3-deal match with the next
                                    two players (bots fill the seats if nobody comes in time)
  unqueue                           leave the queue (leave does too, while you wait)
  list                              the live rooms anyone may watch (then: watch CODE)
  practice [DEALS] [LEVEL] [SPEED]  a game against two bots (deals 1/3/6/9; easy/normal/strong;
                                    instant/fast/normal/slow)
  create [DEALS] [public]           a private room for 3/6/9 deals; share its code
  join CODE | watch CODE            take a seat in a room | watch one
  bot [LEVEL] [SEAT]                seat a bot in an empty seat (the creator only)
  ready                             start the match / the next deal (Enter also does, between deals)
  speed SPEED                       the bots' speed
  resume                            take your seat back from the bot that took it over
  leave                             give up your seat (a bot plays it) or stop watching; ddz
                                    forgets its saved session
  quit                              close ddz; your seat waits for you: start ddz again to take
                                    it back (with --no-save-session, quit leaves the room too)
  help
In a deal:
  1 2 3 | bid N                     bid (while bidding)
  333 44 | 10 10 J | 3-7 | sj bj    play these cards (ranks; suits never matter)
  pass                              pass
  hint | h | Tab                    cycle through the legal plays (those keeping bombs, the
                                    rocket and chains whole first), then pass
"""


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
    deals, public = 3, False
    for arg in args:
        if arg == "public":
            public = True
        elif arg.isdigit():
            got = _deals(arg, ROOM_DEALS)
            if isinstance(got, Invalid):
                return got
            deals = got
        else:
            return Invalid(f"create: {arg!r} is no deal count (3, 6, 9) or 'public'")
    return Create(deals, public)


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
}

COMMAND_WORDS: frozenset[str] = frozenset(
    [*_SIMPLE, "practice", "create", "join", "watch", "bot", "speed", "bid"]
)


def parse_command(text: str, action: TurnAction | None = None) -> Command | None:
    """What a typed line means; None for an empty line.

    ``action`` is what my turn asks for now, if it is my turn: while bidding a bare ``1``,
    ``2`` or ``3`` is a bid (and ``0`` a pass); otherwise digits are cards.
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
    if action == "bid" and len(words) == 1 and head in ("0", "1", "2", "3"):
        return _parse_bid([head])
    try:
        return PlayCards(tuple(parse_cards(text)))
    except CardTextError as exc:
        return Invalid(f"{exc} (type help for commands)")


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


def describe_play(play: Play) -> str:
    """``pair 55``, ``triple + single 333 4``, ``ROCKET SJ BJ``."""
    return f"{KIND_LABELS[play.kind]} {format_cards(play.cards)}"


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
    missing = missing_cards(ranks, hand)
    if missing:
        return Verdict("bad", f"you do not hold {format_cards(missing)}")
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

    ``action`` is what my turn asks for now (None when it is not my turn), ``playing``
    whether a deal is in its playing phase, ``to_beat`` the play on the table.
    """

    hand: tuple[Rank, ...] = ()
    to_beat: Play | None = None
    action: TurnAction | None = None
    may_pass: bool = True
    highest_bid: int = 0
    playing: bool = False
    seated: bool = True


def turn_context(state: TableState) -> TurnContext:
    """The legality check's view of a table state (no action of mine while a bot holds my
    seat: the server would refuse it)."""
    table = state.table
    turn = table.turn if table is not None else None
    seat = state.my_seat
    bot_holds = table is not None and seat is not None and table.bot_control[seat]
    action = turn.action if turn is not None and state.my_turn and not bot_holds else None
    return TurnContext(
        hand=tuple(state.hand_ranks),
        to_beat=state.to_beat,
        action=action,
        may_pass=turn.may_pass if turn is not None else True,
        highest_bid=state.highest_bid,
        playing=table is not None and table.phase == "playing",
        seated=not state.is_watcher,
    )


def hint_key(state: TableState) -> Hashable:
    """Names the turn a hint cycle belongs to: a new turn starts the cycle afresh."""
    table = state.table
    if table is None or table.turn is None:
        return None
    return (table.deal_no, table.turn.version, tuple(table.hand or ()))


def assess(text: str, ctx: TurnContext) -> Verdict:
    """What the prompt says about ``text`` while it is being typed."""
    command = parse_command(text, ctx.action)
    if command is None:
        if ctx.action == "play":
            lead = "you lead" if ctx.to_beat is None else "beat " + describe_play(ctx.to_beat)
            return Verdict("info", f"your turn: {lead} (type cards, pass, or hint)")
        if ctx.action == "bid":
            return Verdict("info", f"your bid: above {ctx.highest_bid}, or pass")
        return Verdict("info", "")
    if isinstance(command, Invalid):
        return Verdict("bad", command.message)
    if isinstance(command, PassTurn):
        if ctx.action is not None and not ctx.may_pass:
            must = "bid" if ctx.action == "bid" else "play: you lead this trick"
            return Verdict("bad", f"you may not pass: you must {must}")
        return Verdict("ok" if ctx.action else "info", "pass")
    if isinstance(command, MakeBid):
        if ctx.action != "bid":
            return Verdict("bad", "it is not your turn to bid")
        if command.value <= ctx.highest_bid:
            return Verdict("bad", f"a bid must be higher than {ctx.highest_bid}")
        return Verdict("ok", f"bid {command.value}")
    if isinstance(command, PlayCards):
        if not ctx.seated:
            return Verdict("bad", "watchers do not play")
        verdict = check_play(command.ranks, ctx.hand, ctx.to_beat)
        if verdict.ok and ctx.action != "play":
            return Verdict("info", verdict.message + " (not your turn)", verdict.play)
        return verdict
    return Verdict("info", type(command).__name__.lower())


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
    return format_cards(hint.cards)


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
