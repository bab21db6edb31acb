"""What this server's child processes (the embedded Redis, the bot pool's workers) do when
they start, so that none outlives the server, even one killed with SIGKILL.

Linux sends a child a chosen signal when its parent dies (``prctl(PR_SET_PDEATHSIG)``); a
parent that died before the child asked is seen by the child's parent id having changed
(re-parented to init or a subreaper), and the child ends at once. Elsewhere this does
nothing: children then end with the server only when it stops cleanly.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int, sig: int = signal.SIGKILL) -> None:
    """In a child of process ``parent``: get ``sig`` when the parent dies (Linux), and end
    now if it already has."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, sig)
    if os.getppid() != parent:
        os._exit(1)


def ignore_interrupts() -> None:
    """In a child: Ctrl-C at a terminal reaches every process of its foreground group, and
    it is the server's to handle (it stops its children in order); not this child's. (A
    child started with SIGINT blocked, so that none could come before this, gets it
    unblocked: one that came meanwhile is dropped.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
