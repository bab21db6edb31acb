"""``ddz replay CODE`` over a real server, on a terminal and into a pipe.

Regression: it printed about 130 lines at once in the operator's journal format
(``triple_single``, ``scores [-3, -3, 6]``). On a terminal it now shows one step at a time
(the deal as dealt and bid, then trick by trick) and moves on a key; into a pipe it prints
the whole match, readably.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from pathlib import Path

import pyte
import pytest

from tests.client.procs import DDZ_KEEPING

TIMEOUT = 60.0
#: The terminal's size.
COLUMNS, ROWS = 80, 40
#: What ends a screen of the pager: the line of where it is and the keys.
FOOTER = re.compile(r"deal 1/1 · step (\d+)/(\d+)")


def ddz(server: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DDZ_KEEPING, "--server", server, *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "XDG_STATE_HOME": str(home)},
    )


@pytest.fixture(scope="module")
def played(server: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A one-deal practice played to its end under --auto: the session's home and the code."""
    home = tmp_path_factory.mktemp("replayer")
    words = ["practice", "1", "instant"]
    done = ddz(server, home, "--name", "ann", "--auto", "normal", "--json", *words)
    assert done.returncode == 0, done.stderr
    match = re.search(r'"code":"([A-Z0-9-]+)"', done.stdout)
    assert match is not None
    return home, match.group(1)


def test_into_a_pipe_the_whole_match_prints_readably(server: str, played: tuple[Path, str]) -> None:
    home, code = played
    shown = ddz(server, home, "replay", code)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert text.startswith(f"replay of room {code} · practice · 1 deal(s) of 1")
    assert "\n bidding\n" in text and "\n trick 1 of " in text and "deal over: " in text
    assert "match over: " in text and "   totals: ann (S1) " in text
    assert "_" not in text and "[" not in text  # no wire names, no lists
    assert all(len(line) <= 80 for line in text.splitlines())


class Terminal:
    """What an 80x40 terminal shows of a program's output. The pager redraws only what
    changed between two screens (a step's footer may be one digit), so the screen is
    rebuilt from the bytes rather than searched in them."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.stream = pyte.ByteStream(self.screen)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def until(self, pattern: re.Pattern[str], step: str) -> re.Match[str]:
        """Read until ``pattern`` shows on the screen with ``step`` as its first group."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            match = pattern.search(self.text())
            if match is not None and match.group(1) == step:
                return match
            left = deadline - time.monotonic()
            assert left > 0, f"not shown: {pattern.pattern!r} ({step}) on\n{self.text()}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.stream.feed(os.read(self.fd, 65536))
                except OSError:  # the process closed the terminal
                    continue

    def raw(self) -> None:
        """Wait until the program reads keys one by one (its terminal left line mode)."""
        deadline = time.monotonic() + TIMEOUT
        while termios.tcgetattr(self.fd)[3] & termios.ICANON:
            assert time.monotonic() < deadline, "the terminal stayed in line mode"
            time.sleep(0.01)


def test_on_a_terminal_the_replay_steps_by_key(server: str, played: tuple[Path, str]) -> None:
    home, code = played
    primary, secondary = pty.openpty()
    # (the size the screen below draws: a new pty has none, read as 24 lines)
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    proc = subprocess.Popen(
        [*DDZ_KEEPING, "--server", server, "replay", code],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env={**os.environ, "XDG_STATE_HOME": str(home), "TERM": "xterm", "COLUMNS": str(COLUMNS)},
    )
    os.close(secondary)
    terminal = Terminal(primary)
    try:
        first = terminal.until(FOOTER, "1")
        screen = terminal.text()
        assert int(first.group(2)) >= 3  # bidding, tricks, end
        assert "bidding" in screen and "trick 1 of" not in screen  # one step, not all
        terminal.raw()  # (a key typed before the pager reads keys could be lost)
        os.write(primary, b"\r")  # Enter: the first trick
        terminal.until(FOOTER, "2")
        assert "trick 1 of" in terminal.text()
        os.write(primary, b"q")
        assert proc.wait(TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(primary)
