"""Tic-Tac-Toe as a single-agent Gymnasium env: ``TicTacToe-v0``.

The learner plays X (first) or O (second) against an opponent agent; each
``step()`` is the learner's move followed by the opponent's reply::

    import gymnasium, tictacgo
    env = gymnasium.make("TicTacToe-v0", opponent="minimax", learner="alternate")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(4)

======================  ===================================================
Action space            ``Discrete(9)``: cells 0..8 row-major (the seeds
                        number them 1..9)
Observation space       ``"flat"``: ``Box(-1, 1, (9,), int8)``;
                        ``"board"``: ``Box(-1, 1, (3, 3), int8)``;
                        ``"planes"``: ``Box(0, 1, (3, 3, 3), float32)``
                        (own, opponent, legal)
Rewards                 +1 win, -1 loss (also for an illegal move under
                        ``illegal="lose"``), 0 draw and non-final steps;
                        ``illegal_penalty`` for a refused move under
                        ``illegal="penalty"``
Termination             three in a row, a full board, or an illegal move
                        (``illegal="lose"``); never truncated
Action mask             ``env.action_masks()`` (bool) and
                        ``info["action_mask"]`` (int8)
Import                  ``gymnasium.make("tictacgo:TicTacToe-v0")``
======================  ===================================================

Rules: the usual game. X moves first; three in a row (row, column or
diagonal) wins; a full board without one is a draw. The observation is
player-relative: +1 the learner's marks, -1 the opponent's, 0 empty.

Keyword arguments: ``opponent`` (default ``"random"``; ``"minimax"`` plays
perfectly), ``learner`` (``"first"``, ``"second"``, ``"alternate"``,
``"random"``), ``observation`` (``"flat"``, ``"board"``, ``"planes"``),
``illegal`` (``"lose"``, ``"penalty"``), ``illegal_penalty`` (-1.0),
``render_mode`` (``"ansi"``, ``"rgb_array"``, ``"human"``). See
``tictacgo.envs.single_agent`` for their meaning and for ``info``
(``winner``, ``winner_colour``, ``reason`` one of ``win``/``draw``/
``illegal``, ``learner_colour``, ``opponent_action``, ``action_mask``).

Version history: v0, the first release.
"""

from __future__ import annotations

from typing import Any

from tictacgo.envs.single_agent import TurnBasedEnv
from tictacgo.games import tictactoe


class TicTacToeEnv(TurnBasedEnv):
    """Tic-Tac-Toe against an opponent agent (see the module docstring).

    Args:
        opponent: agent spec, ``Agent`` or callable ``f(state) -> action``.
        learner: "first", "second", "alternate" or "random".
        observation: "flat", "board" or "planes".
        illegal: "lose" or "penalty".
        illegal_penalty: the reward of a refused move under ``illegal="penalty"``.
        render_mode: None, "ansi", "rgb_array" or "human".
    """

    game = tictactoe

    def __init__(self, opponent: Any = "random", learner: str = "first",
                 observation: str = "flat", illegal: str = "lose",
                 illegal_penalty: float = -1.0, render_mode: str | None = None):
        super().__init__(opponent=opponent, learner=learner, observation=observation,
                         illegal=illegal, illegal_penalty=illegal_penalty, render_mode=render_mode)

    def _initial_state(self) -> tictactoe.TTTState:
        return tictactoe.initial_state()

    def _stone_bits(self, state: tictactoe.TTTState) -> tuple[int, int]:
        return state.x, state.o
