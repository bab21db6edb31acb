"""The table by keyboard and for a screen reader, smart pick, and the page's words, in
Chromium: a trick played with the table's keys with the focus checked after each action;
a swipe that smart-picks the play in it, and the setting that turns it off, remembered;
the legality line and the plays of others as a screen reader hears them; dialogs that take
the focus; a Chinese table (bots' names, one title, jokers as 大王 / 小王)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from protocol import Play, Rank, classify, legal_plays
from tests.web.browser import Frames, wait_until
from tests.web.conftest import OPEN, OpenPage, StartServer
from tests.web.driver import RANK_WORDS, state
from tests.web.table_helpers import HINTED, play_hint

#: The words an English screen reader hears for a rank (the plural forms start with them).
SAID = {**{r: RANK_WORDS[r - 3] for r in range(3, 16)}, 16: "small joker", 17: "big joker"}


def focused(page: Any) -> str:
    """What has the keyboard focus: an element id, ``card`` for a card of the hand."""
    result: str = page.evaluate(
        """() => { const e = document.activeElement;
                   if (!e || e === document.body) return 'body';
                   if (e.closest('#hand') && e.dataset.card) return 'card';
                   return e.id || e.tagName; }"""
    )
    return result


def start_practice(page: Any, deals: str = "1") -> None:
    page.check(f"#practice-form input[name=deals][value='{deals}']")
    page.select_option("#practice-form select[name=level]", "easy")
    page.select_option("#practice-form select[name=speed]", "instant")
    page.click("#practice-start")
    page.wait_for_selector("#table:not([hidden])")


#: Whether any bid button may be used now (Pass is not, when the player must bid).
ANY_BID = "() => [...document.querySelectorAll('#bid-buttons button')].some((b) => !b.disabled)"


def my_turn(page: Any, action: str) -> bool:
    """My bid or play turn, with its buttons ready to use. (A selector of two buttons
    asks the first alone: when the player must bid, Pass is disabled, and the turn was
    never seen, so never answered: 90 s on "the first deal did not end".)"""
    if action == "bid":
        return bool(page.is_visible("#bid-buttons") and page.evaluate(ANY_BID))
    return bool(page.is_visible("#play-buttons") and page.is_enabled("#hint"))


def listen_to_announcements(page: Any) -> None:
    """Keep every text the page's polite live region (#announce) says, in order."""
    page.evaluate(
        """() => { window.__said = [];
                   new MutationObserver(() => window.__said.push(
                       document.getElementById('announce').textContent))
                     .observe(document.getElementById('announce'),
                              {childList: true, characterData: true, subtree: true}); }"""
    )


def said(page: Any) -> list[str]:
    result: list[str] = page.evaluate("() => window.__said")
    return result


def trick_ended_after_a_bot_played(messages: list[dict[str, Any]]) -> bool:
    bot = next((i for i, m in enumerate(messages) if m["type"] == "played" and m["seat"]), None)
    return bot is not None and any(
        m["type"] == "passed" and m["trick_over"] for m in messages[bot:]
    )


def more_than(frames: Frames, count: int) -> Callable[[], bool]:
    """Whether more than ``count`` frames came."""
    return lambda: len(frames.messages) > count


def seat_name(page: Any, seat: int) -> str:
    name: str = state(page)["room"]["seats"][seat]["name"]
    return name


