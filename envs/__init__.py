"""The RL environments (imported as ``tictacgo.envs``).

* PettingZoo AEC: ``tictactoe_v0`` and ``littlego_v0`` (``env()`` with the
  standard wrappers, ``raw_env()`` without), both ``TurnBasedAECEnv`` over a
  game object.
* Gymnasium single agent: ``TurnBasedEnv`` over a game object, registered as
  ``TicTacToe-v0`` and ``LittleGo-v0`` (``gym_tictactoe.env``,
  ``gym_littlego.env``; see ``tictacgo.registration``).
* Gymnasium vector envs: ``vector_env`` (the native one, ``gymnasium.make_vec``'s
  default for both ids) and ``action_masks(envs)``, the learner's masks in
  every ``make_vec`` mode (``vector_masks``).
* ``observations``: the player-relative board and the "planes" format;
  ``rendering``: text and pictures, shared by every env.
"""

from tictacgo.envs import gym_littlego, gym_tictactoe, littlego_v0, observations, rendering, tictactoe_v0
from tictacgo.envs.aec_base import TurnBasedAECEnv
from tictacgo.envs.single_agent import TurnBasedEnv
from tictacgo.envs.vector_masks import action_masks

__all__ = ["TurnBasedAECEnv", "TurnBasedEnv", "action_masks", "gym_littlego", "gym_tictactoe", "littlego_v0",
           "observations", "rendering", "tictactoe_v0"]
