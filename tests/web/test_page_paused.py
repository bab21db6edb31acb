"""The page through a storage outage: Redis stops answering (SIGSTOP) during the player's
turn; the page shows the pause banner above the table, hides nothing of the table, and
stops its clock; when Redis answers again (SIGCONT) the banner goes and the clock runs,
with no less time than it showed as the outage began."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from tests.redis_server import RedisProcess
from tests.web.browser import WebServer, wait_until
from tests.web.conftest import OpenPage
from tests.web.driver import dom_cards, state
from tests.web.test_page_restart_clock import my_clock, seat_two_bots_and_start

CLOCK = 60
#: Seconds the clock may show less after the pause than as it began: between reading the
#: page's clock and the moment the outage is counted from.
TOLERANCE = 1.0


def banner(page: Any) -> str | None:
    """The pause banner's text while it is shown."""
    text: str | None = page.evaluate(
        "() => { const b = document.getElementById('paused');"
        " return b && !b.hidden ? b.textContent : null; }"
    )
    return text


def test_the_page_shows_the_pause_and_hides_nothing_until_the_match_resumes(
    open_page: OpenPage, tmp_path: Path
) -> None:
    redis = RedisProcess(tmp_path / "redis").start()
    stopped = False
    server = None
    try:
        timing = ("--bid-timeout", str(CLOCK), "--play-timeout", str(CLOCK), "--bot-speed", "fast")
        server = WebServer(redis.url, tmp_path / "server.log", timing)
        page, frames = open_page(server.url)
        seat_two_bots_and_start(page)
        wait_until(lambda: my_clock(page) is not None, timeout=30, what="my turn", page=page)
        cards = dom_cards(page)
        assert len(cards) >= 17 and banner(page) is None  # my hand, and what the table shows
        had = my_clock(page)
        assert had is not None

        assert redis.process is not None
        os.kill(redis.process.pid, signal.SIGSTOP)
        stopped = True
        wait_until(lambda: banner(page) is not None, timeout=30, what="the pause banner")

        text = banner(page)
        assert text is not None and "Paused: the server is saving the match safely" in text
        assert state(page)["countdown"] is None  # the clock stopped
        assert page.is_visible("#table") and page.is_visible("#hand")
        assert dom_cards(page) == cards  # the hand is all there
        box = page.eval_on_selector("#paused", "b => b.getBoundingClientRect().bottom")
        hand_top = page.eval_on_selector("#hand", "h => h.getBoundingClientRect().top")
        assert box <= hand_top  # above the table, over none of it
        paused = [m for m in frames.messages if m["type"] == "paused"]
        assert paused and set(paused[0]) == {"type", "code", "since"}  # no card in it

        os.kill(redis.process.pid, signal.SIGCONT)
        stopped = False
        wait_until(lambda: banner(page) is None and my_clock(page) is not None, timeout=30,
                   what="the match resumed", page=page)  # fmt: skip
        resumed = [m for m in frames.messages if m["type"] == "resumed"]
        assert resumed and set(resumed[0]) == {"type", "code"}
        turn = state(page)["room"]["table"]["turn"]
        assert turn["deadline"] - turn["server_time"] >= had["left"] - TOLERANCE
    finally:
        if stopped and redis.process is not None:
            os.kill(redis.process.pid, signal.SIGCONT)
        if server is not None:
            server.stop()
        redis.stop()
