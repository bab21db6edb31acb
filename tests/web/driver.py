"""Playing the browser table as a person does: clicks on what is on screen.

``act(page)`` takes the one action the screen offers (Ready, a bid, Hint then Play, or
Pass), by real mouse clicks (touch taps on a phone page); it reads the page's state only to
know whether a click is worth trying. ``hidden_cards`` and ``dom_cards`` are what the
hidden-card tests check: every card a page received or shows must be its own or public.
"""

from __future__ import annotations

import contextlib
import random
import re
from typing import Any

from tests.web.browser import Frames

RANK_WORDS = [
    "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace", "two",
]  # fmt: skip
SUIT_WORDS = ["spades", "hearts", "clubs", "diamonds"]
CARD_NAME = re.compile(
    r"\b(small joker|big joker|("
    + "|".join(RANK_WORDS)
    + r") of ("
    + "|".join(SUIT_WORDS)
    + r"))\b",
    re.IGNORECASE,
)


def state(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("window.ddz.state()")
    return result


#: Each selector's element: on screen (a box, not hidden by style) and usable (not disabled
#: nor aria-disabled), as Playwright's ``is_visible`` and ``is_enabled`` tell; false for
#: one not there. Many in one round trip: a look at the table costs one call, not a dozen
#: (they were most of a played match's time).
LOOK = """(selectors) => Object.fromEntries(selectors.map((sel) => {
  const e = document.querySelector(sel);
  if (!e) return [sel, [false, false]];
  const r = e.getBoundingClientRect();
  const visible = e.checkVisibility() && getComputedStyle(e).visibility === 'visible'
    && r.width > 0 && r.height > 0;
  return [sel, [visible, !e.matches(':disabled') && !e.closest('[aria-disabled="true"]')]];
}))"""
#: What ``act`` looks at.
TABLE = [
    "#result", "#summary", "#bid-buttons",
    "#bid-0", "#bid-1", "#bid-2", "#bid-3", "#play-buttons", "#hint", "#pass",
]  # fmt: skip
#: What ``act`` looks at, and the table's version (the server's count of its changes).
LOOK_AT_TABLE = f"""(selectors) => [({LOOK})(selectors),
  window.ddz.state().room?.table?.version ?? null]"""
#: The table has moved on from the version given: the server answered.
MOVED_ON = "(v) => (window.ddz.state().room?.table?.version ?? null) !== v"
#: Hint has picked a play (Play is enabled), said to pass, or the turn is gone.
HINTED = """() => !document.getElementById('play').disabled
  || document.getElementById('legality').textContent.includes('nothing beats')
  || document.getElementById('hint').disabled
  || document.getElementById('play-buttons').hidden"""


def look(page: Any, selectors: list[str]) -> dict[str, tuple[bool, bool]]:
    """Each selector's (on screen, usable): see LOOK."""
    found: dict[str, tuple[bool, bool]] = page.evaluate(LOOK, selectors)
    return found


def shown(page: Any, selector: str) -> bool:
    return bool(page.is_visible(selector))


def is_phone(page: Any) -> bool:
    """Phone-sized pages are the touch ones in these tests (conftest.open_page)."""
    size = page.viewport_size
    return bool(size and size["width"] < 600)


def click(page: Any, selector: str) -> bool:
    """Click (tap on a touch page) if the element is there and enabled; False if not."""
    visible, usable = look(page, [selector])[selector]
    el = page.query_selector(selector) if visible and usable else None
    if el is None:
        return False
    try:
        if is_phone(page):
            el.tap(timeout=2000)
        else:
            el.click(timeout=2000)
    except Exception:  # the screen moved on between the look and the click
        return False
    return True


def act(page: Any, rng: random.Random, bid: str | None = None, pass_rate: float = 0.2) -> str:
    """Take one action if the screen offers one; what was done, ``over``, or ``""``.
    Each action waits for the server's answer to reach the page (its buttons stay on
    until then: a second click would wait for them in vain), or 2 s for one ignored."""
    screen, version = page.evaluate(LOOK_AT_TABLE, TABLE)
    if screen["#result"][0]:
        return "over"
    if screen["#summary"][0]:
        return answered(page, version, "ready" if click(page, "#summary-ready") else "")
    if screen["#bid-buttons"][0]:
        choices = [b for b in ("#bid-0", "#bid-1", "#bid-2", "#bid-3") if screen[b][1]]
        if not choices:
            return ""
        choice = bid if bid in choices else rng.choice(choices)
        return answered(page, version, "bid" if click(page, choice) else "")
    if screen["#play-buttons"][0] and screen["#hint"][1]:
        if screen["#pass"][1] and rng.random() < pass_rate:
            return answered(page, version, "pass" if click(page, "#pass") else "")
        if not click(page, "#hint"):
            return ""
        page.wait_for_function(HINTED)  # Hint's plays come from a worker
        if page.is_enabled("#play"):
            return answered(page, version, "play" if click(page, "#play") else "")
        return answered(page, version, "pass" if click(page, "#pass") else "")
    return ""


def answered(page: Any, version: int | None, done: str) -> str:
    """``done``, once the table has moved on from ``version`` (2 s at most)."""
    if done:
        with contextlib.suppress(Exception):  # (Playwright's timeout): ignored, or refused
            page.wait_for_function(MOVED_ON, arg=version, timeout=2000)
    return done


# --- hidden cards -----------------------------------------------------------------------


def cards_in(message: dict[str, Any]) -> set[int]:
    """Every card id a server message holds."""
    kind = message.get("type")
    if kind == "deal_started":
        return set(message.get("hand") or [])
    if kind == "landlord":
        return set(message["kitty"])
    if kind == "played":
        return set(message["cards"])
    if kind == "deal_end":
        return {c for hand in message["hands"] for c in hand}
    if kind == "snapshot" and message["room"]["table"]:
        table = message["room"]["table"]
        cards = set(table.get("hand") or []) | set(table.get("kitty") or [])
        for play in table["plays"]:
            cards |= set(play["cards"])
        if table.get("last_play"):
            cards |= set(table["last_play"]["cards"])
        if table.get("last_deal"):
            cards |= {c for hand in table["last_deal"]["hands"] for c in hand}
        return cards
    return set()


class Knowledge:
    """What one viewer may know, followed frame by frame: its own hand as dealt and every
    card made public (the kitty once shown, every play, every hand at a deal's end)."""

    def __init__(self) -> None:
        self.own: set[int] = set()
        self.public: set[int] = set()
        self.dealt: list[set[int]] = []  # each deal's own hand as dealt

    def see(self, message: dict[str, Any]) -> set[int]:
        """Take in a frame; return the cards in it this viewer may not know."""
        kind = message.get("type")
        cards = cards_in(message)
        if kind == "deal_started":
            self.own = set(message.get("hand") or [])
            self.dealt.append(set(self.own))
            self.public = set()
        elif kind == "snapshot" and message["room"]["table"]:
            table = message["room"]["table"]
            self.own |= set(table.get("hand") or [])
            self.public |= set(table.get("kitty") or [])
            for play in table["plays"]:
                self.public |= set(play["cards"])
            if table.get("last_deal") and table["phase"] != "playing":
                self.public |= {c for h in table["last_deal"]["hands"] for c in h}
        elif kind in ("landlord", "played", "deal_end"):
            self.public |= cards
        return cards - self.own - self.public


def hidden_cards(frames: Frames) -> set[int]:
    """Cards a page received that were not its own nor public when they came."""
    knowledge = Knowledge()
    leaked: set[int] = set()
    for message in frames.messages:
        leaked |= knowledge.see(message)
    return leaked


def allowed_now(frames: Frames) -> set[int]:
    knowledge = Knowledge()
    for message in list(frames.messages):
        knowledge.see(message)
    return knowledge.own | knowledge.public


def card_id(name: str) -> int:
    name = name.lower()
    if name == "small joker":
        return 52
    if name == "big joker":
        return 53
    rank, _, suit = name.partition(" of ")
    return RANK_WORDS.index(rank) * 4 + SUIT_WORDS.index(suit)


def dom_cards(page: Any) -> set[int]:
    """Every card the page's DOM holds: as ``data-card``, or named in its text or in an
    accessible name (English). The card counter names ranks not yet seen ("small joker"),
    public counts rather than cards: it is left out of the text."""
    found: dict[str, Any] = page.evaluate(
        """() => ({
            ids: [...document.querySelectorAll('[data-card]')].map(e => e.dataset.card),
            text: (() => {
                const body = document.body.cloneNode(true);
                body.querySelectorAll('#counter').forEach(e => e.remove());
                return body.textContent;
            })(),
            labels: [...document.querySelectorAll('[aria-label],[title],[alt]')]
                .filter(e => !e.closest('#counter'))
                .map(e => [e.getAttribute('aria-label'), e.getAttribute('title'),
                           e.getAttribute('alt')].join(' ')),
        })"""
    )
    cards = {int(i) for i in found["ids"]}
    for text in [found["text"], *found["labels"]]:
        cards |= {card_id(m.group(1)) for m in CARD_NAME.finditer(text)}
    return cards


#: Until every animation and transition on the page has finished, then two frames more (a
#: resize is laid out again in the frame after it: fit.js's ResizeObserver).
SETTLE = """async () => {
  await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
  const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
  await frame();
  await frame();
}"""


def settle(page: Any) -> None:
    """Wait until the page is still: no animation running, a resize laid out."""
    page.evaluate(SETTLE)
