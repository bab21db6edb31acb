"""The rating (server/players/rating.py): pure, from the seats at the match start and the
deals' outcomes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.players.rating import (
    BOT_RATINGS,
    NEW,
    DealOutcome,
    RatedMatch,
    RatedSeat,
    Rating,
    outcomes,
    rated,
    rating_updates,
)


def seats(*who: str | None) -> tuple[RatedSeat, RatedSeat, RatedSeat]:
    """A person for each id, a normal bot for each None."""
    a, b, c = (RatedSeat(p, NEW) if p else RatedSeat.bot("normal") for p in who)
    return a, b, c


def test_a_deals_scores_say_its_landlord_and_result() -> None:
    found = outcomes([[4, -2, -2], [1, -2, 1], [-8, -8, 16], [3, 3, -6]])
    assert found == (
        DealOutcome(0, True),
        DealOutcome(1, False),
        DealOutcome(2, True),
        DealOutcome(2, False),
    )
    for bad in ([1, 1, 1], [0, 0, 0], [2, -1, -2], [2, -1]):
        with pytest.raises(ValueError):
            outcomes([bad])


def test_the_landlord_who_wins_gains_and_the_farmers_lose() -> None:
    changes = rating_updates(RatedMatch("A", seats("a", "b", "c"), (DealOutcome(0, True),)))
    assert changes["a"].after.mu > NEW.mu
    assert changes["b"].after.mu < NEW.mu and changes["c"].after.mu < NEW.mu
    # the landlord's gain mirrors each farmer's loss: the pseudo-teammate takes nothing
    loss = NEW.mu - changes["b"].after.mu
    assert changes["a"].after.mu - NEW.mu == pytest.approx(loss, rel=0.01)
    for change in changes.values():  # one game made everyone surer
        assert change.after.sigma < change.before.sigma and change.deals == 1


def test_equal_players_start_even_whichever_side_wins() -> None:
    """The landlord alone is not expected to lose to two farmers' summed skill: a landlord
    win and a farmers' win move the landlord by the same amount."""
    won = rating_updates(RatedMatch("A", seats("a", "b", "c"), (DealOutcome(0, True),)))
    lost = rating_updates(RatedMatch("A", seats("a", "b", "c"), (DealOutcome(0, False),)))
    assert won["a"].after.mu - NEW.mu == pytest.approx(NEW.mu - lost["a"].after.mu)


def test_a_person_alone_with_bots_is_never_rated() -> None:
    deals = tuple(DealOutcome(s, True) for s in (0, 1, 2, 0, 1, 2))
    assert not rated(seats("a", None, None))
    assert rating_updates(RatedMatch("A", seats("a", None, None), deals)) == {}
    assert rating_updates(RatedMatch("A", seats(None, "a", None), deals)) == {}


def test_a_bot_landlord_against_two_persons_changes_nothing() -> None:
    """Two persons farming a bot landlord gain nothing: the bot's side holds no person."""
    changes = rating_updates(RatedMatch("A", seats("a", "b", None), (DealOutcome(2, False),)))
    assert changes == {}


def test_a_person_landlord_against_a_person_and_a_bot_counts_for_both() -> None:
    match = RatedMatch("A", seats("a", "b", None), (DealOutcome(0, True), DealOutcome(2, True)))
    changes = rating_updates(match)
    assert set(changes) == {"a", "b"}
    assert changes["a"].deals == 1 and changes["b"].deals == 1
    assert changes["a"].after.mu > NEW.mu > changes["b"].after.mu


def test_beating_a_normal_bot_is_worth_more_than_beating_an_easy_one() -> None:
    def gain(level: str) -> float:
        bot = RatedSeat.bot(level)  # type: ignore[arg-type]
        match = RatedMatch("A", (RatedSeat("a", NEW), RatedSeat("b", NEW), bot), ())
        match = RatedMatch("A", match.seats, (DealOutcome(0, True),))
        return rating_updates(match)["a"].after.mu - NEW.mu

    assert gain("easy") < gain("normal") <= gain("strong")
    assert BOT_RATINGS["easy"].mu < BOT_RATINGS["normal"].mu <= BOT_RATINGS["strong"].mu


def test_the_display_value_is_conservative() -> None:
    assert NEW.display == pytest.approx(0.0)
    assert Rating(30.0, 2.0).display == pytest.approx(24.0)
    with pytest.raises(ValueError):
        Rating(25.0, 0.0)


outcome = st.builds(DealOutcome, st.integers(0, 2), st.booleans())
skill = st.builds(Rating, st.floats(0, 50), st.floats(0.5, 9))


@given(
    st.lists(st.one_of(st.none(), skill), min_size=3, max_size=3),
    st.lists(outcome, max_size=9),
)
def test_the_same_match_always_gives_the_same_changes_and_bots_are_never_rated(
    skills: list[Rating | None], deals: list[DealOutcome]
) -> None:
    a, b, c = (
        RatedSeat.bot("normal") if r is None else RatedSeat(f"p{i}", r)
        for i, r in enumerate(skills)
    )
    match = RatedMatch("A", (a, b, c), tuple(deals))
    first, again = rating_updates(match), rating_updates(match)
    assert first == again
    assert set(first) <= {s.player_id for s in match.seats if s.person}
    if not rated(match.seats):
        assert first == {}
    for pid, change in first.items():
        seat = next(s for s in match.seats if s.player_id == pid)
        assert change.before == seat.rating and 1 <= change.deals <= len(deals)
        assert change.after.sigma <= change.before.sigma + 0.1 * change.deals


@given(st.lists(outcome, min_size=1, max_size=9))
def test_a_person_who_wins_every_deal_never_loses_rating(deals: list[DealOutcome]) -> None:
    """Seat 0 wins each deal: as landlord, or as a farmer beside seat 1."""
    won = tuple(
        DealOutcome(d.landlord, d.landlord == 0) if d.landlord != 1 else DealOutcome(2, False)
        for d in deals
    )
    changes = rating_updates(RatedMatch("A", seats("a", "b", "c"), won))
    assert changes["a"].after.mu >= NEW.mu


def test_the_rating_and_the_table_forming_are_pure() -> None:
    """No I/O in what decides a rating or a table: both are plain functions of values."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    for source in ("server/players/rating.py", "server/lobby/matching.py"):
        tree = ast.parse((root / source).read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        allowed = ("__future__", "collections", "dataclasses", "math", "openskill", "protocol")
        assert all(name.split(".")[0] in allowed for name in names), (source, names)
