"""Tic-Tac-Toe as a single-agent Gymnasium env: ``TicTacToe-v0``.

The learner plays X (first) or O (second) against an opponent agent; each
``step()`` is the learner's move followed by the opponent's reply:

    import gymnasium, tictacgo
    env = gymnasium.make("TicTacToe-v0", opponent="minimax", learner="alternate")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(4)

* **Action space**: ``Discrete(9)``: cells 0..8 row-major (the actor-critic
  chapter numbers them 1..9)
* **Observation space**: ``"flat"``: ``Box(-1, 1, (9,), int8)``; ``"board"``:
  ``Box(-1, 1, (3, 3), int8)``; ``"planes"``: ``Box(0, 1, (4, 3, 3),
  float32)`` (own, opponent, legal, to_move: all ones when X is to move, zeros
  when O is); ``"planes_hwc"``: the same planes channels last, ``Box(0, 1,
  (3, 3, 4), float32)``
* **Rewards**: +1 win, -1 loss (also for an illegal move under
  ``illegal="lose"``), 0 draw and non-final steps; ``illegal_penalty`` for a
  refused move under ``illegal="penalty"`` (the ``IllegalMovePenalty``
  wrapper)
* **Termination**: three in a row, a full board, or an illegal move
  (``illegal="lose"``); never truncated
* **Action mask**: ``env.action_masks()`` (bool) and ``info["action_mask"]``
  (int8)
* **Import**: ``gymnasium.make("tictacgo:TicTacToe-v0")``

Rules: the usual game. X moves first; three in a row (row, column or
diagonal) wins; a full board without one is a draw. The observation is
player-relative: +1 the learner's marks, -1 the opponent's, 0 empty.

Keyword arguments: ``opponent`` (default ``"random"``; ``"minimax"`` plays
perfectly), ``learner`` (``"first"``, ``"second"``, ``"alternate"``,
``"random"``), ``observation`` (``"flat"``, ``"board"``, ``"planes"``,
``"planes_hwc"``),
``render_mode`` (``"ansi"``, ``"rgb_array"``, ``"human"``), ``render_cell``,
``render_fps``; and through ``gymnasium.make`` also ``illegal``
(``"lose"``, ``"penalty"``: applies ``tictacgo.wrappers.IllegalMovePenalty``),
``illegal_penalty`` (-1.0) and ``max_illegal_in_a_row`` (the wrapper's cap).
See ``tictacgo.envs.single_agent`` for their meaning, for ``set_opponent``
and for ``info`` (``winner``, ``winner_colour``, ``reason`` one of
``win``/``draw``/``illegal``, ``learner_colour``, ``opponent_action``,
``illegal_action``, ``illegal_reason``, ``action_mask``; one type per key).
"""

from __future__ import annotations

from typing import Any

from tictacgo.envs.single_agent import TurnBasedEnv
from tictacgo.games import TicTacToe


def env(**kwargs: Any) -> TurnBasedEnv:
    """The Tic-Tac-Toe single-agent env (see the module docstring).

    Args:
        **kwargs: ``TurnBasedEnv``'s (``opponent``, ``learner``, ``observation``,
            ``render_mode``, ``render_cell``, ``render_fps``, ``opponent_resolver``).
    """
    return TurnBasedEnv(TicTacToe(), **kwargs)
