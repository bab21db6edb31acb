"""A replay read step by step: the steps a deal is cut into, what each page shows, and the
pager's keys (driven through a pipe as a terminal would send them)."""

from __future__ import annotations

import asyncio
import io
import time

import pyte
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.utils import get_cwidth

from client.render import plain
from client.replay_pager import ReplayPager, pager_app
from client.replay_view import Page, deal_steps, page_lines, replay_lines, replay_pages
from protocol.events import CardsPlayed, DealEnded, Passed
from protocol.messages import ReplayData, ReplayDeal
from tests.client.test_after_match import replay_data, score


def two_deals() -> ReplayData:
    """The bomb deal of ``replay_data`` with a second trick, then a void deal and the same
    deal again."""
    data = replay_data(["Ann", "easy bot 1", "Bob"])
    deal = data.deals[0]
    second = [
        CardsPlayed(
            seat=0, cards=[4, 5], kind="pair", rank=4, card_counts=[14, 17, 17], multiplier=2,
            version=5,
        ),
        Passed(seat=1, trick_over=False, leader=None, version=6),
        CardsPlayed(
            seat=2, cards=[36, 37], kind="pair", rank=12, card_counts=[14, 17, 15], multiplier=2,
            version=7,
        ),
    ]  # fmt: skip
    deal = deal.model_copy(update={"events": [*deal.events, *second]})
    void = ReplayDeal(
        deal_no=2, void=True, first_bidder=1, forced_bid=False, hands=deal.hands,
        kitty=deal.kitty, events=[], end=None,
    )  # fmt: skip
    third = deal.model_copy(update={"deal_no": 2})
    end = DealEnded(
        deal_no=2, landlord=0, winner="farmers", hands=[[], [], []], score=score([-12, 6, 6]),
        totals=[0, 0, 0],
    )  # fmt: skip
    third = third.model_copy(update={"end": end})
    return data.model_copy(update={"deals": [deal, void, third]})


def test_a_deal_is_cut_into_its_bidding_and_its_tricks() -> None:
    steps = deal_steps(two_deals().deals[0])
    assert [s.trick for s in steps] == [0, 1, 2]
    assert [type(e).__name__ for e in steps[0].events] == ["BidMade", "LandlordChosen"]
    assert len(steps[1].events) == 4 and len(steps[2].events) == 3  # the bomb's, the pairs
    assert [s.trick for s in deal_steps(two_deals().deals[1])] == [0]  # a void deal: bidding


def test_pages_step_through_each_deal_and_its_end() -> None:
    data = two_deals()
    pages = replay_pages(data)
    assert [(p.deal, p.step) for p in pages] == [
        (0, 0), (0, 1), (0, 2), (0, 3),  # bidding, two tricks, the end
        (1, 0),  # the void deal
        (2, 0), (2, 1), (2, 2), (2, 3),
    ]  # fmt: skip
    trick_two = "\n".join(plain(x) for x in page_lines(data, Page(0, 2, 3)))
    assert " trick 2 of 2" in trick_two and "♠Q ♥Q  pair" in trick_two and "BOMB" not in trick_two
    # the cards left after the trick: Ann played 4 of her 20, then 2 more
    assert "   Ann (S1)           landlord 14  ♣4 ♦4 ♠5" in trick_two
    end = "\n".join(plain(x) for x in page_lines(data, Page(2, 3, 3)))
    assert "deal over: the farmers win" in end and "match over: Ann (S1) wins" in end
    assert "match over" not in "\n".join(plain(x) for x in page_lines(data, Page(0, 3, 3)))


def test_every_line_fits_the_width_and_breaks_between_cards() -> None:
    data = two_deals()
    for width in (80, 50):
        shown = [plain(x) for x in replay_lines(data, width)]
        for page in replay_pages(data):
            shown += [plain(x) for x in page_lines(data, page, width)]
        assert all(get_cwidth(line) <= width for line in shown), width
        words = " ".join(shown).split()
        assert "♠10" in words and "♠1" not in words and "0" not in words


def test_the_pager_moves_by_step_and_by_deal() -> None:
    pager = ReplayPager(two_deals())
    pager.step(-1)
    assert pager.index == 0
    pager.step(2)
    assert pager.index == 2
    pager.deal(1)
    assert pager.index == 4  # the void deal
    pager.deal(1)
    pager.step(1)
    assert pager.index == 6
    pager.deal(-1)  # within a deal: back to its first step
    assert pager.index == 5
    pager.deal(-1)
    assert pager.index == 4
    pager.deal(5)
    assert pager.index == 5
    pager.step(99)
    assert pager.index == 8
    assert plain(pager.footer()).startswith("deal 3/3 · step 4/4 · Enter/→ next")


async def test_the_pagers_keys(pipe: PipeInput) -> None:
    pager = ReplayPager(two_deals())
    task = asyncio.create_task(pager_app(pager, input=pipe, output=DummyOutput()).run_async())
    deadline = time.monotonic() + 10
    # Enter, Space, ] (the next deal), b (back), → (on)
    for key, index in [("\r", 1), (" ", 2), ("]", 4), ("b", 3), ("\x1b[C", 4)]:
        pipe.send_text(key)
        while pager.index != index:
            assert time.monotonic() < deadline, (key, pager.index)
            await asyncio.sleep(0.01)
    pipe.send_text("q")
    await asyncio.wait_for(task, 5)


async def test_on_a_short_terminal_the_footer_keeps_the_last_line(pipe: PipeInput) -> None:
    # a trick of 14 plays on a 24-line terminal pushed where one is and the keys off it
    rows = 8
    written = io.StringIO()
    output = Vt100_Output(written, lambda: Size(rows=rows, columns=80), term="xterm")
    pager = ReplayPager(two_deals())
    pager.step(1)  # the first trick: more lines than the terminal has
    assert len(plain(pager.page()).splitlines()) > rows
    task = asyncio.create_task(pager_app(pager, input=pipe, output=output).run_async())
    deadline = time.monotonic() + 10
    while "step 2/4" not in written.getvalue():
        assert time.monotonic() < deadline, "no footer drawn"
        await asyncio.sleep(0.01)
    drawn = written.getvalue()  # (before leaving: the exit moves the cursor on)
    pipe.send_text("q")
    await asyncio.wait_for(task, 5)
    screen = pyte.Screen(80, rows)
    pyte.Stream(screen).feed(drawn)
    assert screen.display[0].startswith("replay of room")
    assert screen.display[-1].startswith("deal 1/3 · step 2/4 · Enter/→ next")
