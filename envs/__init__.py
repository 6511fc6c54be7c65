"""The RL environments (imported as ``tictacgo.envs``).

* PettingZoo AEC: ``tictactoe_v0`` and ``littlego_v0`` (``env()`` with the
  standard wrappers, ``raw_env()`` without), both ``TurnBasedAECEnv`` over a
  game object.
* Gymnasium single agent: ``TurnBasedEnv`` over a game object, registered as
  ``TicTacToe-v0`` and ``LittleGo-v0`` (``gym_tictactoe.env``,
  ``gym_littlego.env``; see ``tictacgo.registration``).
* ``observations``: the player-relative board and the "planes" format;
  ``rendering``: text and pictures, shared by every env.
"""

from tictacgo.envs import gym_littlego, gym_tictactoe, littlego_v0, observations, rendering, tictactoe_v0
from tictacgo.envs.aec_base import TurnBasedAECEnv
from tictacgo.envs.single_agent import TurnBasedEnv

__all__ = ["TurnBasedAECEnv", "TurnBasedEnv", "gym_littlego", "gym_tictactoe", "littlego_v0",
           "observations", "rendering", "tictactoe_v0"]
