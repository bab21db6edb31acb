"""A finished match's review in the replay viewer (issue 33), on a phone and a desktop: two
matches of the page's player whose deal a scripted seat threw away (a won position given
up, best play after: the review knows where it was lost and what would have kept it).
Asked from the replay, the review is waited for, refused while another of this address is
being made (said in the viewer, not as a toast), and then shown: the line of the
landlord's chances with the turning point marked, the list of plays with it marked, and
at the turning point the hands of that moment and the moves that would have kept the
win. Screenshots in $DDZ_SCREENSHOTS."""

from __future__ import annotations

import random
from typing import Any

from protocol.cards import format_cards, parse_cards
from tests.redis_server import unique_prefix
from tests.web.browser import DESKTOP, PHONE, Frames, shoot, wait_until
from tests.web.conftest import OPEN, OpenPage, StartServer
from tests.web.driver import state
from tests.web.review_helpers import keep_finished, thrown_match
from tests.web.test_page_practice_after import play_out, start_practice

#: Seeds whose deal the script throws with a few moves that would have kept the win.
SEEDS = (5, 1)


def open_replay(page: Any, code: str) -> None:
    page.click(f'#history li[data-code="{code}"] button[data-replay]')
    page.wait_for_selector("#replay:not([hidden])")
    wait_until(
        lambda: (state(page)["replay"] or {}).get("code") == code, what="the replay", page=page
    )


def review_of(frames: Frames, code: str) -> dict[str, Any] | None:
    return next((m for m in reversed(frames.of_type("review")) if m["code"] == code), None)


