"""Bad values are refused before any work, in one message that names the value and what was expected."""

from __future__ import annotations

import importlib.util

import gymnasium as gym
import numpy as np
import pytest

import tictacgo  # noqa: F401  (registers the envs)
from tictacgo.cli import main
from tictacgo.envs import littlego_v0, vector_env


@pytest.mark.skipif(importlib.util.find_spec("sgfmill") is None, reason="needs the sgf extra")
def test_replay_of_an_off_board_move_names_the_move(tmp_path, capsys):
    f = tmp_path / "off.sgf"
    f.write_text("(;GM[1]FF[4]SZ[5]KM[2.5];B[zz])")
    assert main(["replay", str(f)]) == 2
    err = capsys.readouterr().err
    assert "B[zz]" in err and "5x5" in err, err


def test_a_vector_env_names_a_negative_seed():
    env = vector_env.make_littlego(2)
    with pytest.raises(ValueError, match="seed must be a non-negative int or None, got -1"):
        env.reset(seed=-1)


def test_numpy_integer_seeds_reach_gymnasium_as_ints():
    env = gym.make("tictacgo/TicTacToe-v0", opponent="random")
    a = env.reset(seed=np.int64(3))[0]
    b = env.reset(seed=3)[0]
    assert np.array_equal(a, b)
    vec = vector_env.make_littlego(2)
    assert np.array_equal(vec.reset(seed=np.int64(4))[0], vec.reset(seed=4)[0])
    aec = littlego_v0.env()
    aec.reset(seed=np.int64(5))


@pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None, reason="needs the train extra")
@pytest.mark.parametrize("extra,words", [
    (["--steps", "100", "--n-envs", "100000"], ["--n-envs", "100000", "--steps 100"]),
    (["--batch-size", "1"], ["--batch-size", "got 1"]),
], ids=["more-envs-than-steps", "batch-of-one"])
def test_train_refuses_settings_that_would_fail_or_balloon(extra, words, tmp_path, capsys):
    assert main(["train", "tictactoe", "--out", str(tmp_path / "run"), "--no-progress", *extra]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for w in words:
        assert w in err, err
    assert not (tmp_path / "run").exists()


def test_gtp_says_so_when_interrupted(monkeypatch, capsys):
    from tictacgo.protocol.gtp import GtpEngine

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(GtpEngine, "serve", interrupted)
    assert main(["gtp", "--agent", "random"]) == 130
    assert "tictacgo gtp: interrupted" in capsys.readouterr().err
