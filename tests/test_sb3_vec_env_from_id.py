"""``tictacgo.make_sb3_vec_env``: the SB3 ``VecEnv`` of many games built from a Gymnasium id and its
keyword arguments, refusing what the id or a vector of games does not take."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402

import tictacgo  # noqa: E402
from tictacgo.baselines.learning.batched_vec_env import BatchedVecEnv  # noqa: E402


def test_the_id_and_its_keyword_arguments_build_the_batched_vec_env():
    env = tictacgo.make_sb3_vec_env("LittleGo-v0", n_envs=8, board_size=4, komi=0.5, max_actions=12,
                                    opponent="greedy", observation="board")
    assert isinstance(env, BatchedVecEnv) and env.num_envs == 8
    assert env.observation_space.shape == (4, 4) and env.action_space.n == 17
    game = env.match.engine.game
    assert (game.size, game.komi, game.max_actions) == (4, 0.5, 12)
    assert env.match.opponent == "greedy"
    assert env.match.learner_mode == "first"  # the id's default, as gymnasium.make_vec gives it
    obs = env.reset()
    assert obs.shape == (8, 4, 4) and get_action_masks(env).shape == (8, 17)


@pytest.mark.parametrize("env_id", ["TicTacToe-v0", "tictacgo/TicTacToe-v0", "tictacgo:TicTacToe-v0"])
def test_the_plain_and_namespaced_ids_name_the_same_game(env_id):
    env = tictacgo.make_sb3_vec_env(env_id, n_envs=2, learner="alternate")
    assert env.match.engine.game.spec.name == "tictactoe" and env.action_space.n == 9
    assert env.match.learner_mode == "alternate"


@pytest.mark.parametrize("env_id", ["CartPole-v1", "LittleGo-v1", "littlego"])
def test_an_unknown_id_is_refused_naming_the_ids(env_id):
    with pytest.raises(ValueError, match=r"unknown env id .*LittleGo-v0"):
        tictacgo.make_sb3_vec_env(env_id, n_envs=2)


def test_a_non_string_id_is_refused():
    with pytest.raises(TypeError, match="Gymnasium id"):
        tictacgo.make_sb3_vec_env(5, n_envs=2)


@pytest.mark.parametrize(("env_id", "kwargs", "unknown"), [
    ("TicTacToe-v0", {"board_size": 5}, "board_size"),
    ("LittleGo-v0", {"size": 5}, "size"),
    ("LittleGo-v0", {"num_envs": 4}, "num_envs"),
    ("LittleGo-v0", {"opponnent": "greedy"}, "opponnent"),
])
def test_a_keyword_argument_the_id_does_not_take_is_refused(env_id, kwargs, unknown):
    with pytest.raises(TypeError, match=rf"takes the keyword arguments .*; got unknown {unknown}"):
        tictacgo.make_sb3_vec_env(env_id, n_envs=2, **kwargs)


@pytest.mark.parametrize("kwargs", [{"opponent": "minimax"}, {"observation": "planes"},
                                    {"illegal": "penalty"}, {"render_mode": "ansi"}])
def test_what_only_the_single_game_envs_take_points_to_sb3s_make_vec_env(kwargs):
    with pytest.raises(ValueError, match=r"make_vec_env\('LittleGo-v0'"):
        tictacgo.make_sb3_vec_env("LittleGo-v0", n_envs=2, **kwargs)


def test_the_defaults_of_the_id_are_accepted_when_spelled_out():
    env = tictacgo.make_sb3_vec_env("TicTacToe-v0", n_envs=2, render_mode=None, illegal="lose",
                                    opponent="random", observation="flat", learner="first")
    assert env.num_envs == 2


def test_a_bad_n_envs_or_seed_is_refused():
    with pytest.raises((TypeError, ValueError), match="num_envs"):
        tictacgo.make_sb3_vec_env("TicTacToe-v0", n_envs=0)
    with pytest.raises((TypeError, ValueError), match="seed"):
        tictacgo.make_sb3_vec_env("TicTacToe-v0", n_envs=2, seed=-1)


def _games(seed):
    env = tictacgo.make_sb3_vec_env("LittleGo-v0", n_envs=16, seed=seed, learner="random")
    trace = [env.reset()]
    for _ in range(30):
        masks = get_action_masks(env)
        obs, _, _, _ = env.step(np.argmax(masks, axis=1))
        trace.append(obs)
    return np.stack(trace)


def test_the_seed_gives_one_sequence_of_games():
    assert np.array_equal(_games(3), _games(3))
    assert not np.array_equal(_games(3), _games(4))
