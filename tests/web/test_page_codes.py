"""A private room's code and link copied by the Copy buttons (the clipboard holds them),
and the long code typed in lower case without its dash joins the room."""

from __future__ import annotations

from tests.web.browser import wait_until
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import state


def test_copy_buttons_and_a_long_code_typed_loosely(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server()
    host, _ = open_page(server.url)
    host.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    host.click("#create-start")
    host.wait_for_selector("#waiting:not([hidden])")
    code = host.inner_text("#room-code").strip()
    assert len(code) == 11 and code[5] == "-"  # K7P2Q-M4XTR
    host.click("#copy-code")
    host.wait_for_selector("#copy-code:text-is('Copied')")
    assert host.evaluate("() => navigator.clipboard.readText()") == code
    host.click("#copy-link")
    host.wait_for_selector("#copy-link:text-is('Copied')")
    assert host.evaluate("() => navigator.clipboard.readText()") == f"{server.url}#/join/{code}"

    guest, _ = open_page(server.url, phone=True)
    guest.fill("#code", code.replace("-", "").lower())
    guest.tap("#join-btn")
    guest.wait_for_selector("#waiting:not([hidden])")
    assert state(guest)["room"]["code"] == code and state(guest)["room"]["your_seat"] == 1
    name = state(guest)["me"]["name"]
    wait_until(lambda: name in host.inner_text("#wait-seats"), what="the guest seated", page=host)
