"""A finished match's replay as people read it: deal by deal and trick by trick.

Pure functions of the server's ``ReplayData`` to ``Fragments`` (as ``client.render``). A deal
is cut into steps as the browser's viewer steps through it: the deal as dealt and bid (the
hands, the kitty, the bids, who took it), then one step per trick, then its end (who won,
how the score came about, each seat's points and total). ``replay_lines`` is the whole match
one step after another, for a pipe or the log above the prompt; ``replay_pages`` is one page
per step, each showing the table at that point (every seat's cards left), for the pager
(``client.replay_pager``). Plays are named as the table names them (``triple + single``,
not the wire's ``triple_single``); seats by name and number (``Ann (S1)``). Every name and
code from the network enters a line through ``client.safe_text.printable``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from client.commands import kind_label
from client.render import (
    ACCENT,
    BOLD,
    DIM,
    GOOD,
    LINE_WIDTH,
    RED,
    WARN,
    Fragments,
    card_fragments,
    code,
    fragments_width,
    joined_within,
    main_first,
    room_kind,
    wrapped_cards,
)
from client.safe_text import NAME_LIMIT, printable
from protocol.events import (
    BidMade,
    CardsPlayed,
    DealEnded,
    DealVoided,
    LandlordChosen,
    Passed,
    SeatControl,
)
from protocol.messages import ReplayData, ReplayDeal

SEATS = 3
#: Columns of the seat names' column in a step's lines.
NAME_COLUMN = 18

ReplayEvent = BidMade | DealVoided | LandlordChosen | CardsPlayed | Passed | SeatControl


def seat_names(data: ReplayData) -> list[str]:
    """Each seat as people read it: ``Ann (S1)`` (``S2`` when the name is unknown)."""
    out = []
    for seat in range(SEATS):
        name = printable(data.seats[seat], NAME_LIMIT) if seat < len(data.seats) else ""
        out.append(f"{name} (S{seat + 1})" if name else f"S{seat + 1}")
    return out


def _signed(n: int) -> str:
    return f"{n:+d}"


def fitted(first: Fragments, rest: Fragments, width: int, indent: str) -> list[Fragments]:
    """``first`` and ``rest`` on one line if it fits ``width``, else ``rest`` on the next
    line after ``indent``."""
    if fragments_width(first) + fragments_width(rest) <= width:
        return [[*first, *rest]]
    return [first, [("", indent), *rest]]


# --- a deal cut into steps -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a deal: ``trick`` 0 for the deal as dealt and bid, 1.. for a trick;
    ``events`` what happened in it, in order."""

    trick: int
    events: tuple[ReplayEvent, ...]


def deal_steps(deal: ReplayDeal) -> list[Step]:
    """The bidding (up to the landlord, or the void), then each trick: a trick ends when
    the two others pass after a play, or with the deal's last play."""
    steps: list[list[ReplayEvent]] = [[]]
    bidding = True
    for event in deal.events:
        if bidding:
            steps[-1].append(event)
            if isinstance(event, LandlordChosen | DealVoided):
                bidding = False
                steps.append([])
            continue
        steps[-1].append(event)
        if isinstance(event, Passed) and event.trick_over:
            steps.append([])
    if not steps[-1] and len(steps) > 1:
        steps.pop()
    return [Step(trick=i, events=tuple(events)) for i, events in enumerate(steps)]


def hands_after(deal: ReplayDeal, steps: Sequence[Step]) -> list[list[int]]:
    """Every seat's cards after ``steps`` (the landlord's with the kitty once taken)."""
    hands = [sorted(hand) for hand in deal.hands]
    for step in steps:
        for event in step.events:
            if isinstance(event, LandlordChosen):
                hands[event.seat] = sorted([*hands[event.seat], *event.kitty])
            elif isinstance(event, CardsPlayed):
                gone = set(event.cards)
                hands[event.seat] = [c for c in hands[event.seat] if c not in gone]
    return hands


# --- lines ----------------------------------------------------------------------------------


def _timeout(event: BidMade | CardsPlayed | Passed) -> Fragments:
    return [(DIM, "  (time ran out)")] if event.timeout else []


