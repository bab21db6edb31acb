"""Every screen of the page at the three sizes (a phone upright and sideways, a desktop) in
the four languages, written to $DDZ_SCREENSHOTS for a person to look at; on each, nothing
sticks out of the screen sideways and every visible button lies within it."""

from __future__ import annotations

import time
from typing import Any

from tests.web.browser import shoot, wait_until
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import click, shown, state
from tests.web.table_helpers import (
    SIZES,
    leave,
    my_turn,
    open_settings,
    play_hint,
    set_language,
)

LANGS = ["en", "zh", "de", "id"]

#: Visible buttons and menus whose box reaches outside the viewport (by more than a pixel),
#: and how far the page scrolls sideways.
OFF_SCREEN = """() => {
  const w = window.innerWidth;
  const out = [...document.querySelectorAll('button, select, a')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && e.closest('[hidden]') === null
      && (r.left < -1 || r.right > w + 1);
  }).map((e) => e.id || e.textContent.trim());
  const wide = [...document.querySelectorAll('body *')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.right > w + 1;
  }).slice(-4).map((e) => `${e.tagName}#${e.id}.${e.className}:${e.getBoundingClientRect().right}`);
  return { out, scroll: document.documentElement.scrollWidth - w, wide };
}"""


#: A sheet made taller than the screen (a spacer before its buttons, as a long result is) and
#: scrolled to its top: what lies just above its bottom edge, across it. Nothing scrolled may
#: show below its buttons: the names of any other elements hit there.
UNDER_THE_BUTTONS = """(id) => {
  const sheet = document.getElementById(id);
  const spacer = document.createElement('div');
  spacer.style.height = '2000px';
  sheet.querySelector('.sheet-foot').before(spacer);
  sheet.scrollTop = 0;
  const r = sheet.getBoundingClientRect();
  const found = [0.1, 0.3, 0.5, 0.7, 0.9].map((f) => {
    const hit = document.elementFromPoint(r.left + r.width * f, r.bottom - 3);
    return hit && hit.closest('.sheet-foot') ? null : hit && hit.tagName;
  }).filter((x) => x !== null);
  spacer.remove();
  return found;
}"""


def nothing_shows_under_the_buttons(page: Any, sheet: str) -> None:
    """At every size, the buttons of a sheet taller than the screen reach its bottom edge."""
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        assert page.evaluate(UNDER_THE_BUTTONS, sheet) == [], (sheet, size)
    page.set_viewport_size(SIZES["desktop"])


#: ``settle`` (a function's source) until it holds, a frame more (for what is laid out on
#: a resize), then OFF_SCREEN: one round trip before each screenshot, not three.
SETTLED_THEN_OFF_SCREEN = """async () => {{
  const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
  const settle = {settle};
  while (!settle()) await frame();
  await frame();
  return ({off_screen})();
}}"""


def shoot_all(page: Any, screen: str, settle: str = "() => true") -> None:
    """This screen in every language at every size; each checked for what sticks out."""
    look = SETTLED_THEN_OFF_SCREEN.format(settle=settle, off_screen=OFF_SCREEN)
    for lang in LANGS:
        set_language(page, lang)
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            found = page.evaluate(look)
            shoot(page, f"screen-{screen}-{size}-{lang}")
            assert not found["out"] and found["scroll"] <= 0, (screen, size, lang, found)
    set_language(page, "en")
    page.set_viewport_size(SIZES["desktop"])


def play_until(page: Any, done: Any, what: str) -> None:
    deadline = time.monotonic() + 120
    while not done():
        assert time.monotonic() < deadline, f"never reached {what}"
        if shown(page, "#bid-buttons") and page.is_enabled("#bid-3"):
            click(page, "#bid-3")
        elif shown(page, "#bid-buttons") and page.is_enabled("#bid-0"):
            click(page, "#bid-0")
        elif my_turn(page):
            play_hint(page)
        page.wait_for_timeout(30)


def test_every_screen_at_three_sizes_in_four_languages(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server()
    page, _ = open_page(server.url)
    shoot_all(page, "lobby")
    # the waiting room of a private room
    click(page, "#create-start")
    page.wait_for_selector("#waiting:not([hidden])")
    shoot_all(page, "waiting")
    leave(page)
    # a practice of three deals: bidding, my turn with a hint, the settings, the summary
    page.check("#practice-form input[name=deals][value='3']")
    page.select_option("#practice-form select[name=speed]", "instant")
    click(page, "#practice-start")
    page.wait_for_selector("#table:not([hidden])")
    wait_until(lambda: shown(page, "#bid-buttons"), what="my bid", page=page)
    shoot_all(page, "bidding")
    play_until(page, lambda: my_turn(page), "my turn to play")
    click(page, "#hint")
    page.wait_for_function("() => !document.getElementById('play').disabled")
    shoot_all(page, "playing")
    open_settings(page)
    shoot_all(page, "settings")
    click(page, "#settings-close")
    play_until(page, lambda: shown(page, "#summary"), "the summary")
    shoot_all(page, "summary")
    nothing_shows_under_the_buttons(page, "summary-sheet")
    click(page, "#summary-ready")
    leave(page)
    # a practice of one deal to its end: the result, its replay, the lobby's history
    page.check("#practice-form input[name=deals][value='1']")
    click(page, "#practice-start")
    page.wait_for_selector("#table:not([hidden])")
    play_until(page, lambda: shown(page, "#result"), "the match's end")
    shoot_all(page, "result")
    nothing_shows_under_the_buttons(page, "result-sheet")
    wait_until(lambda: page.is_enabled("#result-replay"), what="the replay", page=page)
    click(page, "#result-replay")
    page.wait_for_selector("#replay:not([hidden])")
    for _ in range(6):
        click(page, "#replay-next")
    shoot_all(page, "replay")
    # the replay's Next stays where it is from step to step, on the screen, at every size
    for viewport in SIZES.values():
        page.set_viewport_size(viewport)
        click(page, "#replay-first")
        spots = set()
        for _ in range(8):
            box = page.eval_on_selector(
                "#replay-next",
                "e => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.bottom]; }",
            )
            assert box[2] <= viewport["height"], (viewport, box)
            spots.add((box[0], box[1]))
            click(page, "#replay-next")
        assert len(spots) == 1, (viewport, spots)
    page.set_viewport_size(SIZES["desktop"])
    click(page, "#replay-close")
    click(page, "#to-lobby")
    wait_until(lambda: state(page)["room"] is None, what="the lobby", page=page)
    page.wait_for_selector("#history li[data-code]")
    shoot_all(page, "lobby-history")
