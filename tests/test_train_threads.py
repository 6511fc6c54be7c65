"""SB3 training sets torch's threads (``--threads``, one by default): torch's default of a thread a
core spins against the envs on a shared machine."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib", reason="training needs the train extra")

import torch  # noqa: E402

from tictacgo.cli import main  # noqa: E402

PPO = ["train", "tictactoe", "--steps", "8", "--n-envs", "1", "--eval-games", "1", "--no-progress"]


@pytest.mark.parametrize("threads", [1, 2])
def test_training_runs_on_the_threads_it_is_given(tmp_path, threads):
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(3)
        assert main([*PPO, "--out", str(tmp_path / "run"), "--threads", str(threads)]) == 0
        assert torch.get_num_threads() == threads
    finally:
        torch.set_num_threads(before)


def test_threads_must_be_a_positive_int(tmp_path, capsys):
    assert main([*PPO, "--out", str(tmp_path / "run"), "--threads", "0"]) == 2
    assert "--threads" in capsys.readouterr().err
