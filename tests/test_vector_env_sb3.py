"""The SB3 VecEnv on the batched engines (``baselines/learning/batched_vec_env.py``) with MaskablePPO."""

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402

from tictacgo.baselines.learning.batched_vec_env import BatchedVecEnv  # noqa: E402
from tictacgo.games import littlego as go  # noqa: E402


@pytest.mark.parametrize("game", ["littlego", "tictactoe"])
def test_action_masks_reach_sb3_contrib_through_env_method(game):
    env = BatchedVecEnv(game, num_envs=8)
    env.reset()
    assert is_masking_supported(env)
    masks = get_action_masks(env)
    assert masks.shape == (8, env.action_space.n) and masks.dtype == bool
    assert (masks == env.action_masks()).all()
    assert len(env.env_method("action_masks", indices=[1, 3])) == 2


def test_finished_games_reset_in_the_same_step_with_their_final_observation_in_info():
    env = BatchedVecEnv("littlego", num_envs=2, learner="first")
    env.reset()
    obs, rewards, dones, infos = env.step(np.array([25, 12]))  # Black passing first loses at once
    assert dones.tolist() == [True, False]
    assert rewards.tolist() == [-1.0, 0.0]
    assert infos[0]["reason"] == go.END_PASS_ON_EMPTY_START and infos[0]["winner_colour"] == 2
    assert (infos[0]["terminal_observation"] == 0).all()
    assert infos[0]["TimeLimit.truncated"] is False
    assert (obs[0] == 0).all()  # already the new game's first observation
    assert env.action_masks()[0].all() and infos[1] == {}


def test_random_masked_play_gives_sensible_episode_results():
    env = BatchedVecEnv("littlego", num_envs=64, opponent="greedy", learner="random")
    env.seed(3)
    env.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(40):
        masks = get_action_masks(env)
        obs, rewards, dones, infos = env.step(np.argmax(masks * rng.random(masks.shape), axis=1))
        for i in np.nonzero(dones)[0]:
            me, w = infos[i]["learner_colour"], infos[i]["winner_colour"]
            assert rewards[i] == (1.0 if w == me else -1.0)
            finished += 1
        assert (rewards[~dones] == 0).all()
    assert finished >= 64
    assert env.illegal_actions == 0


def test_unmasked_play_counts_its_illegal_actions():
    env = BatchedVecEnv("tictactoe", num_envs=4, learner="first")
    env.reset()
    env.step(np.array([4, 4, 4, 4]))
    env.step(np.array([4, 4, 4, 4]))  # taken by the learner itself: illegal, each game lost
    assert env.illegal_actions == 4


def test_seeded_resets_repeat_the_same_games():
    def trace(seed):
        env = BatchedVecEnv("tictactoe", num_envs=16, learner="random")
        env.seed(seed)
        out = [env.reset()]
        for _ in range(12):
            masks = env.action_masks()
            out.append(env.step(np.argmax(masks, axis=1))[0])
        return np.stack(out)

    assert (trace(1) == trace(1)).all()
    assert not (trace(1) == trace(2)).all()


def test_set_opponent_through_env_method_applies_to_every_game():
    env = BatchedVecEnv("littlego", num_envs=4)
    env.env_method("set_opponent", "greedy")
    assert env.get_attr("opponent") == ["greedy"] * 4
    with pytest.raises(ValueError, match="every game"):
        env.env_method("set_opponent", "random", indices=[0])
    with pytest.raises(ValueError, match="opponent"):
        env.env_method("set_opponent", "minimax")
    with pytest.raises(ValueError, match="game"):
        BatchedVecEnv("chess")


@pytest.mark.parametrize("game", ["littlego", "tictactoe"])
def test_maskable_ppo_trains_on_the_batched_vec_env_with_masks(game):
    env = BatchedVecEnv(game, num_envs=32, learner="random", opponent="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=128, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=32 * 16 * 2)
    assert model.num_timesteps == 1024
    assert env.illegal_actions == 0  # the masks reached the policy at every step
    obs = env.reset()
    masks = get_action_masks(env)
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert masks[np.arange(32), actions].all()
