"""# Little-Go (littlego_v0)

| Import             | `from tictacgo.envs import littlego_v0`                 |
|--------------------|---------------------------------------------------------|
| Actions            | Discrete                                                |
| Parallel API       | No                                                      |
| Agents             | `agents = ['black_0', 'white_0']`                       |
| Action Shape       | (1,)                                                    |
| Action Values      | [0, n*n] (n*n is PASS; [0, 25] on 5x5)                  |
| Observation Shape  | `{"observation": (n, n), "action_mask": (n*n + 1,)}`    |
| Observation Values | observation [-1, 1], action_mask [0, 1] (int8)          |
| Render modes       | "ansi", "rgb_array", "human" (pygame, optional)         |

The 5x5 Go of the CSCI-561 homework, with the course host's exact rules
(``tictacgo.games.littlego``; see ``docs/littlego.md``). ``black_0`` moves
first. In short:

* A stone is legal on an empty point if its group has a liberty, at once or
  after opponent groups without liberties are removed (otherwise suicide).
  Simple ko: a placement may not recreate the board as it stood before the
  opponent's last action when that action captured. No superko.
* Every action counts, passes included; the game ends after action
  ``max_actions`` (default ``n*n - 1`` = 24), on a pass that follows a pass,
  or when Black passes as the very first action (the host's quirk: White
  then wins 0 : komi).
* Score: Black stones on the board; White stones plus komi (default
  ``n / 2`` = 2.5). No territory, no prisoners.

### Observation space
A dict per agent. ``observation`` is the board from that agent's side, int8
(n, n): +1 its own stones, -1 the opponent's, 0 empty. ``action_mask``
(int8, n*n + 1) has 1 on the legal actions (PASS, the last entry, is always
legal) when it is that agent's turn and is all zeros otherwise (and once the
game is over). The ko information is in the mask, not in the board.

### Action space
``Discrete(n*n + 1)``: action ``i * n + j`` places a stone on row ``i``,
column ``j`` (0 = top, left); action ``n*n`` passes. Python and numpy
integers and 0-d integer arrays are accepted. A non-integer action (float,
None, str, ...) raises ``TypeError`` and an integer outside ``[0, n*n]``
raises ``ValueError``; either way the game is unchanged and the agent may
step again. A placement the rules refuse (occupied point, suicide, ko) ends
the game, as in the course host: the mover loses (-1), the opponent wins (+1).

### Rewards
Given once, when the game ends, from each agent's view:

| Winner | Loser | Draw (integer komi only) |
| :----: | :---: | :----------------------: |
| +1     | -1    | 0                        |

### Infos
Empty during play. At the end both agents' infos hold ``winner`` (agent
name, or None for a draw), ``reason`` (``"max_actions"``,
``"double_pass"``, ``"pass_on_empty_start"`` or ``"illegal"``; after an
illegal action also ``illegal_action`` and ``illegal_reason``:
``"occupied"``, ``"suicide"`` or ``"ko"``) and ``scores``
``{"black_0": stones, "white_0": stones + komi}``. The end of the game by
the action limit is a termination (a rule of the game), not a truncation.

### Arguments
``env(board_size=5, komi=None, max_actions=None, render_mode=None,
render_cell=None, render_fps=None)``: board size 2..19, komi (default
``n / 2``) and action limit (default ``n*n - 1``) as in
``littlego.initial_state``; the render mode, the pixels per board point of a
picture (default 64) and the frame rate of the "human" window.
``reset(seed=None, options=None)`` seeds ``env.np_random``;
``options={"state": s}`` starts from the rules-core state ``s``.
``env.game_state`` is the current rules-core state.

### Checks
Passes ``pettingzoo.test.api_test``, ``seed_test`` and ``render_test``
(tests/test_aec_envs.py). ``api_test`` prints four advisory warnings that it
also prints for PettingZoo's own board games, whose names it exempts from
the first two: the observation is a dict (not an array), its space is a Dict
(not a Box), the empty starting board is all zeros, and the signed board has
negative numbers in an image-like 2-D shape. All four are by design (the
documented ``{"observation", "action_mask"}`` format and the player-relative
board); the test fails on any other warning.

### Version history
* v0: first release.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from pettingzoo import AECEnv

from tictacgo.envs import rendering
from tictacgo.envs.aec_base import TurnBasedAECEnv, wrap
from tictacgo.games import littlego


def env(**kwargs) -> AECEnv:
    """The Little-Go AEC env in its standard wrapper (order enforcement).

    Args:
        **kwargs: passed to ``raw_env`` (``board_size``, ``komi``, ``max_actions``,
            ``render_mode``, ``render_cell``, ``render_fps``).
    Returns:
        The wrapped env.
    """
    return wrap(raw_env(**kwargs))


class raw_env(TurnBasedAECEnv):
    """Little-Go as a PettingZoo ``AECEnv``, without wrappers (see the module docstring)."""

    game = littlego
    metadata = {
        "name": "littlego_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "render_fps": rendering.DEFAULT_FPS,
        "is_parallelizable": False,
    }
    possible_agents = ["black_0", "white_0"]
    _stones = attrgetter("black", "white")

    def __init__(self, board_size: int = 5, komi: float | None = None, max_actions: int | None = None,
                 render_mode: str | None = None, render_cell: int | None = None,
                 render_fps: float | None = None):
        """Build the env (call ``reset`` before use).

        Args:
            board_size: n, 2..19.
            komi: added to White's score; ``n / 2`` if None.
            max_actions: actions (passes included) before the game ends; ``n*n - 1`` if None.
            render_mode: None, "ansi", "rgb_array" or "human".
            render_cell: pixels per board point in pictures (default 64).
            render_fps: frames per second in "human" mode.
        Raises:
            TypeError / ValueError: a bad board size, komi or action limit.
        """
        # Validates the arguments with the rules' own clear errors.
        self._start = littlego.initial_state(board_size, komi, max_actions)
        self.board_size = self._start.geo.n
        self.komi = self._start.geo.komi
        self.max_actions = self._start.geo.max_actions
        super().__init__(render_mode=render_mode, render_cell=render_cell, render_fps=render_fps)

    def _new_state(self) -> littlego.GoState:
        return self._start

    def _end_info(self, state: littlego.GoState) -> dict[str, Any]:
        info = super()._end_info(state)
        b, w = littlego.scores(state)
        info["scores"] = {"black_0": b, "white_0": w}
        return info
