"""The lasting player in the browser: the first visit's note, the player code and its link
moving a player to another browser (their history and profile follow), a new code that
stops the old one (the page that still holds it says so, and starts anew or takes another
code), the profile of a played practice, and no frame to another player or a watcher
carrying anyone's key."""

from __future__ import annotations

import re
import time
from typing import Any

import msgpack
import redis

from server.store.codec import pack, unpack
from server.store.keys import Keys
from tests.web.browser import Frames, wait_until
from tests.web.conftest import DRAWN, OPEN, OpenPage, StartServer
from tests.web.driver import click, shown, state
from tests.web.node import HERE, run_node
from tests.web.table_helpers import my_turn, play_hint

#: The page's own copy of its player key (localStorage, per server).
KEY = "() => localStorage.getItem('ddz.player.' + location.host)"


def prefix_of(server: Any) -> str:
    """The store's key prefix a test's server runs under."""
    args = list(server.proc.args)
    return str(args[args.index("--key-prefix") + 1])


def key_of(page: Any) -> str | None:
    key: str | None = page.evaluate(KEY)
    return key


def player_of(page: Any) -> str:
    me = state(page)["me"]
    assert me is not None
    pid: str = me["playerId"]
    return pid


def play_a_practice(page: Any) -> str:
    """A one-deal practice against instant bots, played by Hint to its end; back in the
    lobby; the match's code."""
    page.check("#practice-form input[name=deals][value='1']")
    page.select_option("#practice-form select[name=speed]", "instant")
    click(page, "#practice-start")
    page.wait_for_selector("#table:not([hidden])")
    code: str = state(page)["room"]["code"]
    deadline = time.monotonic() + 120
    while not shown(page, "#result"):
        assert time.monotonic() < deadline, "the practice did not end"
        if shown(page, "#bid-buttons") and page.is_enabled("#bid-3"):
            click(page, "#bid-3")
        elif shown(page, "#bid-buttons") and page.is_enabled("#bid-0"):
            click(page, "#bid-0")
        elif my_turn(page):
            play_hint(page)
        page.wait_for_timeout(30)
    click(page, "#to-lobby")
    wait_until(lambda: state(page)["room"] is None, what="the lobby", page=page)
    return code


def open_profile(page: Any) -> dict[str, Any]:
    """Open the profile sheet; the profile it shows (as the page received it)."""

    # (pressed again until it opens: a tap as the lobby comes back can land before the
    # button is there)
    def opened() -> bool:
        if page.is_visible("#profile-main"):
            return True
        click(page, "#profile-open")
        return False

    wait_until(opened, what="the profile open", page=page)
    page.wait_for_selector("#profile-loading", state="hidden")
    profile: dict[str, Any] = state(page)["profile"]
    return profile


def show_code(page: Any) -> tuple[str, str]:
    """In the open profile: Show code and link; the code and the link as shown."""
    click(page, "#key-show")
    page.wait_for_selector("#key-box:not([hidden])")
    code = page.inner_text("#key-code").strip()
    link = page.get_attribute("#key-link", "href")
    assert link is not None
    return code, link


def type_code(page: Any, code: str) -> None:
    """Enter a code in the dialog (from the first-visit note, the profile or a refusal)."""
    page.wait_for_selector("#code-dialog:not([hidden])")
    page.fill("#key-input", code)
    click(page, "#code-use")
    page.wait_for_selector("#code-dialog", state="hidden")


def keys_in(frames: Frames, keys: set[str]) -> list[tuple[str, str]]:
    """(message type, key) for every frame holding one of ``keys`` anywhere in it."""
    found = []
    for message in frames.messages:
        text = repr(message)
        found += [(str(message.get("type")), k) for k in keys if k in text]
    return found


def test_the_key_in_the_connection_and_the_reducer() -> None:
    run_node(["--test", str(HERE / "player.test.mjs")])


