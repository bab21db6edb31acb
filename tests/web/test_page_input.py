"""Picking cards as people do: one trick played with the keyboard only; a swipe that picks
five cards and one that unpicks them, by mouse and by touch; the legality line for a legal
and an illegal pick; a reload, and a server restart, in the middle of a deal."""

from __future__ import annotations

import time
from typing import Any

from tests.web.browser import Frames, WebServer, shoot, wait_until
from tests.web.conftest import OPEN, OpenPage, StartServer
from tests.web.driver import shown, state


def start_practice(page: Any, speed: str = "instant", deals: str = "1") -> None:
    page.check(f"#practice-form input[name=deals][value='{deals}']")
    page.select_option("#practice-form select[name=level]", "easy")
    page.select_option("#practice-form select[name=speed]", speed)
    page.click("#practice-start")
    page.wait_for_selector("#bid-buttons:not([hidden])")


def focused(page: Any) -> str:
    """What has the keyboard focus: an element id, ``card`` for a card in the hand, or
    ``TAG:name`` for a form's control without an id."""
    result: str = page.evaluate(
        """() => { const e = document.activeElement;
                   if (!e) return '';
                   if (e.closest('#hand') && e.dataset.card) return 'card';
                   return e.id || (e.name ? `${e.tagName}:${e.name}` : e.tagName); }"""
    )
    return result


def tab_to(page: Any, target: str, limit: int = 80) -> None:
    for _ in range(limit):
        if focused(page) == target:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {target}")


def picked(page: Any) -> list[int]:
    ids: list[str] = page.eval_on_selector_all(
        "#hand [aria-selected=true]", "els => els.map(e => e.dataset.card)"
    )
    return [int(i) for i in ids]


def my_turn(page: Any) -> bool:
    return bool(page.is_visible("#play-buttons") and page.is_enabled("#hint"))


def test_one_trick_with_the_keyboard_only(web_server: StartServer, open_page: OpenPage) -> None:
    server = web_server()
    page, frames = open_page(server.url)
    # start by keyboard too: the bots' speed instant (Home: the first choice), Tab to Start,
    # Enter
    tab_to(page, "SELECT:speed")
    page.keyboard.press("Home")
    assert page.eval_on_selector("#practice-form select[name=speed]", "e => e.value") == "instant"
    tab_to(page, "practice-start")
    page.keyboard.press("Enter")
    page.wait_for_selector("#bid-buttons:not([hidden])")
    tab_to(page, "bid-3")  # bid 3: the landlord, who leads
    page.keyboard.press("Enter")
    wait_until(lambda: my_turn(page), what="my lead")
    # Tab to the hand, right twice, Space to pick the third card: a single, legal
    tab_to(page, "card")
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press(" ")
    hand = state(page)["room"]["table"]["hand"]
    assert picked(page) == [hand[2]]
    assert page.get_attribute("#legality", "data-level") == "ok"
    assert "Single" in page.inner_text("#legality") and "legal" in page.inner_text("#legality")
    assert page.inner_text("#legality .icon") == "✓"  # not colour alone
    # a card of another rank too: not a play, and Play is disabled
    other = next(i for i, c in enumerate(hand) if c // 4 != hand[2] // 4 and c < 52)
    page.keyboard.press("Home")
    for _ in range(other):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    assert sorted(picked(page)) == sorted([hand[2], hand[other]])
    assert page.get_attribute("#legality", "data-level") == "bad"
    assert "Not a play" in page.inner_text("#legality")
    assert page.inner_text("#legality .icon") == "✗"
    assert page.is_disabled("#play")
    page.keyboard.press("Enter")  # unpick it again
    assert picked(page) == [hand[2]]
    tab_to(page, "play")
    page.keyboard.press("Enter")
    wait_until(lambda: len(frames.of_type("played")) >= 1, what="my lead played", page=page)
    # the rest of the trick: on each of my turns Hint, then Play or Pass, by keyboard
    deadline = time.monotonic() + 30
    while not any(m["type"] == "passed" and m["trick_over"] for m in frames.messages):
        assert time.monotonic() < deadline
        if my_turn(page):
            tab_to(page, "hint")
            page.keyboard.press("Enter")
            tab_to(page, "play" if page.is_enabled("#play") else "pass")
            page.keyboard.press("Enter")
        time.sleep(0.03)
    mine = [m for m in frames.of_type("played") if m["seat"] == 0]
    # (requests name ranks, not cards: the server plays a card of the picked rank)
    assert mine and [c // 4 for c in mine[0]["cards"]] == [hand[2] // 4]


def swipe_mouse(page: Any, points: list[tuple[float, float]]) -> None:
    page.mouse.move(*points[0])
    page.mouse.down()
    for x, y in points[1:]:
        page.mouse.move(x, y, steps=4)
    page.mouse.up()


def swipe_touch(page: Any, points: list[tuple[float, float]]) -> None:
    """A finger drawn across the screen (Chromium's touch input, through CDP)."""
    cdp = page.context.new_cdp_session(page)
    x, y = points[0]
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for x1, y1 in points[1:]:
        for i in range(1, 5):
            xi, yi = x + (x1 - x) * i / 4, y + (y1 - y) * i / 4
            cdp.send(
                "Input.dispatchTouchEvent",
                {"type": "touchMove", "touchPoints": [{"x": xi, "y": yi}]},
            )
        x, y = x1, y1
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def strip_points(page: Any, first: int, count: int) -> list[tuple[float, float]]:
    """A point in the visible strip of cards first..first+count-1 in the hand (near the
    top left of each card: later cards lie over the rest of it)."""
    boxes = page.eval_on_selector_all(
        "#hand .card",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left + 14, r.top + 26]; })",
    )
    return [tuple(b) for b in boxes[first : first + count]]


