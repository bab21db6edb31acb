"""A private room through the page: three people in three browser contexts (two on a
desktop, one on a phone by touch), the second and third come by the join link, and a
watcher on a phone. They play a deal to its end by clicks; no page ever holds a card of a
hand hidden from it: not in any frame it received, not in its DOM."""

from __future__ import annotations

import random
import time
from typing import Any

from tests.web.browser import DESKTOP, PHONE, Frames, shoot, wait_until
from tests.web.conftest import OPEN, OpenPage, StartServer
from tests.web.driver import act, allowed_now, dom_cards, hidden_cards, shown, state


def name_and_wait(page: Any, name: str) -> None:
    """Change the name in the lobby: a new session under that name."""
    page.fill("#name", name)
    page.click("#name-form button[type=submit]")
    wait_until(lambda: (state(page)["me"] or {}).get("name") == name, what=f"{name}'s hello")
    page.wait_for_function(OPEN)


def check_dom(page: Any, frames: Frames, who: str) -> None:
    shown_cards = dom_cards(page)
    allowed = allowed_now(frames)
    assert shown_cards <= allowed, f"{who}'s page shows hidden cards {shown_cards - allowed}"


def test_three_friends_and_a_watcher_play_a_deal(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server("--bid-timeout", "60", "--play-timeout", "60", "--ready-timeout", "60")
    ann, ann_frames = open_page(server.url)
    name_and_wait(ann, "Ann")
    ann.click("#create-start")
    ann.wait_for_selector("#waiting:not([hidden])")
    code = ann.inner_text("#room-code").strip()
    assert len(code.replace("-", "")) == 10  # a private room's code is long: not guessable
    assert ann.inner_text("#join-url").endswith(f"/#/join/{code}")

    # Bo (phone, touch) and Cy come by the join link: a fresh browser asks for a name first
    players = {"Ann": (ann, ann_frames)}
    for name, phone in (("Bo", True), ("Cy", False)):
        page, frames = open_page(f"{server.url}#/join/{code}", phone=phone)
        page.wait_for_selector("#join-prompt:not([hidden])")
        assert code in page.inner_text("#join-prompt-btn")
        page.fill("#name", name)
        page.click("#join-prompt-btn")
        page.wait_for_selector("#waiting:not([hidden])")
        players[name] = (page, frames)
    # the watcher, on a phone, watches by code from the lobby
    watcher, watcher_frames = open_page(server.url, phone=True)
    watcher.fill("#code", code.lower())
    watcher.tap("#watch-btn")
    watcher.wait_for_selector("#waiting:not([hidden])")
    assert watcher.is_hidden("#wait-ready")
    wait_until(lambda: "Cy" in ann.inner_text("#wait-seats"), what="Cy in Ann's seat list")

    for page, _ in players.values():
        page.click("#wait-ready") if page.viewport_size != PHONE else page.tap("#wait-ready")
    for page in [*(p for p, _ in players.values()), watcher]:
        page.wait_for_selector("#table:not([hidden])")
    assert shown(watcher, "#watching") and "Watching" in watcher.inner_text("#watching")
    assert watcher.is_hidden("#hand") and watcher.is_hidden("#bid-buttons")

    rng = random.Random(12)
    deadline = time.monotonic() + 120
    shots = {"table-phone": False, "spectator": False}
    checks = 0
    while not all(shown(p, "#summary") for p, _ in players.values()):
        assert time.monotonic() < deadline, "the deal did not end"
        acted = False
        for page, _ in players.values():
            if not shown(page, "#summary"):
                acted |= bool(act(page, rng))
        # look at every page's DOM as the deal goes
        for name, (page, frames) in players.items():
            if not shown(page, "#summary"):
                check_dom(page, frames, name)
        if not shown(watcher, "#summary"):
            check_dom(watcher, watcher_frames, "the watcher")
        checks += 1
        bo = players["Bo"][0]
        table = (state(bo)["room"] or {}).get("table") or {}
        if not shots["table-phone"] and table.get("phase") == "playing" and table["plays"]:
            shoot(bo, "table-phone")
            shots["table-phone"] = True
        if not shots["spectator"] and table.get("phase") == "playing" and len(table["plays"]) > 2:
            shoot(watcher, "spectator-phone")
            watcher.set_viewport_size(DESKTOP)
            shoot(watcher, "spectator-desktop")
            watcher.set_viewport_size(PHONE)
            shots["spectator"] = True
        if not acted:
            time.sleep(0.02)
    # the pages were looked at while the deal went on, not only at its end (a deal can be
    # short: a strong landlord's long chains and two passes take few rounds; CI saw 5)
    assert checks >= 2

    # the deal's end shows on every page, the watcher's too, with every hand's remainder
    wait_until(lambda: shown(watcher, "#summary"), what="the watcher's summary")
    shoot(players["Bo"][0], "summary-room-phone")
    end = ann_frames.of_type("deal_end")[0]
    for page, frames in [*players.values(), (watcher, watcher_frames)]:
        assert frames.of_type("deal_end")[0] == end
        texts = page.locator("#summary-rows tr").all_inner_texts()
        assert len(texts) == 3
    assert watcher.is_hidden("#summary-ready")

    # no frame held a card its page could not know
    for name, (_, frames) in players.items():
        assert hidden_cards(frames) == set(), name
    assert hidden_cards(watcher_frames) == set()
    # the watcher was never dealt anything; each seat was dealt its own 17, all different
    assert all(m["hand"] is None for m in watcher_frames.of_type("deal_started"))
    dealt = [set(f.of_type("deal_started")[0]["hand"]) for _, f in players.values()]
    assert all(len(h) == 17 for h in dealt)
    assert not (dealt[0] & dealt[1] or dealt[0] & dealt[2] or dealt[1] & dealt[2])
    # the watcher count reached every page
    assert "1 watching" in ann.inner_text("#bar-room")
