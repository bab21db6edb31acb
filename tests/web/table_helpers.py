"""Getting a page to a table worth looking at: a practice where I am the landlord (20
cards), a private room with two bots and a watcher; measuring the hand as it is drawn."""

from __future__ import annotations

from typing import Any

from tests.web.browser import wait_until
from tests.web.driver import HINTED, click, state

#: The three sizes the table is laid out for: a phone held upright and sideways (both by
#: touch), and a desktop.
SIZES = {
    "portrait": {"width": 390, "height": 844},
    "landscape": {"width": 844, "height": 390},
    "desktop": {"width": 1280, "height": 800},
}

#: Every card of the hand: the strip of it no later card covers (from its left edge, as
#: wide and as tall as it goes, every point of it checked with elementFromPoint, the
#: rounded corners aside) and where its rank is drawn, relative to the card.
MEASURE_HAND = """async () => {
  await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
  const cards = [...document.querySelectorAll('#hand > .card')];
  return cards.map((card) => {
    const r = card.getBoundingClientRect();
    const on = (x, y) => {
      const e = document.elementFromPoint(r.left + x, r.top + y);
      return !!e && e.closest('.card') === card;
    };
    const probeY = Math.min(20, r.height / 3);
    let w = 1;
    while (w < r.width && on(w + 0.5, probeY)) w += 1;
    let h = 1;
    const probeX = Math.max(1, Math.min(w / 2, 14));
    while (h < r.height && on(probeX, h + 0.5)) h += 1;
    const corner = 9;
    let clear = true;
    for (let x = 1.5; x < w - 1 && clear; x += 2) {
      for (let y = 1.5; y < h - 1; y += 2) {
        const nearX = x < corner || x > r.width - corner;
        const nearY = y < corner || y > r.height - corner;
        if (nearX && nearY) continue;
        if (!on(x, y)) { clear = false; break; }
      }
    }
    const rank = card.querySelector('.rank');
    const rr = rank.getBoundingClientRect();
    return {
      card: Number(card.dataset.card), width: w, height: h, clear,
      rank: rank.textContent,
      rankLeft: rr.left - r.left, rankTop: rr.top - r.top,
      rankRight: rr.right - r.left, rankBottom: rr.bottom - r.top,
      rankClipped: rank.scrollWidth > Math.ceil(rr.width) + 1,
    };
  });
}"""


def leave(page: Any) -> None:
    """Leave the room (the button asks once more while a match is on)."""
    click(page, "#leave")
    page.wait_for_selector("#lobby:not([hidden]), #leave-confirm:not([hidden])")
    if page.is_visible("#leave-confirm"):
        click(page, "#leave")
    page.wait_for_selector("#lobby:not([hidden])")


def start_practice(page: Any, speed: str = "instant") -> None:
    page.check("#practice-form input[name=deals][value='1']")
    page.select_option("#practice-form select[name=level]", "easy")
    page.select_option("#practice-form select[name=speed]", speed)
    click(page, "#practice-start")
    page.wait_for_selector("#table:not([hidden])")


def become_landlord(page: Any, speed: str = "instant", tries: int = 12) -> None:
    """A practice deal in which I bid 3 and so hold 20 cards and lead (a bot that bids 3
    before my turn makes me leave and start again)."""
    for _ in range(tries):
        start_practice(page, speed)
        wait_until(
            lambda: (
                (t := (state(page)["room"] or {}).get("table") or {}).get("landlord") is not None
                or (t.get("turn") or {}).get("seat") == state(page)["room"]["your_seat"]
            ),
            what="my bid or a landlord",
            page=page,
        )
        table = state(page)["room"]["table"]
        if table["landlord"] is None:
            click(page, "#bid-3")
            wait_until(
                lambda: state(page)["room"]["table"]["landlord"] is not None,
                what="the landlord",
                page=page,
            )
        if state(page)["room"]["table"]["landlord"] == state(page)["room"]["your_seat"]:
            page.wait_for_selector("#play-buttons:not([hidden])")
            wait_until(lambda: page.is_enabled("#hint"), what="my lead", page=page)
            return
        leave(page)
    raise AssertionError("never became the landlord")


def my_turn(page: Any) -> bool:
    return bool(page.is_visible("#play-buttons") and page.is_enabled("#hint"))


def play_hint(page: Any) -> str:
    """On my turn: Hint, then Play (or Pass when the hint is to pass)."""
    if not click(page, "#hint"):
        return ""
    # Hint's plays come from a worker: wait for its pick (or its word to pass)
    page.wait_for_function(HINTED)
    if page.is_enabled("#play"):
        return "play" if click(page, "#play") else ""
    return "pass" if click(page, "#pass") else ""


def set_language(page: Any, lang: str) -> None:
    """Switch the page's language as its menu does (the bar's menu may be in the settings)."""
    page.evaluate(
        """(lang) => { const menu = document.getElementById('lang');
                       menu.value = lang; menu.dispatchEvent(new Event('change')); }""",
        lang,
    )
    page.wait_for_function("(lang) => document.documentElement.lang.startsWith(lang)", arg=lang)


def open_settings(page: Any) -> None:
    """Open the settings panel (the bar's ☰) if it is not open."""
    if page.is_hidden("#settings"):
        click(page, "#settings-open")
    page.wait_for_selector("#settings:not([hidden])")
