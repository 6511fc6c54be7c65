"""The Gymnasium single-agent envs TicTacToe-v0 and LittleGo-v0, and IllegalMovePenalty."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tictacgo
from tictacgo import GameOverError
from tictacgo.games import littlego, tictactoe
from tictacgo.registration import make_littlego as LittleGoEnv
from tictacgo.registration import make_tictactoe as TicTacToeEnv
from tictacgo.wrappers import IllegalMovePenalty

TTT = tictactoe.TicTacToe()
GO = littlego.LittleGo()

ENV_IDS = ["TicTacToe-v0", "LittleGo-v0"]
FORMATS = ["flat", "board", "planes"]


def legal_choice(rng: np.random.Generator, info: dict) -> int:
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def rollout(env: gym.Env, seed: int, episodes: int = 3) -> list:
    """Observations, rewards and infos of a few episodes with seeded random legal actions."""
    rng = np.random.default_rng(seed)
    trace = []
    obs, info = env.reset(seed=seed)
    for _ in range(episodes):
        trace.append((obs.tolist(), info["learner_colour"], info["opponent_action"]))
        done = False
        while not done:
            obs, reward, done, _truncated, info = env.step(legal_choice(rng, info))
            trace.append((obs.tolist(), reward, done, info["opponent_action"], info["reason"]))
        obs, info = env.reset()
    return trace


# -- checkers and registration -------------------------------------------------

@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasium_check_env_passes_without_warnings(env_id, fmt):
    env = gym.make(env_id, observation=fmt)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Render modes are checked in test_render_*; check_env would open a window for "human".
        check_env(env.unwrapped, skip_render_check=True)
    assert [str(w.message) for w in caught] == []
    env.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_env_with_every_render_mode_passes(env_id, monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # "human" opens a window: keep it headless
    env = gym.make(env_id, render_mode="rgb_array")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # also makes and renders an env for each declared mode
    assert [str(w.message) for w in caught] == []
    env.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_make_works_in_a_fresh_interpreter_without_prior_import(env_id):
    code = ("import gymnasium, sys\n"
            f"env = gymnasium.make('tictacgo:{env_id}')\n"
            "obs, info = env.reset(seed=0)\n"
            "env.step(int(info['action_mask'].argmax()))\n"
            "print(type(env.unwrapped).__name__, env.unwrapped.game.spec.name)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "TurnBasedEnv " + ("tictactoe" if env_id.startswith("Tic") else "littlego")


def test_import_registers_both_ids():
    assert "TicTacToe-v0" in gym.registry and "LittleGo-v0" in gym.registry
    assert tictacgo.__version__


# -- spaces and observations ---------------------------------------------------

@pytest.mark.parametrize("fmt,shape,dtype", [("flat", (9,), np.int8), ("board", (3, 3), np.int8),
                                             ("planes", (4, 3, 3), np.float32)])
def test_tictactoe_observation_formats_have_the_documented_spaces(fmt, shape, dtype):
    env = TicTacToeEnv(observation=fmt)
    assert env.action_space == gym.spaces.Discrete(9)
    assert env.observation_space.shape == shape and env.observation_space.dtype == dtype
    obs, _ = env.reset(seed=0)
    assert obs.shape == shape and obs.dtype == dtype and obs in env.observation_space


@pytest.mark.parametrize("fmt,shape,dtype", [("flat", (25,), np.int8), ("board", (5, 5), np.int8),
                                             ("planes", (6, 5, 5), np.float32)])
def test_littlego_observation_formats_have_the_documented_spaces(fmt, shape, dtype):
    env = LittleGoEnv(observation=fmt)
    assert env.action_space == gym.spaces.Discrete(26)
    assert env.observation_space.shape == shape and env.observation_space.dtype == dtype
    obs, _ = env.reset(seed=0)
    assert obs.shape == shape and obs.dtype == dtype and obs in env.observation_space


def test_littlego_board_size_sets_the_spaces():
    env = LittleGoEnv(board_size=3, komi=1.0, max_actions=6)
    assert env.action_space.n == 10 and env.observation_space.shape == (9,)
    _, info = env.reset(seed=0)
    assert info["scores"].tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="board size"):
        LittleGoEnv(board_size=1)


def test_observation_is_relative_to_the_learner():
    env = TicTacToeEnv(learner="second", opponent=lambda s: tictactoe.legal_actions(s)[0])
    obs, _info = env.reset(seed=0)
    assert obs.tolist() == [-1, 0, 0, 0, 0, 0, 0, 0, 0]
    obs, *_ = env.step(4)
    assert obs.tolist() == [-1, -1, 0, 0, 1, 0, 0, 0, 0]


def test_flat_observation_matches_the_rules_board():
    env = LittleGoEnv(learner="second")
    rng = np.random.default_rng(3)
    obs, info = env.reset(seed=3)
    done = False
    while not done:
        board = littlego.to_board(env.game_state).ravel()
        expected = np.where(board == 2, 1, np.where(board == 1, -1, 0))
        assert obs.tolist() == expected.tolist()
        obs, _, done, _, info = env.step(legal_choice(rng, info))


# -- seeding -------------------------------------------------------------------

@pytest.mark.parametrize("env_id", ENV_IDS)
def test_same_seed_gives_identical_rollouts(env_id):
    a = rollout(gym.make(env_id, learner="random"), seed=7)
    b = rollout(gym.make(env_id, learner="random"), seed=7)
    assert a == b


def test_different_seeds_give_different_games():
    a = rollout(gym.make("LittleGo-v0"), seed=1)
    b = rollout(gym.make("LittleGo-v0"), seed=2)
    assert a != b


def test_seeded_reset_reseeds_the_opponent():
    env = LittleGoEnv(learner="second")
    first = [env.reset(seed=11)[1]["opponent_action"] for _ in range(3)]
    assert len(set(first)) == 1
    later = [env.reset()[1]["opponent_action"] for _ in range(20)]
    assert len(set(later)) > 1


# -- learner colour ------------------------------------------------------------

@pytest.mark.parametrize("env_id", ENV_IDS)
def test_learner_second_sees_the_opponent_move_first(env_id):
    env = gym.make(env_id, learner="second")
    obs, info = env.reset(seed=0)
    assert info["learner_colour"] == 2
    assert info["opponent_action"] >= 0
    assert obs.tolist().count(-1) == 1 and obs.tolist().count(1) == 0
    assert info["action_mask"][info["opponent_action"]] == 0


def test_learner_first_starts_on_an_empty_board():
    obs, info = gym.make("TicTacToe-v0").reset(seed=0)
    assert info["learner_colour"] == 1 and info["opponent_action"] == -1
    assert not obs.any()


def test_alternate_switches_colour_at_every_reset_and_restarts_on_seed():
    env = TicTacToeEnv(learner="alternate")
    colours = [env.reset(seed=0 if i == 0 else None)[1]["learner_colour"] for i in range(4)]
    assert colours == [1, 2, 1, 2]
    assert env.reset(seed=5)[1]["learner_colour"] == 1


def test_random_learner_colour_draws_both_colours_from_np_random():
    env = TicTacToeEnv(learner="random")
    env.reset(seed=0)
    colours = [env.reset()[1]["learner_colour"] for _ in range(40)]
    assert set(colours) == {1, 2}
    env2 = TicTacToeEnv(learner="random")
    env2.reset(seed=0)
    assert colours == [env2.reset()[1]["learner_colour"] for _ in range(40)]


# -- action masks --------------------------------------------------------------

@pytest.mark.parametrize("env_id,game", [("TicTacToe-v0", TTT), ("LittleGo-v0", GO)])
def test_action_masks_match_the_rules_and_are_never_empty_while_live(env_id, game):
    env = gym.make(env_id, learner="random")
    masks = env.get_wrapper_attr("action_masks")  # what sb3-contrib calls through make's wrappers
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    for _ in range(20):
        done = False
        while not done:
            m = masks()
            assert m.dtype == bool and m.shape == (env.action_space.n,)
            assert m.tolist() == game.legal_mask(env.unwrapped.game_state).astype(bool).tolist()
            assert info["action_mask"].dtype == np.int8
            assert info["action_mask"].tolist() == m.astype(np.int8).tolist()
            assert m.any()
            _, _, done, _, info = env.step(legal_choice(rng, info))
        assert not masks().any() and not info["action_mask"].any()
        _obs, info = env.reset()


def test_info_mask_is_a_copy_the_caller_may_change():
    env = TicTacToeEnv()
    _, info = env.reset(seed=0)
    info["action_mask"][:] = 0
    assert env.action_masks().all()


# -- illegal actions -----------------------------------------------------------

def test_illegal_action_loses_by_default():
    env = TicTacToeEnv(opponent=lambda s: tictactoe.legal_actions(s)[0])
    env.reset(seed=0)
    env.step(4)
    _obs, reward, terminated, truncated, info = env.step(4)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["reason"] == "illegal" and info["winner"] == "opponent"
    assert info["illegal_action"] and info["illegal_reason"] == "occupied"
    assert not info["action_mask"].any()


def test_illegal_action_under_penalty_is_refused_and_the_learner_moves_again():
    env = TicTacToeEnv(opponent=lambda s: tictactoe.legal_actions(s)[0], illegal="penalty",
                       illegal_penalty=-0.5)
    env.reset(seed=0)
    obs1, *_ = env.step(4)
    state = env.unwrapped.game_state
    obs2, reward, terminated, truncated, info = env.step(4)
    assert (reward, terminated, truncated) == (-0.5, False, False)
    assert env.unwrapped.game_state is state and obs2.tolist() == obs1.tolist()
    assert info["illegal_action"] and info["illegal_reason"] == "occupied"
    assert info["opponent_action"] == -1 and info["reason"] == ""
    obs3, reward, *_ = env.step(8)
    assert reward == 0.0 and obs3[8] == 1


def test_littlego_suicide_and_ko_reasons_are_reported():
    env = LittleGoEnv(illegal="penalty")
    env.reset(seed=0)
    env.unwrapped._set_state(littlego.from_ascii("""
        . O . . .
        O . . . .
        . . . . .
        . . . . .
        . . . . .""", to_move=1, t=2))
    _, reward, terminated, _, info = env.step(0)
    assert (reward, terminated, info["illegal_reason"]) == (-1.0, False, "suicide")


@pytest.mark.parametrize("bad", [1.0, None, "3", True, np.float32(2.0), np.array(2.5), [1]])
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_non_integer_action_raises_type_error_and_leaves_the_game(env_id, bad):
    env = gym.make(env_id).unwrapped
    _obs, _ = env.reset(seed=0)
    state = env.game_state
    with pytest.raises(TypeError, match="integer"):
        env.step(bad)
    assert env.game_state is state
    env.step(0)


@pytest.mark.parametrize("env_id,bad", [("TicTacToe-v0", 9), ("TicTacToe-v0", -1),
                                        ("LittleGo-v0", 26), ("LittleGo-v0", -1)])
def test_out_of_range_action_raises_value_error_naming_value_and_range(env_id, bad):
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    state = env.game_state
    n = env.action_space.n
    with pytest.raises(ValueError, match=rf"\[0, {n - 1}\].*{bad}"):
        env.step(bad)
    assert env.game_state is state
    env.step(0)


@pytest.mark.parametrize("action", [np.int64(4), np.int8(4), np.uint32(4), np.array(4), 4])
def test_numpy_integer_actions_are_accepted(action):
    env = TicTacToeEnv()
    env.reset(seed=0)
    obs, *_ = env.step(action)
    assert obs[4] == 1


def test_step_after_the_episode_ended_raises_a_clear_error():
    env = TicTacToeEnv()
    env.reset(seed=0)
    env.step(4)
    env.step(4)  # illegal: the game is over
    with pytest.raises(GameOverError, match="reset"):
        env.step(0)


def test_step_before_reset_raises():
    with pytest.raises(RuntimeError, match="reset"):
        TicTacToeEnv().step(0)


def test_opponent_illegal_action_raises_runtime_error_naming_it():
    def stubborn(state):
        return 0

    env = TicTacToeEnv(opponent=stubborn)
    env.reset(seed=0)
    with pytest.raises(RuntimeError, match="stubborn"):
        env.step(0)


def test_unknown_opponent_or_option_is_refused():
    with pytest.raises(ValueError, match="unknown agent"):
        TicTacToeEnv(opponent="grandmaster")
    with pytest.raises(ValueError, match="learner"):
        TicTacToeEnv(learner="both")
    with pytest.raises(ValueError, match="observation"):
        TicTacToeEnv(observation="rgb")
    with pytest.raises(ValueError, match="illegal"):
        TicTacToeEnv(illegal="ignore")
    with pytest.raises(ValueError, match="render_mode"):
        TicTacToeEnv(render_mode="svg")


# -- outcomes and info ---------------------------------------------------------

def test_minimax_opponent_is_never_beaten_by_random_actions():
    env = gym.make("TicTacToe-v0", opponent="minimax", learner="alternate")
    rng = np.random.default_rng(0)
    wins = losses = 0
    _, info = env.reset(seed=0)
    for _ in range(50):
        done = False
        while not done:
            _, reward, done, _, info = env.step(legal_choice(rng, info))
        wins += reward > 0
        losses += reward < 0
        assert info["winner"] in ("draw", "opponent")
        _obs, info = env.reset()
    assert wins == 0 and losses > 25


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_info_carries_winner_reason_colour_and_mask(env_id):
    env = gym.make(env_id, learner="random")
    rng = np.random.default_rng(1)
    _, info = env.reset(seed=1)
    keys = {"action_mask", "learner_colour", "winner", "winner_colour", "reason", "opponent_action"}
    if env_id == "LittleGo-v0":
        keys |= {"scores", "t"}
    for _ in range(10):
        assert keys <= set(info) and info["reason"] == "" and info["winner"] == ""
        assert info["winner_colour"] == -1
        done = False
        while not done:
            _, reward, done, truncated, info = env.step(legal_choice(rng, info))
            assert keys <= set(info) and truncated is False
        assert info["reason"] in ("win", "draw", "max_actions", "double_pass", "pass_on_empty_start")
        colour = info["learner_colour"]
        expected = {"draw": 0.0, "learner": 1.0, "opponent": -1.0}[info["winner"]]
        assert reward == expected
        if info["winner"] != "draw":
            assert (info["winner_colour"] == colour) == (info["winner"] == "learner")
        if env_id == "LittleGo-v0":
            black, white = info["scores"]
            assert (black > white) == (info["winner_colour"] == 1)
        _, info = env.reset()


def test_black_pass_on_the_first_action_loses_at_once():
    env = LittleGoEnv()
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(25)
    assert (reward, terminated) == (-1.0, True)
    assert (info["reason"], info["winner"]) == ("pass_on_empty_start", "opponent")
    assert info["scores"].tolist() == [0.0, 2.5]


def test_opponent_ending_the_game_in_reset_is_reported_on_the_next_step():
    env = LittleGoEnv(learner="second", opponent=lambda s: 25)
    _obs, info = env.reset(seed=0)
    assert info["reason"] == "pass_on_empty_start" and info["winner"] == "learner"
    assert env.action_masks().all()
    with pytest.raises(TypeError):
        env.step(None)
    _, reward, terminated, _, info = env.step(3)
    assert (reward, terminated) == (1.0, True)
    with pytest.raises(GameOverError):
        env.step(3)


def test_double_pass_ends_the_game_with_the_score():
    env = LittleGoEnv(opponent=lambda s: 25 if s.last_pass else littlego.legal_actions(s)[0])
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(12)   # Black centre; White plays 0
    assert not terminated and info["opponent_action"] == 0
    _, reward, terminated, _, info = env.step(25)   # Black passes; White passes back
    assert terminated and info["reason"] == "double_pass"
    assert info["scores"].tolist() == [1.0, 3.5] and reward == -1.0


# -- rendering -----------------------------------------------------------------

@pytest.mark.parametrize("env_id", ENV_IDS)
def test_ansi_render_shows_the_board(env_id):
    env = gym.make(env_id, render_mode="ansi")
    env.reset(seed=0)
    env.step(4)
    text = env.render()
    assert isinstance(text, str) and "X" in text


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_rgb_array_render_returns_an_image(env_id):
    env = gym.make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    before = env.render()
    env.step(4)
    img = env.render()
    assert isinstance(img, np.ndarray) and img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8
    assert img.shape == before.shape and (img != before).any()


def test_human_render_shows_a_window_and_closes(monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = TicTacToeEnv(render_mode="human")
    env.metadata = dict(env.metadata, render_fps=0)  # no frame-rate wait in a test
    env.reset(seed=0)
    assert env.step(4)[2] is False
    assert env.render() is None
    env.close()
    env.close()


def test_render_without_a_mode_warns_and_returns_none():
    env = TicTacToeEnv()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


# -- IllegalMovePenalty --------------------------------------------------------

def test_penalty_wrapper_refuses_illegal_moves_without_ending_the_episode():
    env = IllegalMovePenalty(gym.make("TicTacToe-v0", opponent=lambda s: tictactoe.legal_actions(s)[0]),
                             penalty=-0.25)
    _obs, info = env.reset(seed=0)
    obs1, reward, terminated, _, info = env.step(4)
    assert reward == 0.0 and info["penalty"] == 0.0 and info["game_reward"] == 0.0
    obs2, reward, terminated, truncated, info = env.step(4)
    assert (reward, terminated, truncated) == (-0.25, False, False)
    assert obs2.tolist() == obs1.tolist() and obs2 is not obs1
    assert info["illegal_action"] and info["illegal_reason"] == "occupied"
    assert info["penalty"] == -0.25 and info["game_reward"] == 0.0
    assert env.get_wrapper_attr("action_masks")().tolist() == info["action_mask"].astype(bool).tolist()
    _, reward, *_ = env.step(8)
    assert reward == 0.0


def test_penalty_wrapper_passes_bad_input_and_game_over_errors_through():
    env = IllegalMovePenalty(TicTacToeEnv())
    env.reset(seed=0)
    with pytest.raises(TypeError):
        env.step(1.5)
    with pytest.raises(ValueError):
        env.step(9)
    rng = np.random.default_rng(0)
    done, info = False, {"action_mask": env.action_masks().astype(np.int8)}
    while not done:
        _, _, done, _, info = env.step(legal_choice(rng, info))
    with pytest.raises(GameOverError):
        env.step(0)


def test_penalty_wrapper_needs_action_masks():
    with pytest.raises(TypeError, match="action_masks"):
        IllegalMovePenalty(gym.make("CartPole-v1"))


# -- opponents -----------------------------------------------------------------

def test_agent_object_opponent_is_used_and_reseeded():
    from tictacgo.baselines import RandomAgent

    agent = RandomAgent(GO)
    a = LittleGoEnv(opponent=agent, learner="second")
    first = a.reset(seed=4)[1]["opponent_action"]
    assert a.opponent is agent
    b = LittleGoEnv(opponent=RandomAgent(GO), learner="second")
    assert b.reset(seed=4)[1]["opponent_action"] == first


def test_depth_limited_minimax_opponent_plays_little_go():
    env = gym.make("LittleGo-v0", opponent="minimax:depth=1")
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, reward, done, _, info = env.step(legal_choice(rng, info))
    assert info["reason"] is not None and reward in (-1.0, 1.0)
