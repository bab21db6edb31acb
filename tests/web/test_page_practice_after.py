"""Practice through the page with what issue 14 added, and issue 12's gaps there: the bot
speed set from the table (the server says so, the control shows it); quick chat by the
seat and its limit refused with a short message; a stale play refused while the table stays
as it was; auto-pass; the match-end screen's Replay and Play again; the lobby's history of
matches and a replay from it."""

from __future__ import annotations

import random
import time
from typing import Any

import msgpack

from tests.web.browser import PHONE, Frames, shoot, wait_until
from tests.web.conftest import OPEN, OpenPage, StartServer
from tests.web.driver import act, click, shown, state
from tests.web.table_helpers import open_settings


def my_play_turn(page: Any) -> bool:
    return bool(shown(page, "#play-buttons") and page.is_enabled("#hint"))


def stale_plays(page: Any) -> dict[str, bool]:
    """Route the page's socket through the test: while ``armed``, its next play names the
    state version before the current one (as a play sent just before the table moved
    on would), and the server refuses it as stale."""
    armed = {"on": False, "done": False}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if armed["on"] and isinstance(message, bytes):
                request = msgpack.unpackb(message, raw=False)
                if request.get("type") == "play":
                    request["version"] -= 1
                    message = msgpack.packb(request)
                    armed["on"], armed["done"] = False, True
            server.send(message)

        ws.on_message(from_page)

    page.route_web_socket("**/*", route)
    return armed


def toast(page: Any) -> str:
    return page.inner_text("#toast") if shown(page, "#toast") else ""


def chat(page: Any, phrase: str) -> None:
    page.click("#chat-open")
    page.wait_for_selector("#chat-panel:not([hidden])")
    page.click(f'#chat-panel button[data-phrase="{phrase}"]')
    page.wait_for_selector("#chat-panel", state="hidden")


def play_out(page: Any, frames: Frames, rng: random.Random, seen: dict[str, int]) -> None:
    """Act on every turn to the match-end screen; count the auto-passes the page made."""
    deadline = time.monotonic() + 60
    while not shown(page, "#result"):
        assert time.monotonic() < deadline, "the match did not end"
        text = toast(page)
        if text.startswith("Auto-pass") and text != seen.get("last"):
            seen["n"] = seen.get("n", 0) + 1
            seen["last"] = text
        if not act(page, rng, bid="#bid-0", pass_rate=0.0):
            page.wait_for_timeout(20)


def start_practice(page: Any) -> None:
    page.check("#practice-form input[name=deals][value='1']")
    page.select_option("#practice-form select[name=level]", "easy")
    page.select_option("#practice-form select[name=speed]", "instant")
    page.click("#practice-start")
    page.wait_for_selector("#bid-buttons:not([hidden])")


def test_bot_speed_chat_and_a_stale_play(web_server: StartServer, open_page: OpenPage) -> None:
    server = web_server()
    page, frames = open_page(server.url)
    # (a page whose socket the test routes: for its last part, a stale play. Playwright's
    # sync API forwards a routed page's frames only now and then: this page plays no more)
    armed = stale_plays(page)
    page.reload()
    page.wait_for_function(OPEN)
    start_practice(page)

    # the bot speed, from the table: the server says so, and the control shows it
    open_settings(page)
    for speed in ("slow", "instant"):
        page.select_option("#speed", speed)
        wait_until(
            lambda speed=speed: [m["speed"] for m in frames.of_type("bot_speed")][-1:] == [speed],
            what=f"bot_speed {speed}",
            page=page,
        )
        wait_until(
            lambda speed=speed: page.input_value("#speed") == speed,
            what=f"the control at {speed}",
            page=page,
        )
        assert state(page)["room"]["bot_speed"] == speed

    # quick chat: the phrase by my seat, and read out; the sixth in a minute is refused
    chat(page, "good_luck")
    page.wait_for_selector("#pos-0 .bubble")
    assert page.inner_text("#pos-0 .bubble") == "Good luck!"
    assert page.inner_text("#chat-announce").endswith(": Good luck!")
    for phrase in ("smile", "thanks", "oops", "hello"):
        chat(page, phrase)
    wait_until(lambda: len(frames.of_type("chat_said")) == 5, what="five phrases", page=page)
    page.wait_for_selector("#pos-0 .bubble:text-is('Hello!')")
    chat(page, "bye")
    page.wait_for_selector("#toast:has-text('at most 5 phrases a minute')")
    assert len(frames.of_type("chat_said")) == 5
    assert [m["code"] for m in frames.of_type("error")] == ["rate_limited"]

    # a stale play: refused with a short message, and the table stays as it was
    page.click("#bid-3")
    wait_until(lambda: my_play_turn(page), what="my lead", page=page)
    hand = state(page)["room"]["table"]["hand"]
    page.click("#hint")
    armed["on"] = True
    page.click("#play")
    page.wait_for_selector("#toast:has-text('The table moved on')")
    assert armed["done"] and frames.of_type("error")[-1]["code"] == "stale"
    wait_until(lambda: my_play_turn(page), what="still my turn", page=page)
    assert state(page)["room"]["table"]["hand"] == hand
    assert page.locator("#hand .card").count() == len(hand) == 20
    assert "Your turn" in page.inner_text("#legality")
    page.click("#hint")
    page.click("#play")
    wait_until(
        lambda: len(state(page)["room"]["table"]["hand"]) < 20, what="my lead played", page=page
    )
    assert frames.of_type("played")[0]["seat"] == 0