def back_to_me(frames: Frames) -> bool:
    """I have played, and it is my turn again (the others played or passed)."""
    mine = [i for i, m in enumerate(frames.messages) if m["type"] == "played" and m["seat"] == 0]
    return bool(mine) and any(
        m["type"] == "turn" and m["seat"] == 0 for m in frames.messages[mine[0] :]
    )


def test_swipes_pick_and_unpick_and_a_reload_resumes(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server()
    for phone in (False, True):
        page, frames = open_page(server.url, phone=phone)
        start_practice(page)
        page.click("#bid-3") if not phone else page.tap("#bid-3")
        wait_until(lambda page=page: my_turn(page), what="my lead")
        swipe = swipe_touch if phone else swipe_mouse
        # any five cards, as swiped (smart pick has its own test)
        page.click("#settings-open") if not phone else page.tap("#settings-open")
        page.uncheck("#smartpick-toggle")
        page.click("#settings-close") if not phone else page.tap("#settings-close")
        points = strip_points(page, 3, 5)
        swipe(page, points)
        hand = state(page)["room"]["table"]["hand"]
        assert sorted(picked(page)) == sorted(hand[3:8]), "a swipe picks the five"
        swipe(page, points[::-1])  # starting on a picked card: unpicks
        assert picked(page) == []
        # a swipe from an unpicked card over picked ones picks, never unpicks
        swipe(page, strip_points(page, 2, 2))
        assert sorted(picked(page)) == sorted(hand[2:4])
        if not phone:
            page.click("#hint")  # Hint replaces the pick by the smallest legal play
            assert page.get_attribute("#legality", "data-level") == "ok"
            page.keyboard.press("Escape")
            page.close()
            continue
        # a reload in the middle of the deal: the same seat, the same hand. (Clicks, not
        # taps: a tap sent through CDP within ~100 ms of the swipe's touchEnd yields no click
        # in this Chromium, a person's finger is never that quick.)
        page.click("#hint")
        page.click("#play")
        wait_until(lambda frames=frames: back_to_me(frames), what="my next turn", page=page)
        before = state(page)["room"]["table"]["hand"]
        code = state(page)["room"]["code"]
        page.reload()
        page.wait_for_function(OPEN)
        page.wait_for_selector("#table:not([hidden])")
        after = state(page)["room"]
        assert after["code"] == code and after["your_seat"] == 0
        assert after["table"]["hand"] == before
        shown_hand = page.eval_on_selector_all(
            "#hand .card", "els => els.map(e => Number(e.dataset.card))"
        )
        assert shown_hand == before
        welcomes = [m for m in frames.of_type("welcome") if m["resumed"]]
        assert welcomes and welcomes[-1]["room"] == code


def test_a_dropped_server_shows_reconnecting_and_resumes(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server()
    page, _ = open_page(server.url, phone=True, clock=True)
    start_practice(page, speed="normal")
    hand = state(page)["room"]["table"]["hand"]
    prefix = server.proc.args[server.proc.args.index("--key-prefix") + 1]
    redis = server.proc.args[server.proc.args.index("--redis-url") + 1]
    server.stop()
    # the table is shown, but not as live: a banner says so and the controls are off
    page.wait_for_selector("#status:not([hidden])")
    wait_until(lambda: state(page)["conn"] in ("reconnecting", "down"), what="reconnecting")
    assert page.evaluate("() => document.body.classList.contains('stale')")
    text = page.inner_text("#status")
    assert "Reconnecting" in text or "cannot be reached" in text
    assert not (page.is_visible("#bid-3") and page.is_enabled("#bid-3"))  # nothing to press
    shoot(page, "reconnecting-phone")
    # a server that stays down: the page says so and tries again further apart each time
    seen: list[int] = []

    def retried_further_apart() -> bool:
        wait = state(page).get("retryIn")
        if wait and (not seen or seen[-1] != wait):
            seen.append(wait)
        return bool(seen) and seen[-1] >= 4

    # (within about a second for conn.js's FAST_FOR, 45 s, then further apart: the page's
    # clock is moved past those 45 s rather than waited out)
    wait_until(lambda: retried_further_apart() or bool(seen), what="a first try")
    page.clock.fast_forward(46_000)
    wait_until(retried_further_apart, timeout=30, what="tries further apart")
    assert seen == sorted(seen) and seen[0] < seen[-1], seen
    assert "cannot be reached" in page.inner_text("#status")
    # the server comes back on the same port and Redis: the page resumes the seat
    again = WebServer.__new__(WebServer)
    restarted = restart(again, server, redis, prefix)
    try:
        page.click("#retry") if shown(page, "#retry") else None
        wait_until(lambda: state(page)["live"], timeout=30, what="the page live again")
        # (drawn on the next animation frame)
        wait_until(lambda: page.is_hidden("#status"), what="the banner gone")
        assert state(page)["room"]["table"]["hand"] == hand
        assert not page.evaluate("() => document.body.classList.contains('stale')")
    finally:
        restarted.stop()


def restart(blank: WebServer, old: WebServer, redis: str, prefix: str) -> WebServer:
    """A server again on the old one's port, Redis and key prefix."""
    import subprocess
    import urllib.request

    from tests.client.procs import DDZ_SERVER

    blank.port, blank.url, blank.log_path = old.port, old.url, old.log_path
    blank._log = old.log_path.open("ab")
    args = [*DDZ_SERVER, "--port", str(old.port), "--redis-url", redis, "--key-prefix", prefix]
    blank.proc = subprocess.Popen(args, stdout=blank._log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(f"{blank.url}healthz", timeout=1):
                return blank
        except OSError:
            assert time.monotonic() < deadline, old.log_path.read_text()
            time.sleep(0.1)
