"""Fixtures of the browser tests: Debian's Chromium (one per test module), real ddz-servers
(a test's own, or one a module's tests share), and fresh browser contexts whose pages
record what they receive."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser import (
    CHROMIUM_ARGS,
    DESKTOP,
    PHONE,
    Frames,
    WebServer,
    ensure_chromium,
    record_frames,
)

#: The page has said hello and been welcomed (a function, not a string: the page's CSP
#: forbids eval, which Playwright uses for a string predicate).
OPEN = "() => window.ddz && window.ddz.state().conn === 'open'"
#: ... and drawn so: the lobby's buttons are enabled by the render after the welcome (in the
#: next animation frame, or 100 ms on), so a click at once could find them disabled (seen
#: under load: the click looked once, did nothing, and the test timed out after 15 s).
DRAWN = (
    "() => document.getElementById('lobby').hidden"
    " || !document.getElementById('practice-start').disabled"
)
StartServer = Callable[..., WebServer]
OpenPage = Callable[..., tuple[Any, Frames]]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Chromium per test module (each test gets contexts of its own in it).
    Module, not session: Playwright's sync API holds an event loop while it runs, which
    asyncio tests after it must not find; the driver and the browser end with the module."""
    path = ensure_chromium()
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(
            executable_path=path, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


@pytest.fixture
def web_server(redis_url: str, tmp_path: Path) -> Iterator[StartServer]:
    """Start ddz-servers with the given extra flags; all are stopped after the test."""
    servers: list[WebServer] = []

    def start(*extra: str) -> WebServer:
        server = WebServer(redis_url, tmp_path / f"server-{len(servers)}.log", extra)
        servers.append(server)
        return server

    try:
        yield start
    finally:
        for server in servers:
            server.stop()


@pytest.fixture(scope="module")
def shared_server(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StartServer]:
    """Like ``web_server``, but one server per distinct set of flags for the whole module,
    started when a test first asks for it and stopped after the module's last test (a
    start and stop costs about 0.6 CPU seconds). Only for tests that nothing another test
    does can reach: each test's player is a fresh browser identity, and its practices and
    private rooms are its own. Tests of shared state (the lobby's list of rooms, the ladder,
    quick match) and tests that stop or restart their server keep ``web_server``."""
    servers: dict[tuple[str, ...], WebServer] = {}
    logs = tmp_path_factory.mktemp("shared-servers")

    def start(*extra: str) -> WebServer:
        if extra not in servers:
            servers[extra] = WebServer(redis_url, logs / f"server-{len(servers)}.log", extra)
        server = servers[extra]
        assert server.proc.poll() is None, "a shared server stopped: " + server.log_path.read_text()
        return server

    try:
        yield start
    finally:
        for server in servers.values():
            server.stop()


@pytest.fixture
def open_page(chromium: Any) -> Iterator[OpenPage]:
    """Open a URL in a fresh context (its own profile): ``phone=True`` for 390x844 with
    touch, else 1280x800 with a mouse; ``clock=True`` lets the test move the page's time
    on (``page.clock.fast_forward``); ``before`` is called with the page before it loads
    (to listen from its first request on). Returns the page and the frames it receives.
    A JavaScript error on any page fails the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_(
        url: str,
        phone: bool = False,
        locale: str = "en-US",
        clock: bool = False,
        before: Callable[[Any], None] | None = None,
    ) -> tuple[Any, Frames]:
        context = chromium.new_context(
            viewport=PHONE if phone else DESKTOP,
            has_touch=phone,
            is_mobile=phone,
            device_scale_factor=1,
            locale=locale,
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        frames = record_frames(page)
        if clock:  # the page's timers on Playwright's clock: time flows, and can jump
            page.clock.install()
        if before is not None:
            before(page)
        page.goto(url)
        page.wait_for_function(OPEN)
        page.wait_for_function(DRAWN)
        return page, frames

    try:
        yield open_
    finally:
        for context in contexts:
            context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
