"""RLlib for the tictacgo AEC envs: the env, a masked PPO RLModule, self-play (needs the ``rllib`` extra).

``pip install 'tictacgo[rllib]'`` (ray[rllib] and torch). Four pieces, for
RLlib's new API stack (RLModule, Learner, EnvRunner, ConnectorV2):

* ``TictacgoRLlibEnv``: ``tictactoe_v0`` or ``littlego_v0`` through RLlib's
  ``PettingZooEnv`` (a ``MultiAgentEnv``; only the agent to move gets an
  observation, and both get their final reward when the game ends). Each
  observation becomes ``{"observations": float32 vector, "action_mask":
  float32 vector}``, the Dict that RLlib's action-masking example expects:
  the player-relative board (or planes) flattened, and the legal actions.
* ``MaskedPPOTorchRLModule``: RLlib's ``DefaultPPOTorchRLModule`` whose action
  logits get ``log(mask)`` (clamped at ``FLOAT_MIN``) added before the action
  distribution, in exploration, inference and training, as in RLlib's
  ``examples/rl_modules/classes/action_masking_rlm.py``; the networks see
  only ``"observations"``.
* ``self_play_config(...)``: a ``PPOConfig`` where both agents map to one
  policy, ``"shared"`` (parameter-sharing self-play: the observation is
  player-relative, so one network plays both sides, each agent learning
  from its own reward).
* ``GameEndCallback``: logs ``illegal_moves`` (games ended by an illegal
  move; the masked module should keep it at 0) and ``games_won_first`` /
  ``games_drawn`` per training iteration under ``result["env_runners"]``.

``greedy_action(module, obs)`` is the module's most likely legal action for
one observation; ``ModulePolicy(module, game)`` plays it on a rules-core
state, so the arena's ``play_game`` / ``play_wdl`` can pit it against any
registered agent. ``scripts/train_rllib.py`` trains from the command line,
on this machine or on a Ray cluster (``--address auto``).

Imports ray and torch at module import: import it only where RLlib is wanted.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from pettingzoo.utils import BaseWrapper
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

from tictacgo.envs import observations
from tictacgo.envs.game_envs import aec_env
from tictacgo.games.registry import GAMES, game_class, make_game
from tictacgo.validate import check_int

SHARED_POLICY = "shared"
OBS_KEY, MASK_KEY = "observations", "action_mask"
FIRST_MOVERS = frozenset(make_game(name).spec.agent_names[0] for name in GAMES)


class RLlibObservation(BaseWrapper):
    """A PettingZoo AEC wrapper: ``{"observation", "action_mask"}`` -> ``{"observations", "action_mask"}``.

    Both become float32 vectors (the board flattened row-major, the mask as
    0.0/1.0), the dtype RLlib's torch modules take.
    """

    def __init__(self, env):
        super().__init__(env)
        self._spaces: dict[str, gym.spaces.Dict] = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            board, mask = inner["observation"], inner["action_mask"]
            self._spaces[agent] = gym.spaces.Dict({
                OBS_KEY: gym.spaces.Box(board.low.astype(np.float32).ravel(),
                                        board.high.astype(np.float32).ravel(), dtype=np.float32),
                MASK_KEY: gym.spaces.Box(0.0, 1.0, mask.shape, np.float32),
            })

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        return self._spaces[agent]

    @staticmethod
    def convert(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {OBS_KEY: np.asarray(obs["observation"], np.float32).ravel(),
                MASK_KEY: np.asarray(obs["action_mask"], np.float32)}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.convert(self.env.observe(agent))

    def last(self, observe: bool = True):
        obs, reward, terminated, truncated, info = self.env.last(observe)
        return (self.convert(obs) if observe else None), reward, terminated, truncated, info


class TictacgoRLlibEnv(PettingZooEnv):
    """A tictacgo AEC env as an RLlib ``MultiAgentEnv`` (RLlib builds it from ``env_config``).

    ``env_config``: ``{"game": "tictactoe" | "littlego", **kwargs}``, the
    kwargs going to the AEC env's ``env()`` (``observation``, and for
    Little-Go ``board_size``, ``komi``, ``max_actions``). The observation
    format defaults to ``"flat"`` (any format is flattened).
    """

    def __init__(self, config: dict[str, Any] | None = None):
        config = dict(config or {})
        cls = game_class(config.pop("game", "tictactoe"))
        config.setdefault("observation", "flat")
        self.game = cls.name
        super().__init__(RLlibObservation(aec_env(cls, **config)))


def _shared_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Both agents play with the one policy (module-level so it pickles to the env runners)."""
    return SHARED_POLICY


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's torch RLModule with the env's action mask applied to the logits.

    Built on a Dict observation space ``{"observations": Box, "action_mask":
    Box}``; the encoder and heads are those PPO builds for ``"observations"``
    alone. An illegal action's logit becomes about ``FLOAT_MIN``, so it is
    never sampled and never the greedy choice.
    """

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any):
        if not isinstance(observation_space, gym.spaces.Dict) or \
                set(observation_space.spaces) != {OBS_KEY, MASK_KEY}:
            raise ValueError(f"MaskedPPOTorchRLModule needs a Dict observation space with the keys "
                             f"{OBS_KEY!r} and {MASK_KEY!r} (TictacgoRLlibEnv's), got {observation_space!r}")
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        super().setup()
        # The networks are built for the board alone; the module itself reports the Dict space.
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict) or MASK_KEY not in obs or OBS_KEY not in obs:
            raise ValueError(f"MaskedPPOTorchRLModule needs observations {{{OBS_KEY!r}, {MASK_KEY!r}}}, "
                             f"got {type(obs).__name__} {sorted(obs) if isinstance(obs, dict) else ''}")
        batch = dict(batch)
        batch[Columns.OBS] = obs[OBS_KEY]
        return obs[MASK_KEY], batch

    @staticmethod
    def _mask(outs: dict[str, Any], mask: Any) -> dict[str, Any]:
        outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS] + \
            torch.clamp(torch.log(mask), min=FLOAT_MIN)
        return outs

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._mask(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._mask(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


def _episode_end_info(episode: Any) -> dict[str, Any]:
    """The final info of a finished multi-agent episode (both agents hold ``reason`` and ``winner``)."""
    infos = episode.get_infos(-1)
    for info in infos.values():
        if isinstance(info, dict) and info.get("reason"):
            return info
    return {}


class GameEndCallback(RLlibCallback):
    """Logs, per iteration, games ended by an illegal move, games won by the first mover, and draws."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        info = _episode_end_info(episode)
        first = next((a for a in episode.agent_ids if a in FIRST_MOVERS), None)
        metrics_logger.log_value("illegal_moves", int(info.get("reason") == "illegal"), reduce="sum")
        metrics_logger.log_value("games_ended", 1, reduce="sum")
        metrics_logger.log_value("games_drawn", int(info.get("winner") == "draw"), reduce="sum")
        metrics_logger.log_value("games_won_first", int(info.get("winner") == first), reduce="sum")


