"""# Little-Go (littlego_v0)

| Import             | `from tictacgo.envs import littlego_v0`                                    |
|--------------------|----------------------------------------------------------------------------|
| Actions            | Discrete                                                                   |
| Parallel API       | No                                                                         |
| Agents             | `agents = ['black_0', 'white_0']`                                          |
| Action Shape       | (1,)                                                                       |
| Action Values      | `[0, n*n]` (`n*n` is PASS; `[0, 25]` on 5x5)                               |
| Observation Shape  | `{"observation": (n, n), "action_mask": (n*n + 1,)}`                       |
|                    | observation `(n*n,)` with `observation="flat"`, (6, n, n) with `"planes"`  |
| Observation Values | observation [-1, 1] int8 ("board", "flat"), [0, 1] float32 (the planes)    |
|                    | action_mask [0, 1] int8                                                    |
| Render modes       | "ansi", "rgb_array", "human" (pygame, optional)                            |

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
A dict per agent. ``observation`` is the position from that agent's side,
in the format chosen by ``env(observation=...)``, the same choices as the
Gymnasium env (``tictacgo.envs.observations``):

* ``"board"`` (the default): int8 (n, n), +1 its own stones, -1 the
  opponent's, 0 empty;
* ``"flat"``: the same board as an int8 vector of ``n*n`` (row-major);
* ``"planes"``: float32 (6, n, n) in [0, 1], the channels ``own``,
  ``opponent``, ``legal`` (the points where the player to move may place a
  stone; zeros once the game is over), ``ko`` (the points only the ko rule
  forbids), ``actions_left`` (constant: ``(max_actions - t) / max_actions``)
  and ``to_move`` (all ones when Black is to move, zeros when White is);
* ``"planes_hwc"``: the same planes channels last, float32 (n, n, 6), the
  layout of PettingZoo's classic envs and of Keras.

The board formats do not say who is to move or how many actions are left
(Black to move after ``[0, 24]`` and White to move after ``[24, 0, 25]``
look alike), though with komi and the action limit these change the value;
"planes" does. ``action_mask`` (int8, ``n*n + 1``) has 1 on the legal actions
(PASS, the last entry, is always legal) when it is that agent's turn and is
all zeros otherwise (and once the game is over). With the board formats the
ko information is in the mask only.

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
The same keys, with values of the same types, at every step (libraries
that stack infos into arrays, such as Tianshou's buffers, need that):
``winner`` (``""`` during play, ``"draw"``, or the winner's agent name),
``reason`` (``""`` during play, then ``"max_actions"``, ``"double_pass"``,
``"pass_on_empty_start"`` or ``"illegal"``), ``illegal_action`` (the
action, or -1), ``illegal_reason`` (``"occupied"``, ``"suicide"``,
``"ko"``, or ``""``), ``t`` (actions so far, passes included) and
``scores`` ``{"black_0": stones, "white_0": stones + komi}``. The end of the game by
the action limit is a termination (a rule of the game), not a truncation.

### Arguments
``env(board_size=5, komi=None, max_actions=None, observation="board",
render_mode=None, render_cell=None, render_fps=None)``: board size 2..19,
komi (default ``n / 2``) and action limit (default ``n*n - 1``) as in
``littlego.initial_state``; the observation format (``"board"``, ``"flat"``,
``"planes"`` or ``"planes_hwc"``; anything else is a ``ValueError`` naming
the choices); the render mode, the pixels per board point of a picture (default 64) and the
frame rate of the "human" window.
``reset(seed=None, options=None)`` seeds ``env.np_random``;
``options={"state": s}`` starts from the rules-core state ``s``.
``env.game_state`` is the current rules-core state.

### Checks
Passes ``pettingzoo.test.api_test`` (with each observation format),
``seed_test`` and ``render_test`` (tests/test_aec_envs.py). ``api_test``
prints up to four advisory warnings that it also prints for PettingZoo's own
board games, whose names it exempts from the first two: the observation is a
dict (not an array), its space is a Dict (not a Box), the empty starting
board is all zeros ("board", "flat"), and the signed board has negative
numbers in an image-like 2-D shape ("board"). All four are by design (the
documented ``{"observation", "action_mask"}`` format and the player-relative
board); the test fails on any other warning.
"""

from __future__ import annotations

from pettingzoo import AECEnv

from tictacgo.envs.aec_base import TurnBasedAECEnv, wrap
from tictacgo.games import LittleGo


def env(**kwargs) -> AECEnv:
    """The Little-Go AEC env in its standard wrapper (order enforcement).

    Args:
        **kwargs: passed to ``raw_env`` (``board_size``, ``komi``, ``max_actions``,
            ``observation``, ``render_mode``, ``render_cell``, ``render_fps``).
    Returns:
        The wrapped env.
    """
    return wrap(raw_env(**kwargs))


def raw_env(board_size: int = 5, komi: float | None = None, max_actions: int | None = None,
            render_mode: str | None = None, render_cell: int | None = None,
            render_fps: float | None = None, observation: str = "board") -> TurnBasedAECEnv:
    """Little-Go as a PettingZoo ``AECEnv``, without wrappers (see the module docstring).

    Args:
        board_size: n, 2..19.
        komi: added to White's score; ``n / 2`` if None.
        max_actions: actions (passes included) before the game ends; ``n*n - 1`` if None.
        render_mode: None, "ansi", "rgb_array" or "human".
        render_cell: pixels per board point in pictures (default 64).
        render_fps: frames per second in "human" mode.
        observation: "board" (int8 (n, n), the default), "flat" (int8 (n*n,)),
            "planes" (float32 (6, n, n)) or "planes_hwc" (float32 (n, n, 6)).
    Raises:
        TypeError / ValueError: a bad board size, komi or action limit, or an
            unknown observation format.
    """
    return TurnBasedAECEnv(LittleGo(board_size, komi, max_actions), render_mode=render_mode,
                           render_cell=render_cell, render_fps=render_fps, observation=observation)
