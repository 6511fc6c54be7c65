"""``IllegalMovePenalty``: refuse illegal actions with a penalty instead of ending the episode.

Wraps any Gymnasium env with a ``Discrete`` action space and an
``action_masks()`` method (``TicTacToe-v0`` and ``LittleGo-v0``, typically
made with the default ``illegal="lose"``):

    env = IllegalMovePenalty(gymnasium.make("TicTacToe-v0"), penalty=-1.0)

An illegal action is not passed on: the wrapper returns the last observation
again, ``reward = penalty``, ``terminated = truncated = False``, and the
learner acts again from the same, unchanged position. A legal action is
forwarded untouched. Bad input (a non-integer, an out-of-range integer) still
raises TypeError / ValueError.

Credit assignment (the actor-critic chapter, "handle illegal moves"): the penalty belongs to
the illegal move alone. It is paid immediately, on the step of the refused
move, and as that move is not played it changes nothing that came before it;
the game's own rewards (+1 / -1 / 0) are unaffected. To keep the two streams
apart, every step's ``info`` holds ``game_reward`` (the env's reward, 0 on a
refused move), ``penalty`` (the penalty paid on this step, else 0.0) and
``refused`` (True on a refused step). A trainer that follows the chapter
exactly discounts ``game_reward`` and adds ``penalty`` undiscounted to the
refused step only: ``tictacgo.baselines.learning.IllegalAwareA2C`` does; a
standard algorithm that discounts the summed ``reward`` (SB3's PPO) also lets
the penalty reach earlier steps a little, through its discounted return.

A refused step's ``info`` is the last step's info with ``illegal_action``
True and ``illegal_reason`` (``occupied``, ``suicide``, ``ko``) added, and
``opponent_action`` -1 (the opponent did not move).

The cap: after ``max_illegal_in_a_row`` refused actions in a row (default
``2 * action_space.n``) the next illegal action is passed on to the env,
where it loses the game as the course host scores it: reward -1,
``terminated`` True, and ``info["reason"] == "illegal_limit"``. Without a
cap a deterministic policy that keeps choosing an illegal action would loop
forever (``evaluate_policy`` would never return).

This wrapper is the package's one illegal-move-penalty mechanism:
``gymnasium.make("TicTacToe-v0", illegal="penalty", illegal_penalty=-1.0)``
applies it.

Version history: v0, the first release.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from tictacgo.games.errors import check_action_type
from tictacgo.validate import check_int, check_number


class IllegalMovePenalty(gym.Wrapper):
    """Refuse illegal actions with an immediate ``penalty``; the episode goes on.

    Args:
        env: an env with a ``Discrete`` action space and ``action_masks()``
            whose illegal actions lose the game (the tictacgo envs).
        penalty: the reward of a refused action (default -1.0), a finite number.
        max_illegal_in_a_row: refused actions in a row before the next illegal
            one loses the game (default ``2 * action_space.n``); a positive int.
    """

    def __init__(self, env: gym.Env, penalty: float = -1.0, max_illegal_in_a_row: int | None = None):
        super().__init__(env)
        if not isinstance(env.action_space, spaces.Discrete):
            raise TypeError(f"IllegalMovePenalty needs a Discrete action space, got {env.action_space}")
        try:
            env.get_wrapper_attr("action_masks")
        except AttributeError:
            raise TypeError("IllegalMovePenalty needs an env with an action_masks() method") from None
        self.penalty = check_number("penalty", penalty)
        if max_illegal_in_a_row is None:
            max_illegal_in_a_row = 2 * int(env.action_space.n)
        self.max_illegal_in_a_row = check_int("max_illegal_in_a_row", max_illegal_in_a_row, min=1)
        self._refused_in_a_row = 0
        self._last_obs = None
        self._last_info: dict = {}

    def action_masks(self) -> np.ndarray:
        """The wrapped env's legal actions as a bool array."""
        return self.env.get_wrapper_attr("action_masks")()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._last_obs, self._last_info = obs, info
        self._refused_in_a_row = 0
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict]:
        """Forward a legal action; refuse an illegal one with ``penalty``.

        Raises:
            TypeError / ValueError: the action is not an int in range.
        """
        a = check_action_type(action, int(self.env.action_space.n))
        mask = self.action_masks()
        # An all-False mask means the game is over: the env itself says so on step().
        illegal = self._last_obs is not None and mask.any() and not mask[a]
        if illegal and self._refused_in_a_row >= self.max_illegal_in_a_row:
            # The cap: the env plays the illegal action, which loses the game.
            obs, reward, terminated, truncated, info = self.env.step(action)
            info = dict(info)
            info["reason"] = "illegal_limit"
            info["game_reward"] = float(reward)
            info["penalty"] = 0.0
            info["refused"] = False
            self._last_obs, self._last_info = obs, info
            return obs, reward, terminated, truncated, info
        if illegal:
            self._refused_in_a_row += 1
            # A fresh info each step: arrays copied, so a kept info never changes.
            info = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in self._last_info.items()}
            info["illegal_action"] = True
            unwrapped = self.env.unwrapped
            state = getattr(unwrapped, "game_state", None)
            game = getattr(unwrapped, "game", None)
            if state is not None and game is not None and not game.is_terminal(state):
                info["illegal_reason"] = game.illegal_reason(state, a) or ""
            info["opponent_action"] = -1
            info["game_reward"] = 0.0
            info["penalty"] = self.penalty
            info["refused"] = True
            obs = self._last_obs.copy() if isinstance(self._last_obs, np.ndarray) else self._last_obs
            return obs, self.penalty, False, False, info
        self._refused_in_a_row = 0
        obs, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        info["game_reward"] = float(reward)
        info["penalty"] = 0.0
        info["refused"] = False
        self._last_obs, self._last_info = obs, info
        return obs, reward, terminated, truncated, info
