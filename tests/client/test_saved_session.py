"""The session kept on disk: where it lives, how it is written, what is ignored, and how the
first link of a process resumes it.

Regression (issue 11, item 14): the token lived only in the process, so quitting ``ddz``
mid-match and running ``ddz join CODE`` gave "this room has no empty seat": the seat had gone
to a bot and could not be taken back. (The restart itself, over a real server, is in
test_saved_session_e2e.py.)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
from pathlib import Path

import pytest

from client.cli import parse_args
from client.connection import Link, LinkError
from client.headless import Headless, SessionEnded
from client.options import Options
from client.saved_session import SessionFile, open_kept, session_file, state_folder
from protocol.errors import ErrorCode
from protocol.events import MatchEnded
from protocol.messages import Left, RoomClosed, Welcome

SERVER = "ws://127.0.0.1:8765"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def store_in(folder: Path, server: str = SERVER) -> SessionFile:
    store = SessionFile.claim(server, folder)
    assert store is not None
    return store


# --- where ---------------------------------------------------------------------------------


def test_the_state_folder_follows_xdg(tmp_path: Path) -> None:
    assert state_folder({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "ddz"
    home = Path.home() / ".local" / "state" / "ddz"
    assert state_folder({}) == home
    assert state_folder({"XDG_STATE_HOME": ""}) == home
    assert state_folder({"XDG_STATE_HOME": "relative/path"}) == home  # XDG: ignore it


def test_one_safe_file_name_per_server_address() -> None:
    name = session_file("ws://127.0.0.1:8765")
    assert name.startswith("ws_127.0.0.1_8765-") and name.endswith(".json")
    hostile = session_file("wss://../../etc/passwd\x00/\x1b[2J" + "x" * 500)
    assert "/" not in hostile and "\x00" not in hostile and "\x1b" not in hostile
    assert len(hostile) < 100 and not hostile.startswith(".")
    assert session_file("ws://a:1/x") != session_file("ws://a_1_x")
    assert session_file("ws://A:1") != session_file("ws://a:1")


# --- how it is written ----------------------------------------------------------------------


def test_kept_with_0600_in_a_0700_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ddz"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)  # a folder made by someone else's umask is tightened
    store = store_in(folder)
    store.save("token-1")
    assert store.load() == "token-1"
    assert mode(folder) == 0o700
    assert mode(store.path) == 0o600
    assert mode(store.path.with_suffix(".lock")) == 0o600
    assert json.loads(store.path.read_text())["server"] == SERVER


def test_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = store_in(tmp_path)
    store.save("old")

    def crash(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    store.save("new")  # fails quietly: the session is just not kept
    assert store.load() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [store.path.name, store.path.with_suffix(".lock").name]
    ), "a temporary file was left behind"


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\xff garbage",
        b"",
        b"[1, 2]",
        b'{"format": 1, "server": "ws://elsewhere:1", "token": "t"}',
        b'{"format": 99, "server": "ws://127.0.0.1:8765", "token": "t"}',
        b'{"format": 1, "server": "ws://127.0.0.1:8765", "token": 12}',
        b'{"format": 1, "server": "ws://127.0.0.1:8765", "token": "\\u001b[2J"}',
        b'{"format": 1, "server": "ws://127.0.0.1:8765", "token": "' + b"x" * 600 + b'"}',
    ],
)
def test_a_corrupt_or_foreign_file_is_ignored(tmp_path: Path, content: bytes) -> None:
    store = store_in(tmp_path)
    store.path.write_bytes(content)
    assert store.load() is None
    store.save("fresh")  # and replaced by the next session
    assert store.load() == "fresh"


def test_forget_drops_it(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.forget()  # nothing to forget: fine
    store.save("t")
    store.forget()
    assert store.load() is None and not store.path.exists()


def test_one_process_at_a_time_keeps_a_servers_session(tmp_path: Path) -> None:
    first = store_in(tmp_path)
    assert SessionFile.claim(SERVER, tmp_path) is None  # a second ddz: keeps nothing
    assert SessionFile.claim("ws://other:1", tmp_path) is not None  # another server: fine
    first.release()
    assert SessionFile.claim(SERVER, tmp_path) is not None


# --- the command line -------------------------------------------------------------------------


def test_kept_unless_asked_not_to(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_args(["practice"]).keep_session
    assert not parse_args(["--no-save-session", "practice"]).keep_session
    assert not parse_args(["list"]).keep_session  # a one-shot question keeps nothing
    monkeypatch.setenv("DDZ_NO_SESSION", "1")
    assert not parse_args(["practice"]).keep_session
    monkeypatch.setenv("DDZ_NO_SESSION", "0")
    assert parse_args(["practice"]).keep_session


# --- the first link of a process ---------------------------------------------------------------


class FakeServer:
    """Opens links: a known token resumes, an unknown one is refused as bad_token."""

    def __init__(self, known: set[str], down: bool = False) -> None:
        self.known = known
        self.down = down
        self.hellos: list[str | None] = []

    async def open(self, token: str | None, key: str | None = None) -> Link:
        self.hellos.append(token)
        if self.down:
            raise LinkError("cannot connect")
        if token is not None and token not in self.known:
            raise LinkError("hello refused", ErrorCode.BAD_TOKEN)
        resumed = token is not None
        welcome = Welcome(
            token=token or "new-token", player_id="p", name="me", resumed=resumed, room=None
        )
        return Link(ws=None, numbers=None, welcome=welcome)  # type: ignore[arg-type]


async def test_the_saved_session_is_resumed(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.save("kept")
    server = FakeServer({"kept"})
    link = await open_kept(store, server.open, notice=lambda _: None)
    assert server.hellos == ["kept"] and link.welcome.resumed


async def test_an_expired_session_is_dropped_for_a_new_one(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.save("expired")
    server = FakeServer(set())
    notices: list[str] = []
    link = await open_kept(store, server.open, notice=notices.append)
    assert server.hellos == ["expired", None] and not link.welcome.resumed
    assert store.load() == "new-token" and notices


async def test_a_server_that_is_down_does_not_cost_the_session(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.save("kept")
    with pytest.raises(LinkError):
        await open_kept(store, FakeServer({"kept"}, down=True).open, notice=lambda _: None)
    assert store.load() == "kept"


async def test_a_new_session_is_kept(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    await open_kept(store, FakeServer(set()).open, notice=lambda _: None)
    assert store.load() == "new-token"


# --- when the headless client forgets it ------------------------------------------------------


async def test_a_headless_client_forgets_it_when_there_is_nothing_to_come_back_to(
    tmp_path: Path,
) -> None:
    for message in [Left(), RoomClosed(reason="everyone_left")]:
        store = store_in(tmp_path)
        store.save("t")
        opts = Options(server=SERVER, name="me", json=True, mode="practice")
        headless = Headless(None, opts, io.StringIO(), io.StringIO(), store=store)  # type: ignore[arg-type]
        with contextlib.suppress(SessionEnded):
            await headless.handle(message)
        assert store.load() is None, message
        store.release()


async def test_a_headless_client_keeps_it_when_the_match_ends(tmp_path: Path) -> None:
    # Issue 14: the session is whose history and replays ddz history and ddz replay show;
    # forgotten at the match's end, they asked as a stranger and got nothing.
    ended = MatchEnded(winners=[0], totals=[2, -1, -1], deal_scores=[[2, -1, -1]])
    store = store_in(tmp_path)
    store.save("t")
    opts = Options(server=SERVER, name="me", json=True, mode="practice")
    headless = Headless(None, opts, io.StringIO(), io.StringIO(), store=store)  # type: ignore[arg-type]
    assert await headless.handle(ended) == 0
    assert store.load() == "t"
    store.release()
