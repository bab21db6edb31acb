"""The lasting player in the browser, round three (issue 34): a `#player=` link whose code no
player has (a character lost in the copy) says it was mistyped, not that it "was replaced on
another device", and offers the same ways on."""

from __future__ import annotations

from typing import Any

from tests.web.browser import PHONE, shoot, wait_until
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import state
from tests.web.table_helpers import set_language
from tests.web.test_page_profile import key_of


def test_a_garbled_player_link_says_it_was_mistyped(
    shared_server: StartServer, open_page: OpenPage, chromium: Any
) -> None:
    server = shared_server()
    ann, _ = open_page(server.url)
    key = key_of(ann)
    assert key is not None
    pid, secret = key.split(".")
    garbled = f"{pid}.{secret[:-3]}{'A' if secret[-3] != 'A' else 'B'}{secret[-2:]}"
    context = chromium.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(f"{server.url}#player={garbled}")
        page.wait_for_selector("#refused-choices:not([hidden])")
        text = page.inner_text("#status")
        assert "copied whole" in text and "replaced on another device" not in text
        assert state(page)["conn"] == "refused"
        shoot(page, "identity-garbled-link-390x844")
    finally:
        context.close()


def test_the_default_name_follows_the_language(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    """Issue 34: "Player 123" stayed English in a page switched to another language."""
    server = shared_server()
    page, _ = open_page(server.url)
    name = state(page)["me"]["name"]
    assert name.startswith("Player ")
    number = name.removeprefix("Player ")
    set_language(page, "zh")
    wait_until(lambda: state(page)["me"]["name"] == f"玩家{number}", page=page)
    assert page.input_value("#name") == f"玩家{number}"
    set_language(page, "de")
    wait_until(lambda: state(page)["me"]["name"] == f"Spieler {number}", page=page)
    # a name the person chose stays theirs in every language
    page.fill("#name", "Ann")
    page.click("#name-form button[type=submit]")
    wait_until(lambda: state(page)["me"]["name"] == "Ann", page=page)
    set_language(page, "id")
    page.wait_for_timeout(300)
    assert state(page)["me"]["name"] == "Ann"


def test_a_private_room_created_rated_says_so_and_offers_no_bot(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    server = shared_server()
    page, frames = open_page(server.url, phone=True)
    page.check("#create-form input[name=rated]")
    page.tap("#create-start")
    page.wait_for_selector("#waiting:not([hidden])")
    page.wait_for_selector("#rated-note:not([hidden])")
    assert "Rated (people only" in page.inner_text("#rated-note")
    assert page.is_hidden("#bot-panel")  # a rated room seats no bot: not offered
    assert state(page)["room"]["rated"] is True
    assert [m["room"]["rated"] for m in frames.of_type("snapshot")][-1] is True
    shoot(page, "rated-room-waiting-390x844")
