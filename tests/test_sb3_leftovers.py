"""SB3 makes an empty ``SB3-<date>`` folder in the temporary folder for a model that learns without a
logger; nothing here leaves one behind (issue 46, item 21)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib", reason="needs the train extra")


def test_a_model_given_the_quiet_logger_leaves_nothing_in_the_temporary_folder(tmp_path, monkeypatch):
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import tictacgo  # noqa: F401 (registers the env ids)
    from tictacgo.baselines.learning.training import quiet_logger

    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def model():
        return MaskablePPO("MlpPolicy", gym.make("TicTacToe-v0"), n_steps=16, batch_size=16, n_epochs=1,
                           seed=0, device="cpu")

    model().learn(16)  # without a logger: SB3's empty folder (what the package never leaves)
    assert len(list(tmp_path.glob("SB3-*"))) == 1
    for path in tmp_path.glob("SB3-*"):
        path.rmdir()
    quiet = model()
    quiet.set_logger(quiet_logger())
    quiet.learn(16)
    quiet.learn(16, reset_num_timesteps=False)
    assert list(tmp_path.glob("SB3-*")) == []


def test_tests_that_train_without_a_logger_log_into_pytests_own_folder(tmp_path_factory):
    folder = Path(os.environ["SB3_LOGDIR"])
    assert folder.is_relative_to(tmp_path_factory.getbasetemp()) and folder.is_dir()
