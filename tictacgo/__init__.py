"""tictacgo: Tic-Tac-Toe and Little-Go as reinforcement-learning environments.

Importing the package registers the Gymnasium ids ``TicTacToe-v0`` and
``LittleGo-v0``; ``gymnasium.make("tictacgo:LittleGo-v0")`` works without a
prior import. PettingZoo AEC envs: ``tictacgo.envs.tictactoe_v0`` and
``tictacgo.envs.littlego_v0``. Rules cores: ``tictacgo.games``. Agents:
``tictacgo.baselines``.
"""

from tictacgo.games import GameOverError, IllegalActionError, littlego, tictactoe
from tictacgo.registration import register_envs

__version__ = "0.1.0"

register_envs()

__all__ = ["__version__", "littlego", "tictactoe", "GameOverError", "IllegalActionError"]
