"""Whether a room is public, as every viewer sees it, over a real server.

Regression: "public" showed in the creator's header only; a joiner's and a resumed client's
said nothing, a watcher's said "watching room D33BE (private)" and ``ddz list`` "private".
The server marks a listed room by its short code (an unlisted one's is long): the client
reads the kind from the code, so it must hold for the codes a real server gives.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable, Iterator

import pytest
from prompt_toolkit.input import PipeInput

from client.interactive import Interactive
from client.options import Options
from client.render import Fragments, plain
from tests.client.procs import DDZ

TIMEOUT = 20.0


def head(client: Interactive) -> str:
    """The first line of the panel under the prompt."""
    return plain(client.toolbar()).splitlines()[0]


async def wait_until(what: Callable[[], bool], why: str) -> None:
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not what():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting: {why}")
        await asyncio.sleep(0.02)


@pytest.fixture
def creators(server: str) -> Iterator[Callable[[bool], str]]:
    """Headless creators of rooms (waiting for players); each call gives a new room's code."""
    procs: list[subprocess.Popen[str]] = []

    def create(public: bool) -> str:
        words = ["create", "public"] if public else ["create"]
        proc = subprocess.Popen(
            [*DDZ, "--server", server, "--name", "host", "--json", *words],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("room code: "), line
        return line.split(":", 1)[1].strip()

    try:
        yield create
    finally:
        for proc in procs:
            proc.terminate()
            proc.communicate(timeout=10)


async def visit(server: str, verb: str, code: str, said: list[Fragments]) -> tuple[str, str]:
    """``join`` or ``watch`` the room at an interactive client's prompt: what it printed,
    and the first line of its panel; then leave and quit."""
    said.clear()
    client = Interactive(Options(server=server, name=f"{verb}er", keep_session=False))
    task = asyncio.create_task(client.run())
    pipe = client.session.app.input
    assert isinstance(pipe, PipeInput)
    try:
        pipe.send_text(f"{verb} {code}\r")
        await wait_until(lambda: client.state is not None, f"the {verb}er's snapshot")
        shown = "\n".join(plain(x) for x in said), head(client)
        pipe.send_text("leave\r")
        await wait_until(lambda: client.state is not None and client.state.left, "left")
        pipe.send_text("quit\r")
        assert await asyncio.wait_for(task, 10) == 0
        return shown
    finally:
        if not task.done():
            task.cancel()


@pytest.mark.parametrize("public", [True, False])
async def test_a_joiner_and_a_watcher_see_the_rooms_kind(
    pipe: PipeInput,
    server: str,
    creators: Callable[[bool], str],
    public: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said: list[Fragments] = []
    monkeypatch.setattr("client.interactive.say", said.append)
    kind, other = ("public", "private") if public else ("private", "public")
    code = creators(public)
    lines, top = await visit(server, "watch", code, said)
    assert f"watching room {code} ({kind})" in lines
    assert f" · {kind} · " in top and other not in top
    lines, top = await visit(server, "join", code, said)
    assert f"room {code} ({kind}, 3 deals)" in lines
    assert f" · {kind} · " in top and other not in top


def test_ddz_list_calls_a_listed_room_public(server: str, creators: Callable[[bool], str]) -> None:
    code = creators(True)
    done = subprocess.run(
        [*DDZ, "--server", server, "list"], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stdout.splitlines() if x.startswith(code)]
    assert line.split()[1] == "public"
