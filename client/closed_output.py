"""When the terminal or pipe ddz writes to is gone (``ddz ... | head -3``, a closed terminal).

Nothing written will ever be read, so the session ends: the interactive client stops on the
first write that fails (``output_gone``) and says so by raising ``OutputClosed``; ``ddz``
then exits with ``EXIT_OUTPUT_CLOSED`` (as a shell reports a process killed by SIGPIPE) after
``silence_output`` points stdout and stderr at /dev/null, so that the interpreter's last
flush at exit does not fail again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys

#: The exit status of a ddz whose output was closed: 128 + SIGPIPE, as a shell shows it.
EXIT_OUTPUT_CLOSED = 141


class OutputClosed(Exception):
    """The terminal or pipe ddz writes to is gone: the session ended."""


def output_gone(exc: BaseException | None) -> bool:
    """Whether ``exc`` says the terminal or pipe we write to is gone (its reader exited, or
    the terminal closed)."""
    return isinstance(exc, OSError) and exc.errno in (errno.EPIPE, errno.EIO)


def silence_output() -> None:
    """Point stdout and stderr at /dev/null: what is still buffered for them is dropped."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, sys.stderr):
            # (not a real file, as a test's capture: nothing to silence)
            with contextlib.suppress(OSError, ValueError):
                os.dup2(devnull, stream.fileno())
    finally:
        os.close(devnull)
