"""# Tic-Tac-Toe (tictactoe_v0)

| Import             | `from tictacgo.envs import tictactoe_v0`                                   |
|--------------------|----------------------------------------------------------------------------|
| Actions            | Discrete                                                                   |
| Parallel API       | No                                                                         |
| Agents             | `agents = ['player_1', 'player_2']`                                        |
| Action Shape       | (1,)                                                                       |
| Action Values      | [0, 8]                                                                     |
| Observation Shape  | `{"observation": (3, 3), "action_mask": (9,)}`                             |
|                    | observation (9,) with `observation="flat"`, (4, 3, 3) with `"planes"`      |
| Observation Values | observation [-1, 1] int8 ("board", "flat"), [0, 1] float32 (the planes)    |
|                    | action_mask [0, 1] int8                                                    |
| Render modes       | "ansi", "rgb_array", "human" (pygame, optional)                            |

Two players mark the cells of a 3 x 3 grid in turn; three marks in a row,
column or diagonal win, a full grid without a line is a draw. ``player_1``
plays X and moves first, ``player_2`` plays O. The rules are those of
``tictacgo.games.tictactoe``; this module only adapts them to PettingZoo.

    env = tictactoe_v0.env(render_mode="ansi")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else policy(obs)
        env.step(action)

### Observation space
A dict per agent. ``observation`` is the position from that agent's side,
in the format chosen by ``env(observation=...)``, the same choices as the
Gymnasium env (``tictacgo.envs.observations``):

* ``"board"`` (the default): int8 (3, 3), +1 its own marks, -1 the
  opponent's, 0 empty (so the two agents' views differ in sign; one network
  plays both sides);
* ``"flat"``: the same board as an int8 vector of 9 (row-major);
* ``"planes"``: float32 (4, 3, 3) in [0, 1], the channels ``own``,
  ``opponent``, ``legal`` (the empty cells while the game goes on; zeros once
  it is over) and ``to_move`` (all ones when X is to move, zeros when O is);
* ``"planes_hwc"``: the same planes channels last, float32 (3, 3, 4), the
  layout of PettingZoo's classic envs and of Keras.

``action_mask`` (int8, 9) has 1 on the empty cells when it is that agent's
turn and is all zeros otherwise (and once the game is over).

### Action space
``Discrete(9)``: the cell, row-major:

    0 | 1 | 2
    3 | 4 | 5
    6 | 7 | 8

Python and numpy integers and 0-d integer arrays are accepted. A
non-integer action (float, None, str, ...) raises ``TypeError`` and an
integer outside 0..8 raises ``ValueError``; either way the game is unchanged
and the agent may step again. Marking a taken cell ends the game: the mover
loses (-1) and the opponent wins (+1), reason ``"illegal"``.

### Rewards
Given once, when the game ends, from each agent's view:

| Winner | Loser | Draw |
| :----: | :---: | :--: |
| +1     | -1    | 0    |

### Infos
The same keys, with values of the same types, at every step (libraries
that stack infos into arrays, such as Tianshou's buffers, need that):
``winner`` (``""`` during play, ``"draw"``, or the winner's agent name),
``reason`` (``""`` during play, then ``"win"``, ``"draw"`` or
``"illegal"``), ``illegal_action`` (the action, or -1),
``illegal_reason`` (``"occupied"`` or ``""``) and ``t`` (moves so far).

### Arguments
``env(observation="board", render_mode=None, render_cell=None,
render_fps=None)``: the observation format (``"board"``, ``"flat"``,
``"planes"`` or ``"planes_hwc"``; anything else is a ``ValueError`` naming
the choices), the
render mode, the pixels per cell of a picture (default 100) and the frame
rate of the "human" window. ``reset(seed=None, options=None)`` seeds
``env.np_random``; ``options={"state": s}`` starts from the rules-core
state ``s``. ``env.game_state`` is the current rules-core state.

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
from tictacgo.games import TicTacToe


def env(**kwargs) -> AECEnv:
    """The Tic-Tac-Toe AEC env in its standard wrapper (order enforcement).

    Args:
        **kwargs: passed to ``raw_env`` (``observation``, ``render_mode``, ``render_cell``,
            ``render_fps``).
    Returns:
        The wrapped env.
    """
    return wrap(raw_env(**kwargs))


def raw_env(render_mode: str | None = None, render_cell: int | None = None,
            render_fps: float | None = None, observation: str = "board") -> TurnBasedAECEnv:
    """Tic-Tac-Toe as a PettingZoo ``AECEnv``, without wrappers (see the module docstring).

    Args:
        render_mode: None, "ansi", "rgb_array" or "human".
        render_cell: pixels per cell in pictures (default 100).
        render_fps: frames per second in "human" mode.
        observation: "board" (int8 (3, 3), the default), "flat" (int8 (9,)),
            "planes" (float32 (4, 3, 3)) or "planes_hwc" (float32 (3, 3, 4)).
    """
    return TurnBasedAECEnv(TicTacToe(), render_mode=render_mode, render_cell=render_cell,
                           render_fps=render_fps, observation=observation)
