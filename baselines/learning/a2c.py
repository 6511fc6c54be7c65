"""A2C with the actor-critic chapter's credit assignment for refused (illegal) moves.

SB3's A2C discounts the summed reward and bootstraps with GAE, so a penalty
for an illegal attempt would flow into the returns and advantages of the
legal moves before it. ``IllegalAwareA2C`` trains through
``tictacgo.wrappers.IllegalMovePenalty`` (no action masks) and keeps the two
apart, as ``tictacgo.baselines.learning.returns.illegal_aware_returns``
specifies:

* a refused step (``info["refused"]``) gets the advantage ``penalty - V(s)``:
  the penalty is its whole, undiscounted return; its value target is left at
  the current estimate, so the penalty does not leak into ``V(s)`` either;
* a legal step's GAE advantage chains to the next *legal* step of the same
  episode, skipping refused attempts: they consume no discount step, and the
  game's reward is discounted over the legal moves only.

With ``gae_lambda=1`` (A2C's default) and an episode that ends inside the
rollout, a legal step's return equals ``illegal_aware_returns`` (tested).
"""

from __future__ import annotations

import numpy as np
import torch as th
from stable_baselines3 import A2C
from stable_baselines3.common.buffers import RolloutBuffer


class IllegalAwareRolloutBuffer(RolloutBuffer):
    """A rollout buffer that knows which steps were refused attempts."""

    def reset(self) -> None:
        super().reset()
        self.refused = np.zeros((self.buffer_size, self.n_envs), dtype=bool)
        self.next_refused = np.zeros(self.n_envs, dtype=bool)

    def add(self, *args, **kwargs) -> None:
        self.refused[self.pos] = self.next_refused
        super().add(*args, **kwargs)

    def compute_returns_and_advantage(self, last_values: th.Tensor, dones: np.ndarray) -> None:
        last_values = last_values.clone().cpu().numpy().flatten()
        carry = np.zeros(self.n_envs, dtype=np.float32)  # the GAE of the next legal step
        next_legal_value = last_values  # V of the state the next legal step moves from
        for step in reversed(range(self.buffer_size)):
            if step == self.buffer_size - 1:
                next_non_terminal = 1.0 - dones.astype(np.float32)
            else:
                # Refused steps are never terminal, so an episode ends after
                # ``step`` exactly when step + 1 starts a new one.
                next_non_terminal = 1.0 - self.episode_starts[step + 1]
            refused = self.refused[step]
            values = self.values[step]
            delta = self.rewards[step] + self.gamma * next_legal_value * next_non_terminal - values
            legal_adv = delta + self.gamma * self.gae_lambda * next_non_terminal * carry
            self.advantages[step] = np.where(refused, self.rewards[step] - values, legal_adv)
            carry = np.where(refused, carry, legal_adv)
            next_legal_value = np.where(refused, next_legal_value, values)
        self.returns = self.advantages + self.values
        # A refused step's value target stays at the estimate: no penalty in V(s).
        self.returns[self.refused] = self.values[self.refused]


class IllegalAwareA2C(A2C):
    """``stable_baselines3.A2C`` with ``IllegalAwareRolloutBuffer`` (see the module docstring).

    Train it on an env wrapped in ``IllegalMovePenalty`` (``gymnasium.make(...,
    illegal="penalty")``), whose infos flag refused steps with ``refused``.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("rollout_buffer_class", IllegalAwareRolloutBuffer)
        super().__init__(*args, **kwargs)

    def _update_info_buffer(self, infos: list[dict], dones: np.ndarray | None = None) -> None:
        # Called by collect_rollouts between env.step and rollout_buffer.add.
        buffer = self.rollout_buffer
        if isinstance(buffer, IllegalAwareRolloutBuffer):
            buffer.next_refused = np.array([bool(info.get("refused", False)) for info in infos])
        super()._update_info_buffer(infos, dones)
