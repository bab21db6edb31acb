"""``ddz-server`` / ``python -m server``: start the Dou Dizhu websocket server."""

from __future__ import annotations

from collections.abc import Sequence

from server.edge.transport import run
from server.settings import load_settings


def main(argv: Sequence[str] | None = None) -> None:
    run(load_settings(argv))


if __name__ == "__main__":
    main()
