"""The RL environments (imported as ``tictacgo.envs``).

* PettingZoo AEC: ``tictactoe_v0`` and ``littlego_v0`` (``env()`` with the
  standard wrappers, ``raw_env()`` without), both ``TurnBasedAECEnv`` over a
  game object; ``tictacgo.envs.<name>_v0`` for any other registered game.
* Gymnasium single agent: ``TurnBasedEnv`` over a game object, registered as
  ``TicTacToe-v0`` and ``LittleGo-v0`` (``gym_tictactoe.env``,
  ``gym_littlego.env``; see ``tictacgo.registration``), and an id for every
  registered game.
* Gymnasium vector envs: ``vector_env`` (the native one, ``gymnasium.make_vec``'s
  default for every id) and ``action_masks(envs)``, the learner's masks in
  every ``make_vec`` mode (``vector_masks``).
* ``game_envs``: the ids and env factories of every game, made from the game registry.
* ``check_game(game)``: the test step of a new game (its rules, symmetries and envs).
* ``observations``: the player-relative board and the "planes" format;
  ``rendering``: text and pictures, shared by every env.
"""

from types import ModuleType

from tictacgo.envs import (
    game_envs,
    gym_littlego,
    gym_tictactoe,
    littlego_v0,
    observations,
    rendering,
    tictactoe_v0,
)
from tictacgo.envs.aec_base import TurnBasedAECEnv
from tictacgo.envs.game_check import GameCheckError, check_game
from tictacgo.envs.single_agent import TurnBasedEnv
from tictacgo.envs.vector_masks import action_masks
from tictacgo.games.registry import GAMES

__all__ = ["GameCheckError", "TurnBasedAECEnv", "TurnBasedEnv", "action_masks", "check_game", "game_envs",
           "gym_littlego", "gym_tictactoe", "littlego_v0", "observations", "rendering", "tictactoe_v0"]


def __getattr__(name: str) -> ModuleType:
    """``tictacgo.envs.<game>_v0``: the PettingZoo module of a registered game that has no file of its own."""
    for game in GAMES:
        if name == game_envs.module_name(game):
            return game_envs.pettingzoo_module(game)
    raise AttributeError(f"module 'tictacgo.envs' has no attribute {name!r}")