def event_lines(event: ReplayEvent, names: Sequence[str], width: int) -> list[Fragments]:
    """One event of a deal in words: a bid, the landlord, a play (its cards, main part
    first, and its kind), a pass, a bot taking a seat over or giving it back."""
    who = f"   {names[event.seat]:<{NAME_COLUMN}} " if not isinstance(event, DealVoided) else ""
    if isinstance(event, BidMade):
        bid = f"bids {event.bid}" if event.bid else "passes"
        return [[(BOLD, who), ("", bid), *_timeout(event)]]
    if isinstance(event, DealVoided):
        return [[(DIM, "   everyone passed: the deal is void and dealt again")]]
    if isinstance(event, LandlordChosen):
        landlord: Fragments = [(BOLD, who), (ACCENT, f"is the landlord (base {event.base}),")]
        kitty: Fragments = [(ACCENT, " takes the kitty "), *card_fragments(event.kitty)]
        return fitted(landlord, kitty, width, " " * (len(who) - 1))
    if isinstance(event, Passed):
        return [[(BOLD, who), (DIM, "pass"), *_timeout(event)]]
    if isinstance(event, SeatControl):
        name = names[event.seat]
        text = {
            "timeouts": f"a bot plays for {name} (two timeouts)",
            "resume": f"{name} plays again",
            "resume_pending": f"{name} plays again from their next turn",
        }[event.reason]
        return [[(WARN if event.bot else DIM, f"   {text}")]]
    kind = kind_label(event.kind)
    tail: Fragments = [(DIM, f"  {kind}"), *_timeout(event)]
    if event.kind in ("bomb", "rocket"):
        tail.append((WARN, f"  stake ×{event.multiplier}"))
    if event.card_counts[event.seat] == 0:
        tail.append((GOOD + " bold", "  out!"))
    return cards_lines(who, main_first(event.cards), width, tail, label_style=BOLD)


def cards_lines(
    label: str,
    cards: Sequence[int],
    width: int,
    tail: Sequence[tuple[str, str]] = (),
    label_style: str = "",
) -> list[Fragments]:
    """``label``, the cards as given, then ``tail``: on one line when they fit ``width``,
    else broken between cards (never inside one), the lines after the first under the
    first card, ``tail`` on a line of its own when it does not fit after the last."""
    if not cards:
        return [[(label_style, label), (DIM, "none"), *tail]]
    indent = " " * len(label)
    wrapped = wrapped_cards([card_fragments([c]) for c in cards], indent, width)
    wrapped[0] = [(label_style, label), *wrapped[0][1:]]
    if fragments_width(wrapped[-1]) + fragments_width(tail) <= width:
        wrapped[-1] = [*wrapped[-1], *tail]
    elif tail:
        wrapped.append([("", indent), *tail])
    return wrapped


def dealt_lines(deal: ReplayDeal, names: Sequence[str], width: int) -> list[Fragments]:
    """The hands as dealt and the kitty."""
    lines: list[Fragments] = []
    for seat, hand in enumerate(deal.hands):
        lines += cards_lines(f"   {names[seat]:<{NAME_COLUMN}} ", sorted(hand), width)
    lines += cards_lines(f"   {'kitty':<{NAME_COLUMN}} ", sorted(deal.kitty), width)
    return lines


def end_lines(end: DealEnded, names: Sequence[str], width: int) -> list[Fragments]:
    """Who won the deal, how the score came about, each seat's points and total."""
    landlord = names[end.landlord]
    winner = f"the landlord, {landlord}, wins" if end.winner == "landlord" else "the farmers win"
    s = end.score
    why = [f"base {s.base}"]
    if s.bombs:
        why.append(f"{s.bombs} bomb{'s' if s.bombs > 1 else ''}")
    if s.rockets:
        why.append("rocket")
    if s.spring:
        why.append("spring")
    if s.anti_spring:
        why.append("anti-spring")
    extras = f": {', '.join(why[1:])}" if len(why) > 1 else ""
    stake = f" (base {s.base} × multiplier {s.multiplier}{extras})"
    lines = fitted([(ACCENT + " bold", f"   deal over: {winner}")], [(DIM, stake)], width, "  ")
    for seat in range(SEATS):
        points = s.scores[seat]
        lines.append(
            [
                ("", f"   {names[seat]:<{NAME_COLUMN}} "),
                (GOOD if points > 0 else RED, f"{_signed(points):>5}"),
                ("", f"   total {_signed(end.totals[seat]):>5}"),
            ]
        )
    return lines


def result_lines(data: ReplayData, names: Sequence[str], width: int) -> list[Fragments]:
    """The match's result, or why it ended early."""
    result = data.result
    if result is None:
        why = {"everyone_left": "everyone left", "abandoned": "nobody was left at the table"}
        return [[(DIM, f"the match ended early: {why.get(data.ended, data.ended)}")]]
    winners = " and ".join(names[w] for w in result.winners)
    verb = "wins" if len(result.winners) == 1 else "win"
    totals = [f"{names[s]} {_signed(t)}" for s, t in enumerate(result.totals)]
    lines = joined_within(["   totals:", *totals], " · ", width)
    lines[0] = lines[0].replace(": · ", ": ", 1)
    return [[(GOOD + " bold", f"match over: {winners} {verb}")], *([("", x)] for x in lines)]


