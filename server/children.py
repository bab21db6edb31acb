"""What this server's child processes (the embedded Redis, the bot pool's workers) do when
they start, so that none outlives the server, even one killed with SIGKILL.

Linux sends a child a chosen signal when its parent dies (``prctl(PR_SET_PDEATHSIG)``); a
parent that died before the child asked is seen by the child's parent id having changed
(re-parented to init or a subreaper), and the child ends at once. Elsewhere this does
nothing: children then end with the server only when it stops cleanly.

A child that is a Python process (a bot worker) asks for the signal as the first thing its
own code does (``start_worker``), before it imports anything heavy: until it has asked, a
server killed meanwhile leaves it running, so this module imports only the standard
library, and the server's main module imports the server only when it runs
(``server/__main__.py``).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
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


def start_worker(parent: int, then: str) -> None:
    """A process pool worker's initializer: die with the server process ``parent``, leave
    Ctrl-C to it, and only then import the module ``then`` (the code it runs)."""
    die_with_parent(parent)
    ignore_interrupts()
    importlib.import_module(then)