def test_the_code_moves_a_player_by_link_and_by_typing_and_a_new_code_stops_the_old(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    server = shared_server()
    ann, ann_frames = open_page(server.url)
    # a first visit: a new player, said so in the lobby with "I have a code" beside it
    ann.wait_for_selector("#first-visit:not([hidden])")
    assert "new player" in ann.inner_text("#first-visit")
    first_key = key_of(ann)
    assert first_key and first_key.startswith(player_of(ann) + ".")
    match = play_a_practice(ann)
    ann.wait_for_selector(f'#history li[data-code="{match}"]')
    assert ann.is_hidden("#first-visit")  # a player with a match is no newcomer

    # the profile shows the code and a link holding it in the fragment
    open_profile(ann)
    code, link = show_code(ann)
    assert code == first_key
    assert link == f"{server.url}#player={code}"
    click(ann, "#profile-close")
    ann.wait_for_selector("#profile", state="hidden")
    assert ann.inner_text("#key-code") == ""  # the code leaves the page with its sheet

    # another browser opens the link: the same player, their history; the address is clean
    bo, bo_frames = open_page(link, phone=True)
    assert player_of(bo) == player_of(ann)
    assert key_of(bo) == first_key
    assert bo.evaluate("() => location.hash") == ""
    bo.wait_for_selector("#toast:has-text('You play as the player of your code')")
    assert bo.input_value("#name") == state(ann)["me"]["name"]  # the player's name came too
    bo.wait_for_selector(f'#history li[data-code="{match}"]')
    assert bo.is_hidden("#first-visit")
    # one session per player: Ann's tab is told it plays elsewhere now, and does not fight
    ann.wait_for_selector("#play-here:not([hidden])")
    assert "another tab or on another device" in ann.inner_text("#status")
    assert state(ann)["conn"] == "elsewhere"

    # a third browser types the code (pasted with a line break in it) from its first visit
    cy, cy_frames = open_page(server.url)
    cy.wait_for_selector("#first-visit:not([hidden])")
    click(cy, "#first-visit-code")
    cy.wait_for_selector("#code-dialog:not([hidden])")
    cy.fill("#key-input", "not a code")
    click(cy, "#code-use")
    cy.wait_for_selector("#key-error:has-text('not a player code')")
    type_code(cy, code[:20] + "\n" + code[20:])
    wait_until(lambda: (state(cy)["me"] or {}).get("playerId") == player_of(bo), page=cy)
    cy.wait_for_function(OPEN)
    cy.wait_for_selector(f'#history li[data-code="{match}"]')
    profile = open_profile(cy)
    assert profile["total"] >= 1 and match in cy.inner_text("#profile-matches") + "".join(
        cy.eval_on_selector_all("#profile-matches li", "els => els.map(e => e.dataset.code)")
    )
    bo.wait_for_selector("#play-here:not([hidden])")

    # a new code: asked once more, then the old one stops working
    show_code(cy)
    click(cy, "#new-key")
    cy.wait_for_selector("#new-key-confirm:not([hidden])")
    assert key_of(cy) == first_key  # nothing yet
    click(cy, "#new-key")
    wait_until(lambda: key_of(cy) not in (None, first_key), what="the new key", page=cy)
    new_key = key_of(cy)
    assert new_key is not None
    cy.wait_for_selector("#toast:has-text('New code made')")
    wait_until(lambda: cy.inner_text("#key-code").strip() == new_key, page=cy)

    # Ann's page, still holding the old code, wants to play here: refused, and said so
    click(ann, "#play-here")
    ann.wait_for_selector("#refused-choices:not([hidden])")
    assert "replaced on another device" in ann.inner_text("#status")
    assert state(ann)["conn"] == "refused"
    # she starts anew: a new player, with a new key and no history
    click(ann, "#refused-new")
    ann.wait_for_function(OPEN)
    assert player_of(ann) != player_of(cy)
    assert key_of(ann) not in (None, first_key, new_key)
    ann.wait_for_selector("#history li.help")
    ann.wait_for_selector("#first-visit:not([hidden])")
    # Bo's page, also refused, takes the new code instead
    click(bo, "#play-here")
    bo.wait_for_selector("#refused-choices:not([hidden])")
    click(bo, "#refused-code")
    type_code(bo, new_key)
    bo.wait_for_function(OPEN)
    assert player_of(bo) == player_of(cy)
    bo.wait_for_selector(f'#history li[data-code="{match}"]')

    # a link of another player's code in a browser that has a player of its own: asked first
    ann_key = key_of(ann)
    ann.evaluate("(key) => { location.hash = 'player=' + key; }", new_key)
    ann.wait_for_selector("#link-switch:not([hidden])")
    assert ann.evaluate("() => location.hash") == ""
    click(ann, "#link-switch-no")
    ann.wait_for_selector("#link-switch", state="hidden")
    assert key_of(ann) == ann_key and player_of(ann) != player_of(cy)
    # ... and as the page loads (another tab of Ann's browser): this time she takes it
    tab = ann.context.new_page()
    tab.goto(f"{server.url}#player={new_key}")
    tab.wait_for_selector("#link-switch:not([hidden])")
    assert key_of(tab) == ann_key  # nothing changed before she says so
    click(tab, "#link-switch-yes")
    wait_until(lambda: (state(tab)["me"] or {}).get("playerId") == player_of(cy), page=tab)
    assert key_of(tab) == new_key
    tab.close()

    # no frame carries a key but the welcome or new-key answer to its own holder
    assert ann_key
    keys = {first_key, new_key, ann_key}
    for frames in (ann_frames, bo_frames, cy_frames):
        assert {kind for kind, _ in keys_in(frames, keys)} <= {"welcome", "player_key"}
    assert keys_in(bo_frames, {ann_key}) == [] and keys_in(cy_frames, {ann_key}) == []
    assert [k for kind, k in keys_in(cy_frames, keys) if kind == "welcome"] == []  # typed


def test_the_profile_shows_a_played_practice(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    server = shared_server()
    page, _ = open_page(server.url, phone=True)
    match = play_a_practice(page)
    profile = open_profile(page)
    practice = next(m for m in profile["modes"] if m["mode"] == "practice")
    assert practice["played"] == 1
    deals = profile["landlord_deals"] + profile["farmer_deals"]
    assert deals >= 1
    entry = profile["matches"][0]
    assert entry["code"] == match and profile["total"] == 1
    mine = entry["totals"][entry["your_seat"]]
    assert (profile["points_won"], profile["points_lost"]) == (max(mine, 0), max(-mine, 0))
    # what the sheet says is what came
    stats = page.inner_text("#profile-stats")
    assert f"1 played · {practice['won']} won" in stats
    landlord = profile["landlord_deals"]
    assert f"{profile['landlord_won']} of {landlord} deals won" in stats
    assert f"+{profile['points_won']} won · −{profile['points_lost']} lost" in stats
    assert page.inner_text("#profile-range") == "1–1 of 1"
    assert page.is_disabled("#profile-older") and page.is_disabled("#profile-newer")
    assert page.locator(f'#profile-best li[data-code="{match}"]').count() == (
        1 if profile["best"] else 0
    )
    assert "No rating yet" in page.inner_text("#profile-rating")  # practice is never rated
    # the puzzle record (issue 33): a new player's, none tried yet
    puzzles = profile["puzzles"]
    assert (puzzles["tried"], puzzles["solved"], puzzles["rating"]) == (0, 0, 1500)
    assert (
        page.inner_text("#profile-puzzles") == "Puzzles: 0 solved of 0 tried · puzzle rating 1500"
    )
    # Replay from the profile: the viewer over it; closed, the profile is still there
    click(page, f'#profile-matches button[data-replay="{match}"]')
    page.wait_for_selector("#replay:not([hidden])")
    click(page, "#replay-close")
    page.wait_for_selector("#replay", state="hidden")
    assert shown(page, "#profile")
    assert page.evaluate("() => document.activeElement.dataset.replay") == match
    page.keyboard.press("Escape")
    page.wait_for_selector("#profile", state="hidden")
    # by keyboard: the lobby's Profile opens the sheet, Tab stays in it, Escape gives the
    # focus back to the button
    page.focus("#profile-open")
    page.keyboard.press("Enter")
    page.wait_for_selector("#profile:not([hidden])")
    # (the sheet takes the focus once it is shown: Tab before that moved it in the lobby)
    page.wait_for_function("() => !!document.activeElement.closest('#profile')")
    for _ in range(30):
        page.keyboard.press("Tab")
        assert page.evaluate("() => !!document.activeElement.closest('#profile')")
    page.keyboard.press("Escape")
    page.wait_for_selector("#profile", state="hidden")
    assert page.evaluate("() => document.activeElement.id") == "profile-open"
    # a new name: the same player, the same record, under the new name
    before = player_of(page)
    page.fill("#name", "Mei")
    click(page, "#name-form button[type=submit]")
    wait_until(lambda: (state(page)["me"] or {}).get("name") == "Mei", what="the name", page=page)
    page.wait_for_function(OPEN)
    assert player_of(page) == before
    open_profile(page)
    page.wait_for_selector("#profile-name:text-is('Mei')")
    assert page.locator(f'#profile-matches li[data-code="{match}"]').count() == 1


class HeldProfiles:
    """The page's websocket through Playwright's route: the server's ``profile`` answers
    are held back while ``holding``, and passed on by ``release``."""

    def __init__(self, page: Any) -> None:
        self.holding = False
        self.held: list[str | bytes] = []
        self.to_page: Any = None
        page.route_web_socket(re.compile(".*"), self.route)

    def route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        self.to_page = ws

        def from_server(message: str | bytes) -> None:
            data = message if isinstance(message, bytes) else message.encode()
            if self.holding and msgpack.unpackb(data, raw=False).get("type") == "profile":
                self.held.append(message)
            else:
                ws.send(message)

        server.on_message(from_server)
        ws.on_message(server.send)

    def release(self) -> None:
        self.holding = False
        for message in self.held:
            self.to_page.send(message)
        self.held.clear()


def test_a_profile_answer_coming_while_the_person_tabs_in_the_sheet_keeps_their_place(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    """The sheet opens drawn from the profile the page had, and is drawn again when the
    fresh answer comes: a person already on a match's Replay stays on it, in the sheet (not
    on the page behind, where the next Tab would take them into the lobby)."""
    server = shared_server()
    page, _ = open_page(server.url)
    held = HeldProfiles(page)
    page.reload()  # (its websocket anew, through the route)
    page.wait_for_function(OPEN)
    page.wait_for_function(DRAWN)
    match = play_a_practice(page)
    open_profile(page)
    page.keyboard.press("Escape")
    page.wait_for_selector("#profile", state="hidden")
    held.holding = True
    click(page, "#profile-open")  # drawn at once from the profile the page has
    replay = f'#profile-matches button[data-replay="{match}"]'
    page.wait_for_selector(replay)
    wait_until(lambda: bool(held.held), what="the fresh answer held back", page=page)
    page.focus(replay)
    page.evaluate("() => { window.__before = window.ddz.state().profile; }")
    held.release()
    page.wait_for_function("() => window.ddz.state().profile !== window.__before")
    # (drawn on the next frame)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done)))")
    assert page.evaluate("() => document.activeElement.dataset.replay") == match
    assert page.evaluate("() => !!document.activeElement.closest('#profile-matches')")
    page.keyboard.press("Tab")
    assert page.evaluate("() => !!document.activeElement.closest('#profile')")


def test_the_profile_pages_beyond_twenty_matches(
    shared_server: StartServer, open_page: OpenPage, redis_url: str
) -> None:
    """25 matches kept (one played, 24 more like it put in the store): 20 a page, Older and
    Newer between them, the range said."""
    server = shared_server()
    page, _ = open_page(server.url)
    match = play_a_practice(page)
    page.wait_for_selector(f'#history li[data-code="{match}"]')
    matches = Keys(prefix_of(server)).player(player_of(page), "matches")
    client = redis.Redis.from_url(redis_url)
    try:
        played = unpack(client.lindex(matches, 0))
        for i in range(24):
            client.rpush(matches, pack({**played, "code": f"OLD{i:02d}", "ended_at": i}))
    finally:
        client.close()
    open_profile(page)
    codes = "#profile-matches li[data-code]"
    assert page.inner_text("#profile-range") == "1–20 of 25"
    assert page.locator(codes).count() == 20
    assert page.locator(codes).first.get_attribute("data-code") == match
    assert page.is_disabled("#profile-newer")
    click(page, "#profile-older")
    page.wait_for_selector("#profile-range:text-is('21–25 of 25')")
    assert page.locator(codes).count() == 5
    assert page.locator(codes).last.get_attribute("data-code") == "OLD23"
    assert page.is_disabled("#profile-older")
    click(page, "#profile-newer")
    page.wait_for_selector("#profile-range:text-is('1–20 of 25')")
