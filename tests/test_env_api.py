"""The env API's seams: opponents passed in (set_opponent through wrappers and vec envs),
one illegal-move mechanism with its cap, AEC and Gymnasium envs speaking one vocabulary,
make_vec in sync and async mode, and envs that load no agent module."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import tictacgo  # noqa: F401  (registers the ids)
from tictacgo.baselines import make_agent
from tictacgo.envs import littlego_v0, rendering, tictactoe_v0
from tictacgo.envs.gym_littlego import env as LittleGoEnv
from tictacgo.envs.gym_tictactoe import env as TicTacToeEnv
from tictacgo.games import littlego, tictactoe
from tictacgo.registration import register_envs

ENV_IDS = ["TicTacToe-v0", "LittleGo-v0"]


def first_legal(state):
    return tictactoe.legal_actions(state)[0]


# -- opponents are passed in ------------------------------------------------------

def test_the_env_class_takes_an_agent_or_a_callable():
    env = TicTacToeEnv(opponent=first_legal)
    _, info = env.reset(seed=0)
    _, _, _, _, info = env.step(4)
    assert info["opponent_action"] == 0
    agent = make_agent("minimax", "tictactoe")
    env = TicTacToeEnv(opponent=agent)
    env.reset(seed=0)
    assert env.opponent is agent


def test_an_object_with_act_alone_is_an_opponent_too_and_anything_else_is_refused():
    class FirstLegal:  # no reset, no seed: the env wraps its act as it wraps a callable
        name = "first legal"

        def act(self, state):
            return first_legal(state)

    env = TicTacToeEnv(opponent=FirstLegal())
    _, info = env.reset(seed=0)
    _, _, _, _, info = env.step(4)
    assert info["opponent_action"] == 0 and env.opponent.name == "first legal"
    with pytest.raises(TypeError, match="must have act"):
        TicTacToeEnv(opponent=42)


def test_an_env_without_opponent_says_so_at_reset():
    env = TicTacToeEnv()
    with pytest.raises(RuntimeError, match="set_opponent"):
        env.reset(seed=0)


def test_a_spec_string_needs_the_resolver_that_gymnasium_make_gives():
    with pytest.raises(TypeError, match="gymnasium.make"):
        TicTacToeEnv(opponent="random")
    with pytest.raises(TypeError, match="act"):
        TicTacToeEnv(opponent=42)
    env = gym.make("TicTacToe-v0")
    env.get_wrapper_attr("set_opponent")("minimax")
    assert type(env.unwrapped.opponent).__name__ == "MinimaxAgent"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_set_opponent_swaps_the_opponent_through_make_wrappers(env_id):
    env = gym.make(env_id, learner="second")
    pass_action = 25 if env_id == "LittleGo-v0" else None
    game = littlego if pass_action else tictactoe
    env.get_wrapper_attr("set_opponent")(lambda s: game.legal_actions(s)[0])
    _, info = env.reset(seed=3)
    assert info["opponent_action"] == 0


@pytest.mark.parametrize("vec_cls", ["DummyVecEnv", "SubprocVecEnv"])
def test_set_opponent_works_through_sb3_vec_envs(vec_cls):
    from stable_baselines3.common import vec_env

    cls = getattr(vec_env, vec_cls)
    kwargs = {"start_method": "fork"} if vec_cls == "SubprocVecEnv" else {}
    vec = cls([lambda: gym.make("TicTacToe-v0", learner="second")] * 2, **kwargs)
    try:
        vec.env_method("set_opponent", "minimax")
        names = vec.get_attr("opponent")
        assert [type(o).__name__ for o in names] == ["MinimaxAgent"] * 2
        vec.seed(0)
        vec.reset()
        # Minimax opens in a corner or the centre, never an edge.
        first = [s.last_action for s in vec.get_attr("game_state")]
        assert all(a in (0, 2, 4, 6, 8) for a in first)
    finally:
        vec.close()


def test_importing_the_envs_and_wrappers_loads_no_agent_module():
    # The layers themselves are the import contract's (tests/test_layers.py); this checks what
    # actually runs, lazy and string imports included.
    code = ("import sys, tictacgo.envs, tictacgo.wrappers, tictacgo.envs.gym_littlego; "
            "print(any(m.startswith('tictacgo.baselines') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- one illegal-move mechanism, with a cap -------------------------------------

def test_penalty_mode_is_the_wrapper():
    from tictacgo.wrappers import IllegalMovePenalty

    env = gym.make("TicTacToe-v0", illegal="penalty", illegal_penalty=-0.25)
    assert any(isinstance(w, IllegalMovePenalty) for w in _wrappers(env))
    with pytest.raises(ValueError, match="illegal"):
        gym.make("TicTacToe-v0", illegal="ignore")
    with pytest.raises(ValueError, match="only with illegal='penalty'"):
        gym.make("TicTacToe-v0", illegal_penalty=-2.0)


def _wrappers(env):
    while isinstance(env, gym.Wrapper):
        yield env
        env = env.env


def test_a_policy_repeating_an_illegal_move_loses_at_the_cap():
    env = gym.make("TicTacToe-v0", opponent=first_legal, illegal="penalty", max_illegal_in_a_row=3)
    env.reset(seed=0)
    env.step(4)  # X centre, O takes cell 0
    rewards = [env.step(4)[1] for _ in range(3)]
    assert rewards == [-1.0, -1.0, -1.0]
    _, reward, terminated, _, info = env.step(4)
    assert (reward, terminated, info["reason"]) == (-1.0, True, "illegal_limit")


def test_the_default_cap_is_twice_the_actions_and_a_legal_move_resets_it():
    env = gym.make("TicTacToe-v0", opponent=first_legal, illegal="penalty")
    env.reset(seed=0)
    env.step(4)
    for _ in range(17):
        assert env.step(4)[2] is False
    env.step(8)  # legal: the count starts over
    for _ in range(18):
        assert env.step(4)[2] is False
    assert env.step(4)[-1]["reason"] == "illegal_limit"


def test_evaluate_policy_returns_for_a_deterministic_illegal_policy():
    from stable_baselines3.common.evaluation import evaluate_policy

    class Stubborn:
        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            return np.array([4] * len(obs)), None

    from stable_baselines3.common.monitor import Monitor

    env = Monitor(gym.make("TicTacToe-v0", illegal="penalty"))
    mean, _ = evaluate_policy(Stubborn(), env, n_eval_episodes=3, deterministic=True)
    assert mean < 0


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_non_finite_penalty_is_refused(bad):
    with pytest.raises(ValueError, match="finite"):
        gym.make("TicTacToe-v0", illegal="penalty", illegal_penalty=bad)


@pytest.mark.parametrize("komi", [float("nan"), float("inf"), -float("inf")])
def test_a_non_finite_komi_is_refused_by_both_apis(komi):
    with pytest.raises(ValueError, match=f"komi must be a finite number, got {komi!r}"):
        littlego_v0.env(komi=komi)
    with pytest.raises(ValueError, match=f"komi must be a finite number, got {komi!r}"):
        gym.make("LittleGo-v0", komi=komi)


@pytest.mark.parametrize("env_id", ["TicTacToe-v0", "LittleGo-v0"])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_non_finite_illegal_penalty_is_refused_by_both_games(env_id, bad):
    with pytest.raises(ValueError, match=f"penalty must be a finite number, got {bad!r}"):
        gym.make(env_id, illegal="penalty", illegal_penalty=bad)


# -- one vocabulary ---------------------------------------------------------------

@pytest.mark.parametrize("aec,gym_id", [(tictactoe_v0, "TicTacToe-v0"), (littlego_v0, "LittleGo-v0")])
def test_aec_and_gymnasium_envs_share_names_defaults_and_renders(aec, gym_id):
    a = aec.env(render_mode="ansi", render_cell=40, render_fps=3)
    g = gym.make(gym_id, render_mode="ansi", render_cell=40, render_fps=3)
    a.reset(seed=0)
    g.reset(seed=0)
    assert a.unwrapped.game_state == g.unwrapped.game_state  # the empty board
    assert a.render() == g.render()
    assert a.unwrapped.render_fps == g.unwrapped.render_fps == 3
    assert aec.raw_env().metadata["render_fps"] == g.unwrapped.metadata["render_fps"] == rendering.DEFAULT_FPS


@pytest.mark.parametrize("kwargs", [{"render_fps": float("nan")}, {"render_fps": 1e-9}, {"render_fps": "x"},
                                    {"render_cell": 10**6}, {"render_cell": 2}])
def test_render_settings_are_checked_when_the_env_is_built(kwargs):
    with pytest.raises(ValueError):
        tictactoe_v0.env(render_mode="rgb_array", **kwargs)
    with pytest.raises(ValueError):
        gym.make("TicTacToe-v0", render_mode="rgb_array", **kwargs)


def test_gymnasium_reset_starts_from_a_given_state():
    env = gym.make("LittleGo-v0", opponent=lambda s: 25)
    start = littlego.play(littlego.play(littlego.LittleGo().initial_state(), 12), 6)
    obs, info = env.reset(seed=0, options={"state": start})
    assert env.unwrapped.game_state == start
    assert obs[12] == 1 and obs[6] == -1 and info["t"] == 2
    white_to_move = littlego.play(start, 0)
    env2 = gym.make("LittleGo-v0", opponent=lambda s: 24)
    _, info = env2.reset(seed=0, options={"state": white_to_move})  # the opponent (White) moves first
    assert info["opponent_action"] == 24


@pytest.mark.parametrize("options,error", [
    ("notadict", TypeError), ({"state": tictactoe.TicTacToe().initial_state()}, TypeError),
    ({"state": littlego.LittleGo(size=4).initial_state()}, ValueError),
    ({"state": littlego.play(littlego.LittleGo().initial_state(), 25)}, ValueError)])
def test_bad_reset_options_are_refused_by_both_apis(options, error):
    with pytest.raises(error):
        gym.make("LittleGo-v0").reset(options=options)
    env = littlego_v0.env()
    with pytest.raises(error):
        env.reset(options=options)


@pytest.mark.parametrize("seed", [-1, 1.5, "3"])
def test_bad_seeds_are_refused_at_reset_by_both_apis(seed):
    with pytest.raises((TypeError, ValueError)):
        gym.make("TicTacToe-v0").reset(seed=seed)
    with pytest.raises((TypeError, ValueError)):
        tictactoe_v0.env().reset(seed=seed)


# -- make_vec ---------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_make_vec_steps_games_that_end_at_different_times(env_id, mode):
    vec = gym.make_vec(env_id, num_envs=3, vectorization_mode=mode, learner="random")
    try:
        obs, info = vec.reset(seed=1)
        assert obs.shape[0] == 3 and info["winner_colour"].tolist() == [-1, -1, -1]
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(60):
            masks = info["action_mask"]
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            obs, reward, terminated, truncated, info = vec.step(actions)
            ended += int(terminated.sum())
            assert info["reason"].dtype == object and info["winner_colour"].dtype.kind == "i"
        assert ended >= 3
    finally:
        vec.close()


# -- registration -----------------------------------------------------------------

def test_a_foreign_registration_of_our_id_is_refused():
    spec = gym.registry.pop("TicTacToe-v0")
    try:
        gym.register("TicTacToe-v0", entry_point="gymnasium.envs.classic_control:CartPoleEnv")
        with pytest.raises(gym.error.Error, match="already registered"):
            register_envs()
    finally:
        gym.registry["TicTacToe-v0"] = spec
    register_envs()  # our own registration again is fine


def test_envs_package_exports_the_envs():
    import tictacgo.envs as envs

    for name in ("tictactoe_v0", "littlego_v0", "gym_tictactoe", "gym_littlego", "TurnBasedEnv",
                 "TurnBasedAECEnv", "observations"):
        assert name in envs.__all__ and hasattr(envs, name)
    assert envs.gym_littlego.env is LittleGoEnv
