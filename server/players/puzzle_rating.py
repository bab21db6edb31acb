"""Puzzle ratings (issue 33), pure: each attempt is a game of one player against one puzzle.

The project's rating library (openskill, the model of ``server.players.rating``) rates the
first attempt of a player at a puzzle as a 1-to-1 game: solved, the player won; failed, the
puzzle did. Both move: a puzzle many fail climbs, one everyone solves sinks, so puzzles are
chosen near a player's strength by ratings on one scale (lichess rates its puzzles so).
Shown as the match rating is (``points``: 1500 new, 40 a unit of skill). A new puzzle starts
at the middle, a little above it the more plays its win takes (``seed``).
"""

from __future__ import annotations

from server.players.rating import MODEL, NEW, Rating, points

#: A new puzzle's skill per play its win takes beyond three.
SEED_PER_PLAY = 1.5


def seed(min_plays: int) -> Rating:
    """A new puzzle's rating, from how many plays its win takes at least."""
    return Rating(NEW.mu + SEED_PER_PLAY * max(0, min_plays - 3), NEW.sigma)


def attempt(player: Rating, puzzle: Rating, solved: bool) -> tuple[Rating, Rating]:
    """The player's and the puzzle's ratings after a first attempt."""
    teams = [[MODEL.rating(player.mu, player.sigma)], [MODEL.rating(puzzle.mu, puzzle.sigma)]]
    after = MODEL.rate(teams, ranks=[0, 1] if solved else [1, 0])
    p, z = after[0][0], after[1][0]
    return Rating(p.mu, p.sigma), Rating(z.mu, z.sigma)


def shown(rating: Rating) -> int:
    """A puzzle rating as shown."""
    return points(rating)
