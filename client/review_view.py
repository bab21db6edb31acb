"""A match's review in words (``ddz review CODE``): per deal its plays and passes, each
marked with the side that wins with best play before it (before the solver's reach, the
strong bot's estimate of the landlord's chance, said as one: "landlord ~62% (estimate)"),
the moves that threw a win away marked, with the moves that would have kept it."""

from __future__ import annotations

from protocol.messages import ReviewData, ReviewDeal, ReviewDecision

SEATS = ("S1", "S2", "S3")


def _value(value: str | float | None) -> str:
    """A position's value: the side that wins with best play, the estimated landlord's
    chance marked as an estimate, or "?" (unknown)."""
    if value is None:
        return "?"
    if isinstance(value, str):
        return value
    return f"landlord ~{int(100 * value + 0.5)}% (estimate)"  # (halves up, as the page)


def _move(play: str | None) -> str:
    return "pass" if play is None else play


def _decision(n: int, d: ReviewDecision, lost_at: int | None) -> list[str]:
    mark = "X" if n == lost_at else "x" if d.exact and d.before != d.after else " "
    timeout = " (timeout)" if d.timeout else ""
    line = f" {mark} {n + 1:3d}  {SEATS[d.seat]}  {_move(d.play) + timeout:<22} {_value(d.before)}"
    if mark != " ":
        line += f" -> {d.after}: threw the win away"
        return [line, f"{'':13}better: {' | '.join(_move(m) for m in d.better)}"]
    return [line]


def deal_lines(deal: ReviewDeal) -> list[str]:
    """One reviewed deal: a head line, the hands as play began, each decision."""
    landlord = SEATS[deal.landlord]
    n = len(deal.decisions)
    head = f"== deal {deal.deal_no}: {landlord} the landlord, the {deal.winner} won"
    if deal.lost_at is not None:
        lost = deal.decisions[deal.lost_at]
        head += f"; lost at play {deal.lost_at + 1} ({SEATS[lost.seat]} {_move(lost.play)})"
    lines = [head]
    lines += [f"   {SEATS[s]} {hand}" for s, hand in enumerate(deal.hands)]
    if not deal.estimated:
        lines.append(
            f"   solved exactly: the last {deal.reach} of {n} plays and passes (? before that);"
            " the side that wins with best play before each"
        )
    else:
        unknown = n - deal.reach - deal.estimated
        lines.append(
            f"   solved exactly: the last {deal.reach} of {n} plays and passes, the side that"
            f" wins with best play before each; the {deal.estimated} before them with the"
            " landlord's chance as the strong bot estimates it"
            + (f" (? before the first {unknown})" if unknown else "")
        )
    for i, d in enumerate(deal.decisions):
        lines += _decision(i, d, deal.lost_at)
    return lines


def review_lines(review: ReviewData, deal_no: int | None = None) -> list[str]:
    """The match's review (or only deal ``deal_no``'s) as lines of text."""
    deals = [d for d in review.deals if deal_no is None or d.deal_no == deal_no]
    if not deals:
        which = f"deal {deal_no}" if deal_no is not None else "deal"
        return [f"review of {review.code}: no {which} played to its end"]
    lines = [f"review of {review.code}"]
    for deal in deals:
        lines += ["", *deal_lines(deal)]
    return lines


def only_deal(review: ReviewData, deal_no: int | None) -> ReviewData:
    """The review with only deal ``deal_no`` (None: all of it)."""
    if deal_no is None:
        return review
    return review.model_copy(update={"deals": [d for d in review.deals if d.deal_no == deal_no]})
