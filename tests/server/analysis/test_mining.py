"""Mining a finished match's journal for puzzles: a deal whose player missed the one winning
move (played by a script, the solver finding the puzzle) gives that puzzle, with the seats of
the side that missed it and the turning point; the bots' self-play is a whole match."""

from __future__ import annotations

from server.analysis.mining import mine_match, mine_self_play, self_play
from server.analysis.puzzles import min_plays, puzzle_id
from server.analysis.review import played_deals
from tests.server.analysis.helpers import Misser, journaled_match

#: A seed whose one deal reaches a puzzle the script misses (found by trying seeds).
SEED = 13
#: The review's reach here: in positions searched, not seconds (the same reach on any
#: machine, however loaded; 100,000 already reach the missed puzzle, in 0.3 s)
NODES = 300_000


def test_a_deal_whose_player_missed_a_puzzle_gives_it_with_its_side_and_turning_point() -> None:
    misser = Misser()
    records = journaled_match(1, SEED, misser)
    assert misser.missed is not None
    deal_no, index, puzzle = misser.missed
    (deal,) = played_deals(records)
    step = deal.steps[index]
    seat = step.position.turn
    found = mine_match(records, seconds=600.0, nodes=NODES)
    assert found["deals"] == 1
    (mined,) = [p for p in found["puzzles"] if p["key"] == puzzle.key]
    assert mined["id"] == puzzle_id(puzzle.key)
    assert len({p["key"] for p in found["puzzles"]}) == len(found["puzzles"])  # each once
    assert mined["side"] == puzzle.side == step.position.side(seat)
    assert mined["min_plays"] == min_plays(puzzle) and mined["min_plays"] >= 3
    assert seat in mined["seats"]
    assert mined["seats"] == [s for s in range(3) if step.position.side(s) == puzzle.side]
    assert {"deal": deal_no, "index": index, "seat": seat} in found["turning"]
    # no name, no code: cards, a side, numbers
    assert set(mined) == {"id", "key", "side", "answer", "min_plays", "seats"}


def test_self_play_is_a_whole_match_of_the_bots_from_its_seed() -> None:
    records = self_play(1, 5, "easy")
    assert records == self_play(1, 5, "easy")
    deals = played_deals(records)
    assert deals and all(d.winner is not None for d in deals)
    assert mine_self_play(1, 5, 0.5)["deals"] == 1
