"""The shape of the ``ddz`` command line, which scripts and load tests rely on."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from client.cli import build_parser, parse_args
from client.options import Options, setup_request
from protocol.messages import CreateRoom, JoinRoom, StartPractice, Watch

URL = "ws://127.0.0.1:8765"


def test_the_console_script_is_declared() -> None:
    pyproject = tomllib.loads(Path(__file__).parents[2].joinpath("pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["ddz"] == "client.cli:main"
    deps = " ".join(pyproject["project"]["dependencies"])
    assert "prompt_toolkit" in deps and "websockets" in deps


def test_headless_practice() -> None:
    opts = parse_args(
        ["--server", URL, "--name", "ann", "--auto", "easy", "--json", "practice", "--deals", "1"]
        + ["--level", "strong", "--speed", "instant"]
    )
    assert opts == Options(
        server=URL,
        name="ann",
        mode="practice",
        auto="easy",
        json=True,
        deals=1,
        level="strong",
        speed="instant",
        keep_session=True,  # the session is kept on disk unless asked not to
    )
    assert opts.headless
    assert setup_request(opts) == StartPractice(deals=1, level="strong", speed="instant")


def test_practice_defaults() -> None:
    opts = parse_args(["--server", URL, "practice"])
    assert (opts.deals, opts.level, opts.speed, opts.auto, opts.json) == (
        3,
        "normal",
        "normal",
        None,
        False,
    )
    assert not opts.headless


def test_create_with_bots() -> None:
    opts = parse_args(
        ["--server", URL, "--auto", "normal", "create", "--deals", "6", "--bots", "easy"]
    )
    assert (opts.mode, opts.deals, opts.bots, opts.public) == ("create", 6, "easy", False)
    assert setup_request(opts) == CreateRoom(deals=6)
    public = parse_args(["create", "--public"])
    assert setup_request(public) == CreateRoom(deals=3, public=True)


def test_join_and_watch_take_a_code() -> None:
    opts = parse_args(["--server", URL, "--auto", "easy", "join", "k7p2q"])
    assert (opts.mode, opts.code) == ("join", "K7P2Q")
    assert setup_request(opts) == JoinRoom(code="K7P2Q")
    opts = parse_args(["--json", "watch", "ABCDE"])
    assert setup_request(opts) == Watch(code="ABCDE")


def test_no_subcommand_is_the_interactive_menu() -> None:
    opts = parse_args(["--server", URL, "--name", "bo"])
    assert opts.mode is None and not opts.headless
    assert setup_request(opts) is None


@pytest.mark.parametrize(
    "argv",
    [
        ["practice", "--deals", "2"],
        ["practice", "--speed", "warp"],
        ["practice", "--level", "hard"],
        ["create", "--deals", "1"],
        ["create", "--bots", "hard"],
        ["--auto", "genius", "practice"],
        ["--auto", "easy"],
        ["--json"],
        ["join"],
        ["--name", "", "practice"],
        ["--name", "x" * 25, "practice"],
        ["key", "--use", ""],
        ["key", "--use", "  "],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        parse_args(argv)
    assert exc.value.code == 2
    assert capsys.readouterr().err


def test_help_names_every_subcommand() -> None:
    text = build_parser().format_help()
    for word in ("practice", "create", "join", "watch", "--auto", "--json", "--server", "--name"):
        assert word in text


def test_reconnect_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DDZ_RECONNECT_FOR", raising=False)
    assert parse_args(["practice"]).reconnect_for == 60
    assert parse_args(["--reconnect-for", "2.5", "practice"]).reconnect_for == 2.5
    assert parse_args(["--reconnect-for", "0", "watch", "abc"]).reconnect_for == 0
    monkeypatch.setenv("DDZ_RECONNECT_FOR", "7")
    assert parse_args(["practice"]).reconnect_for == 7
    assert parse_args(["--reconnect-for", "3", "practice"]).reconnect_for == 3
    for bad in ("-1", "soon", "inf"):
        with pytest.raises(SystemExit):
            parse_args(["--reconnect-for", bad, "practice"])


# --- issue 14, item 8: one grammar for the command line and the prompt -----------------------


@pytest.mark.parametrize(
    ("argv", "deals", "level", "speed"),
    [
        (["practice", "1", "strong"], 1, "strong", "normal"),
        (["practice", "9", "easy", "instant"], 9, "easy", "instant"),
        (["practice", "fast"], 3, "normal", "fast"),
        (["practice", "1", "--level", "strong"], 1, "strong", "normal"),
        (["practice", "--deals", "6", "--speed", "slow"], 6, "normal", "slow"),
    ],
)
def test_practice_takes_the_prompts_words(
    argv: list[str], deals: int, level: str, speed: str
) -> None:
    # `ddz practice 1 strong` failed ("unrecognized arguments") while the prompt took it.
    opts = parse_args(argv)
    assert (opts.deals, opts.level, opts.speed) == (deals, level, speed)


def test_create_takes_the_prompts_words() -> None:
    opts = parse_args(["create", "6", "public"])
    assert setup_request(opts) == CreateRoom(deals=6, public=True)
    opts = parse_args(["create", "9", "--bots", "easy"])
    assert (opts.deals, opts.bots, opts.public) == (9, "easy", False)


@pytest.mark.parametrize(
    "argv", [["practice", "2"], ["practice", "hard"], ["create", "1"], ["create", "secret"]]
)
def test_bad_words_are_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        parse_args(argv)
    assert exc.value.code == 2
    assert "deal" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("abc\u202efed", "U+202E"),  # right-to-left override
        ("Ann\x1b[2J", "U+001B"),  # ESC
        ("a\u200db", "U+200D"),  # zero-width joiner
        ("a\nb", "U+000A"),  # a line break inside
        ("normal bot 1", "bot"),
        ("Admin\u3164", "U+3164"),  # a Hangul filler: draws nothing
    ],
)
def test_a_name_that_is_not_one_says_why_and_exits_2(
    name: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (issue 34): these printed a pydantic traceback once the client built its
    hello; now the command line refuses them as it does a name too long."""
    with pytest.raises(SystemExit) as exc:
        parse_args(["--name", name, "practice"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --name" in err and why in err
    assert "Traceback" not in err and "ValidationError" not in err
    assert "\x1b" not in err and "\u202e" not in err  # the refusal does not repeat it


def test_a_bad_name_in_ddz_name_is_refused_the_same_way(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DDZ_NAME", "a\u202eb")
    with pytest.raises(SystemExit) as exc:
        parse_args(["practice"])
    assert exc.value.code == 2 and "U+202E" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Ａｄｍｉｎ", "Admin"),  # full-width look-alikes
        ("Admin\ufe0f", "Admin"),  # a variation selector dropped
        ("Ann" + " " * 72, "Ann"),
        ("  Ann \u3000  B  ", "Ann B"),
    ],
)
def test_a_name_is_normalised_as_the_server_keeps_it(typed: str, kept: str) -> None:
    assert parse_args(["--name", typed, "practice"]).name == kept


def test_the_login_name_is_a_name_or_player(monkeypatch: pytest.MonkeyPatch) -> None:
    import client.cli

    monkeypatch.delenv("DDZ_NAME", raising=False)
    monkeypatch.setattr(client.cli.getpass, "getuser", lambda: "bot")
    assert parse_args(["practice"]).name == "player"
    monkeypatch.setattr(client.cli.getpass, "getuser", lambda: "ａｎｎ")
    assert parse_args(["practice"]).name == "ann"


def test_a_name_given_is_kept_for_the_next_start_on_that_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 34: ``ddz --name Alice practice`` then ``ddz profile`` said hello as the login
    name ("root"), and the profile showed that: the name given is kept per server."""
    monkeypatch.delenv("DDZ_NAME", raising=False)
    login = parse_args(["profile"]).name
    assert parse_args(["--name", "Alice", "practice"]).name == "Alice"
    assert parse_args(["profile"]).name == "Alice"
    assert parse_args(["--server", "ws://other:1", "profile"]).name == login  # per server
    assert parse_args(["--no-save-session", "--name", "Bob", "profile"]).name == "Bob"
    assert parse_args(["profile"]).name == "Alice"  # not kept: nothing kept