def test_a_trick_by_keyboard_keeps_the_focus_on_the_hand(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server()
    page, frames = open_page(server.url)
    start_practice(page)
    listen_to_announcements(page)
    # bid by its key when my turn to bid comes (the bots may have settled it before)
    wait_until(
        lambda: my_turn(page, "bid") or my_turn(page, "play") or bool(frames.of_type("landlord")),
        what="a turn",
        page=page,
    )
    if my_turn(page, "bid"):
        assert focused(page) == "card", "my turn with the focus nowhere: it goes to my hand"
        page.keyboard.press("3" if page.is_enabled("#bid-3") else "0")
        assert focused(page) == "card", "after a bid the focus stays at the hand"
    deadline = time.monotonic() + 60
    while not my_turn(page, "play"):
        assert time.monotonic() < deadline, "no turn of mine to play"
        if my_turn(page, "bid"):
            # (no pass for the player who must bid, after three deals nobody bid on)
            may_pass = page.is_visible("#bid-0") and page.is_enabled("#bid-0")
            page.keyboard.press("0" if may_pass else "1")
        page.wait_for_timeout(30)
    assert focused(page) == "card"
    heard_from = len(frames.messages)  # the bots' plays from here on were listened to
    # the hand comes first: one Tab to the buttons, one Shift+Tab back
    page.keyboard.press("Tab")
    assert focused(page) in ("pass", "hint")
    page.keyboard.press("Shift+Tab")
    assert focused(page) == "card"
    # a verdict is a live region: a screen reader hears it when a pick changes it
    legality = page.locator("#legality")
    assert legality.get_attribute("role") == "status"
    assert legality.get_attribute("aria-live") == "polite"
    turns = 0
    # a trick or more, to one that ends after a bot played in it
    while not (turns and trick_ended_after_a_bot_played(frames.messages[heard_from:])):
        assert time.monotonic() < deadline, "no trick ended with a bot's play in it"
        if not my_turn(page, "play"):
            page.wait_for_timeout(30)
            continue
        before = len(frames.messages)
        page.keyboard.press("h")  # Hint
        assert focused(page) == "card", "after Hint the focus is on the hand"
        page.wait_for_function(HINTED)  # its plays come from a worker
        level = legality.get_attribute("data-level")
        assert level == "ok" or page.is_enabled("#pass"), "Hint picks a play, or says pass"
        page.keyboard.press("p" if page.is_enabled("#play") else "s")  # Play or Pass
        assert focused(page) == "card", "after Play or Pass the focus is on the hand"
        wait_until(more_than(frames, before), what="an answer", page=page)
        page.wait_for_timeout(50)  # the answer drawn: my played cards leave the hand
        assert focused(page) == "card", "the focus stays in the hand as its cards go"
        turns += 1
    assert turns >= 1
    # others' plays were said with their cards, by name ("normal bot 1: pair of eights")
    later = frames.messages[heard_from:]
    others = [m for m in later if m["type"] == "played" and m["seat"] != 0]
    lines = said(page)
    for m in others:
        ranks = sorted(int(c) // 4 + 3 if c < 52 else c - 36 for c in m["cards"])
        play = classify(Rank(r) for r in ranks)
        assert play is not None
        word = "rocket" if m["kind"] == "rocket" else SAID[int(play.rank)]
        line = f"{seat_name(page, m['seat'])}: "
        assert any(s.startswith(line) and word in s for s in lines), (m, lines)
    passes = [m for m in later if m["type"] == "passed" and m["seat"] != 0]
    assert all(f"{seat_name(page, m['seat'])} passes" in lines for m in passes), lines


# --- smart pick -------------------------------------------------------------------------------


def smart_pick(picked: list[Rank], to_beat: Play | None) -> list[Rank] | None:
    """The play a swipe over ``picked`` (all of them picked by it) smart-picks, as the page's
    rule says (rules.js smartPick), written again here from protocol's legal plays."""
    whole = classify(picked)
    if not picked or (whole is not None and (to_beat is None or whole.beats(to_beat))):
        return None
    found = legal_plays(picked, to_beat)
    if not found:
        return None
    order = {p: i for i, p in enumerate(found)}
    if to_beat is not None:
        best = min(found, key=lambda p: (p.is_bomb_like, -len(p.cards), order[p]))
        return list(best.cards)
    best = min(found, key=lambda p: (-len(p.cards), p.is_bomb_like, order[p]))
    return list(best.cards) if len(best.cards) * 2 > len(picked) else None


def rank_of(card: int) -> Rank:
    return Rank(card // 4 + 3) if card < 52 else Rank(card - 36)


def table_play(page: Any) -> Play | None:
    last = state(page)["room"]["table"]["last_play"]
    return None if last is None else classify(rank_of(c) for c in last["cards"])


def swipe(page: Any, first: int, count: int) -> None:
    boxes = page.eval_on_selector_all(
        "#hand .card",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left + r.width / 2, r.top + r.height / 2]; })",
    )
    points = boxes[first : first + count]
    page.mouse.move(*points[0])
    page.mouse.down()
    for x, y in points[1:]:
        page.mouse.move(x, y, steps=4)
    page.mouse.up()


def set_smart_pick(page: Any, on: bool) -> None:
    """Switch smart pick in the settings panel, and close it."""
    page.click("#settings-open")
    page.set_checked("#smartpick-toggle", on)
    page.click("#settings-close")


def smart_pick_on(page: Any) -> bool:
    return bool(page.is_checked("#smartpick-toggle"))


def picked(page: Any) -> list[int]:
    ids: list[str] = page.eval_on_selector_all(
        "#hand [aria-selected=true]", "els => els.map(e => e.dataset.card)"
    )
    return sorted(int(i) for i in ids)


def a_window_to_swipe(hand: list[int], to_beat: Play | None) -> tuple[int, int, list[Rank]] | None:
    """Cards side by side in the hand (the longest first) that are no play to make but
    hold one: where they start, how many, and the ranks smart pick makes of them."""
    for count in range(min(8, len(hand)), 1, -1):
        for first in range(len(hand) - count + 1):
            ranks = [rank_of(c) for c in hand[first : first + count]]
            pick = smart_pick(ranks, to_beat)
            if pick is not None:
                return first, count, pick
    return None


