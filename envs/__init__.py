"""The RL environments (imported as ``tictacgo.envs``).

* PettingZoo AEC: ``tictactoe_v0`` and ``littlego_v0`` (``env()`` with the
  standard wrappers, ``raw_env`` without).
* Gymnasium single agent: ``TicTacToeEnv`` and ``LittleGoEnv``, registered as
  ``TicTacToe-v0`` and ``LittleGo-v0`` (see ``tictacgo.registration``).
* ``observations``: the player-relative board and the "planes" format;
  ``rendering``: text and pictures, shared by every env.
"""

from tictacgo.envs import littlego_v0, observations, rendering, tictactoe_v0
from tictacgo.envs.gym_littlego import LittleGoEnv
from tictacgo.envs.gym_tictactoe import TicTacToeEnv

__all__ = ["LittleGoEnv", "TicTacToeEnv", "littlego_v0", "observations", "rendering", "tictactoe_v0"]
