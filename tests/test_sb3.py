"""The Gymnasium envs with Stable-Baselines3 and sb3-contrib's MaskablePPO (no extra wrapper)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

# Imported only once the skips above have passed (hence E402).
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

import tictacgo  # noqa: E402, F401  (registers the ids)
from tictacgo.registration import make_littlego, make_tictactoe  # noqa: E402

ENV_IDS = ["TicTacToe-v0", "LittleGo-v0"]


@pytest.mark.parametrize("env_cls", [make_tictactoe, make_littlego], ids=["TicTacToeEnv", "LittleGoEnv"])
def test_sb3_check_env_passes_without_warnings(env_cls):
    env = env_cls(observation="flat")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_action_masks_reach_through_make_and_the_vec_env(env_id):
    vec = DummyVecEnv([lambda: gym.make(env_id)])
    assert is_masking_supported(vec)
    vec.seed(0)
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.dtype == bool and masks.shape == (1, vec.action_space.n) and masks.all()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_maskable_ppo_trains_and_predicts_only_legal_actions(env_id):
    env = gym.make(env_id, learner="alternate")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=2, seed=0,
                        device="cpu", verbose=0)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256

    masks_of = env.get_wrapper_attr("action_masks")
    obs, info = env.reset(seed=1)
    checked = 0
    for _ in range(5):
        done = False
        while not done:
            mask = masks_of()
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            assert mask[int(action)], f"predicted illegal action {action} with mask {mask.astype(int)}"
            obs, _reward, done, _truncated, info = env.step(action)
            assert info["illegal_action"] is False
            checked += 1
        obs, info = env.reset()
    assert checked >= 10


def test_predicted_actions_from_the_vec_env_are_legal():
    vec = DummyVecEnv([lambda: gym.make("LittleGo-v0", learner="random") for _ in range(2)])
    vec.seed(3)
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, seed=0, device="cpu")
    obs = vec.reset()
    for _ in range(40):
        masks = get_action_masks(vec)
        actions, _ = model.predict(obs, action_masks=masks)
        assert all(masks[i, a] for i, a in enumerate(actions))
        obs, rewards, _dones, infos = vec.step(actions)
        assert all(info["illegal_action"] is False for info in infos)
        assert np.all(np.isin(rewards, (-1.0, 0.0, 1.0)))
