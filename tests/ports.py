"""Loopback ports for the servers, Redis nodes and Sentinels the tests start.

A port is picked below the kernel's ephemeral range (``ip_local_port_range``), from which
every outgoing connection takes its local port. A port the kernel called free inside that
range could be taken by some connection (a client's, a Redis link's) between the check and
the server's bind: with three test workers and a chaos run beside them, a server failed to
start on "port in use". Below the range only another listener can take it, and the pick is
random (from the system's randomness, not the tests' seeded ``random``), so two workers
seldom try the same one, and one found taken is passed over.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

_pick = random.SystemRandom()


def _below_ephemeral() -> range:
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768  # (Linux's default)
    return range(max(1024, low - 12000), low)


#: Where the tests' ports come from (empty when the ephemeral range starts too low).
TEST_PORTS = _below_ephemeral()


def free_port() -> int:
    """A loopback port that nothing listens on now."""
    for _ in range(200 if len(TEST_PORTS) >= 1000 else 0):
        port = _pick.choice(TEST_PORTS)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:  # (no room below the range: the kernel's choice)
        s.bind(("127.0.0.1", 0))
        chosen: int = s.getsockname()[1]
        return chosen
