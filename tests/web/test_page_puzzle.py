"""A puzzle (残局, issue 33) in the browser, on a phone: the daily puzzle from the lobby, the
open position with every hand, my moves picked by taps as at the table and answered by the
solver, solved with the puzzle rating's change; tried again, a losing move ends it with the
winning line. A first try says, until it is over, that leaving it counts as failed; the retry
does not. Screenshots in $DDZ_SCREENSHOTS."""

from __future__ import annotations

from typing import Any

from protocol.cards import Rank
from protocol.plays import classify
from server.analysis.puzzle_play import winning_line
from server.analysis.review import Position
from tests.redis_server import unique_prefix
from tests.web.browser import DESKTOP, Frames, shoot, wait_until
from tests.web.conftest import OpenPage, StartServer
from tests.web.driver import click
from tests.web.review_helpers import keep_puzzle

#: The landlord to lead 5 9 10 Q against 33 6 7 10 K and 5 6: only the 9 wins, in 4 plays
#: (tests/server/test_edge_puzzles.py's).
KEY = "5 9 10 Q|33 6 7 10 K|5 6|0|lead"


def rank_of(card: int) -> int:
    return 16 if card == 52 else 17 if card == 53 else card // 4 + 3


def pick(page: Any, ranks: list[int]) -> None:
    """Tap the cards of ``ranks`` in the hand on turn."""
    left = list(ranks)
    for node in page.locator("#pz-hand .card").all():
        rank = rank_of(int(node.get_attribute("data-card")))
        if rank in left:
            left.remove(rank)
            node.tap()
    assert not left, f"no cards for {ranks}"


def position_of(view: dict[str, Any]) -> Position:
    hands = tuple(tuple(sorted(Rank(r) for r in h)) for h in view["hands"])
    beat = view["to_beat"]
    to_beat = None if beat is None else classify([Rank(r) for r in beat])
    return Position((hands[0], hands[1], hands[2]), 0, view["turn"], to_beat, view["by"])  # type: ignore[arg-type]


def last(frames: Frames, kind: str) -> dict[str, Any]:
    return frames.of_type(kind)[-1]


def test_a_puzzle_on_a_phone_solved_then_failed_with_the_winning_line(
    redis_url: str, web_server: StartServer, open_page: OpenPage
) -> None:
    prefix = unique_prefix()
    server = web_server("--key-prefix", prefix, "--puzzle-mine-seconds", "0")
    pid = keep_puzzle(redis_url, prefix, KEY, "landlord", "9", 4)
    page, frames = open_page(server.url, phone=True)
    page.locator("#puzzles-panel").scroll_into_view_if_needed()
    shoot(page, "puzzle-lobby-phone")
    assert click(page, "#puzzle-daily")
    page.wait_for_selector("#puzzle:not([hidden])")
    data = last(frames, "puzzle")
    assert data["puzzle_id"] == pid and data["daily"] and data["side"] == "landlord"
    # the open position: every hand shown, mine to pick from
    assert page.locator("#pz-hand .card").count() == 4
    assert page.locator('.pz-seat[data-seat="1"] .pz-cards .card').count() == 6
    assert page.locator('.pz-seat[data-seat="2"] .pz-cards .card').count() == 2
    assert "landlord" in page.inner_text("#puzzle-task")
    assert page.is_disabled("#pz-play") and page.is_disabled("#pz-pass")  # (I lead)
    # a first try is rated: the sheet says before the first move that leaving it fails it
    assert not data["tried"]
    rated = "Rated try: leaving before the end counts as failed and costs puzzle rating."
    assert page.is_visible("#pz-rated") and page.inner_text("#pz-rated") == rated
    assert page.get_attribute("#puzzle", "aria-describedby") == "puzzle-task pz-rated"
    shoot(page, "puzzle-start-phone")
    for lang, words in (
        ("zh", "中途离开算作失败"),
        ("de", "zählt als Fehlversuch"),
        ("id", "dihitung gagal"),
    ):
        page.select_option("#lang", lang)
        # (the page draws the new language in its next frame: wait for it, not a guess)
        wait_until(lambda w=words: w in page.inner_text("#pz-rated"), what=words, page=page)
        shoot(page, f"puzzle-start-phone-{lang}")
    page.select_option("#lang", "en")

    # the solver's line, played by taps: each move answered by the longest defence
    position = data["position"]
    step = 0
    while position is not None:
        seat, move = winning_line(position_of(position), "landlord")[0]
        assert seat == 0
        if move is None:
            page.tap("#pz-pass")
        else:
            pick(page, [int(r) for r in move])
            page.wait_for_selector("#pz-play:enabled")
            assert page.get_attribute("#pz-legality", "data-level") == "ok"
            page.tap("#pz-play")
        step += 1
        wait_until(
            lambda s=step: len(frames.of_type("puzzle_reply")) == s, what="the reply", page=page
        )
        reply = last(frames, "puzzle_reply")
        position = reply["position"]
        if step == 1:
            page.wait_for_selector("#pz-hand .card >> nth=0")
            assert page.is_visible("#pz-rated")  # (and while it is played)
            shoot(page, "puzzle-going-phone")
    assert reply["result"] == "solved" and reply["rating"] is not None
    page.wait_for_selector("#pz-result.solved")
    result = page.inner_text("#pz-result")
    assert (
        "Solved" in result and f"{reply['rating']['before']} → {reply['rating']['after']}" in result
    )
    assert page.is_hidden("#pz-rated")  # (over: nothing left to leave)
    shoot(page, "puzzle-solved-phone")

    # again: the 5 lets the win go; over at once, with the winning line shown
    page.tap("#pz-retry")
    wait_until(lambda: len(frames.of_type("puzzle")) == 2, what="the puzzle again", page=page)
    page.wait_for_selector("#pz-hand .card >> nth=3")
    assert last(frames, "puzzle")["tried"]  # a retry rates nothing: the sheet does not warn
    assert page.is_hidden("#pz-rated") and page.inner_text("#pz-rated") == ""
    assert "tried before: not rated" in page.inner_text("#puzzle-info")
    shoot(page, "puzzle-retry-phone")
    pick(page, [5])
    page.tap("#pz-play")
    page.wait_for_selector("#pz-result.failed")
    failed = last(frames, "puzzle_reply")
    assert failed["result"] == "failed" and failed["rating"] is None  # (a second try)
    lines = page.locator("#pz-line li:not(.head)")
    assert lines.count() == len(failed["line"])
    assert lines.first.inner_text() == "♛ Landlord (you): 9"
    shoot(page, "puzzle-failed-phone")
    page.set_viewport_size(DESKTOP)
    shoot(page, "puzzle-failed-desktop")
    page.keyboard.press("Escape")
    page.wait_for_selector("#puzzle", state="hidden")
    assert page.locator("#pz-seats .card, #pz-hand .card").count() == 0
