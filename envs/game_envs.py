"""The envs of every registered game, made from the game registry: names, ids and factories.

For a game registered in ``tictacgo.games`` (``register_game``), this module
gives, with no code of the game's own:

* ``env_id(game)``: its Gymnasium id, the class name and the game's version
  (``LittleGo-v0``; ``tictacgo.registration`` registers one per game);
* ``single_agent_env(game, **kwargs)``: the Gymnasium env (``TurnBasedEnv``);
* ``raw_aec_env(game, **kwargs)`` / ``aec_env(game, **kwargs)``: the
  PettingZoo AEC env without and with its standard wrapper;
* ``vector_env(num_envs, game, **kwargs)``: the native vector env;
* ``pettingzoo_module(game)``: a module with ``env()`` and ``raw_env()``,
  PettingZoo's habit; ``tictacgo.envs.<name>_v0`` names it
  (``from tictacgo.envs import connect_three_v0`` once that game is registered).

``game`` is a name (or alias), a game class or a game object. The keyword
arguments are the env's, plus the variant's parameters under the envs'
names (the game's ``ENV_KEYWORDS``: ``board_size`` for Little-Go's ``size``).
The hand-written modules of the built-in games (``tictactoe_v0``,
``littlego_v0``, ``gym_tictactoe``, ``gym_littlego``) carry the env cards
and build the same envs.
"""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any

from tictacgo.envs.aec_base import TurnBasedAECEnv, wrap
from tictacgo.envs.single_agent import TurnBasedEnv
from tictacgo.envs.vector_env import TurnBasedVectorEnv
from tictacgo.games.base import Game
from tictacgo.games.registry import class_of, versioned_module, versioned_name


def env_id(game: Any) -> str:
    """The Gymnasium id of ``game``: its class name and version (``TicTacToe-v0``)."""
    return versioned_name(game)


def module_name(game: Any) -> str:
    """The name of ``game``'s PettingZoo module in ``tictacgo.envs``, ``littlego_v0``."""
    return versioned_module(game)


def variant_keywords(game: Any) -> tuple[str, ...]:
    """The envs' keyword arguments that choose ``game``'s variant (``board_size``, ``komi``, ...)."""
    cls = class_of(game)
    renamed = {param: keyword for keyword, param in cls.ENV_KEYWORDS.items()}
    return tuple(renamed.get(p, p) for p in inspect.signature(cls).parameters)


def split_variant(game: Any, kwargs: dict[str, Any]) -> tuple[Game, dict[str, Any]]:
    """The game object that ``kwargs``' variant keywords choose, and the other keyword arguments.

    A game object given as ``game`` is kept as it is (it carries its variant).
    """
    if isinstance(game, Game):
        return game, kwargs
    cls = class_of(game)
    variant = variant_keywords(cls)
    rest = {k: v for k, v in kwargs.items() if k not in variant}
    return cls.from_keywords(**{k: v for k, v in kwargs.items() if k in variant}), rest


def single_agent_env(game: Any, **kwargs: Any) -> TurnBasedEnv:
    """The Gymnasium env of ``game`` (``TurnBasedEnv``'s keyword arguments and the variant's)."""
    g, rest = split_variant(game, kwargs)
    return TurnBasedEnv(g, **rest)


def raw_aec_env(game: Any, **kwargs: Any) -> TurnBasedAECEnv:
    """The PettingZoo AEC env of ``game`` without wrappers (``TurnBasedAECEnv``'s keyword arguments
    and the variant's)."""
    g, rest = split_variant(game, kwargs)
    return TurnBasedAECEnv(g, **rest)


def aec_env(game: Any, **kwargs: Any) -> Any:
    """The PettingZoo AEC env of ``game`` in its standard wrapper (order enforcement)."""
    return wrap(raw_aec_env(game, **kwargs))


def vector_env(num_envs: int, game: Any, **kwargs: Any) -> TurnBasedVectorEnv:
    """``num_envs`` games of ``game`` against an in-batch opponent: the ids' vector entry point.

    Args:
        num_envs: the number of games.
        game: the game (name, class or object).
        **kwargs: ``TurnBasedVectorEnv``'s (opponent, learner, observation, ...) and the variant's.
    """
    g, rest = split_variant(game, kwargs)
    return TurnBasedVectorEnv(g, num_envs, **rest)


def pettingzoo_module(game: Any) -> ModuleType:
    """A module for ``game`` as PettingZoo ships its envs: ``env(**kw)`` (wrapped) and ``raw_env(**kw)``."""
    cls = class_of(game)
    module = ModuleType(f"tictacgo.envs.{module_name(cls)}",
                        f"{cls.__name__} as a PettingZoo AEC env, made from the game registry "
                        "(see tictacgo.envs.game_envs).")

    def env(**kwargs: Any) -> Any:
        return aec_env(cls, **kwargs)

    def raw_env(**kwargs: Any) -> TurnBasedAECEnv:
        return raw_aec_env(cls, **kwargs)

    module.env, module.raw_env = env, raw_env
    return module
