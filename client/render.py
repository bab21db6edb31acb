"""How the table and its events read on a terminal: pure functions to styled text.

Everything here returns ``Fragments``, a list of ``(style, text)`` pairs in prompt_toolkit's
style syntax (``"ansired bold"``), so the interactive client shows them in colour and the
headless client prints them plain (``plain``). Seats are numbered 1..3 for people; the wire
numbers them 0..2.

Text from the server (names, room codes, refusals) is a stranger's: it enters a line only
through ``client.safe_text.printable`` (``seat_name``, ``code``, ``message_text``), and the
interactive and headless clients pass every line through ``printable_fragments`` again on its
way to the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from prompt_toolkit.utils import get_cwidth

from client.commands import Verdict, describe_play, kind_label, main_ranks, play_text
from client.safe_text import CODE_LIMIT, MESSAGE_LIMIT, NAME_LIMIT, printable, printable_fragments
from client.table import TableState
from protocol.cards import RANKS, Card, card_rank
from protocol.events import (
    AwaitingReady,
    BidMade,
    CardsPlayed,
    DealEnded,
    DealStarted,
    DealVoided,
    LandlordChosen,
    MatchEnded,
    Passed,
    SeatControl,
    TablePlay,
    TurnStarted,
)
from protocol.messages import (
    BotSpeedChanged,
    Error,
    Left,
    Paused,
    Queued,
    QueueLeft,
    Resumed,
    RoomClosed,
    RoomList,
    RoomSummary,
    SeatsChanged,
    SeatView,
    ServerMessage,
    Snapshot,
    Welcome,
)
from protocol.plays import classify

Fragments = list[tuple[str, str]]

RED = "ansired"
WARN = "ansired bold"
GOOD = "ansigreen"
DIM = "ansibrightblack"
ACCENT = "ansicyan"
BOLD = "bold"

#: The panel's lines fit this many columns, and lines of cards when the terminal's width is
#: not known (an 80-column terminal).
LINE_WIDTH = 80


def plain(fragments: Iterable[tuple[str, str]]) -> str:
    """The text of some fragments without their styles, safe to print."""
    return "".join(text for _, text in printable_fragments(fragments))


def code(text: str) -> str:
    """A room code from the server, safe to show."""
    return printable(text, CODE_LIMIT)


def message_text(text: str) -> str:
    """A message from the server (a refusal's reason), safe to show."""
    return printable(text, MESSAGE_LIMIT)


def card_fragments(card_ids: Iterable[int]) -> Fragments:
    """Physical cards sorted, with suits; hearts, diamonds and the big joker in red."""
    out: Fragments = []
    for i, card_id in enumerate(sorted(card_ids)):
        if i:
            out.append(("", " "))
        card = Card(card_id)
        red = card.suit in ("♥", "♦") or card_id == 53
        out.append((RED if red else BOLD, str(card)))
    return out


def seat_name(state: TableState, seat: int) -> str:
    """A seat's name (safe to show), with ``(you)`` on my own seat."""
    name = printable(state.seat_name(seat), NAME_LIMIT)
    return f"{name} (you)" if seat == state.my_seat else name


def _signed(n: int) -> str:
    return f"{n:+d}"


def main_first(card_ids: Iterable[int]) -> list[int]:
    """The cards of a play in the order it is shown: its main part first, each part sorted
    (``♠A ♥A ♣A ♠6 ♥6``); sorted when they are no play."""
    ids = sorted(card_ids)
    play = classify(card_rank(c) for c in ids)
    if play is None:
        return ids
    main = main_ranks(play)
    return sorted(ids, key=lambda c: card_rank(c) not in main)


def play_card_fragments(card_ids: Iterable[int]) -> Fragments:
    """The cards of a play with suits, its main part first (``♠A ♥A ♣A ♠6 ♥6``)."""
    return joined_cards([card_fragments([c]) for c in main_first(card_ids)])


def _play_text(play: TablePlay | CardsPlayed) -> Fragments:
    return [*play_card_fragments(play.cards), (DIM, f"  {kind_label(play.kind)}")]


#: Letters of a listed room's code: the server gives a room anyone may find in the list (a
#: quick match, a public room) a short code, and an unlisted one a long code shown in two
#: groups (``K7P2Q-M4XTR``), what keeps it private (``server/lobby/codes.py``).
LISTED_CODE_LENGTH = 5


def room_kind(mode: str, room_code: str) -> str:
    """The kind of a room as people say it: ``practice``, ``quick``, and a room of the
    ``private`` mode as ``public`` (listed for watchers: its code is short) or ``private``.
    The server's messages carry no flag for it; the code's length is the server's mark."""
    if mode != "private":
        return mode
    listed = len(room_code) <= LISTED_CODE_LENGTH and "-" not in room_code
    return "public" if listed else "private"


def mode_label(state: TableState) -> str:
    """The room's kind as people say it (``room_kind``): a private room is public or
    private to its creator, a joiner, a resumed client and a watcher alike."""
    return room_kind(state.room.mode, state.room.code)


def bots_label(state: TableState) -> str:
    """``strong bots, speed normal``: the bots' level(s) and their speed, or nothing."""
    levels = sorted(
        {s.level or "normal" for s in state.room.seats if s.kind == "bot"},
        key=("easy", "normal", "strong").index,
    )
    if not levels:
        return ""
    return f"{' and '.join(levels)} bots, speed {state.room.bot_speed}"


# --- the lobby: the quick-match queue and the list of live rooms ------------------------


def queued_line(wait: float, waiting: int, waited: float | None = None) -> Fragments:
    """The quick-match queue: ``waiting for players… (bots after N s)``; with ``waited``
    (seconds in the queue so far) the seconds left before bots fill the seats instead."""
    others = waiting - 1
    company = f"; {others} other{'s' if others != 1 else ''} waiting" if others > 0 else ""
    if waited is None:
        when = f"bots after {wait:g} s"
    else:
        when = f"bots in {max(0.0, wait - waited):.0f} s"
    return [(ACCENT, "waiting for players… "), (DIM, f"({when}{company})")]


def room_summary_line(summary: RoomSummary) -> Fragments:
    """One live room: its code, mode, the deal in play, who sits where and how many watch."""
    deal = f"deal {summary.deal_no}/{summary.deals}" if summary.deal_no else "not started"
    seats = ", ".join(printable(name, NAME_LIMIT) or "(empty)" for name in summary.seats)
    return [
        (BOLD, f"{code(summary.code):<8}"),
        ("", f"{room_kind(summary.mode, summary.code):<9}"),
        ("", f"{deal:<12}"),
        ("", seats),
        (DIM, f"  {summary.watchers} watching"),
    ]


def room_list_lines(rooms: RoomList) -> list[Fragments]:
    """The live rooms, one line each (``watch CODE`` to watch one)."""
    if not rooms.rooms:
        return [[(DIM, "no live rooms")]]
    return [room_summary_line(r) for r in rooms.rooms]


def lobby_lines(message: ServerMessage) -> list[Fragments]:
    """Lines for the messages that come outside a room: the queue, the room list, and
    refusals; nothing for the others."""
    if isinstance(message, Queued):
        return [queued_line(message.wait, message.waiting)]
    if isinstance(message, QueueLeft):
        return [[(DIM, "you left the quick-match queue")]]
    if isinstance(message, RoomList):
        return room_list_lines(message)
    if isinstance(message, Error):
        return [[(WARN, f"refused: {message_text(message.message)}"), (DIM, f" [{message.code}]")]]
    if isinstance(message, Welcome):
        resumed = " (session resumed)" if message.resumed else ""
        return [[(DIM, f"connected as {printable(message.name, NAME_LIMIT)}{resumed}")]]
    return []


# --- events -------------------------------------------------------------------------------


def event_lines(
    before: TableState, after: TableState, message: ServerMessage, width: int = LINE_WIDTH
) -> list[Fragments]:
    """Lines telling what ``message`` did, for the log above the prompt; ``before`` and
    ``after`` are the states either side of it (names and readiness come from them);
    ``width``: the terminal's columns, which no line of cards runs past."""

    def name(seat: int) -> str:
        return seat_name(after, seat)

    if isinstance(message, Welcome | Error | Queued | QueueLeft | RoomList):
        return lobby_lines(message)
    if isinstance(message, Snapshot):
        return _snapshot_lines(after)
    if isinstance(message, SeatsChanged):
        return _seat_changes(before, after)
    if isinstance(message, BotSpeedChanged):
        return [[(DIM, f"bot speed: {message.speed}")]]
    if isinstance(message, RoomClosed):
        reason = {
            "match_over": "the match is over",
            "everyone_left": "everyone left",
            "abandoned": "nobody was here",
        }[message.reason]
        return [[(BOLD, f"room closed: {reason}")]]
    if isinstance(message, Left):
        return [[(DIM, "you left the room")]]
    if isinstance(message, Paused):
        return [[(WARN, "paused: the server is saving the match safely; clocks are stopped")]]
    if isinstance(message, Resumed):
        return [[(GOOD + " bold", "resumed: the match goes on, every clock as it was")]]
    if isinstance(message, DealStarted):
        line: Fragments = [
            (ACCENT + " bold", f"── deal {message.deal_no} of {message.deals_total} ── "),
            ("", f"{name(message.first_bidder)} bids first"),
        ]
        if message.forced_bid:
            line.append((WARN, " and must bid (three void deals)"))
        return [line]
    if isinstance(message, BidMade):
        bid = "pass" if message.bid == 0 else f"bids {message.bid}"
        return [[(BOLD, name(message.seat)), ("", f": {bid}"), *_timeout(message.timeout)]]
    if isinstance(message, DealVoided):
        return [[(DIM, "everyone passed: the deal is void and dealt again")]]
    if isinstance(message, LandlordChosen):
        return [
            [
                (BOLD, name(message.seat)),
                ("", f" is the landlord (base {message.base}); kitty: "),
                *card_fragments(message.kitty),
            ]
        ]
    if isinstance(message, CardsPlayed):
        return [_played_line(after, message, name(message.seat))]
    if isinstance(message, Passed):
        line = [(BOLD, name(message.seat)), ("", ": pass"), *_timeout(message.timeout)]
        if message.trick_over and message.leader is not None:
            line.append((DIM, f"  (trick over: {name(message.leader)} leads)"))
        return [line]
    if isinstance(message, TurnStarted):
        if message.seat == after.my_seat and not before.my_turn and not _bot_holds_mine(after):
            verb = "bid" if message.action == "bid" else "play"
            return [[(GOOD + " bold", f"» your turn to {verb}")]]
        return []
    if isinstance(message, DealEnded):
        return deal_summary(after, message, width)
    if isinstance(message, AwaitingReady):
        return _ready_changes(before, after, message)
    if isinstance(message, MatchEnded):
        winners = ", ".join(name(s) for s in message.winners)
        verb = "wins" if len(message.winners) == 1 else "win"
        each = [f"{name(s)} {_signed(t)}" for s, t in enumerate(message.totals)]
        over: Fragments = [(GOOD + " bold", f"match over: {winners} {verb}")]
        line = [("", f"   totals: {'  '.join(each)}")]
        if fragments_width(over) + fragments_width(line) <= width:
            return [[*over, *line]]
        rows = joined_within(each, "  ", width - 11)
        return [
            over,
            *([("", f"{'   totals:' if i == 0 else '':<11}{row}")] for i, row in enumerate(rows)),
        ]
    if isinstance(message, SeatControl):
        if message.reason == "resume_pending":
            return [[(DIM, f"{name(message.seat)} plays again from their next turn")]]
        if message.bot:
            tail = " (type resume to play again)" if message.seat == after.my_seat else ""
            return [
                [(WARN, f"a bot took over {name(message.seat)}'s seat after two timeouts{tail}")]
            ]
        return [[(DIM, f"{name(message.seat)} plays again")]]
    return []


def _bot_holds_mine(state: TableState) -> bool:
    """A bot plays my seat (after two timeouts, or a ``leave``): my turn is not mine to play."""
    table, seat = state.table, state.my_seat
    return table is not None and seat is not None and table.bot_control[seat]


def _timeout(timeout: bool) -> Fragments:
    return [(DIM, " (time ran out)")] if timeout else []


def _played_line(state: TableState, event: CardsPlayed, who: str) -> Fragments:
    line: Fragments = [(BOLD, who), ("", ": "), *_play_text(event)]
    left = event.card_counts[event.seat]
    if event.kind in ("bomb", "rocket"):
        line.append((WARN, f"  multiplier ×{event.multiplier}"))
    if left == 0:
        line.append((GOOD + " bold", "  out!"))
    elif left <= 2:
        line.append((WARN, f"  {left} card{'s' if left != 1 else ''} left!"))
    return line


def _snapshot_lines(state: TableState) -> list[Fragments]:
    room = state.room
    lines: list[Fragments] = []
    if state.is_watcher:
        lines.append(
            [(ACCENT, f"watching room {code(room.code)}"), (DIM, f" ({mode_label(state)})")]
        )
    elif room.mode == "practice":
        lines.append(
            [(ACCENT, f"practice game of {room.deals} deal(s)"), (DIM, f" ({code(room.code)})")]
        )
    elif room.mode == "quick":
        timed = ", timed" if room.timed else ""
        lines.append(
            [(ACCENT, f"quick match {code(room.code)}"), ("", f" ({room.deals} deals{timed})")]
        )
    else:
        label = mode_label(state)
        lines.append([(ACCENT, f"room {code(room.code)}"), ("", f" ({label}, {room.deals} deals)")])
        if room.table is None:
            lines.append(
                [("", "share the code "), (BOLD, code(room.code)), ("", " so others can join")]
            )
            if room.creator_seat == state.my_seat:
                lines.append([(DIM, "seat bots with: bot [LEVEL] (one for each empty seat)")])
    table = room.table
    if table is not None and table.restarted and table.turn is not None:
        # back after the server restarted: its clock stood still meanwhile
        left = ""
        if table.turn.deadline is not None and state.my_turn:
            left = f" ({max(0, round(table.turn.deadline - table.turn.server_time))} s left)"
        who = "your" if state.my_turn else "the"
        lines.append([(WARN, f"back: the server restarted, {who} clock was paused{left}")])
    if (
        table is not None
        and table.turn is not None
        and state.my_turn
        and not _bot_holds_mine(state)
    ):
        verb = "bid" if table.turn.action == "bid" else "play"
        lines.append([(GOOD + " bold", f"» your turn to {verb}")])
    return lines


def _seat_changes(before: TableState, after: TableState) -> list[Fragments]:
    old, new = before.room.seats, after.room.seats
    lines: list[Fragments] = []
    for seat, (was, now) in enumerate(zip(old, new, strict=False)):
        who = seat_name(after, seat)
        if was.kind != now.kind or was.name != now.name:
            if now.kind == "empty":
                lines.append([(DIM, f"{seat_name(before, seat)} left seat {seat + 1}")])
            else:
                lines.append([("", f"{who} sits in seat {seat + 1}")])
        elif was.connected != now.connected and now.kind == "person":
            lines.append([(DIM, f"{who} {'is back' if now.connected else 'lost connection'}")])
        elif now.ready and not was.ready and after.table is None:
            lines.append([(DIM, f"{who} is ready")])
    if before.room.watchers != after.room.watchers:
        lines.append([(DIM, f"{after.room.watchers} watching")])
    return lines


def _ready_changes(before: TableState, after: TableState, event: AwaitingReady) -> list[Fragments]:
    old = before.table.ready if before.table is not None else [False] * 3
    lines: list[Fragments] = [
        [(DIM, f"{seat_name(after, s)} is ready")]
        for s, ready in enumerate(event.ready)
        if ready and not old[s]
    ]
    return lines


def deal_summary(state: TableState, event: DealEnded, width: int = LINE_WIDTH) -> list[Fragments]:
    """The end-of-deal summary: who won, how the score came about, every seat's remaining
    cards (on lines of their own, broken between cards, when they do not fit ``width``),
    its points and its total."""
    landlord = seat_name(state, event.landlord)
    winner = f"the landlord ({landlord}) wins" if event.winner == "landlord" else "the farmers win"
    score = event.score
    why = [f"base {score.base}"]
    if score.bombs:
        why.append(f"{score.bombs} bomb{'s' if score.bombs > 1 else ''}")
    if score.rockets:
        why.append("rocket")
    if score.spring:
        why.append("spring")
    if score.anti_spring:
        why.append("anti-spring")
    lines: list[Fragments] = [
        [(ACCENT + " bold", f"── deal {event.deal_no} over: {winner} ── "), ("", ", ".join(why))],
        [(DIM, f"   stake: base {score.base} × multiplier {score.multiplier}")],
    ]
    for seat, hand in enumerate(event.hands):
        role = "landlord" if seat == event.landlord else "farmer"
        line: Fragments = [
            ("", f"   {seat_name(state, seat):<18} {role:<9}"),
            (GOOD if score.scores[seat] > 0 else RED, f"{_signed(score.scores[seat]):>5}"),
            ("", f"  total {_signed(event.totals[seat]):>5}"),
        ]
        if not hand:
            lines.append([*line, (DIM, "   out")])
            continue
        cards = [card_fragments([c]) for c in sorted(hand)]
        if fragments_width(line) + 3 + cards_width(cards) <= width:
            lines.append([*line, ("", "   "), *joined_cards(cards)])
        else:
            lines.append(line)
            lines.extend(wrapped_cards(cards, "      ", width))
    return lines


def fragments_width(fragments: Iterable[tuple[str, str]]) -> int:
    """The columns some fragments take on a terminal."""
    return sum(get_cwidth(text) for _, text in fragments)


def cards_width(cards: Sequence[Fragments]) -> int:
    """The columns of cards shown a space apart."""
    return sum(fragments_width(c) for c in cards) + max(0, len(cards) - 1)


def joined_cards(cards: Sequence[Fragments]) -> Fragments:
    out: Fragments = []
    for i, card in enumerate(cards):
        if i:
            out.append(("", " "))
        out.extend(card)
    return out


def wrapped_cards(cards: Sequence[Fragments], indent: str, width: int) -> list[Fragments]:
    """Cards a space apart on lines of at most ``width`` columns, each begun with
    ``indent``: a line is broken between two cards, never inside one."""
    lines: list[list[Fragments]] = [[]]
    room = max(width - len(indent), 1)
    for card in cards:
        if lines[-1] and cards_width([*lines[-1], card]) > room:
            lines.append([])
        lines[-1].append(card)
    return [[("", indent), *joined_cards(line)] for line in lines]


# --- the table panel ----------------------------------------------------------------------


def _seat_status(state: TableState, seat: int, view: SeatView) -> Fragments:
    """One seat's line: turn marker, name, role, cards left (red at two or one), bid, total."""
    table = state.table
    turn = table.turn.seat if table is not None and table.turn is not None else None
    marker = "▶ " if turn == seat else "  "
    name = seat_name(state, seat) if view.kind != "empty" else "(empty)"
    if view.kind == "bot":
        name += f" [{view.level or 'bot'} bot]" if view.level and "bot" not in name else ""
    out: Fragments = [(GOOD + " bold" if marker.strip() else "", marker), (BOLD, f"S{seat + 1} ")]
    out.append(("" if view.kind != "empty" else DIM, f"{name:<20}"))
    if view.kind == "person" and not view.connected:
        out.append((WARN, " offline"))
    if view.tier is not None and seat != state.my_seat:
        out.append((DIM, f" [{view.tier}]"))  # an opponent's tier, as the quick match seated them
    if table is None:
        out.append((GOOD if view.ready else DIM, " ready" if view.ready else " not ready"))
        return out
    if table.landlord == seat:
        out.append((ACCENT + " bold", " LANDLORD"))
    elif table.landlord is not None:
        out.append((DIM, " farmer  "))
    count = table.card_counts[seat] if seat < len(table.card_counts) else 0
    noun = "card " if count == 1 else "cards"
    out.append((WARN if 0 < count <= 2 else "", f"  {count:>2} {noun}"))
    bids = [b for s, b in table.bids if s == seat]
    if table.phase == "bidding" and bids:
        out.append(("", f"  bid {'pass' if bids[0] == 0 else bids[0]}"))
    out.append(("", f"  total {_signed(table.totals[seat])}"))
    if table.bot_control[seat]:
        out.append((WARN, "  [bot playing]"))
    if table.phase == "between_deals":
        out.append((GOOD, "  ready") if table.ready[seat] else (DIM, "  not ready"))
    trick = state.trick
    if seat in trick:
        act = trick[seat]
        if act is None:
            out.append((DIM, "  pass"))
        else:
            play = classify(card_rank(c) for c in act)
            text = play_text(play) if play is not None else ""
            room = LINE_WIDTH - sum(len(t) for _, t in out) - 2
            if len(text) > room:
                text = text[: max(0, room - 1)] + "…"
            out.append((BOLD, f"  {text}"))
    return out


def turn_line(state: TableState, now: float) -> Fragments:
    """Whose turn it is and the time left, or what the room waits for."""
    table = state.table
    room = state.room
    left = ""
    if state.countdown is not None:
        left = f"  {state.countdown.left(now):.0f}s left"
    if state.closed is not None and not state.match_over:
        return [(WARN, f"room closed ({state.closed})")]
    if state.paused:
        return [(WARN, "paused: the server is saving the match safely")]
    if table is None:
        mine = state.my_seat
        me_ready = mine is None or room.seats[mine].ready
        ready_hint: Fragments = (
            []
            if me_ready
            else [("", "\n"), (GOOD + " bold", "type ready (or press Enter) when you are")]
        )
        empty = sum(1 for s in room.seats if s.kind == "empty")
        if empty:
            return [
                (DIM, f"waiting for {empty} more player(s); code {code(room.code)}"),
                *ready_hint,
            ]
        if not me_ready:
            return [(GOOD + " bold", "every seat is taken: type ready (or press Enter) to start")]
        waiting = [seat_name(state, s) for s, v in enumerate(room.seats) if not v.ready]
        return [(DIM, f"waiting for {', '.join(waiting) or 'everyone'} to be ready")]
    if table.phase == "over":
        return [
            (GOOD + " bold", "match over"),
            (DIM, "  (again · replay · history · quick · practice · create · list · quit)"),
        ]
    if table.phase == "between_deals":
        mine = state.my_seat
        if mine is not None and not table.ready[mine]:
            return [
                (GOOD + " bold", "deal over: type ready (or press Enter) for the next"),
                ("", left),
            ]
        return [(DIM, "waiting for the others to be ready"), ("", left)]
    turn = table.turn
    if turn is None:
        return [(DIM, "…")]
    verb = "bid" if turn.action == "bid" else "play"
    warn = WARN if state.countdown is not None and state.countdown.left(now) <= 5 else ""
    mine = state.my_seat
    if mine is not None and table.bot_control[mine]:
        return [(WARN, "a bot is playing your seat: type resume to play again"), ("", left)]
    if state.my_turn:
        lead = " (you lead)" if verb == "play" and table.last_play is None else ""
        return [(GOOD + " bold", f"your turn to {verb}{lead}"), (warn, left)]
    return [("", f"{seat_name(state, turn.seat)} to {verb}"), (warn, left)]


def counter_lines(state: TableState) -> Fragments:
    """The card counter: each rank, and under it how many of it I have not seen yet."""
    out: Fragments = [(DIM, "unseen ")]
    out.extend(("", f"{r.text:>3}") for r in RANKS)
    out.extend([("", "\n"), ("", "       ")])
    for n in state.unseen_counts():
        out.append((DIM if n == 0 else BOLD, f"{n:>3}"))
    out.append(("", "\n"))
    return out


def joined_within(parts: Sequence[str], separator: str, width: int) -> list[str]:
    """``parts`` joined by ``separator`` into lines of at most ``width`` columns, a new line
    begun before a part that would end past it (a part is never split)."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(separator) + len(part) <= width:
            lines[-1] += separator + part
        else:
            lines.append(part)
    return lines


def table_panel(
    state: TableState, now: float, verdict: Verdict | None = None, counter: bool = False
) -> Fragments:
    """The status panel under the prompt: the room, each seat with its last act in the
    trick, the kitty, the play to beat, my hand, the card counter (when ``counter``), whose
    turn it is with the time left, and what the typed text would do."""
    room = state.room
    table = state.table
    parts = [f"room {code(room.code)}", mode_label(state)]
    if table is not None:
        parts.append(f"deal {table.deal_no}/{table.deals_total}")
        if table.base:
            parts.append(f"base {table.base}")
        parts.append(f"×{table.multiplier}")
    else:
        parts.append(f"{room.deals} deals")
    bots = bots_label(state)
    if bots:
        parts.append(bots)
    if room.watchers:
        parts.append(f"{room.watchers} watching")
    out: Fragments = []
    for line in joined_within(parts, " · ", LINE_WIDTH):
        out.extend([(ACCENT, line), ("", "\n")])
    for seat, view in enumerate(room.seats):
        out.extend(_seat_status(state, seat, view))
        out.append(("", "\n"))
    if table is not None:
        if table.kitty is not None:
            out.extend([(DIM, "kitty  "), *card_fragments(table.kitty), ("", "\n")])
        out.append((DIM, "table  "))
        if table.last_play is not None:
            out.extend(
                [
                    (BOLD, seat_name(state, table.last_play.seat) + ": "),
                    *_play_text(table.last_play),
                ]
            )
        elif table.phase == "playing":
            out.append((DIM, "empty: a new trick"))
        else:
            out.append((DIM, "-"))
        out.append(("", "\n"))
        if table.hand is not None:
            out.extend([(DIM, "hand   "), *card_fragments(table.hand), ("", "\n")])
        if counter:
            out.extend(counter_lines(state))
    out.extend(turn_line(state, now))
    if verdict is not None and verdict.message:
        style = {"ok": GOOD, "bad": WARN, "info": DIM}[verdict.level]
        mark = {"ok": "✓ ", "bad": "✗ ", "info": ""}[verdict.level]
        out.extend([("", "\n"), (style, mark + verdict.message)])
    return out


def describe_last_play(state: TableState) -> str:
    """The play on the table in words (for tests and plain output)."""
    table = state.table
    if table is None or table.last_play is None:
        return "nothing"
    play = classify(card_rank(c) for c in table.last_play.cards)
    who = seat_name(state, table.last_play.seat)
    return f"{who}: {describe_play(play) if play else table.last_play.kind}"
