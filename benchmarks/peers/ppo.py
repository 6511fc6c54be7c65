"""The MaskablePPO rows: sb3-contrib's training throughput on SB3's ``DummyVecEnv`` of Gymnasium envs
against tictacgo's VecEnv on the batched engine, same network and hyperparameters."""

from __future__ import annotations

import time

from .cases import GAME_NAMES, SEED, game_key, need
from .ours import env_id


def maskable_ppo(case: str, impl: str, ppo: dict):
    need("sb3_contrib")
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import DummyVecEnv

    import tictacgo  # noqa: F401

    torch.set_num_threads(1)
    game = game_key(case)
    n_envs, n_steps = ppo["n_envs"], ppo["n_steps"]
    if impl == "dummy_vec_env":
        gym_id = env_id(game)
        env = DummyVecEnv([lambda: gymnasium.make(gym_id, opponent="random", learner="alternate")] * n_envs)
    else:
        mod = need("tictacgo.baselines.learning.batched_vec_env")
        env = mod.BatchedVecEnv(GAME_NAMES[game], num_envs=n_envs,
                                opponent="random", learner="alternate")
    env.seed(SEED)
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=ppo["batch_size"],
                        n_epochs=ppo["n_epochs"], gamma=0.95, ent_coef=0.01, seed=SEED, device="cpu",
                        policy_kwargs={"net_arch": [64, 64]}, verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))  # no empty SB3-<date> folder left in /tmp
    steps = n_envs * n_steps
    model.learn(steps)   # warm-up

    def run(budget):
        t0 = time.perf_counter()
        before = model.num_timesteps
        model.learn(steps, reset_num_timesteps=False)
        return {"count": model.num_timesteps - before, "games": 0, "seconds": time.perf_counter() - t0}

    return run


# -- AlphaZero self-play --------------------------------------------------------------
