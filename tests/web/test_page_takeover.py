"""Two timeouts in a row hand the seat to a bot: the page says 'a bot is playing for you',
and Play myself takes the seat back (the room's creator seats the two bots)."""

from __future__ import annotations

from tests.web.browser import shoot, wait_until
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import shown, state


def test_two_timeouts_then_play_myself(web_server: StartServer, open_page: OpenPage) -> None:
    server = web_server(
        "--bid-timeout", "1", "--play-timeout", "1", "--ready-timeout", "30",
        "--bot-speed", "fast",
    )  # fmt: skip
    page, frames = open_page(server.url)
    page.click("#create-start")
    page.wait_for_selector("#waiting:not([hidden])")
    assert shown(page, "#bot-panel")
    page.select_option("#bot-level", "easy")
    page.click("#seat-bot")
    wait_until(lambda: "easy bot" in page.inner_text("#wait-seats"), what="a bot seated")
    page.click("#seat-bot")
    wait_until(lambda: page.is_hidden("#bot-panel"), what="the room full")
    page.click("#wait-ready")
    page.wait_for_selector("#table:not([hidden])")
    # the person does nothing: after the first timeout a warning, then after the second
    # the bot plays the seat
    page.wait_for_selector("#timeout-warning:not([hidden])", timeout=30_000)
    assert "one more in a row and a bot plays for you" in page.inner_text("#timeout-warning")
    assert page.is_hidden("#bot-banner")
    shoot(page, "timeout-warning-desktop")
    page.wait_for_selector("#bot-banner:not([hidden])", timeout=30_000)
    assert page.is_hidden("#timeout-warning")
    assert "A bot is playing for you" in page.inner_text("#bot-banner")
    taken = [m for m in frames.of_type("seat_control") if m["seat"] == 0]
    assert taken and taken[0]["bot"] and taken[0]["reason"] == "timeouts"
    assert sum(1 for m in frames.messages if m.get("timeout") and m.get("seat") == 0) >= 2
    shoot(page, "bot-banner-desktop")
    page.click("#resume")
    # the seat is the person's again (at once, or from their next turn)
    wait_until(
        lambda: any(
            m["type"] == "seat_control" and m["seat"] == 0 and not m["bot"] for m in frames.messages
        ),
        timeout=20,
        what="the seat given back",
        page=page,
    )
    table = state(page)["room"]["table"]
    assert table["bot_control"][0] is False or table["phase"] != "playing"
    returned = next(
        i for i, m in enumerate(frames.messages)
        if m["type"] == "seat_control" and m["seat"] == 0 and not m["bot"]
    )  # fmt: skip
    # between the hand-back and the next takeover (if any), the banner was down
    later = [m for m in frames.messages[returned:] if m["type"] == "seat_control" and m["bot"]]
    if not later:
        assert page.is_hidden("#bot-banner")
