"""A quick match that starts (two people in the queue, a bot for the third seat after a
short wait), with a watcher: quick chat between the seats (a bubble by the seat on every
page, read out, muted on one), the watcher with no chat button; the match played to its
end by clicks; Play again, and the other player's rematch offer accepted. No page ever
holds a card of a hand hidden from it, chat and rematch included."""

from __future__ import annotations

import random
import time
from typing import Any

from tests.web.browser import Frames, shoot, wait_until
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import act, allowed_now, dom_cards, hidden_cards, shown, state
from tests.web.table_helpers import open_settings
from tests.web.test_page_room import name_and_wait

#: Looks at a page's DOM before cards it may not know count as shown: a frame just in may
#: not be drawn yet (a new deal over the last one's summary, a part redrawn on its next
#: frame), so the page gets about a second to draw what it has received.
DOM_LOOKS = 7


def check_dom(page: Any, frames: Frames, who: str) -> None:
    """No card in the page's DOM that its frames have not made its own or public, once the
    page has drawn what it received."""
    for _ in range(DOM_LOOKS):
        extra = dom_cards(page) - allowed_now(frames)
        if not extra:
            return
        page.wait_for_timeout(150)
    where = page.evaluate(
        """(ids) => ids.map((id) => [...document.querySelectorAll(`[data-card="${id}"]`)]
            .map((e) => `${(e.closest("[id]") || e).id}.${e.parentElement?.className}`)
            .join(" | "))""",
        sorted(extra),
    )
    raise AssertionError(f"{who}'s page shows hidden cards {extra} (in {where})")


def test_quick_match_chat_rematch_and_hidden_cards(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server("--quick-match-wait", "1", "--bot-speed", "instant")
    ann, ann_frames = open_page(server.url)
    name_and_wait(ann, "Ann")
    bo, bo_frames = open_page(server.url, phone=True)
    name_and_wait(bo, "Bo")
    ann.click("#quick-start")
    bo.tap("#quick-start")
    for page in (ann, bo):
        page.wait_for_selector("#table:not([hidden])", timeout=20_000)
    code = state(ann)["room"]["code"]
    assert state(bo)["room"]["code"] == code and state(ann)["room"]["mode"] == "quick"
    kinds = sorted(s["kind"] for s in state(ann)["room"]["seats"])
    assert kinds == ["bot", "person", "person"]  # the bot came after the short wait
    # a watcher, by the code typed in lower case
    watcher, watcher_frames = open_page(server.url)
    watcher.fill("#code", code.lower())
    watcher.click("#watch-btn")
    watcher.wait_for_selector("#table:not([hidden])")
    assert watcher.is_hidden("#chat-open")  # watchers see chat but do not chat
    ann_seat = state(ann)["room"]["your_seat"]

    # Ann says a phrase: a bubble by her seat on Bo's page and the watcher's, read out
    ann.click("#chat-open")
    ann.click('#chat-panel button[data-phrase="good_luck"]')
    for page in (bo, watcher):
        page.wait_for_selector(f'.seat[data-seat="{ann_seat}"] .bubble:text-is("Good luck!")')
        assert page.inner_text("#chat-announce") == "Ann: Good luck!"
    shoot(bo, "chat-bubble-phone")
    # Bo mutes chat (kept in this browser): Ann's next phrase shows to the watcher only
    open_settings(bo)
    bo.tap("#mute-toggle")
    ann.click("#chat-open")
    ann.click('#chat-panel button[data-phrase="laugh"]')
    watcher.wait_for_selector(f'.seat[data-seat="{ann_seat}"] .bubble.emote')
    wait_until(lambda: len(bo_frames.of_type("chat_said")) == 2, what="the phrase", page=bo)
    assert bo.locator(".seat .bubble").count() in (0, 1)  # only the first, if still shown
    assert bo.locator('.seat .bubble[data-phrase="laugh"]').count() == 0
    assert bo.evaluate("() => JSON.parse(localStorage.getItem('ddz.prefs')).mute")

    # the match by clicks, every page's DOM checked for hidden cards as it goes
    rng = random.Random(14)
    deadline = time.monotonic() + 120
    pages = {"Ann": (ann, ann_frames), "Bo": (bo, bo_frames)}
    while not all(shown(p, "#result") for p, _ in pages.values()):
        assert time.monotonic() < deadline, "the match did not end"
        acted = False
        for name, (page, frames) in pages.items():
            acted |= bool(act(page, rng, pass_rate=0.3))
            check_dom(page, frames, name)
        check_dom(watcher, watcher_frames, "the watcher")
        if not acted:
            ann.wait_for_timeout(20)

    # Play again: Bo is asked, with a countdown, and accepts
    ann.wait_for_selector("#again:enabled")
    ann.click("#again")
    bo.wait_for_selector("#rematch-prompt:not([hidden])")
    assert "Ann wants a rematch" in bo.inner_text("#rematch-prompt")
    wait_until(lambda: "s to accept" in bo.inner_text("#rematch-clock"), what="the countdown")
    shoot(bo, "rematch-prompt-phone")
    bo.tap("#rematch-accept")
    for page in (ann, bo):
        page.wait_for_selector("#table:not([hidden])")
        wait_until(
            lambda page=page: (
                (state(page)["room"] or {}).get("code") not in (None, code)
                and (state(page)["room"]["table"] or {}).get("hand")
            ),
            what="the rematch dealt",
            page=page,
        )
    assert state(ann)["room"]["code"] == state(bo)["room"]["code"]
    assert bo.is_hidden("#rematch-prompt") and bo.is_hidden("#result")
    for name, (page, frames) in pages.items():
        check_dom(page, frames, name)  # nothing of the old match's hands stays
        assert hidden_cards(frames) == set(), name
    assert hidden_cards(watcher_frames) == set()
