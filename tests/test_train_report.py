"""What tictacgo train says: the settings as lines, the steps it really trains, evaluation lines that
fit the game, and a learning curve with more than one point even for a short run."""

from __future__ import annotations

import importlib.util
import json

import pytest

from tictacgo.cli import main

pytestmark = pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None,
                                reason="needs the train extra")


def _train(tmp_path, capsys, *argv):
    code = main(["train", *argv, "--eval-games", "1", "--no-progress", "--out", str(tmp_path / "run")])
    out = capsys.readouterr().out
    assert code == 0, out
    history = json.loads((tmp_path / "run" / "progress.json").read_text())["history"]
    return out, history


def test_steps_that_are_not_whole_rollouts_are_rounded_up_and_the_run_says_to_what(tmp_path, capsys):
    out, history = _train(tmp_path, capsys, "tictactoe", "--steps", "100", "--n-envs", "2", "--n-steps", "32",
                          "--eval-every", "1000")
    assert "training 128 steps (to step 128), not 100" in out
    assert "2 envs x 32 steps = 64 steps" in out
    assert history[-1]["steps"] == 128


def test_steps_that_are_whole_rollouts_train_without_a_note(tmp_path, capsys):
    out, history = _train(tmp_path, capsys, "tictactoe", "--steps", "64", "--n-envs", "2", "--n-steps", "32",
                          "--eval-every", "1000")
    assert "note:" not in out and history[-1]["steps"] == 64


def test_the_settings_print_as_one_readable_line_each(tmp_path, capsys):
    out, _ = _train(tmp_path, capsys, "tictactoe", "--steps", "64", "--n-envs", "2", "--n-steps", "32",
                    "--eval-every", "1000", "--net-arch", "16", "16")
    lines = out.splitlines()
    assert lines[0] == "training tictactoe with maskable-ppo:"
    for line in ("  steps: 64", "  net_arch: 16, 16", "  self_play: no", "  eval_opponents: random",
                 "  board_size: the game's own"):
        assert line in lines, line
    assert "{" not in out.split("[")[0]  # no Python dict before the first evaluation line


def test_a_short_run_evaluates_the_untrained_policy_so_its_curve_has_two_points(tmp_path, capsys):
    _, history = _train(tmp_path, capsys, "tictactoe", "--steps", "64", "--n-envs", "2", "--n-steps", "32",
                        "--eval-every", "100000")
    assert [h["steps"] for h in history] == [0, 64]


def test_little_go_evaluation_lines_carry_no_tictactoe_oracle_metric(tmp_path, capsys):
    out, history = _train(tmp_path, capsys, "littlego", "--steps", "64", "--n-envs", "2", "--n-steps", "32",
                          "--batch-size", "32", "--eval-every", "100000")
    evaluations = [line for line in out.splitlines() if line.startswith("[")]
    assert len(evaluations) == 2 and len(history) == 2
    assert all("optimal" not in line and "nan" not in line for line in evaluations), evaluations
    assert "score" in evaluations[0] and "illegal" in evaluations[0]
