"""The phone's last gaps (issue 34), on a phone upright (390x844) and sideways (844x390):
the first timeout's warning leaves the player's own seat in sight; upright, the two-row
hand takes the felt that stood empty mid-screen; sideways, the Landlord/Farmer words and
the kitty's label show, and the result sheet's Total row clears its buttons' fade; the
page keeps to the safe area of a notched phone. Screenshots in $DDZ_SCREENSHOTS."""

from __future__ import annotations

from typing import Any

from tests.web.browser import shoot, wait_until
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import click, settle, shown, state
from tests.web.table_helpers import SIZES, my_turn
from tests.web.test_page_screens import play_until

#: Insets of a notched phone held sideways (the notch on the left, the home bar below).
NOTCH = {"top": 0, "left": 47, "bottom": 21, "right": 47}

#: A box of the page: left, top, right, bottom.
BOX = """(sel) => {
  const e = document.querySelector(sel);
  if (!e) return null;
  const r = e.getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom];
}"""


def box(page: Any, selector: str) -> list[float]:
    found: list[float] | None = page.evaluate(BOX, selector)
    assert found is not None, selector
    return found


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def to_the_table(page: Any) -> None:
    """A private room of mine with two easy bots, started."""
    click(page, "#create-start")
    page.wait_for_selector("#waiting:not([hidden])")
    page.select_option("#bot-level", "easy")
    click(page, "#seat-bot")
    wait_until(lambda: "easy bot" in page.inner_text("#wait-seats"), what="a bot", page=page)
    click(page, "#seat-bot")
    wait_until(lambda: page.is_hidden("#bot-panel"), what="the room full", page=page)
    click(page, "#wait-ready")
    page.wait_for_selector("#table:not([hidden])")


def test_the_timeout_warning_leaves_my_seat_in_sight_and_the_hand_takes_the_room(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server(
        "--bid-timeout", "1", "--play-timeout", "60", "--ready-timeout", "60",
        "--bot-speed", "fast",
    )  # fmt: skip
    page, _ = open_page(server.url, phone=True)
    to_the_table(page)
    page.wait_for_selector("#timeout-warning:not([hidden])", timeout=30_000)
    for size in ("portrait", "landscape"):
        page.set_viewport_size(SIZES[size])
        settle(page)
        shoot(page, f"phone-timeout-warning-{size}")
        warning, me = box(page, "#timeout-warning"), box(page, "#pos-0")
        assert not overlap(warning, me), (size, warning, me)
        if size == "portrait":  # nor the play to beat, above it
            for lead in page.query_selector_all("#play-area .lead"):
                found = lead.bounding_box()
                lead_box = [
                    found["x"],
                    found["y"],
                    found["x"] + found["width"],
                    found["y"] + found["height"],
                ]
                assert not overlap(warning, lead_box), (warning, lead_box)
    # sideways: the roles in words (not only the avatar's ♛ and ☘), the kitty labelled
    wait_until(lambda: state(page)["room"]["table"]["landlord"] is not None, page=page)
    settle(page)
    shoot(page, "phone-roles-landscape")
    for badge in (".badge.landlord", ".badge.farmer"):
        left, top, right, bottom = box(page, f"#table {badge}")
        assert right - left > 30 and bottom - top > 10, (badge, right - left)
    label = box(page, ".kitty-box .label")
    assert label[2] - label[0] > 20 and page.is_visible(".kitty-box .label")
    # upright: the two rows of my hand are taller than the 100 px cards that left a band of
    # empty felt mid-screen, and still fit the screen
    page.set_viewport_size(SIZES["portrait"])
    settle(page)
    shoot(page, "phone-hand-portrait")

    def heights() -> list[float]:
        found: list[float] = page.eval_on_selector_all(
            "#hand > .card", "els => els.map(e => e.getBoundingClientRect().height)"
        )
        return found

    # (once the hand is laid out for the new size: a card caught mid-change measured 0 once)
    wait_until(lambda: bool(heights()) and min(heights()) >= 116, timeout=5, page=page)
    cards = heights()
    assert cards and min(cards) >= 116, cards
    hand = box(page, "#hand")
    assert hand[3] <= SIZES["portrait"]["height"] + 1
    assert page.evaluate("() => document.documentElement.scrollHeight") <= 844 + 1


def test_sideways_the_total_row_clears_the_fade_and_a_notch_hides_nothing(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server()
    page, _ = open_page(server.url, phone=True)
    page.set_viewport_size(SIZES["landscape"])
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setSafeAreaInsetsOverride", {"insets": NOTCH})
    page.check("#practice-form input[name=deals][value='1']")
    page.select_option("#practice-form select[name=speed]", "instant")
    click(page, "#practice-start")
    page.wait_for_selector("#table:not([hidden])")
    play_until(page, lambda: my_turn(page) or shown(page, "#result"), "my turn or the end")
    page.wait_for_timeout(300)
    shoot(page, "phone-notch-landscape")
    width, height = SIZES["landscape"]["width"], SIZES["landscape"]["height"]
    for selector in ("#pos-2", "#pos-0", "#hand > .card", "#controls"):
        left, _, _, bottom = box(page, selector)
        assert left >= NOTCH["left"] - 1, (selector, left)
        assert bottom <= height - NOTCH["bottom"] + 1, (selector, bottom)
    for selector in ("#pos-1", "#hand > .card:last-child"):
        assert box(page, selector)[2] <= width - NOTCH["right"] + 1, selector
    cdp.send("Emulation.setSafeAreaInsetsOverride", {"insets": {}})
    play_until(page, lambda: shown(page, "#result"), "the match's end")
    page.wait_for_timeout(300)
    page.evaluate(
        "() => { const s = document.getElementById('result-sheet'); s.scrollTop = s.scrollHeight; }"
    )
    page.wait_for_timeout(100)
    shoot(page, "phone-result-landscape")
    total = box(page, "#result-rows tr:last-child")
    foot = box(page, "#result .sheet-foot")
    # the foot's fade reaches 10 px above it: the Total row ends above that
    assert total[3] <= foot[1] - 10, (total, foot)
