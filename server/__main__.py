"""``ddz-server`` / ``python -m server``: start the Dou Dizhu websocket server.

The server is imported inside ``main``, not here: each bot worker (``server.bots.pool``, a
``spawn`` process) imports the parent's main module before any of its own code runs, and
a worker importing the whole server first would outlive a server killed meanwhile for as
long as that import takes (``server.children``)."""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    from server.edge.transport import run
    from server.settings import load_settings

    run(load_settings(argv))


if __name__ == "__main__":
    main()
