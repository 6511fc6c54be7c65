"""SB3's "CnnPolicy" by name on the "planes" observation, with the package's small-board CNN."""

import pytest

pytest.importorskip("sb3_contrib")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

import tictacgo  # noqa: E402, F401  (registers the ids)
from tictacgo.baselines.learning.networks import SmallResNetExtractor, small_board_cnn  # noqa: E402


def test_sb3s_own_cnn_refuses_the_small_board_so_the_kwargs_are_needed():
    env = gymnasium.make("LittleGo-v0", observation="planes")
    with pytest.raises(AssertionError):
        MaskablePPO("CnnPolicy", env)


@pytest.mark.parametrize("env_id", ["LittleGo-v0", "TicTacToe-v0"])
def test_cnn_policy_by_name_trains_on_planes_and_plays_legal_moves(env_id):
    env = gymnasium.make(env_id, observation="planes")
    model = MaskablePPO("CnnPolicy", env, policy_kwargs=small_board_cnn(channels=16, blocks=1),
                        n_steps=64, batch_size=32, seed=0, verbose=0)
    assert isinstance(model.policy.features_extractor, SmallResNetExtractor)
    model.learn(total_timesteps=256)
    obs, info = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert info["action_mask"][int(action)] == 1
    assert np.isfinite(model.logger.name_to_value.get("train/loss", 0.0))
