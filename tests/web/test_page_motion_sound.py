"""Motion and sound at the table: nothing moves under prefers-reduced-motion nor with the
setting off (and things do move otherwise); the mute switch holds across a reload; and a
trick played costs the page no long task (over 50 ms, Chrome's own measure)."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.web.browser import wait_until
from tests.web.conftest import OPEN, OpenPage, StartServer
from tests.web.driver import click
from tests.web.table_helpers import become_landlord, my_turn, open_settings, play_hint

#: Before the page's own scripts: count the Web Animations the page starts, and keep every
#: long task Chrome reports.
WATCH = """
window.__animations = 0;
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  window.__animations += 1;
  return animate.apply(this, args);
};
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
}).observe({ type: 'longtask', buffered: true });
"""


def watched(page: Any) -> None:
    """Reload the page with WATCH in place before its scripts."""
    page.context.add_init_script(script=WATCH)
    page.reload()
    page.wait_for_function(OPEN)


def moving(page: Any) -> tuple[int, int]:
    """Web Animations started so far, and animations (CSS ones too) running now."""
    result: list[int] = page.evaluate(
        "() => [window.__animations, document.getAnimations().length]"
    )
    return result[0], result[1]


def play_turns(page: Any, frames: Any, plays: int) -> None:
    """Play (by Hint) until this many plays are on the record, the bots' included, or the
    deal ends (a landlord's Hints against easy bots can win it in three plays)."""
    deadline = time.monotonic() + 60
    ends = len(frames.of_type("deal_end"))
    while len(frames.of_type("played")) < plays and len(frames.of_type("deal_end")) == ends:
        assert time.monotonic() < deadline, "the deal did not go on"
        if my_turn(page):
            play_hint(page)
        page.wait_for_timeout(30)


def test_no_motion_under_reduced_motion_nor_with_the_setting_off(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    server = shared_server()
    # the system asks for less motion: nothing moves, deal, plays and all
    still, still_frames = open_page(server.url, phone=True)
    still.emulate_media(reduced_motion="reduce")
    watched(still)
    assert still.evaluate("() => document.body.classList.contains('still')")
    become_landlord(still)
    play_turns(still, still_frames, 4)
    assert moving(still) == (0, 0)

    # by default things move: the deal and each play start animations
    page, frames = open_page(server.url)
    watched(page)
    become_landlord(page)
    started, _ = moving(page)
    assert started > 0
    # (two plays more than the record holds now: the bots may have played already)
    play_turns(page, frames, len(frames.of_type("played")) + 2)
    page.wait_for_function("(started) => window.__animations > started", arg=started)
    # the setting turns motion off (and is remembered)
    open_settings(page)
    page.uncheck("#motion-toggle")
    click(page, "#settings-close")
    assert page.evaluate("() => document.body.classList.contains('still')")
    before, _ = moving(page)
    play_turns(page, frames, len(frames.of_type("played")) + 3)
    assert moving(page) == (before, 0)
    assert page.evaluate("() => JSON.parse(localStorage.getItem('ddz.prefs')).motion") is False


def switch_sound(page: Any, pressed: str) -> None:
    """Press the sound switch until it reads ``pressed``: a tap can miss while a sheet comes
    and goes on a loaded machine (a press turns it at once: the page redraws in its click)."""
    wait_until(
        lambda: (
            page.get_attribute("#sound-toggle", "aria-pressed") == pressed
            or (click(page, "#sound-toggle") and False)
        ),
        what=f"the sound switch at {pressed}",
        page=page,
    )


def test_the_mute_switch_is_remembered_across_a_reload(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    server = shared_server()
    page, frames = open_page(server.url, phone=True)
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "true"
    become_landlord(page)
    # sounds on: my turn, and each play
    wait_until(lambda: "turn" in page.evaluate("() => window.ddz.sounds()"), what="my turn's")
    play_turns(page, frames, 2)
    heard = page.evaluate("() => window.ddz.sounds()")
    assert "play" in heard or "bomb" in heard or "rocket" in heard
    # muted: remembered across a reload, and nothing sounds
    switch_sound(page, "false")
    page.reload()
    page.wait_for_function(OPEN)
    page.wait_for_selector("#table:not([hidden])")
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "false"
    assert page.evaluate("() => JSON.parse(localStorage.getItem('ddz.prefs')).sound") is False
    played = len(frames.of_type("played"))
    play_turns(page, frames, played + 3)
    assert page.evaluate("() => window.ddz.sounds()") == []
    # and on again (in a practice of its own if the deal ended meanwhile: its end sheet
    # lies over the switch, as a match's end does in the apps)
    if page.is_visible("#result"):
        click(page, "#to-lobby")
        page.wait_for_selector("#lobby:not([hidden])")
        switch_sound(page, "true")
        become_landlord(page)
    else:
        switch_sound(page, "true")
    play_turns(page, frames, len(frames.of_type("played")) + 2)
    assert page.evaluate("() => window.ddz.sounds()")


#: A task of a thread's run loop, as Chrome's trace names it (older and newer builds).
TASK_EVENTS = {"RunTask", "ThreadControllerImpl::RunTask"}


def main_thread_tasks(trace: bytes) -> list[tuple[float, float]]:
    """Every task of the busiest renderer main thread in a Chrome trace: (wall, CPU) ms."""
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    mains = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M" and e.get("args", {}).get("name") == "CrRendererMain"
    }
    tasks: dict[tuple[int, int], list[tuple[float, float]]] = {m: [] for m in mains}
    for e in events:
        where = (e.get("pid"), e.get("tid"))
        if e.get("name") in TASK_EVENTS and e.get("ph") == "X" and where in tasks:
            tasks[where].append((e.get("dur", 0) / 1000, e.get("tdur", e.get("dur", 0)) / 1000))
    busiest = max(tasks.values(), key=lambda ts: sum(w for w, _ in ts), default=[])
    return busiest


def test_no_long_task_while_a_trick_is_played(
    shared_server: StartServer, open_page: OpenPage
) -> None:
    """Chrome's own data on a trick played: its longtask entries (wall time, which a busy
    machine stretches) are printed; its trace's tasks must each take at most 50 ms of the
    page's main thread's CPU time."""
    server = shared_server()
    page, frames = open_page(server.url)
    watched(page)
    become_landlord(page)
    browser = page.context.browser
    browser.start_tracing(page=page, categories=["toplevel", "devtools.timeline"])
    since = page.evaluate("() => performance.now()")
    # one whole trick: plays until two passes in a row end it
    deadline = time.monotonic() + 60
    try:
        while not any(m["type"] == "passed" and m["trick_over"] for m in frames.messages):
            assert time.monotonic() < deadline, "the trick did not end"
            if my_turn(page):
                play_hint(page)
            page.wait_for_timeout(30)
        # the trick's end drawn (the middle cleared) and its motion run out
        page.wait_for_function(
            "() => !window.ddz.state().trickOver || !document.querySelector('#play-area .lead')"
        )
        page.evaluate("() => Promise.all(document.getAnimations().map((a) => a.finished))")
    finally:
        trace = browser.stop_tracing()
    walls = [d for start, d in page.evaluate("() => window.__longTasks") if start >= since]
    tasks = main_thread_tasks(trace)
    assert tasks, "the trace holds the page's tasks"
    worst_cpu = max(cpu for _, cpu in tasks)
    long_cpu = [(round(w), round(c, 1)) for w, c in tasks if w > 50]
    print(
        f"\nlongtask entries (wall ms): {walls or 'none'}; trace: {len(tasks)} tasks,"
        f" the longest {max(w for w, _ in tasks):.1f} ms wall, the most CPU {worst_cpu:.1f} ms;"
        f" tasks over 50 ms wall (wall, CPU): {long_cpu or 'none'}"
    )
    assert worst_cpu <= 50, long_cpu
