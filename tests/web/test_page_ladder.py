"""The leaderboard in the browser: the top 100 with place, name, rating and its uncertainty
and rated matches, my own line marked (after a gap when I am below the top), my place said,
the one line that says what a rating is; my rating in my profile. (After a rated quick
match its change on the result sheet: test_page_quick_social.py, on the quick match it
plays.)"""

from __future__ import annotations

import re

import redis

from server.players.keys import public_tag
from server.store.codec import pack
from server.store.keys import Keys
from tests.web.browser import shoot
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import state
from tests.web.test_page_profile import open_profile, prefix_of

#: "Rating 1500? → 1548? (+48) · Gold": the shown rating before and after (1500 to start,
#: "?" while provisional), the signed change and the tier, a new tier said so (issue 34:
#: it was mu - 3 sigma, 0 to start, which a won match did not move).
RATING_CHANGE = re.compile(r"^Rating 1500\? → \d+\? \([+−]\d+\) · \w+( · .+)?$")
#: Players put on the ladder before the page asks for it: more than the 100 it shows.
LADDER = 105


def seed_ladder(redis_url: str, prefix: str, me: str) -> None:
    """LADDER players ranked by a conservative rating, and me as rated player number
    LADDER + 1 (below them all), as the rating store keeps them."""
    keys = Keys(prefix)
    client = redis.Redis.from_url(redis_url)
    try:
        for i in range(LADDER):
            pid = f"p{i:016x}"
            mu, sigma = 40.0 - i * 0.1, 2.0
            entry = {"name": f"Ace {i + 1}", "mu": mu, "sigma": sigma, "matches": 10 + i}
            client.zadd(keys.ladder_top, {pid: mu - 3 * sigma})
            client.hset(keys.ladder_players, pid, pack(entry))
            rating: dict[str, str | float] = {"mu": mu, "sigma": sigma, "matches": 10 + i}
            client.hset(keys.rating(pid), mapping=rating)
        mu, sigma = 20.0, 1.5
        mine: dict[str, str | float] = {"name": "me", "mu": mu, "sigma": sigma, "matches": 12}
        client.hset(keys.rating(me), mapping=mine)
        client.zadd(keys.ladder_top, {me: mu - 3 * sigma})
        client.hset(keys.ladder_players, me, pack(mine))
    finally:
        client.close()


def test_the_leaderboard_and_my_place_below_the_top(
    web_server: StartServer, open_page: OpenPage, redis_url: str
) -> None:
    server = web_server()
    page, _ = open_page(server.url, phone=True)
    me = state(page)["me"]["playerId"]
    seed_ladder(redis_url, prefix_of(server), me)
    page.click("#ladder-open")
    page.wait_for_selector("#ladder:not([hidden])")
    page.wait_for_selector("#ladder-loading", state="hidden")
    intro = page.inner_text("#ladder")
    assert "start at 1500" in intro and "private rooms created “Rated”" in intro
    assert "Practice and bots never count" in intro
    assert page.inner_text("#ladder-you") == f"You: #{LADDER + 1} of {LADDER + 1}"
    rows = page.eval_on_selector_all(
        "#ladder-rows tr",
        "els => els.map(e => [e.className, [...e.children].map(c => c.textContent)])",
    )
    assert len(rows) == 100 + 2  # the top, a gap, my own line
    first = f"p{0:016x}"
    assert rows[0] == ["", ["1", f"Ace 1#{public_tag(first)}", "2100 Master", "10"]]
    assert rows[99][1][0] == "100"
    assert rows[100][0] == "gap"
    assert rows[101][0] == "me" and rows[101][1][0] == str(LADDER + 1)
    assert rows[101][1][2] == "1300 Silver"
    assert page.get_attribute("#ladder-rows tr.me", "aria-current") == "true"
    shoot(page, "ladder-tiers-390x844")
    # a player's line opens their public card: name, tag, rating, record; Escape goes back
    page.tap(f'#ladder-rows [data-tag="{public_tag(first)}"]')
    page.wait_for_selector("#player-card-h:text-is('Ace 1')")
    assert page.inner_text("#player-card-rating") == (
        "Rating: 2100 · Master (skill 40.0 ± 2.0) · 10 rated matches"
    )
    assert page.is_hidden("#ladder-main")
    shoot(page, "ladder-player-card-390x844")
    page.keyboard.press("Escape")
    page.wait_for_selector("#ladder-main:not([hidden])")
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.dataset.tag !== undefined"
    )
    page.keyboard.press("Escape")
    page.wait_for_selector("#ladder", state="hidden")
    # my rating in my profile, with its tier, uncertainty and the matches it rests on
    open_profile(page)
    page.wait_for_selector("#profile-rating:has-text('Rating')")
    assert page.inner_text("#profile-rating") == (
        "Rating: 1300 · Silver (skill 20.0 ± 1.5) · 12 rated matches"
    )