def head_lines(
    data: ReplayData,
    width: int = LINE_WIDTH,
    local: Callable[[float | None], time.struct_time] = time.localtime,
) -> list[Fragments]:
    """``replay of room ABCDE · public · 3 deal(s) of 3 · 2024-05-01 20:15``, on as many
    lines of ``width`` columns as it takes."""
    void = sum(1 for d in data.deals if d.void)
    parts = [
        f"replay of room {code(data.code)}",
        room_kind(data.mode, data.code),
        f"{len(data.deals) - void} deal(s) of {data.deals_total}",
    ]
    if void:
        parts.append(f"{void} void (dealt again)")
    if data.started_at:
        parts.append(time.strftime("%Y-%m-%d %H:%M", local(data.started_at)))
    return [[(ACCENT + " bold", line)] for line in joined_within(parts, " · ", width)]


def _deal_title(
    data: ReplayData, deal: ReplayDeal, names: Sequence[str], width: int
) -> list[Fragments]:
    void = " (void)" if deal.void else ""
    forced = ", who must bid" if deal.forced_bid else ""
    title: Fragments = [
        (ACCENT + " bold", f"── deal {deal.deal_no} of {data.deals_total}{void} ──")
    ]
    return fitted(title, [("", f" {names[deal.first_bidder]} bids first{forced}")], width, "  ")


def _step_title(step: Step, tricks: int) -> Fragments:
    if step.trick == 0:
        return [(BOLD, " bidding")]
    return [(BOLD, f" trick {step.trick} of {tricks}")]


def replay_lines(
    data: ReplayData,
    width: int = LINE_WIDTH,
    local: Callable[[float | None], time.struct_time] = time.localtime,
) -> list[Fragments]:
    """The whole match, step after step: each deal's hands as dealt, its bidding, its
    tricks, its end; then the match's result. No line runs past ``width`` columns."""
    names = seat_names(data)
    lines = [*head_lines(data, width, local), [("", "   ".join(names))]]
    for deal in data.deals:
        steps = deal_steps(deal)
        tricks = len(steps) - 1
        lines += [[], *_deal_title(data, deal, names, width), *dealt_lines(deal, names, width)]
        for step in steps:
            lines.append(_step_title(step, tricks))
            for event in step.events:
                lines += event_lines(event, names, width)
        if deal.end is not None:
            lines += end_lines(deal.end, names, width)
    return [*lines, [], *result_lines(data, names, width)]


# --- pages: one per step, the table as it stood ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Page:
    """One step of the replay: ``deal`` (an index into the replay's deals) and ``step``
    (0: as dealt and bid; 1..: a trick; the last: the deal's end)."""

    deal: int
    step: int
    last_step: int


def replay_pages(data: ReplayData) -> list[Page]:
    """Every step of every deal, in order: each deal's bidding, its tricks, and its end."""
    pages: list[Page] = []
    for index, deal in enumerate(data.deals):
        count = len(deal_steps(deal)) + (1 if deal.end is not None else 0)
        pages += [Page(index, step, count - 1) for step in range(count)]
    return pages


def page_lines(data: ReplayData, page: Page, width: int = LINE_WIDTH) -> list[Fragments]:
    """What one page shows: where it is in the match, every seat's role and cards left
    after this step (or as dealt, on the bidding's page), the kitty, and the step's events
    (the bids, the trick's plays, or the deal's end and, after the last deal, the match's)."""
    names = seat_names(data)
    deal = data.deals[page.deal]
    steps = deal_steps(deal)
    at_end = page.step >= len(steps)
    done = steps if at_end else steps[: page.step + 1]
    hands = hands_after(deal, done) if page.step else [sorted(h) for h in deal.hands]
    landlord = next((e.seat for s in done for e in s.events if isinstance(e, LandlordChosen)), None)
    lines = [*head_lines(data, width), *_deal_title(data, deal, names, width)]
    for seat in range(SEATS):
        role = "" if landlord is None else ("landlord" if seat == landlord else "farmer")
        label = f"   {names[seat]:<{NAME_COLUMN}} {role:<8} {len(hands[seat]):>2}  "
        lines += cards_lines(label, hands[seat], width)
    lines += cards_lines(f"   {'kitty':<{NAME_COLUMN}} ", sorted(deal.kitty), width)
    lines.append([])
    if at_end:
        assert deal.end is not None
        lines += [[(BOLD, " the deal's end")], *end_lines(deal.end, names, width)]
        if page.deal == len(data.deals) - 1:
            lines += [[], *result_lines(data, names, width)]
        return lines
    step = steps[page.step]
    lines.append(_step_title(step, len(steps) - 1))
    for event in step.events:
        lines += event_lines(event, names, width)
    return lines
