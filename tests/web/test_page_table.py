"""The table as a player of the popular apps sees it, at a phone held upright (390x844) and
sideways (844x390), both by touch, and a desktop (1280x800): every card of a 20-card hand
shows a strip to tap and to read; the play to beat stands in the middle for a player and
for a watcher; motion and sound as the settings say; no long task while a trick is played."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.web.browser import shoot, wait_until
from tests.web.conftest import DRAWN, OPEN, OpenPage, StartServer
from tests.web.driver import click, state
from tests.web.table_helpers import (
    MEASURE_HAND,
    SIZES,
    become_landlord,
    my_turn,
    play_hint,
    set_language,
)

#: The issue's floor for the part of a card left to tap: a touch target's size.
STRIP_W = 28
STRIP_H = 44


@pytest.mark.parametrize("size", list(SIZES))
def test_every_card_of_a_20_card_hand_shows_a_strip_to_tap_and_read(
    shared_server: StartServer, open_page: OpenPage, size: str
) -> None:
    server = shared_server()
    page, _ = open_page(server.url, phone=size != "desktop")
    page.set_viewport_size(SIZES[size])
    become_landlord(page)
    assert len(state(page)["room"]["table"]["hand"]) == 20
    cards = page.evaluate(MEASURE_HAND)
    assert len(cards) == 20
    shoot(page, f"hand20-{size}")
    widths = sorted(c["width"] for c in cards)
    heights = sorted(c["height"] for c in cards)
    print(
        f"\n{size}: 20 cards, uncovered strip width {widths[0]}..{widths[-1]} px,"
        f" height {heights[0]}..{heights[-1]} px, rows {page.get_attribute('#hand', 'data-rows')}"
    )
    for c in cards:
        assert c["clear"], f"card {c['card']}: its strip is not all uncovered"
        assert c["width"] >= STRIP_W and c["height"] >= STRIP_H, c
        # its rank, "10" included, lies whole inside the uncovered strip
        assert c["rankRight"] <= c["width"] and c["rankBottom"] <= c["height"], c
        assert not c["rankClipped"], c
    tens = [c for c in cards if 28 <= c["card"] < 32]
    assert all(c["rank"] == "10" for c in tens)
    # the whole hand is on the screen, and no part of the page scrolls to reach it
    box = page.eval_on_selector("#hand", "e => e.getBoundingClientRect().bottom")
    assert box <= SIZES[size]["height"]
    # the hand and the buttons fit without scrolling the page sideways or down
    overflow = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    assert overflow[0] <= SIZES[size]["width"] and overflow[1] <= SIZES[size]["height"]


#: What the play area shows, once its motion is done: the seat, the name line, the cards,
#: a card's height, and the height of a card played by a seat (None when there is none).
LEAD_SHOWN = """async () => {
  for (let i = 0; i < 50 && document.getAnimations().length; i++) {
    await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
  }
  if (document.getAnimations().length) return null;
  const lead = document.querySelector('#play-area .lead');
  if (!lead) return null;
  const small = document.querySelector('.seat .trick .card');
  const s = window.ddz.state();
  return {
    seat: Number(document.getElementById('play-area').dataset.seat),
    who: lead.querySelector('.lead-who').innerText,
    cards: [...lead.querySelectorAll('.card')].map((c) => Number(c.dataset.card)),
    height: lead.querySelector('.card').getBoundingClientRect().height,
    small: small ? small.getBoundingClientRect().height : null,
    last: s.trickOver ? null : s.room.table.last_play,
    names: s.room.seats.map((seat) => seat.name),
  };
}"""


def lead_shown(page: Any) -> dict[str, Any] | None:
    """What the play area shows; None when it is empty."""
    shown: dict[str, Any] | None = page.evaluate(LEAD_SHOWN)
    return shown


#: The trick is over and the middle is empty, or a new trick has begun.
TRICK_CLEARED = "() => !window.ddz.state().trickOver || !document.querySelector('#play-area .lead')"
TRICK_OVER_AND_CLEAR = (
    "() => window.ddz.state().trickOver && !document.querySelector('#play-area .lead')"
)
TRICK_STATE = "() => [window.ddz.state().trickOver, !!document.querySelector('#play-area .lead')]"


def test_the_play_to_beat_stands_in_the_middle_for_a_player_and_a_watcher(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server("--bid-timeout", "60", "--play-timeout", "60", "--bot-speed", "slow")
    player, frames = open_page(server.url, phone=True)
    click(player, "#create-start")
    player.wait_for_selector("#waiting:not([hidden])")
    code = player.inner_text("#room-code").strip()
    for _ in range(2):
        click(player, "#seat-bot")
        time.sleep(0.2)
    wait_until(lambda: player.is_hidden("#bot-panel"), what="two bots seated", page=player)
    watcher, watcher_frames = open_page(server.url)
    watcher.fill("#code", code)
    watcher.click("#watch-btn")
    watcher.wait_for_selector("#waiting:not([hidden])")
    click(player, "#wait-ready")
    player.wait_for_selector("#table:not([hidden])")
    watcher.wait_for_selector("#table:not([hidden])")
    seen = {"player": False, "watcher": False}
    deadline = time.monotonic() + 150  # slow bots, on a busy machine
    cleared = False
    while not (all(seen.values()) and cleared):
        assert time.monotonic() < deadline, f"saw {seen}, cleared {cleared}"
        table = (state(player)["room"] or {}).get("table") or {}
        for page in (player, watcher):
            if state(page)["trickOver"]:
                page.wait_for_function(TRICK_CLEARED)
                over, lead = page.evaluate(TRICK_STATE)
                cleared |= over and not lead and page is watcher
        if my_turn(player):
            if not cleared and state(player)["trickOver"]:
                # the player leads the next trick: until it does, the watcher's middle stays
                # empty (a bot's lead leaves seconds to see it, the player's none)
                watcher.wait_for_function(TRICK_OVER_AND_CLEAR, timeout=20_000)
                cleared = True
            play_hint(player)
        elif player.is_visible("#bid-buttons"):
            # the lowest bid left (a bot's bid of 1 takes "1" away: waiting for it to come
            # back waited out the 60 s bid clock, in one run of three)
            bids = ("#bid-1", "#bid-2", "#bid-3", "#bid-0")
            bid = next((b for b in bids if player.is_enabled(b)), None)
            if bid is not None:
                click(player, bid)
        for name, page in (("player", player), ("watcher", watcher)):
            on_screen = lead_shown(page)
            lead = on_screen and on_screen["last"]
            if on_screen and lead and on_screen["cards"] == sorted(lead["cards"]):
                assert on_screen["seat"] == lead["seat"]
                assert on_screen["names"][lead["seat"]] in on_screen["who"]
                # large in the middle: larger than a play by a seat
                if on_screen["small"] is not None:
                    assert on_screen["height"] > on_screen["small"] * 1.3, on_screen
                if not seen[name]:
                    shoot(page, f"play-area-{name}")
                seen[name] = True
        if table.get("phase") == "between_deals":
            break
        player.wait_for_timeout(40)
    assert seen["player"] and seen["watcher"]
    assert cleared, "the play area did not clear with the trick"
    assert watcher_frames.of_type("played") and frames.of_type("played")


def test_a_lobby_toast_does_not_follow_to_the_table(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    server = shared_server()
    page, _ = open_page(server.url, phone=True)
    page.fill("#name", "Ann")
    click(page, "#name-form button[type=submit]")
    page.wait_for_selector("#toast:has-text('Name changed')")
    page.wait_for_function(OPEN)
    page.wait_for_function(DRAWN)  # (a click while Start was still disabled did nothing)
    assert click(page, "#practice-start")
    page.wait_for_selector("#table:not([hidden])")
    assert page.is_hidden("#toast")


#: The desktop's layout of 17 cards left on the hand (as in the frame after a phone is
#: turned or a window narrowed, before fit.js has read the new width): how wide the page is
#: then, read before any frame passes.
STALE_HAND_SCROLL = """() => {
  document.getElementById('hand').style.gridTemplateColumns = 'repeat(16, 52px) 84px';
  return document.documentElement.scrollWidth;
}"""


def test_a_hand_laid_out_for_a_wider_screen_never_scrolls_the_page_sideways(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    server = shared_server()
    page, _ = open_page(server.url, phone=True)
    page.set_viewport_size(SIZES["portrait"])
    click(page, "#practice-start")
    page.wait_for_function("() => (window.ddz.state().room?.table?.hand.length ?? 0) >= 17")
    assert page.evaluate(STALE_HAND_SCROLL) <= SIZES["portrait"]["width"]
    # turned sideways and back, the hand is fitted to each width in turn
    fitted = "(h) => h.scrollWidth <= h.clientWidth"
    for size in ("desktop", "portrait"):
        page.set_viewport_size(SIZES[size])
        wait_until(
            lambda: page.eval_on_selector("#hand", fitted),
            what=f"the hand fitted to {size}",
            page=page,
        )
        assert page.evaluate("() => document.documentElement.scrollWidth") <= SIZES[size]["width"]


#: The word a play's kind pops over the middle, for every kind that has one, in the page's
#: language: where its left and right edges lie, and how wide the page is (a phone's browser
#: zooms the page out to show what sticks out, so the window's own width is no measure).
WORDS_OVERFLOW = """async () => {
  const base = document.querySelector('script[type=module]').src.replace(/app\\.js.*$/, '');
  const { kindName } = await import(base + 'i18n.js');
  const { ui } = await import(base + 'page.js');
  const box = document.getElementById('effect');
  const out = {};
  for (const kind of ['bomb', 'rocket', 'airplane', 'airplane_singles', 'airplane_pairs']) {
    const el = document.createElement('div');
    el.className = `word ${kind.startsWith('airplane') ? 'airplane' : kind}`;
    el.textContent = '✈ ' + kindName(ui.t, ui.lang, kind);
    box.replaceChildren(el);
    const r = el.getBoundingClientRect();
    out[kind] = [Math.round(r.left), Math.round(r.right), document.documentElement.scrollWidth];
  }
  box.replaceChildren();
  return out;
}"""


def test_the_word_of_an_airplane_fits_a_phone_held_upright_in_every_language(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    server = shared_server()
    page, _ = open_page(server.url, phone=True)
    page.set_viewport_size(SIZES["portrait"])
    click(page, "#practice-start")
    page.wait_for_selector("#table:not([hidden])")
    for lang in ("en", "zh", "de", "id"):
        set_language(page, lang)
        width = SIZES["portrait"]["width"]
        for kind, (left, right, page_width) in page.evaluate(WORDS_OVERFLOW).items():
            assert left >= 0 and right <= width and page_width <= width, (lang, kind, left, right)
