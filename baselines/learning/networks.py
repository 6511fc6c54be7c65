"""Networks for the small boards, usable by name from the training code.

* ``"two_branch"``: the actor-critic chapter's network. A dense branch (the n*n board
  itself) and a 3x3 convolution branch (64 filters, same padding, ReLU) over
  the board, concatenated, a shared 128-unit ReLU layer, then a policy head
  and a value head of 32 ReLU units each, the value squashed by tanh (the
  game's returns lie in [-1, 1]). For the "flat" or "board" observation.
* ``"resnet"``: a small residual CNN over the "planes" observation (a 3x3
  stem of 32 channels, two residual blocks, a 128-unit linear layer), for
  Little-Go. SB3's ``CnnPolicy`` cannot serve here: its NatureCNN needs
  images of 36x36 or more.
* ``"mlp"``: SB3's default MLP (64-64).

``policy_spec(name, algo)`` gives the ``(policy class, policy_kwargs)`` pair
for ``MaskablePPO`` (``algo="maskable-ppo"``) or A2C (``algo="a2c"``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

POLICIES = ("two_branch", "resnet", "mlp")


class TwoBranchExtractor(BaseFeaturesExtractor):
    """The actor-critic chapter's trunk: raw board + 3x3 conv (64), concatenated, then 128 ReLU units."""

    def __init__(self, observation_space: gym.spaces.Box, filters: int = 64, hidden: int = 128):
        super().__init__(observation_space, features_dim=hidden)
        cells = int(np.prod(observation_space.shape))
        n = int(round(cells ** 0.5))
        if n * n != cells or len(observation_space.shape) > 2:
            raise ValueError(f"two_branch needs a square board observation ('flat' or 'board'), "
                             f"got shape {observation_space.shape}")
        self.n = n
        self.conv = nn.Sequential(nn.Conv2d(1, filters, 3, padding=1), nn.ReLU(), nn.Flatten())
        self.common = nn.Sequential(nn.Linear(filters * cells + cells, hidden), nn.ReLU())

    def forward(self, obs: th.Tensor) -> th.Tensor:
        flat = obs.reshape(obs.shape[0], -1).float()
        board = flat.reshape(-1, 1, self.n, self.n)
        return self.common(th.cat([self.conv(board), flat], dim=1))


class _ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(channels, channels, 3, padding=1))

    def forward(self, x: th.Tensor) -> th.Tensor:
        return th.relu(x + self.body(x))


class SmallResNetExtractor(BaseFeaturesExtractor):
    """A residual CNN for (C, n, n) planes: 3x3 stem, ``blocks`` residual blocks, linear layer."""

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 32, blocks: int = 2,
                 features_dim: int = 128):
        super().__init__(observation_space, features_dim=features_dim)
        if len(observation_space.shape) != 3:
            raise ValueError(f"resnet needs the 'planes' observation (C, n, n), got shape "
                             f"{observation_space.shape}")
        c, h, w = observation_space.shape
        self.net = nn.Sequential(nn.Conv2d(c, channels, 3, padding=1), nn.ReLU(),
                                 *[_ResidualBlock(channels) for _ in range(blocks)], nn.Flatten(),
                                 nn.Linear(channels * h * w, features_dim), nn.ReLU())

    def forward(self, obs: th.Tensor) -> th.Tensor:
        return self.net(obs.float())


class _TanhValue:
    """Mixin: squash the value head's output by tanh (the chapter's critic)."""

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.value_net = nn.Sequential(self.value_net, nn.Tanh())


class TwoBranchPolicy(_TanhValue, ActorCriticPolicy):
    """A2C's policy with the actor-critic chapter's network."""


class MaskableTwoBranchPolicy(_TanhValue, MaskableActorCriticPolicy):
    """MaskablePPO's policy with the actor-critic chapter's network."""


def policy_spec(name: str, algo: str, net_arch: list[int] | None = None) -> tuple[Any, dict[str, Any]]:
    """``(policy, policy_kwargs)`` for network ``name`` and algorithm ``algo``.

    Args:
        name: one of ``POLICIES``.
        algo: "maskable-ppo" or "a2c".
        net_arch: hidden layer sizes of the "mlp" policy (SB3's default, 64 and 64, if None).
    Raises:
        ValueError: an unknown name or algorithm.
    """
    if algo not in ("maskable-ppo", "a2c"):
        raise ValueError(f"algo must be 'maskable-ppo' or 'a2c', got {algo!r}")
    if name == "two_branch":
        heads = {"features_extractor_class": TwoBranchExtractor, "net_arch": {"pi": [32], "vf": [32]}}
        policy = MaskableTwoBranchPolicy if algo == "maskable-ppo" else TwoBranchPolicy
        return policy, heads
    if name == "resnet":
        return "MlpPolicy", {"features_extractor_class": SmallResNetExtractor,
                             "net_arch": {"pi": [64], "vf": [64]}}
    if name == "mlp":
        return "MlpPolicy", ({} if net_arch is None else {"net_arch": list(net_arch)})
    raise ValueError(f"unknown policy {name!r}; expected one of {POLICIES}")


def small_board_cnn(channels: int = 32, blocks: int = 2, features_dim: int = 128) -> dict[str, Any]:
    """``policy_kwargs`` that make SB3's ``"CnnPolicy"`` work on the "planes" observation.

    SB3's default CNN (NatureCNN) needs images of 36x36 pixels or more; this
    swaps in the small residual CNN above, sized for 3x3 to 19x19 boards:

        model = MaskablePPO("CnnPolicy", gymnasium.make("LittleGo-v0", observation="planes"),
                            policy_kwargs=small_board_cnn())

    Args:
        channels: convolution channels.
        blocks: residual blocks.
        features_dim: units of the linear layer after the convolutions.
    """
    return {"features_extractor_class": SmallResNetExtractor,
            "features_extractor_kwargs": {"channels": channels, "blocks": blocks,
                                          "features_dim": features_dim}}
