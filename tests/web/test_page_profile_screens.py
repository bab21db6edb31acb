"""The lasting player's screens at the three sizes in the four languages, written to
$DDZ_SCREENSHOTS for a person to look at (as test_page_screens.py does for the table): the
first visit's note, the profile with its code shown, the leaderboard, the code dialog, and
a refused code; on each, nothing sticks out sideways and every visible button is on
screen."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import click, state
from tests.web.test_page_ladder import seed_ladder
from tests.web.test_page_profile import open_profile, play_a_practice, prefix_of, show_code
from tests.web.test_page_screens import shoot_all

#: Every visible button of the open sheet lies within the screen from top to bottom too
#: (a sheet scrolls inside itself: its own buttons are checked once scrolled to).
BUTTONS_REACHABLE = """(id) => {
  const sheet = document.getElementById(id);
  const scroller = sheet.querySelector('.sheet-body');
  const h = window.innerHeight;
  const out = [];
  for (const b of sheet.querySelectorAll('button')) {
    if (b.closest('[hidden]')) continue;
    b.scrollIntoView({ block: 'nearest' });
    const r = b.getBoundingClientRect();
    if (r.top < -1 || r.bottom > h + 1) out.push(b.id || b.textContent);
  }
  scroller.scrollTop = 0;
  return out;
}"""


def scrolled(body: str, target: str | None) -> str:
    """A settle function for ``shoot_all``: the sheet's body scrolled to its top, or to
    ``target`` at its middle (each language draws it anew)."""
    if target is None:
        return f"() => {{ document.querySelector('{body}').scrollTop = 0; return true; }}"
    return (
        f"() => {{ document.querySelector('{target}')"
        ".scrollIntoView({ block: 'center' }); return true; }"
    )


def reachable(page: Any, sheet: str) -> None:
    assert page.evaluate(BUTTONS_REACHABLE, sheet) == [], sheet


def test_the_player_screens_at_three_sizes_in_four_languages(
    web_server: StartServer, open_page: OpenPage, redis_url: str
) -> None:
    server = web_server()
    page, _ = open_page(server.url)
    page.wait_for_selector("#first-visit:not([hidden])")
    shoot_all(page, "lobby-first-visit")
    match = play_a_practice(page)
    page.wait_for_selector(f'#history li[data-code="{match}"]')
    seed_ladder(redis_url, prefix_of(server), state(page)["me"]["playerId"])

    open_profile(page)
    page.wait_for_selector("#profile-rating:has-text('Rating')")
    shoot_all(page, "profile", scrolled("#profile-body", None))
    show_code(page)
    shoot_all(page, "profile-code", scrolled("#profile-body", "#key-box"))
    reachable(page, "profile")
    click(page, "#new-key")
    page.wait_for_selector("#new-key-confirm:not([hidden])")
    shoot_all(page, "profile-new-key", scrolled("#profile-body", "#new-key-confirm"))
    page.keyboard.press("Escape")  # the armed new code first
    page.wait_for_selector("#new-key-confirm", state="hidden")
    page.keyboard.press("Escape")
    page.wait_for_selector("#profile", state="hidden")

    click(page, "#ladder-open")
    page.wait_for_selector("#ladder-loading", state="hidden")
    shoot_all(page, "ladder")
    reachable(page, "ladder")
    shoot_all(page, "ladder-me", scrolled("#ladder-body", "#ladder-rows tr.me"))
    click(page, "#ladder-close")
    page.wait_for_selector("#ladder", state="hidden")

    open_profile(page)
    code, link = show_code(page)
    click(page, "#profile-code")
    page.wait_for_selector("#code-dialog:not([hidden])")
    page.fill("#key-input", "not a code")
    click(page, "#code-use")
    page.wait_for_selector("#key-error:not(:empty)")
    shoot_all(page, "code-dialog")
    click(page, "#code-cancel")
    page.keyboard.press("Escape")
    page.wait_for_selector("#profile", state="hidden")

    # the code goes on elsewhere and is replaced there: this page is refused
    other, _ = open_page(link, phone=True)
    page.wait_for_selector("#play-here:not([hidden])")
    shoot_all(page, "elsewhere")
    open_profile(other)
    show_code(other)
    click(other, "#new-key")
    click(other, "#new-key")
    other.wait_for_selector("#toast:has-text('New code made')")
    click(page, "#play-here")
    page.wait_for_selector("#refused-choices:not([hidden])")
    shoot_all(page, "refused")
    assert code not in page.content()
