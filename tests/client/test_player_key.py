"""The player key ddz keeps: where and how it is written, sent with every first hello, kept
when the server gives one, and a refused key stops ddz with what to do instead of going on
as a new player. (Over a real server: test_player_key_e2e.py.)"""

from __future__ import annotations

import io
import json
import stat
from pathlib import Path

import pytest

from client.cli import parse_args
from client.commands import Invalid, ShowProfile, parse_command
from client.connection import Link, LinkError
from client.player_key import KeyFile
from client.profile_view import key_lines, profile_lines
from client.render import plain
from client.saved_session import BAD_KEY_HELP, SessionFile, open_kept
from protocol.errors import ErrorCode
from protocol.messages import HistoryEntry, ModeRecord, Profile, RatingView, Welcome

SERVER = "ws://127.0.0.1:8765"
KEY = "p0123456789abcdef.abcdefghijklmnopqrstuvwxyzABCDEF"


class KeyServer:
    """Opens links: a new player gets ``KEY``; a key other than the known one is refused."""

    def __init__(self, known: str | None = KEY) -> None:
        self.known = known
        self.hellos: list[tuple[str | None, str | None]] = []

    async def open(self, token: str | None, key: str | None) -> Link:
        self.hellos.append((token, key))
        if key is not None and key != self.known:
            raise LinkError("hello refused: unknown or replaced player key", ErrorCode.BAD_KEY)
        welcome = Welcome(
            token="t1", player_id="p0123456789abcdef", name="me", player_key=None if key else KEY
        )
        return Link(ws=None, numbers=None, welcome=welcome)  # type: ignore[arg-type]


def claimed(folder: Path) -> tuple[SessionFile, KeyFile]:
    store = SessionFile.claim(SERVER, folder)
    assert store is not None
    return store, KeyFile.of(SERVER, folder)


async def test_a_new_players_key_is_kept_0600_and_sent_from_then_on(tmp_path: Path) -> None:
    store, keys = claimed(tmp_path / "ddz")
    server = KeyServer()
    await open_kept(store, server.open, lambda _: None, keys)
    assert keys.load() == KEY
    assert stat.S_IMODE(keys.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(keys.folder.stat().st_mode) == 0o700
    store.forget()  # the session is gone (a leave, an expired token): the key stays
    await open_kept(store, server.open, lambda _: None, keys)
    assert server.hellos == [(None, None), (None, KEY)]


async def test_a_refused_key_stops_with_what_to_do_and_is_kept(tmp_path: Path) -> None:
    store, keys = claimed(tmp_path)
    assert keys.save(KEY)
    with pytest.raises(LinkError) as refused:
        await open_kept(store, KeyServer(known="p0.other").open, lambda _: None, keys)
    assert refused.value.code == ErrorCode.BAD_KEY and str(refused.value) == BAD_KEY_HELP
    assert keys.load() == KEY  # ddz key --use / --forget decide, not a refusal


def test_a_key_file_of_another_server_or_shape_is_ignored(tmp_path: Path) -> None:
    keys = KeyFile.of(SERVER, tmp_path)
    assert keys.save(KEY)
    other = KeyFile(SERVER + "/x", tmp_path)
    assert other.path != keys.path and other.load() is None
    keys.path.write_text(json.dumps({"format": 1, "server": SERVER, "key": "no dot"}))
    assert keys.load() is None
    keys.forget()
    assert not keys.path.exists()


def test_the_key_and_profile_commands_parse() -> None:
    assert parse_args(["key"]).key_action == "show"
    assert parse_args(["key", "--new"]).key_action == "new"
    use = parse_args(["key", "--use", KEY])
    assert use.key_action == "use" and use.key_code == KEY
    assert parse_args(["key", "--forget"]).key_action == "forget"
    assert parse_args(["profile", "--page", "3"]).page == 3
    with pytest.raises(SystemExit):
        parse_args(["key", "--new", "--forget"])


def test_the_key_shows_as_a_code_within_80_columns() -> None:
    lines = [plain(line) for line in key_lines(KEY, SERVER)]
    assert "".join(line for line in lines if line in KEY) == KEY
    assert all(len(line) <= 80 for line in lines)
    assert "no player key" in plain(key_lines(None, SERVER)[0])


def test_a_profile_reads_within_80_columns_with_rates_and_the_next_page() -> None:
    entry = HistoryEntry(
        code="ABCDE",
        mode="quick",
        ended_at=1_700_000_000.0,
        deals=3,
        deals_total=3,
        seats=["Ann", "Bo", "Cy"],
        your_seat=0,
        totals=[12, -6, -6],
        result="won",
        ended="match_over",
    )
    profile = Profile(
        player_id="p0123456789abcdef",
        name="Ann",
        modes=[ModeRecord(mode="quick", played=12, won=7)],
        landlord_deals=10,
        landlord_won=6,
        farmer_deals=26,
        farmer_won=13,
        points_won=140,
        points_lost=90,
        springs=2,
        bombs=5,
        rockets=1,
        best=entry,
        matches=[entry] * 20,
        offset=0,
        total=45,
        rating_history=[1500, 1548, 1620, 1737],
        rating=RatingView(
            points=1737,
            provisional=False,
            tier="platinum",
            rating=24.63,
            mu=30.93,
            sigma=2.1,
            matches=41,
        ),
    )
    lines = [plain(line) for line in profile_lines(profile)]
    text = "\n".join(lines)
    assert "rating       1737 platinum  (skill 30.9 ± 2.1)   41 rated matches" in text
    assert "rating trend 1500 ▁▂▅█ 1737  (last 4 rated)" in text
    assert all(len(line) <= 80 for line in lines), text
    assert "quick 7/12 (58%)" in text and "landlord 6/10 (60%)" in text
    assert "farmer 13/26 (50%)" in text and "+12 on" in text
    assert "page 1 of 3" in text and "ddz profile --page 2" in text
    assert io.StringIO(text).read().count("ABCDE") == 21
    unrated = [plain(line) for line in profile_lines(profile.model_copy(update={"rating": None}))]
    assert "rating       none yet (a quick match with others rates)" in unrated


def test_profile_at_the_prompt_takes_a_page() -> None:
    assert parse_command("profile") == ShowProfile()
    assert parse_command("profile 3") == ShowProfile(3)
    assert isinstance(parse_command("profile x"), Invalid)