def test_the_review_line_its_turning_point_and_the_moves_that_kept_the_win(
    redis_url: str, web_server: StartServer, open_page: OpenPage
) -> None:
    prefix = unique_prefix()
    server = web_server("--key-prefix", prefix, "--review-seconds", "3")
    page, frames = open_page(server.url, phone=True)
    me = state(page)["me"]
    matches = [thrown_match(me["playerId"], me["name"], seed) for seed in SEEDS]
    for match in matches:
        assert match.thrower.thrown is not None, "the script threw no deal"
    keep_finished(redis_url, prefix, matches)
    web_server("--key-prefix", prefix)  # (a server's start settles the pending matches)
    codes = [match.room.code for match in matches]

    def listed() -> bool:
        page.reload()
        page.wait_for_function(OPEN)
        page.wait_for_selector("#history li")
        return bool(page.locator("#history li[data-code]").count() == 2)

    wait_until(listed, what="both matches in the history", page=page)

    # the first review asked: the viewer waits for it (the solver takes seconds)
    open_replay(page, codes[0])
    assert page.is_visible("#review-ask") and page.is_hidden("#review-deal")
    page.click("#review-ask")
    page.wait_for_selector("#review-wait:not([hidden])")
    assert page.is_hidden("#review-ask")
    shoot(page, "review-waiting-phone")

    # another, meanwhile, from the same address: refused, said in the viewer, no toast
    page.click("#replay-close")
    page.wait_for_selector("#replay", state="hidden")
    open_replay(page, codes[1])
    page.click("#review-ask")
    page.wait_for_selector("#review-failed:not([hidden])")
    assert "busy with other reviews" in page.inner_text("#review-failed")
    assert frames.of_type("error")[-1]["code"] == "busy"
    assert page.is_hidden("#toast")
    assert page.inner_text("#review-ask") == "Ask for the review again"

    # once the first is made, this one can be: asked again, it comes
    wait_until(
        lambda: review_of(frames, codes[0]) is not None,
        timeout=60,
        what="the first review",
        page=page,
    )
    page.click("#review-ask")
    page.wait_for_selector("#review-deal:not([hidden])", timeout=60_000)
    review = review_of(frames, codes[1])
    assert review is not None
    (deal,) = review["deals"]
    decisions = deal["decisions"]
    replay = state(page)["replay"]
    played = next(d for d in replay["deals"] if not d["void"])
    index = replay["deals"].index(played)
    for _ in range(index):  # past the void deals (if any) to the one played
        page.keyboard.press("ArrowDown")
    steps = [i for i, ev in enumerate(played["events"]) if ev["type"] in ("played", "passed")]
    assert len(steps) == len(decisions)

    # the line: a dot per position, the exact ones solid, the strong bot's estimates before
    # the solver's reach lighter, joined dashed and each titled as an estimate; the turning
    # points marked, as many as the review has (never on estimates)
    turning = [i for i, d in enumerate(decisions) if d["exact"] and d["before"] != d["after"]]
    thrower = matches[1].thrower
    assert thrower.thrown is not None
    _, thrown_at, kept = thrower.thrown
    assert thrown_at in turning and deal["lost_at"] is not None
    exact = sum(isinstance(d["before"], str) for d in decisions) + 1
    estimates = [d["before"] for d in decisions if isinstance(d["before"], float)]
    assert exact == deal["reach"] + 1 and len(estimates) == deal["estimated"]
    # (3 s of the solver never reach a whole deal's start: estimates come before its reach)
    assert estimates, "no estimates before the solver's reach"
    unknown = len(decisions) - deal["reach"] - deal["estimated"]  # (the estimates' guard)
    assert all(not d["exact"] for d in decisions[: unknown + len(estimates)])
    assert page.locator("#review-chart circle.dot:not(.est)").count() == exact
    dots = page.locator("#review-chart circle.dot.est")
    assert dots.count() == len(estimates)
    for i, chance in enumerate(estimates):
        title = dots.nth(i).locator("title").text_content()
        assert title == f"landlord ~{int(100 * chance + 0.5)}% (estimate)"
    # dashed from the first estimate to the solver's first position
    assert page.locator("#review-chart line.seg.est").count() == len(estimates)
    assert "estimate" in page.inner_text(".review-legend")
    assert "the strong bot's estimates" in page.inner_text("#review-summary")
    assert "estimates for the" in (page.get_attribute("#review-chart svg", "aria-label") or "")
    assert page.locator("#review-chart text.turn-mark").count() == len(turning)
    assert page.locator("#review-chart circle.lost-ring").count() == 1
    assert page.locator("#review-chart rect.unreached").count() == (1 if unknown else 0)
    # ... and in the list of plays
    chips = page.locator("#review-plays button.chip")
    assert chips.count() == len(decisions)
    assert page.locator("#review-plays button.chip.turning").count() == len(turning)
    assert "turning" in (
        page.get_attribute(f'#review-plays button[data-i="{thrown_at}"]', "class") or ""
    )

    # stepping to where the deal was lost: the hands of that moment, and the better moves
    page.click("#review-lost button.lost-go")
    lost = deal["lost_at"]
    wait_until(
        lambda: page.locator("#review-note.turning").count() == 1,
        what="the turning note",
        page=page,
    )
    assert page.inner_text("#replay-step").startswith(f"Step {steps[lost]}/")
    assert "Here the deal was lost" in page.inner_text("#review-note")
    mover = decisions[lost]["seat"]
    assert (
        page.get_attribute(f'#replay-seats .replay-seat[data-seat="{mover}"]', "class")
        == "replay-seat turning"
    )
    better = page.locator("#review-better .better-move")
    assert better.count() == len(decisions[lost]["better"])
    for i, move in enumerate(decisions[lost]["better"]):
        if move is None:
            assert better.nth(i).inner_text() == "Pass"
        else:
            assert better.nth(i).locator(".card").count() == len(parse_cards(move))
    if lost == thrown_at:
        assert decisions[lost]["better"] == [None if m is None else format_cards(m) for m in kept]
    assert page.locator(f'#review-plays button[data-i="{lost}"][aria-current="step"]').count() == 1
    shoot(page, "review-turning-phone")

    # the first estimated position, before the solver's reach: its estimate, said as one
    page.click(f'#review-plays button[data-i="{unknown}"]')
    wait_until(
        lambda: "estimate" in page.inner_text("#review-note"),
        what="the estimate's note",
        page=page,
    )
    note = page.inner_text("#review-note")
    assert f"about {int(100 * estimates[0] + 0.5)}%" in note and "the strong bot's" in note
    shoot(page, "review-estimate-phone")

    # a tap on the line goes to that position; the end says who won
    box = page.locator("#review-chart svg").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
    wait_until(
        lambda: page.inner_text("#replay-step").startswith(f"Step {steps[-1] + 1}/"),
        what="the end of the deal",
        page=page,
    )
    assert page.inner_text("#review-note") in ("The landlord wins", "The farmers win")

    # the desktop: the same review at the turning point, its chips scrolled to it
    page.set_viewport_size(DESKTOP)
    page.click(f'#review-plays button[data-i="{lost}"]')
    page.wait_for_selector("#review-note.turning")
    shoot(page, "review-turning-desktop")
    page.set_viewport_size(PHONE)

    # closed, the review's hands leave the page with the replay's
    page.keyboard.press("Escape")
    page.wait_for_selector("#replay", state="hidden")
    assert page.locator("#review-better *, #review-plays *, #review-chart *").count() == 0
    assert state(page)["review"] is None


def test_the_end_sheet_opens_the_replay_with_its_review(
    web_server: StartServer, open_page: OpenPage
) -> None:
    server = web_server("--review-seconds", "1")
    page, frames = open_page(server.url, phone=True)
    start_practice(page)
    play_out(page, frames, random.Random(3), {})
    page.wait_for_selector("#result-review:enabled")
    shoot(page, "review-end-sheet-phone")
    code = state(page)["room"]["code"]
    page.click("#result-review")
    page.wait_for_selector("#replay:not([hidden])")
    assert state(page)["replay"]["code"] == code
    wait_until(
        lambda: review_of(frames, code) is not None, timeout=60, what="the review", page=page
    )
    review = review_of(frames, code)
    assert review is not None
    replay = state(page)["replay"]
    for _ in range(len(replay["deals"]) - 1):  # past the void deals (if any) to the one played
        page.keyboard.press("ArrowDown")
    page.wait_for_selector("#review-deal:not([hidden])")
    (deal,) = review["deals"]
    assert page.locator("#review-plays button.chip").count() == len(deal["decisions"])
    assert page.inner_text("#review-summary").startswith("Solved exactly:")
    assert [m["type"] for m in frames.messages].count("review") == 1
