"""Time spent down never costs a seat its turn, as a player sees it in the browser: the
server stops for 6 s, or for 25 s, during the player's 20 s turn and starts again; the page
comes back by itself and its clock shows at least the time it showed as the server stopped.

The page retries within about a second while the server was reachable a moment ago
(conn.js), the server lets it in as soon as it takes players (transport), and the clock
given back waits for the player (``resume_grace``) instead of running while the page
reconnects. The outage is the one fixed wait: it is what is tested."""

from __future__ import annotations

import subprocess
import time
from typing import Any

import pytest

from tests.web.browser import WebServer, wait_until
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import state

CLOCK = 20
#: Seconds the player's clock may show less after the restart than as the server stopped:
#: what passes between reading the page's clock and the server's last save as it stops.
TOLERANCE = 1.0
#: The page's clock, in seconds left, when it is this page's turn with a live table.
MY_CLOCK = """() => {
  const s = window.ddz.state();
  const table = s.room && s.room.table;
  if (!s.live || !table || !table.turn || table.turn.seat !== s.room.your_seat) return null;
  const cd = s.countdown;
  if (!cd) return null;
  return cd.deadline - cd.serverTime - (performance.now() / 1000 - cd.received);
}"""


def my_clock(page: Any) -> float | None:
    left: float | None = page.evaluate(MY_CLOCK)
    return left


def start_again(old: WebServer) -> WebServer:
    """The same server again: its port, Redis, key prefix and flags, its log."""
    again = WebServer.__new__(WebServer)
    again.port, again.url, again.log_path = old.port, old.url, old.log_path
    again._log = old.log_path.open("ab")
    again.proc = subprocess.Popen(old.proc.args, stdout=again._log, stderr=subprocess.STDOUT)
    return again


def seat_two_bots_and_start(page: Any) -> None:
    page.click("#create-start")
    page.wait_for_selector("#waiting:not([hidden])")
    page.select_option("#bot-level", "easy")
    page.click("#seat-bot")
    wait_until(lambda: "easy bot" in page.inner_text("#wait-seats"), what="a bot seated")
    page.click("#seat-bot")
    wait_until(lambda: page.is_hidden("#bot-panel"), what="the room full")
    page.click("#wait-ready")
    page.wait_for_selector("#table:not([hidden])")


@pytest.mark.parametrize("outage", [6.0, 25.0])
def test_a_restart_during_my_turn_costs_me_none_of_it(
    web_server: StartServer, open_page: OpenPage, outage: float
) -> None:
    server = web_server(
        "--bid-timeout", str(CLOCK), "--play-timeout", str(CLOCK), "--ready-timeout", "30",
        "--bot-speed", "fast",
    )  # fmt: skip
    page, frames = open_page(server.url)
    seat_two_bots_and_start(page)
    wait_until(lambda: my_clock(page) is not None, timeout=30, what="my turn", page=page)
    before = state(page)["room"]["table"]["turn"]
    had = my_clock(page)
    assert had is not None and had > CLOCK - 5
    seen = len(frames.messages)
    server.stop()
    stopped = time.monotonic()
    wait_until(lambda: not state(page)["live"], what="the page to see the server gone")
    time.sleep(outage - (time.monotonic() - stopped))  # the outage: what is tested
    again = start_again(server)
    started = time.monotonic()
    try:

        def back() -> bool:
            assert again.proc.poll() is None, again.log_path.read_text()[-3000:]
            return my_clock(page) is not None

        wait_until(back, timeout=40, what="the page back at my turn", page=page)
        left = my_clock(page)
        back_after = time.monotonic() - started
        assert left is not None
        after = state(page)["room"]["table"]["turn"]
        assert (after["seat"], after["version"]) == (before["seat"], before["version"])
        snapshots = [m for m in frames.messages[seen:] if m["type"] == "snapshot"]
        assert snapshots, "the page came back with a snapshot"
        turn = snapshots[-1]["room"]["table"]["turn"]
        given = turn["deadline"] - turn["server_time"]
        report = (
            f"{outage:g} s down: {had:.2f} s left as the server stopped, {given:.2f} s given "
            f"back, {left:.2f} s shown once the page was back ({back_after:.2f} s after the "
            "server was started again)"
        )
        print(report)
        assert given >= had - TOLERANCE, report
        assert left >= had - TOLERANCE, report
    finally:
        again.stop()
