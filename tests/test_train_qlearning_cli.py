"""``tictacgo train GAME --algo qlearning``: the Q-learning trainers reachable from the installed package
(no script, no train extra), their tables playable by ``qlearning:path=``, bad settings refused in a line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tictacgo.baselines import make_agent
from tictacgo.cli import main
from tictacgo.game_loop import play_game
from tictacgo.games import make_game

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "train_qlearning.py"


def test_tictactoe_trains_checks_and_saves_a_table_that_plays(tmp_path, capsys):
    out = tmp_path / "ttt_q.json"
    assert main(["train", "tictactoe", "--algo", "qlearning", "--games", "400", "--eval-every", "200",
                 "--eval-games", "2", "--seed", "1", "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "400 games" in text and "exact vs minimax" in text and f"saved {out}" in text
    game = make_game("tictactoe")
    agent = make_agent(f"qlearning:path={out}", game, rng=np.random.default_rng(0))
    assert play_game(game, agent, make_agent("random", game, rng=np.random.default_rng(1))).moves


def test_littlego_trains_against_the_ladder_mix_and_saves_a_table_that_plays(tmp_path, capsys):
    out = tmp_path / "go_q.npz"
    assert main(["train", "littlego", "--algo", "qlearning", "--episodes", "30", "--eval-every", "30",
                 "--eval-games", "1", "--out", str(out)]) == 0
    assert "30 games" in capsys.readouterr().out and out.is_file()
    game = make_game("littlego")
    agent = make_agent(f"qlearning:path={out}", game, rng=np.random.default_rng(0))
    assert play_game(game, agent, make_agent("greedy", game, rng=np.random.default_rng(1))).moves


def test_littlego_keys_3_trains_an_afterstate_table_that_plays(tmp_path, capsys):
    out = tmp_path / "go_a.npz"
    assert main(["train", "littlego", "--algo", "qlearning", "--keys", "3", "--episodes", "30",
                 "--eval-every", "30", "--eval-games", "1", "--mix", "greedy=1,self=1",
                 "--out", str(out)]) == 0
    assert "30 games" in capsys.readouterr().out
    game = make_game("littlego")
    agent = make_agent(f"qlearning:path={out}", game, rng=np.random.default_rng(0))
    assert agent.table.key_scheme == 3 and len(agent.table) > 0
    assert play_game(game, agent, make_agent("greedy", game, rng=np.random.default_rng(1))).moves


def test_the_script_is_the_same_trainer_as_the_command(tmp_path):
    by_script, by_command = tmp_path / "script.json", tmp_path / "command.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--games", "300", "--eval-every", "300",
                           "--eval-games", "1", "--out", str(by_script), "--quiet"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert main(["train", "tictactoe", "--algo", "qlearning", "--games", "300", "--eval-every", "300",
                 "--eval-games", "1", "--out", str(by_command), "--quiet"]) == 0
    assert by_script.read_bytes() == by_command.read_bytes()   # one seed, one table


@pytest.mark.parametrize(("argv", "words"), [
    (["littlego"], "give --episodes or --max-seconds"),
    (["littlego", "--episodes", "5", "--black-share", "2"], "--black-share must be in [0, 1], got 2.0"),
    (["littlego", "--episodes", "5", "--mix", "random=1,bogus=2"], "unknown opponent 'bogus'"),
    (["tictactoe", "--games", "0"], "--games and --eval-every must be positive"),
])
def test_a_bad_setting_is_refused_in_one_line(tmp_path, capsys, argv, words):
    out = tmp_path / "table"
    assert main(["train", *argv[:1], "--algo", "qlearning", *argv[1:], "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tictacgo train: error: ") and words in err
    assert not out.exists()


def test_the_help_lists_both_games_options(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["train", "littlego", "--algo", "qlearning", "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    for option in ("--games", "--max-seconds", "--episodes", "--mix", "--no-symmetry", "--resume"):
        assert option in text
