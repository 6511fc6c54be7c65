"""The learner's action masks of a vector env, the same in every ``gymnasium.make_vec`` mode.

``gymnasium.make_vec("LittleGo-v0", num_envs=B, vectorization_mode=...)``
gives the native vector env (``"vector_entry_point"``, the default) or a
``SyncVectorEnv`` / ``AsyncVectorEnv`` of single-game envs (``"sync"``,
``"async"``). Only the native env has an ``action_masks()`` method;
Gymnasium reaches the single envs' methods with ``envs.call("action_masks")``.
``action_masks(envs)`` answers the same way for all three, and for SB3
``VecEnv`` s (``BatchedVecEnv``, ``DummyVecEnv``, ``SubprocVecEnv``):

    from tictacgo.envs import action_masks
    obs, info = envs.reset(seed=0)
    actions = policy(obs, action_masks(envs))       # (B, n_actions) bool

A row is the game's legal actions. The exception is a game that ended on the
last step: with Gymnasium's next-step auto-reset the next ``step()`` starts a
new game there and ignores that game's action, so its row allows every action
(``info["action_mask"]``, which reports the finished position, is all zeros
there). A live game always has a legal action (Little-Go's PASS, an empty
Tic-Tac-Toe cell), so a row with none is a finished game.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def action_masks(envs: Any) -> np.ndarray:
    """The actions each game of ``envs`` accepts now, as one ``(num_envs, n_actions)`` bool array.

    Args:
        envs: a vector env of tictacgo games: ``gymnasium.make_vec``'s in any
            vectorization mode (wrapped in ``VectorWrapper`` s or not), or an
            SB3 ``VecEnv``.
    Returns:
        A new bool array: each row the legal actions of that game, all True for
        a game that waits for its reset step (its action is ignored).
    Raises:
        TypeError: ``envs`` is not a vector env, or its envs have no ``action_masks()``.
    """
    base = getattr(envs, "unwrapped", envs)
    try:
        if callable(getattr(base, "action_masks", None)):  # the native vector env, BatchedVecEnv
            masks = base.action_masks()
        elif callable(getattr(base, "call", None)):  # gymnasium's SyncVectorEnv and AsyncVectorEnv
            masks = np.stack(base.call("action_masks"))
        elif callable(getattr(base, "env_method", None)):  # an SB3 VecEnv of single envs
            masks = np.stack(base.env_method("action_masks"))
        else:
            raise TypeError(f"expected a Gymnasium or SB3 vector env, got {envs!r} ({type(envs).__name__})")
    except AttributeError as e:
        raise TypeError(f"the envs of {envs!r} have no action_masks() method: {e}") from e
    masks = np.array(masks, dtype=bool)  # a copy: the caller may write to it
    if masks.ndim != 2:
        raise TypeError(f"expected one mask per env, got an array of shape {masks.shape}")
    masks[~masks.any(axis=1)] = True
    return masks
