"""Every command: bad numbers are refused in one line with exit status 2, never a traceback."""

from __future__ import annotations

import importlib.util

import pytest

from tictacgo.cli import main


@pytest.mark.parametrize("argv", [
    ["arena", "tictactoe", "random", "random", "--games", "1"],
    ["demo", "--games", "1"],
    ["host", "true", "true"],
    ["my-player", "--agent", "random"],
    ["play", "tictactoe", "--agent", "random"],
    ["gtp", "--agent", "random"],
    ["train", "tictactoe", "--steps", "1"],
], ids=lambda argv: argv[0])
def test_a_negative_seed_is_one_line_and_exit_2(argv, tmp_path, monkeypatch, capsys):
    if argv[0] == "train" and importlib.util.find_spec("sb3_contrib") is None:
        pytest.skip("train needs the train extra")
    monkeypatch.chdir(tmp_path)
    assert main(argv + ["--seed=-1"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "-1" in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "runs").exists()


def test_demo_refuses_no_games(capsys):
    assert main(["demo", "--games", "0"]) == 2
    assert "--games must be at least 1, got 0" in capsys.readouterr().err


def test_the_board_size_is_named_board_size_everywhere(capsys):
    assert main(["host", "true", "true", "--board-size", "1"]) == 2
    assert "--board-size" in capsys.readouterr().err
    assert main(["arena", "littlego", "random", "random", "--board-size", "1"]) == 2
    assert "--board-size 1" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["arena"], "tictacgo arena: error: the following arguments are required: game, AGENT"),
    (["train", "tictactoe", "--steps", "x"],
     "tictacgo train: error: argument --steps: invalid int value: 'x'"),
    (["nosuchcommand"], "tictacgo: error: argument COMMAND: invalid choice: 'nosuchcommand'"),
])
def test_an_argument_error_is_one_line_pointing_at_help(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.startswith(message) and len(err.strip().splitlines()) == 1
    assert "--help)" in err and "usage:" not in err
