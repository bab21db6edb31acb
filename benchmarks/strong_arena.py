"""The arena (``benchmarks/arena.py``) with the strong bot available as level ``strong``.

``policy_for`` does not hand out ``StrongBot`` until it is registered there; this wrapper
registers it for the arena run only, seeded from the arena's per-bot random source, and
passes every other level through. Arguments are the arena's::

    .venv/bin/python benchmarks/strong_arena.py --a strong --b normal --deals 1000 \
        --budget 0.2 --workers 2
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import arena

from server.bots.base import BotPolicy
from server.bots.base import policy_for as base_policy_for
from server.bots.strong import StrongBot


def policy_for(level: str, rng: random.Random | None = None) -> BotPolicy:
    """``StrongBot`` for ``strong`` (its seed drawn from ``rng``), else the project's own."""
    if level == "strong":
        return StrongBot(seed=None if rng is None else rng.randrange(2**31))
    return base_policy_for(level, rng=rng)


if __name__ == "__main__":
    arena.policy_for = policy_for  # type: ignore[assignment]
    arena.main()
