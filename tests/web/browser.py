"""The browser table's tests in a real browser: Debian's Chromium driven by Playwright.

- ``ensure_chromium``: ``/usr/bin/chromium``, installed with apt when missing and this is
  root (as on CI's fresh machine); else the test fails and says how to get it. Playwright's
  own browser download is never used (it fails here, and it is not needed).
- ``WebServer``: a real ``ddz-server`` on a free port, on the test run's Redis under a key
  prefix of its own, with the clocks a test asks for; stopped (SIGTERM, then a kill) after.
- ``Pages``: fresh browser contexts (each its own profile: storage, cookies, cache) at phone
  or desktop size, each page recording every websocket frame it receives, decoded.
- ``shoot``: a screenshot where a person can look at it (``$DDZ_SCREENSHOTS``, default
  ``/tmp/ddz-screenshots``), never committed; a PNG encoded for speed.
"""

from __future__ import annotations

import base64
import os
import subprocess
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import msgpack

from tests.client.procs import DDZ_SERVER, free_port
from tests.redis_server import unique_prefix
from tests.system_packages import ensure_installed

CHROMIUM = "/usr/bin/chromium"
#: As the machine's notes say: no background traffic (this machine's network is closed and
#: Chromium's own connections would be refused, many at a time), no sandbox (root in CI).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Debian packages the browser tests need: the browser, and a font with Chinese glyphs so
#: the screenshots show 斗地主 and the Chinese kind names rather than boxes.
APT_PACKAGES = ["chromium", "fonts-wqy-zenhei"]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SCREENSHOTS = Path(os.environ.get("DDZ_SCREENSHOTS", "/tmp/ddz-screenshots"))


def ensure_chromium() -> str:
    """The system Chromium's path; installs it with apt when missing (as root only)."""
    return ensure_installed(CHROMIUM, APT_PACKAGES)


class WebServer:
    """A ddz-server process for one test, or a module's (``shared_server``); ``url`` is its
    page's address."""

    def __init__(self, redis_url: str, log: Path, extra: Sequence[str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log_path = log
        args = [
            *DDZ_SERVER,
            "--port", str(self.port),
            "--redis-url", redis_url,
            "--key-prefix", unique_prefix(),
            "--bot-workers", "1",
            "--bot-pool-start", "lazy",  # (few tests seat a strong bot)
            *extra,
        ]  # fmt: skip
        self._log = log.open("wb")
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}healthz", timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError("the server did not start: " + log.read_text()) from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


@dataclass
class Frames:
    """Every websocket frame one page received, decoded, in order."""

    messages: list[dict[str, Any]] = field(default_factory=list)

    def received(self, payload: str | bytes) -> None:
        data = payload if isinstance(payload, bytes) else payload.encode()
        self.messages.append(msgpack.unpackb(data, raw=False))

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == kind]


def record_frames(page: Any) -> Frames:
    frames = Frames()
    page.on("websocket", lambda ws: ws.on("framereceived", frames.received))
    return frames


#: Each page's DevTools session, opened at its first screenshot.
_DEVTOOLS: WeakKeyDictionary[Any, Any] = WeakKeyDictionary()


def shoot(page: Any, name: str) -> Path:
    """Save a screenshot of the page's viewport as ``<name>.png`` under SCREENSHOTS.

    Taken through DevTools with the PNG encoded for speed: the same pixels as Playwright's
    ``page.screenshot`` (which offers no such choice; it hides a text caret, this does not),
    in a file about a fifth larger, at a third of the time and CPU of a table's screenshot:
    the screen tests save 228."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    session = _DEVTOOLS.get(page)
    if session is None:
        session = _DEVTOOLS[page] = page.context.new_cdp_session(page)
    shot = session.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


def wait_until(
    test: Callable[[], bool], timeout: float = 20, what: str = "condition", page: Any = None
) -> None:
    """Poll ``test``. Playwright's sync API delivers events (frames) only while one of its
    calls runs: pass the ``page`` whose frames the test reads, and the wait runs through it."""
    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        if page is not None:
            page.wait_for_timeout(30)
        else:
            time.sleep(0.03)
