"""The lobby and the table's extras: the language (from the browser, and switched), the
quick-match waiting indicator and its cancel, the live list of rooms to watch, and the card
counter."""

from __future__ import annotations

from tests.web.browser import shoot, wait_until
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import shown, state
from tests.web.table_helpers import open_settings


def test_languages_queue_rooms_and_the_card_counter(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server("--quick-match-wait", "60")
    # the browser's language picks the page's; the switcher changes it and is remembered
    german, _ = open_page(server.url, locale="de-DE")
    assert german.inner_text("#practice-form h3") == "Übung"
    german.select_option("#lang", "zh")
    assert german.inner_text("#practice-form h3") == "练习"
    assert german.evaluate("() => document.documentElement.lang") == "zh-Hans"
    german.reload()
    german.wait_for_selector("#practice-form h3")
    assert german.inner_text("#practice-form h3") == "练习"
    german.select_option("#lang", "id")
    assert german.inner_text("#practice-start") == "Mulai"

    # a public room shows in another page's list of rooms to watch
    host, _ = open_page(server.url)
    host.check("#create-form input[name=public]")
    host.click("#create-start")
    host.wait_for_selector("#waiting:not([hidden])")
    code = host.inner_text("#room-code").strip()
    shoot(host, "waiting-room-desktop")
    lobby, _ = open_page(server.url, phone=True)
    wait_until(lambda: code in lobby.inner_text("#rooms"), what="the room in the list")
    lobby.tap(f'#rooms button[data-code="{code}"]')
    lobby.wait_for_selector("#waiting:not([hidden])")
    assert state(lobby)["room"]["your_seat"] is None
    lobby.click("#leave")
    lobby.wait_for_selector("#lobby:not([hidden])")

    # quick match: the waiting indicator counts the time waited; Cancel leaves the queue
    lobby.tap("#quick-start")
    lobby.wait_for_selector("#quick-wait:not([hidden])")
    first = lobby.inner_text("#quick-text")
    assert "Waiting for players" in first and "bots in" in first
    wait_until(lambda: lobby.inner_text("#quick-text") != first, 3, "the wait to count", page=lobby)
    shoot(lobby, "quick-wait-phone")
    lobby.tap("#quick-cancel")
    lobby.wait_for_selector("#quick-start:not([hidden])")
    assert state(lobby)["queue"] is None

    # the card counter: off by default; on, 15 ranks, what this seat has not seen
    page, _ = open_page(server.url)
    page.select_option("#practice-form select[name=speed]", "instant")
    page.click("#practice-start")
    page.wait_for_selector("#bid-buttons:not([hidden])")
    assert not shown(page, "#counter")
    open_settings(page)
    page.check("#counter-toggle")
    page.wait_for_selector("#counter:not([hidden])")
    counts = page.eval_on_selector_all("#counter-list li .n", "els => els.map(e => +e.textContent)")
    hand = state(page)["room"]["table"]["hand"]
    assert len(counts) == 15 and sum(counts) == 54 - len(hand)
    labels = page.eval_on_selector_all(
        "#counter-list li", "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert labels[0].startswith("three: ") and labels[-1].startswith("big joker: ")
