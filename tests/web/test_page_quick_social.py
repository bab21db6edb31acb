"""A rated quick match that starts (two people in the queue, a bot for the third seat after
a short wait), with a watcher: the opponents' tiers by their names; quick chat between the
seats (a bubble by the seat on every page, read out, muted on one), the watcher with no
chat button; the match played to its end by clicks; its rating change on each player's
result sheet; Play again, and the other player's rematch offer accepted. No page ever
holds a card of a hand hidden from it, chat and rematch included, nor another's key.
(One match for both what a quick match's people see and its rating, which
test_page_ladder.py checked on a match of its own: a quick match is three deals.)"""

from __future__ import annotations

import random
import time
from typing import Any

import redis

from server.store.keys import Keys
from tests.web.browser import Frames, shoot, wait_until
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import act, allowed_now, dom_cards, hidden_cards, shown, state
from tests.web.table_helpers import open_settings
from tests.web.test_page_ladder import RATING_CHANGE
from tests.web.test_page_profile import key_of, keys_in, prefix_of
from tests.web.test_page_room import name_and_wait
from tests.web.test_page_screens import shoot_all

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


def test_quick_match_chat_rating_rematch_and_hidden_cards(
    web_server: StartServer, open_page: OpenPage, redis_url: str
) -> None:
    server = web_server("--quick-match-wait", "1", "--bot-speed", "instant")
    ann, ann_frames = open_page(server.url)
    name_and_wait(ann, "Ann")
    bo, bo_frames = open_page(server.url, phone=True)
    name_and_wait(bo, "Bo")
    # each has one rated match behind them (a new player's rating): a tier to show
    keys = Keys(prefix_of(server))
    client = redis.Redis.from_url(redis_url)
    try:
        for page in (ann, bo):
            rated: dict[str, str | float] = {"mu": 25.0, "sigma": 8.0, "matches": 1}
            client.hset(keys.rating(state(page)["me"]["playerId"]), mapping=rated)
    finally:
        client.close()
    ann.click("#quick-start")
    bo.tap("#quick-start")
    for page in (ann, bo):
        page.wait_for_selector("#table:not([hidden])", timeout=20_000)
        # the opponent's tier by their name (issue 34), never my own
        page.wait_for_selector(".seat:not(.pos-0) .badge.tier:text-is('Gold')")
        assert page.query_selector(".pos-0 .badge.tier") is None
    shoot(bo, "quick-match-tiers-390x844")
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

    # the match by clicks, every page's DOM checked for hidden cards as it goes; the people
    # bid 3 as soon as they may: a deal is rated only with a person on each side, so the bot
    # must not be the landlord of every deal (it was, in one run in a few dozen)
    rng = random.Random(14)
    deadline = time.monotonic() + 150
    pages = {"Ann": (ann, ann_frames), "Bo": (bo, bo_frames)}
    while not all(shown(p, "#result") for p, _ in pages.values()):
        assert time.monotonic() < deadline, "the match did not end"
        acted = False
        for name, (page, frames) in pages.items():
            acted |= bool(act(page, rng, bid="#bid-3", pass_rate=0.3))
            check_dom(page, frames, name)
        check_dom(watcher, watcher_frames, "the watcher")
        if not acted:
            ann.wait_for_timeout(20)

    # the rating's change on each player's result sheet
    for page in (ann, bo):
        page.wait_for_selector("#result-rating:not([hidden])", timeout=30_000)
        change = state(page)["ratingChange"]
        assert change["code"] == state(page)["room"]["code"]
        text = page.inner_text("#result-rating")
        assert RATING_CHANGE.match(text), text
        up = change["after"]["points"] >= change["before"]["points"]
        assert ("(+" in text) == up
        assert change["after"]["matches"] == 2  # (one before it)
    shoot_all(ann, "result-rating")
    # nobody's key reached another player or the watcher: each page's own came in its own
    # welcome only
    page_keys = {name: key_of(page) for name, page in (("ann", ann), ("bo", bo), ("w", watcher))}
    page_frames = {"ann": ann_frames, "bo": bo_frames, "w": watcher_frames}
    for name, got in page_frames.items():
        for owner, key in page_keys.items():
            assert key
            found = keys_in(got, {key})
            assert found == ([("welcome", key)] if owner == name else []), (name, owner)

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
