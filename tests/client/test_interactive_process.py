"""The interactive ``ddz`` as a real process on a terminal (a pseudo-terminal for its input).

Regression: with its output piped into a reader that stops early (``ddz create public 6 2>&1
| head -3``), ddz spun at about 95% of a core for ever: each failed write to the closed pipe
became an "unhandled exception" that prompt_toolkit answered with a "Press ENTER" prompt,
whose own write failed again. It must exit, and soon.
"""

from __future__ import annotations

import os
import pty
import resource
import subprocess
import time

from tests.client.procs import DDZ

#: Seconds the client has to notice the closed pipe and exit.
EXIT_WITHIN = 15.0
#: CPU seconds it may spend meanwhile (a spinning client burns about one a second).
CPU_BOUND = 4.0


def test_the_client_exits_when_the_pipe_it_writes_to_closes(server: str) -> None:
    primary, secondary = pty.openpty()  # a terminal for its input, as a person's shell has
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(
        [*DDZ, "--server", server, "--name", "piped", "create", "public", "6"],
        stdin=secondary,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    os.close(secondary)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]  # what `head -3` reads
        assert lines[0].startswith(b"ddz: connected"), lines
        proc.stdout.close()  # `head` exits: the pipe's reader is gone
        # and the person types a command, whose answer is the next write (on a loaded
        # machine everything ddz had to say may have gone into the pipe's buffer before it
        # closed: ddz, waiting for players, would write nothing more, like any program)
        os.write(primary, b"help\r")
        started = time.monotonic()
        status = proc.wait(EXIT_WITHIN)
        took = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(primary)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert status != 0, "a closed output is no clean end"
    assert took < EXIT_WITHIN and cpu < CPU_BOUND, (took, cpu)
