"""``ddz solve`` (issue 32): two hands and three seats typed as the client reads cards, the
result and every winning move in words or as one JSON line, exit 2 on bad input."""

from __future__ import annotations

import io
import json
import subprocess

import pytest

from client.cli import build_parser, main
from client.solve_command import EXIT_BAD_INPUT, EXIT_SOLVED, EXIT_UNKNOWN, run_solve
from tests.client.procs import DDZ


def solve(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_solve(build_parser().parse_args(["solve", *argv]), out, err)
    return status, out.getvalue(), err.getvalue()


def solve_json(*argv: str) -> dict[str, object]:
    status, out, err = solve(*argv, "--json")
    assert status == EXIT_SOLVED and err == ""
    assert out.count("\n") == 1
    line: dict[str, object] = json.loads(out)
    return line


def test_two_hands_in_words() -> None:
    status, out, err = solve("KK5543", "225543")
    assert status == EXIT_SOLVED and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("First wins with best play (")
    assert lines[1] == "Winning moves for first: single 4, single 5"


def test_two_hands_as_json() -> None:
    line = solve_json("KK5543", "225543")
    assert line["winner"] == "first"
    assert line["winning_moves"] == ["4", "5"]
    assert isinstance(line["positions"], int) and line["positions"] > 0
    assert isinstance(line["seconds"], float)


def test_the_card_texts_the_client_reads() -> None:
    # 10s typed as "10", jokers as SJ/BJ, spaces anywhere; the published 2KK0077554 vs AA8.
    line = solve_json("2 K K 10 10 7 7 5 5 4", "A A 8")
    assert line["winner"] == "second" and line["winning_moves"] == []
    # Leading the 3 lets the 4 go out; either joker or the rocket keeps the lead.
    assert solve_json("SJ BJ 3", "4")["winning_moves"] == ["SJ", "BJ", "SJ BJ"]


def test_two_hands_with_a_play_to_beat_and_the_pass() -> None:
    # The second led a 5; the first holds a 6 and a 3 against the second's 4: beating with
    # the 6 keeps the lead and the 3 goes out; passing lets the second lead its 4, out.
    line = solve_json("6 3", "4", "--beat", "5")
    assert line["winner"] == "first" and line["winning_moves"] == ["6"]


def test_three_seats() -> None:
    line = solve_json(
        "--landlord", "33", "--farmer1", "2", "--farmer2", "448",
        "--turn", "farmer2", "--beat", "7", "--by", "farmer1",
    )  # fmt: skip
    assert line["winner"] == "farmers" and line["winning_moves"] == ["8", "pass"]
    status, out, _ = solve("--landlord", "BJ SJ 3", "--farmer1", "4", "--farmer2", "5")
    assert status == EXIT_SOLVED
    assert out.splitlines()[1] == ("Winning moves for landlord: single SJ, single BJ, ROCKET SJ BJ")


def test_the_global_json_flag_works_too() -> None:
    out, err = io.StringIO(), io.StringIO()
    status = run_solve(build_parser().parse_args(["--json", "solve", "3", "4"]), out, err)
    assert status == EXIT_SOLVED and json.loads(out.getvalue())["winner"] == "first"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["KX", "3"], "first: 'X' at position 2 is not a card rank"),
        (["33333", "4"], "5 cards of rank 3"),
        (["SJ", "SJ"], "2 cards of rank SJ"),
        (["333", "33 4"], "the hands hold 5 cards of rank 3"),
        (["3", "4", "--beat", "3 4"], "--beat: 3 4 is not a play"),
        (["333", "4", "--beat", "33"], "hold 5 cards of rank 3"),
        (["3"], "give two hands"),
        (["3", "4", "--by", "farmer1"], "for three seats"),
        (["3", "--landlord", "4", "--farmer1", "5", "--farmer2", "6"], "not both"),
        (["--landlord", "4", "--farmer1", "5"], "need --landlord, --farmer1 and --farmer2"),
        (["--landlord", "4", "--farmer1", "5", "--farmer2", "6", "--beat", "7"], "go together"),
        (
            ["--landlord", "4", "--farmer1", "5", "--farmer2", "6", "--beat", "7", "--by",
             "landlord"],
            "own play",
        ),
    ],
)  # fmt: skip
def test_bad_input_is_refused_with_exit_2(argv: list[str], message: str) -> None:
    status, out, err = solve(*argv)
    assert status == EXIT_BAD_INPUT and out == ""
    assert err.startswith("ddz solve: ") and message in err


def test_out_of_time_is_unknown_never_a_guess() -> None:
    status, out, _ = solve("BJ A Q Q J J 10 9 9 9 8 4 4", "SJ 2 2 A A 10 8 8 6 6 3 3",
                           "--max-seconds", "0", "--json")  # fmt: skip
    assert status == EXIT_UNKNOWN
    assert json.loads(out)["winner"] is None and json.loads(out)["winning_moves"] == []


def test_main_dispatches_solve(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "3", "4", "--json"]) == EXIT_SOLVED
    assert json.loads(capsys.readouterr().out)["winning_moves"] == ["3"]


def test_the_real_command() -> None:
    done = subprocess.run(
        [*DDZ, "solve", "ZA54333".replace("Z", "BJ "), "SJ 2 2 2 K Q", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["winner"] == "first"
    bad = subprocess.run(
        [*DDZ, "solve", "3", "3 3 3 3"], capture_output=True, text=True, timeout=60, check=False
    )
    assert bad.returncode == 2 and "5 cards of rank 3" in bad.stderr