def test_a_swipe_smart_picks_the_play_in_it_unless_switched_off(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server()
    page, frames = open_page(server.url)
    start_practice(page)
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "no turn where a swipe could be smart-picked"
        if my_turn(page, "bid"):
            page.click("#bid-3" if page.is_enabled("#bid-3") else "#bid-1")
        if not my_turn(page, "play"):
            page.wait_for_timeout(30)
            continue
        hand = state(page)["room"]["table"]["hand"]
        window = a_window_to_swipe(hand, table_play(page))
        if window is not None:
            break
        play_hint(page)  # nothing to show here: play on (or pass) to the next turn
        page.wait_for_timeout(100)
    first, count, expected = window
    swiped = hand[first : first + count]
    swipe(page, first, count)
    got = picked(page)
    assert set(got) <= set(swiped), "smart pick takes only swiped cards"
    assert sorted(rank_of(c) for c in got) == sorted(expected), (swiped, got, expected)
    assert page.get_attribute("#legality", "data-level") == "ok"
    # switched off, and still off after a reload: the swipe picks what it crossed
    assert smart_pick_on(page), "smart pick is on by default"
    set_smart_pick(page, False)
    page.reload()
    page.wait_for_function(OPEN)
    wait_until(lambda: my_turn(page, "play"), what="my turn after the reload", page=page)
    assert not smart_pick_on(page)
    assert state(page)["room"]["table"]["hand"] == hand
    swipe(page, first, count)
    assert picked(page) == sorted(swiped)
    assert_nothing_refused(frames)


def assert_nothing_refused(frames: Frames) -> None:
    """The page never sent a play the server refused while smart pick picked for it."""
    refused = [
        m for m in frames.of_type("error") if m.get("code") in ("not_a_play", "does_not_beat")
    ]
    assert not refused, refused


# --- dialogs and words ------------------------------------------------------------------------


#: The bid buttons as the page shows them: id, hidden, disabled, laid out.
BID_BUTTONS = """() => [...document.querySelectorAll('#bid-buttons, #bid-buttons button')].map(
  (b) => [b.id, b.hidden, b.disabled, b.getClientRects().length > 0])"""


def test_dialogs_take_the_focus_and_give_it_back(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server()
    page, _ = open_page(server.url)
    start_practice(page, deals="3")
    wait_until(lambda: focused(page) == "card" or my_turn(page, "play"), what="a turn", page=page)
    page.locator("#hand .card").first.focus()
    # the keys' help: "?" opens it with the focus in it, Tab stays in it, Esc gives it back
    page.keyboard.press("?")
    page.wait_for_selector("#keys:not([hidden])")
    assert page.get_attribute("#keys", "aria-modal") == "true"
    assert page.get_attribute("#keys", "role") == "dialog"
    assert focused(page) == "keys-close"
    assert "P plays the picked cards; S passes; H hints" in page.inner_text("#keys")
    assert page.get_attribute("#play", "aria-keyshortcuts") == "P"
    page.keyboard.press("Tab")
    assert focused(page) == "keys-close", "Tab stays inside a modal dialog"
    page.keyboard.press("Escape")
    assert page.is_hidden("#keys")
    assert focused(page) == "card", "closed: the focus is back where it was"
    # the deal's summary takes the focus on its Ready button
    deadline = time.monotonic() + 90
    while not page.is_visible("#summary"):
        assert time.monotonic() < deadline, "the first deal did not end: " + json.dumps(
            {
                "focus": focused(page),
                "conn": state(page)["conn"],
                "table": {
                    k: v
                    for k, v in ((state(page)["room"] or {}).get("table") or {}).items()
                    if k in ("phase", "turn", "bids", "forced_bid", "landlord", "card_counts")
                },
                "buttons": page.evaluate(BID_BUTTONS),
            }
        )
        if my_turn(page, "bid"):
            # (no pass for the player who must bid, after three deals nobody bid on)
            may_pass = page.is_visible("#bid-0") and page.is_enabled("#bid-0")
            page.keyboard.press("0" if may_pass else "1")
        elif my_turn(page, "play"):
            page.keyboard.press("h")
            page.wait_for_function(HINTED)
            page.keyboard.press("p" if page.is_enabled("#play") else "s")
        page.wait_for_timeout(30)
    assert page.get_attribute("#summary", "aria-modal") == "true"
    assert focused(page) == "summary-ready"
    page.keyboard.press("Enter")
    wait_until(lambda: state(page)["room"]["table"]["deal_no"] == 2, what="deal 2", page=page)
    wait_until(lambda: page.is_hidden("#summary"), what="the summary closed", page=page)


def test_a_chinese_table_names_bots_and_jokers_in_chinese(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server()
    page, _ = open_page(server.url, locale="zh-CN")
    assert page.inner_text("h1").split() == ["斗地主"], "the title once, not 斗地主 斗地主"
    start_practice(page)
    page.wait_for_selector("#pos-1 .name")
    for pos in (1, 2):
        name = page.inner_text(f"#pos-{pos} .name")
        assert "机器人" in name and "bot" not in name, name
    faces = page.eval_on_selector_all(
        "[data-card='52'] .rank, [data-card='53'] .rank", "els => els.map(e => e.textContent)"
    )
    assert all(f in ("小王", "大王") for f in faces), faces
    assert "JOKER" not in page.inner_text("body")
    # a Chinese default name for this browser
    assert state(page)["me"]["name"].startswith("玩家")
