"""Trained SB3 models as agents: ``PolicyAgent`` and ``load_model``.

A ``PolicyAgent`` plays with a trained ``MaskablePPO`` or A2C policy on the
rules state: it builds the observation the model was trained on (read from
its observation space: "flat", "board" or "planes", from the side of the
player to move), asks the policy for its action logits, masks the illegal
actions and takes the best legal one (``sample=True`` draws from the masked
distribution with the agent's generator instead). So a loaded model never
plays an illegal move, whatever it learned.

``load_model(path, algo, game)`` loads on the CPU without unpickling anything
from the file (``model_zip``), and refuses, with a clear error, a missing or
corrupt file and a model made for another game or board size.
"""

from __future__ import annotations

import os
import warnings
import zipfile
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch as th

from tictacgo.baselines.learning.model_zip import check_finite, read_model_zip, rebuild_policy
from tictacgo.baselines.numpy_policy import LogitsAgent
from tictacgo.envs import observations
from tictacgo.games.base import Game
from tictacgo.validate import check_bool

ALGOS = ("maskable-ppo", "a2c")


@dataclass(frozen=True)
class LoadedModel:
    """A model read from a zip: its ``policy`` (CPU, eval mode) and the steps it was trained for."""

    policy: Any
    algo: str
    num_timesteps: int


def load_model(path: str | os.PathLike, algo: str, game: Game, trust: bool = False) -> LoadedModel:
    """The SB3 model saved at ``path`` (a .zip), loaded on the CPU without running code from the file.

    The policy is rebuilt from the weights and the game (``model_zip``): nothing in
    the file is unpickled. ``trust=True`` loads through SB3's own loader instead,
    which unpickles the file's serialized entries and so runs any code a crafted
    file holds (it warns); it serves a network this project does not build.

    Args:
        path: the model file.
        algo: "maskable-ppo" or "a2c".
        game: the game the model plays (its observation and action spaces).
        trust: load with SB3's pickle-based loader (only for a file you trust).
    Raises:
        FileNotFoundError: no such file.
        ValueError: not a model zip of that algorithm, or one for another game or size.
    """
    if algo not in ALGOS:
        raise ValueError(f"algo must be one of {ALGOS}, got {algo!r}")
    if not isinstance(trust, bool):
        raise ValueError(f"trust must be true or false, got {trust!r}")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no model file at {path!r}")
    if not trust:
        data, loaded = read_model_zip(path)
        try:
            policy = rebuild_policy(game, algo, data, loaded["policy.pth"])
        except ValueError as e:
            raise ValueError(f"could not load {path!r} as a {algo} model: {e}") from None
        steps = data.get("num_timesteps", 0)
        return LoadedModel(policy, algo, steps if isinstance(steps, int) else 0)
    warnings.warn(f"loading {path!r} with stable-baselines3's own loader, which runs any code stored "
                  f"in the file: do this only with a file you trust", stacklevel=2)
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path!r} is not a stable-baselines3 model (.zip); is the file corrupt?")
    if algo == "maskable-ppo":
        from sb3_contrib import MaskablePPO as cls
    else:
        from tictacgo.baselines.learning.a2c import IllegalAwareA2C as cls
    try:
        model = cls.load(path, device="cpu")
    except Exception as e:  # SB3 raises many kinds for a damaged or foreign zip
        raise ValueError(f"could not load {path!r} as a {algo} model: {type(e).__name__}: {e}") from e
    try:
        check_finite(model.policy.state_dict())
    except ValueError as e:
        raise ValueError(f"could not load {path!r} as a {algo} model: {e}") from None
    return LoadedModel(model.policy.to("cpu").eval(), algo, int(model.num_timesteps))


def observation_format(space, game: Game, state) -> str:
    """The observation format ("flat", "board", "planes") a model's ``space`` stands for.

    Raises:
        ValueError: the space fits no format of this game and board size.
    """
    return observations.format_for_shape(game, state, tuple(space.shape))


class PolicyAgent(LogitsAgent):
    """An agent that plays a trained policy's best legal action (see the module docstring).

    Args:
        game: the rules module.
        model: a loaded SB3 model (``load_model``) or its ``policy``.
        sample: draw from the masked distribution instead of taking the argmax.
        rng: the generator for ``sample``.
    """

    name = "policy"

    def __init__(self, game: Game, model, sample: bool = False, rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        policy = getattr(model, "policy", model)
        probe = game.initial_state()
        self.format = observation_format(policy.observation_space, game, probe)
        if int(policy.action_space.n) != game.spec.num_actions:
            raise ValueError(f"the model has {policy.action_space.n} actions, {game.spec.name} "
                             f"has {game.spec.num_actions}: it was trained for another game or size")
        check_bool("sample", sample)
        self.policy = policy.to("cpu").eval()
        self.sample = sample

    def logits(self, state) -> np.ndarray:
        """The policy's action logits for ``state`` (illegal actions included)."""
        obs = observations.observe(self.game, state, self.format)
        with th.no_grad():
            obs_t = th.as_tensor(obs[None], dtype=th.float32)
            dist = self.policy.get_distribution(obs_t)
            return dist.distribution.logits[0].numpy().astype(np.float64)
