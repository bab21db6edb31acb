"""``ddz replay CODE`` on a terminal: the replay one step at a time, as the browser's viewer.

A full-screen prompt_toolkit application over ``client.replay_view``'s pages: each page is
one step of a deal (as dealt and bid, a trick, its end) with every seat's cards left. Keys:
Enter, Space, → or n the next step; ← or b the one before; ] and [ the next and the previous
deal; Home and End the first and last step; q (or Escape, Ctrl-C) leaves. The page is laid
out for the terminal's width at every redraw.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output

from client.render import DIM, LINE_WIDTH, Fragments
from client.replay_view import page_lines, replay_pages
from client.safe_text import printable_fragments
from protocol.messages import ReplayData

#: What the keys do, under every page.
KEYS = "Enter/→ next · ←/b back · ] [ deal · q quit"


class ReplayPager:
    """Where the reader is in a replay, and what the screen shows there."""

    def __init__(self, data: ReplayData) -> None:
        self.data = data
        self.pages = replay_pages(data)
        self.index = 0

    def step(self, delta: int) -> None:
        """Go ``delta`` steps on (back when negative), staying within the replay."""
        self.index = max(0, min(len(self.pages) - 1, self.index + delta))

    def deal(self, delta: int) -> None:
        """Go to the first step of the deal ``delta`` deals on (back when negative); back
        from within a deal goes to its own first step first."""
        starts = [i for i, page in enumerate(self.pages) if page.step == 0]
        deal = max(n for n, start in enumerate(starts) if start <= self.index)
        if delta < 0 and self.pages[self.index].step > 0:
            delta += 1
        self.index = starts[max(0, min(len(starts) - 1, deal + delta))]

    def page(self, width: int = LINE_WIDTH) -> Fragments:
        """The step the reader is at."""
        out: Fragments = []
        for line in page_lines(self.data, self.pages[self.index], width):
            out.extend([*line, ("", "\n")])
        return printable_fragments(out)

    def footer(self, width: int = LINE_WIDTH) -> Fragments:
        """Where the reader is, and the keys: one line."""
        page = self.pages[self.index]
        deals = len(self.data.deals)
        where = f"deal {page.deal + 1}/{deals} · step {page.step + 1}/{page.last_step + 1}"
        return [(DIM, f"{where} · {KEYS}"[: max(width, 1)])]


def pager_app(
    pager: ReplayPager, input: Input | None = None, output: Output | None = None
) -> Application[None]:
    """The full-screen application that shows ``pager`` and moves it with the keys."""
    keys = KeyBindings()

    def bind(*names: str, action: Callable[[KeyPressEvent], None]) -> None:
        for name in names:
            keys.add(name)(action)

    def forward(_: KeyPressEvent) -> None:
        pager.step(1)

    def back(_: KeyPressEvent) -> None:
        pager.step(-1)

    def next_deal(_: KeyPressEvent) -> None:
        pager.deal(1)

    def previous_deal(_: KeyPressEvent) -> None:
        pager.deal(-1)

    def first(_: KeyPressEvent) -> None:
        pager.index = 0

    def last(_: KeyPressEvent) -> None:
        pager.index = len(pager.pages) - 1

    def leave(event: KeyPressEvent) -> None:
        event.app.exit()

    bind("enter", "space", "right", "n", "j", action=forward)
    bind("left", "b", "p", "k", "backspace", action=back)
    bind("]", "pagedown", action=next_deal)
    bind("[", "pageup", action=previous_deal)
    bind("home", "g", action=first)
    bind("end", "G", action=last)
    bind("q", "escape", "c-c", "c-d", action=leave)

    def width() -> int:
        return app.output.get_size().columns or LINE_WIDTH

    def page() -> FormattedText:
        return FormattedText(pager.page(width()))

    def footer() -> FormattedText:
        return FormattedText(pager.footer(width()))

    # the footer is kept on the terminal's last line: a long trick on a short terminal
    # cuts the page's foot, never where one is and the keys
    body = Window(FormattedTextControl(page), wrap_lines=False)
    app: Application[None] = Application(
        layout=Layout(HSplit([body, Window(FormattedTextControl(footer), height=1)])),
        key_bindings=keys,
        full_screen=True,
        input=input,
        output=output,
    )
    return app


async def page_replay(
    data: ReplayData, input: Input | None = None, output: Output | None = None
) -> None:
    """Show ``data`` one step at a time until the reader leaves (q)."""
    if not data.deals:
        return
    await pager_app(ReplayPager(data), input, output).run_async()
