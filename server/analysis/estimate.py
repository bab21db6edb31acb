"""The landlord's chance in a position the exact solver did not finish, estimated with the
strong bot's machinery (issue 33: "before that, the strong bot's estimate of the landlord's
chance, marked as an estimate").

A review's positions are open (the deal is over), so no hands are sampled: what is
uncertain is the play. The strong bot judges a move the way this judges a position: it
plays the deal out with its rollout policy (``server.bots.sim.club``: the normal bot's
club-player heuristics on rank counts, each seat seeing its own hand and the other two
only as their sum) and, once few cards are left, solves the rest exactly within a node
limit (``server.bots.endgame``; past the limit the policy plays on). Here the endgame
starts later and the limit is lower than the bot's (``ENDGAME_CARDS``, ``NODE_LIMIT``):
the bot's own cost a position half as much again for no better estimates where measured.
Each position is played out ``PLAYOUTS`` times, and at each turn with a choice a seat
*wanders* with probability ``WANDER``: it plays a move drawn from its legal ones (or the
pass) instead of the policy's, never instead of going out. The share of playouts the
landlord wins is the estimate. It says how the deal goes between sound players who slip
now and then, not what best play gives: where the solver reaches, its exact answer stands
instead, and a move is never judged a turning point on estimates.

The two differ, and the line of a review may step where they meet: best play with every
hand open favours the farmers (two hands that play as one) far more than sound play does.
``benchmarks/review.py --calibrate`` compares the estimates with the solver's answers where
both are known: on the normal bots' self-play, at positions of 28 cards or more that the
solver finished, the estimate averaged 0.88 where the landlord wins with best play and
0.42 where the farmers do (133 positions of 12 deals: the same side 0.80 of the time); in
another sample (325 positions of 18 deals) 0.93 and 0.71. Wandering more pulls the
estimates towards the middle, and of 0.05 to 0.3 the more the closer to the solver there;
0.2 is a middle way that keeps a plain win near 1.

Reproducible: each position's draws come from a generator seeded by the position itself
(its hands, the landlord, whose turn, the play to beat and who made it: a string seed
hashes the same in every run), and the solver is bounded by nodes, not time, so the same
journal gives the same estimates in any order and on any machine. Cheap: a playout from a
whole deal is about half a millisecond of one core, its endgame search as much again; a
position costs some 20 to 50 ms (on a shared machine), a deal's early part about half a
second (``benchmarks/review.py``: p50 0.44 s, at most 0.99 s over 18 deals).
"""

from __future__ import annotations

import random

from protocol.legal import legal_plays_from_counts
from protocol.plays import Play
from server.analysis.position import Position
from server.bots.endgame import Solver, SolverLimit
from server.bots.sim import Counts, Policy, cached, club, counts_of, info

#: Playouts per position: the estimate's standard error is at most 0.5 / sqrt(PLAYOUTS)
#: (0.09 with 32): enough to tell a likely win from a toss-up.
PLAYOUTS = 32
#: The chance that a seat with a choice plays a legal move drawn at random instead of the
#: policy's.
WANDER = 0.2
#: Cards left in the three hands at which a playout is finished by the exact search, and
#: the positions that search may visit (the strong bot: 30 and 3000).
ENDGAME_CARDS = 16
NODE_LIMIT = 1000
#: Part of every position's seed: another value gives other (equally good) draws.
SEED = "review-estimate"


def wandering(rng: random.Random, wander: float = WANDER, policy: Policy = club) -> Policy:
    """``policy``, except that with probability ``wander`` a seat that does not go out
    plays one of its legal moves (or passes, when it may) drawn from ``rng``."""

    def choose(
        hands: list[Counts],
        sizes: list[int],
        seat: int,
        landlord: int,
        last: Play | None,
        last_seat: int,
    ) -> Play | None:
        move = policy(hands, sizes, seat, landlord, last, last_seat)
        if move is not None and info(move).size == sizes[seat]:
            return move  # going out: nobody slips there
        if rng.random() >= wander:
            return move
        options: list[Play | None] = list(legal_plays_from_counts(hands[seat], last))
        if last is not None:
            options.append(None)
        return rng.choice(options) if options else move

    return choose


def play_out(
    hands: list[Counts],
    landlord: int,
    turn: int,
    last: Play | None,
    last_seat: int,
    policy: Policy,
    solver: Solver | None = None,
    cards: int = ENDGAME_CARDS,
) -> bool:
    """Whether the landlord wins the deal played out by ``policy`` from here (``hands``
    change in place; ``turn`` answers ``last``, made by ``last_seat``, or leads when it is
    None or its own); once at most ``cards`` are left in the three hands, ``solver``
    finishes it exactly, unless its node limit stops it (then the policy plays on)."""
    sizes = [sum(h) for h in hands]
    left = sum(sizes)
    while True:
        if last_seat == turn:
            last = None
        if solver is not None and left <= cards:
            frozen = (tuple(hands[0]), tuple(hands[1]), tuple(hands[2]))
            try:
                return solver.landlord_wins(frozen, turn, last, last_seat)
            except SolverLimit:
                solver = None
        move = policy(hands, sizes, turn, landlord, last, last_seat)
        if move is None:
            turn = (turn + 1) % 3
            continue
        mi = info(move)
        for i, c in mi.takes:
            hands[turn][i] -= c
        sizes[turn] -= mi.size
        left -= mi.size
        if sizes[turn] == 0:
            return turn == landlord
        last, last_seat = move, turn
        turn = (turn + 1) % 3


def landlord_chance(
    position: Position,
    playouts: int = PLAYOUTS,
    wander: float = WANDER,
    seed: str = SEED,
) -> float:
    """The share of ``playouts`` playouts from ``position`` (wandering club play, the
    endgame solved) that the landlord wins: in [0, 1], the same for the same arguments."""
    if playouts < 1:
        raise ValueError("an estimate takes one playout at least")
    p = position
    rng = random.Random(f"{seed}:{p.hands}:{p.landlord}:{p.turn}:{p.to_beat}:{p.by}")
    policy = wandering(rng, wander)
    # one table for the position's playouts (they share much of their ends), none kept
    # longer: a deal's worth of them would hold millions of entries
    solver = Solver(p.landlord, NODE_LIMIT)
    hands = [counts_of([r - 3 for r in h]) for h in p.hands]
    last = None if p.to_beat is None else cached(p.to_beat)
    last_seat = p.turn if p.by is None else p.by
    wins = 0
    for _ in range(playouts):
        own = [list(h) for h in hands]
        wins += play_out(own, p.landlord, p.turn, last, last_seat, policy, solver)
    return wins / playouts