def self_play_config(game: str = "tictactoe", env_config: dict[str, Any] | None = None, *,
                     num_env_runners: int = 0, hidden: tuple[int, ...] = (64, 64), lr: float = 3e-4,
                     train_batch_size: int = 1000, minibatch_size: int = 128, num_epochs: int = 4,
                     gamma: float = 0.99, entropy_coeff: float = 0.01, seed: int | None = 0,
                     module_class: type[MaskedPPOTorchRLModule] = MaskedPPOTorchRLModule) -> PPOConfig:
    """A PPO config for shared-policy self-play on a tictacgo game with the masked module.

    Args:
        game: ``"tictactoe"`` or ``"littlego"``.
        env_config: more kwargs for the AEC env (``observation``, ``board_size``, ...).
        num_env_runners: remote EnvRunner actors that collect games (0: in the driver process).
        hidden: hidden layer sizes of the policy and value networks.
        lr, gamma, entropy_coeff, num_epochs: PPO's hyperparameters.
        train_batch_size: env steps (both agents' moves) per training iteration.
        minibatch_size: SGD minibatch size.
        seed: RLlib's seed (``config.debugging(seed=...)``), or None.
        module_class: the shared policy's RLModule class (``MaskedPPOTorchRLModule`` or a subclass).

    Returns:
        The ``PPOConfig``; ``config.build_algo()`` then ``algo.train()``.

    Raises:
        ValueError: an unknown game or a non-positive size.
    """
    game = game_class(game).name
    for name, value in (("train_batch_size", train_batch_size), ("minibatch_size", minibatch_size),
                        ("num_epochs", num_epochs)):
        check_int(name, value, min=1)
    check_int("num_env_runners", num_env_runners, min=0)
    if not hidden or any(not isinstance(h, int) or h < 1 for h in hidden):
        raise ValueError(f"hidden must be positive layer sizes, got {hidden!r}")
    if not (isinstance(module_class, type) and issubclass(module_class, MaskedPPOTorchRLModule)):
        raise TypeError(f"module_class must be MaskedPPOTorchRLModule or a subclass, got {module_class!r}")
    module_spec = RLModuleSpec(module_class=module_class,
                               model_config={"fcnet_hiddens": list(hidden), "fcnet_activation": "tanh",
                                             "vf_share_layers": False})
    config = (
        PPOConfig()
        .environment(TictacgoRLlibEnv, env_config={"game": game, **(env_config or {})})
        .framework("torch")
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=_shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module_spec}))
        .training(lr=lr, gamma=gamma, entropy_coeff=entropy_coeff, num_epochs=num_epochs,
                  train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size)
        .callbacks(GameEndCallback)
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


def greedy_action(module: MaskedPPOTorchRLModule, obs: dict[str, np.ndarray]) -> int:
    """The module's most likely action for one observation of ``TictacgoRLlibEnv`` (illegal ones masked).

    Args:
        module: the trained module (``algo.get_module("shared")``).
        obs: ``{"observations": ..., "action_mask": ...}`` for the agent to move.

    Returns:
        The action index.
    """
    batch = {Columns.OBS: {OBS_KEY: torch.as_tensor(obs[OBS_KEY], dtype=torch.float32)[None],
                           MASK_KEY: torch.as_tensor(obs[MASK_KEY], dtype=torch.float32)[None]}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return int(torch.argmax(logits[0]).item())


class ModulePolicy:
    """A trained module as the arena's callable agent: ``policy(state) -> action`` (greedy, masked).

    Args:
        module: the trained module (``algo.get_module("shared")``).
        game: the game object (``tictacgo.games.make_game("tictactoe")``).
        observation: the observation format the module was trained on
            (``env_config["observation"]``; default ``"flat"``).
    """

    def __init__(self, module: MaskedPPOTorchRLModule, game: Any, observation: str = "flat"):
        if observation not in observations.FORMATS:
            raise ValueError(f"observation must be one of {observations.FORMATS}, got {observation!r}")
        self.module, self.game, self.observation = module, game, observation

    def __call__(self, state: Any) -> int:
        board = observations.observe(self.game, state, self.observation, viewer=state.to_move)
        obs = {OBS_KEY: np.asarray(board, np.float32).ravel(),
               MASK_KEY: np.asarray(self.game.legal_mask(state), np.float32)}
        return greedy_action(self.module, obs)