def test_auto_pass_replay_play_again_and_history(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server()
    page, frames = open_page(server.url)
    page.wait_for_selector("#history li.help")  # no matches yet
    start_practice(page)
    open_settings(page)
    assert not page.is_checked("#autopass-toggle")  # off by default
    # auto-pass on (and remembered); matches until it has passed for me once
    page.check("#autopass-toggle")
    rng = random.Random(5)
    seen: dict[str, int] = {}
    codes = [state(page)["room"]["code"]]
    for match in range(6):
        play_out(page, frames, rng, seen)
        if match == 0:
            # the match-end screen's replay: every hand, step by step, by keys and buttons
            page.wait_for_selector("#again:enabled")
            page.click("#result-replay")
            page.wait_for_selector("#replay:not([hidden])")
            replay = frames.of_type("replay")[-1]
            assert replay["code"] == codes[0] and len(replay["deals"]) >= 1
            assert page.locator("#replay-seats .replay-seat").count() == 3
            assert page.locator("#replay-seats .hand-cards .card").count() == 51
            for _ in replay["deals"][1:]:  # past the void deals (if any) to the one played
                page.keyboard.press("ArrowDown")
            deal = replay["deals"][-1]
            assert page.inner_text("#replay-deal").startswith("Deal 1/1")
            assert page.inner_text("#replay-step").startswith("Step 0/")
            page.keyboard.press("ArrowRight")
            assert page.inner_text("#replay-step").startswith("Step 1/")
            page.keyboard.press("End")
            steps = len(deal["events"])
            assert page.inner_text("#replay-step").startswith(f"Step {steps}/{steps}")
            assert " win" in page.inner_text("#replay-step")
            assert page.is_disabled("#replay-next")
            page.click("#replay-prev")
            assert page.inner_text("#replay-step").startswith(f"Step {steps - 1}/")
            page.keyboard.press("Home")
            page.click("#replay-next")
            page.click("#replay-next")
            shoot(page, "replay-desktop")
            page.keyboard.press("Escape")
            page.wait_for_selector("#replay", state="hidden")
            assert page.locator("#replay-seats *").count() == 0  # its hands left the page
        if seen.get("n"):
            break
        # Play again: a practice rematch starts at once, with the same bots
        page.click("#again")
        wait_until(
            lambda: (state(page)["room"] or {}).get("code") not in codes and shown(page, "#table"),
            what="the rematch's table",
            page=page,
        )
        codes.append(state(page)["room"]["code"])
        assert state(page)["room"]["mode"] == "practice" and state(page)["result"] is None
    assert seen.get("n"), "auto-pass never passed"
    wait_until(lambda: state(page)["result"] is not None, what="the match over", page=page)
    assert any(m["type"] == "passed" and m["seat"] == 0 for m in frames.messages)
    assert page.evaluate("() => JSON.parse(localStorage.getItem('ddz.prefs')).autoPass")

    # the lobby's history: my matches, the newest first, each with its replay
    page.set_viewport_size(PHONE)
    page.click("#to-lobby")
    wait_until(
        lambda: page.locator("#history li[data-code]").count() == len(codes),
        what="the history",
        page=page,
    )
    rows = page.locator("#history li[data-code]")
    assert rows.first.get_attribute("data-code") == codes[-1]
    first = rows.first.inner_text()
    assert "Practice" in first and "1/1 deals" in first and ("Won" in first or "Lost" in first)
    entry = frames.of_type("history")[-1]["entries"][0]
    assert f"{entry['totals'][0]:+d}".replace("+0", "0") in first
    page.locator("#history-panel").scroll_into_view_if_needed()
    shoot(page, "history-phone")
    rows.last.locator("button").click()
    page.wait_for_selector("#replay:not([hidden])")
    assert frames.of_type("replay")[-1]["code"] == codes[0]
    page.click("#replay-last")
    shoot(page, "replay-phone")
    page.click("#replay-close")
    page.wait_for_selector("#replay", state="hidden")
    assert click(page, "#practice-start")  # the lobby is usable again
