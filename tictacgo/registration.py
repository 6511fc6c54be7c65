"""The Gymnasium ids of the package and the entry points behind them, one per registered game.

``import tictacgo`` registers ``TicTacToe-v0`` and ``LittleGo-v0`` (also
reachable as ``gymnasium.make("tictacgo:LittleGo-v0")`` without a prior
import), and ``register_envs()`` registers an id for every game of the game
registry, a game registered later included (``tictacgo.envs.game_envs.env_id``:
the class name and ``-v0``). Every id has the same entry point, ``make_env``,
told its game by the spec's ``kwargs`` (as ale-py's ids are), and the native
vector env as its vector entry point. The entry point is a factory, not the
env class, because two conveniences of ``gymnasium.make`` sit above the envs
in the package's one-way data flow (games <- envs <- wrappers <- baselines):

* ``opponent="greedy"``: registry specs are resolved here, with
  ``tictacgo.baselines.make_agent``, and the env gets the same resolver so
  that ``set_opponent("minimax")`` works on a made env (the envs themselves
  never import ``tictacgo.baselines``);
* ``illegal="penalty"`` applies ``tictacgo.wrappers.IllegalMovePenalty``,
  the one illegal-move-penalty mechanism, with ``illegal_penalty`` and
  ``max_illegal_in_a_row``.

Registering an id that another package already registered with a different
entry point raises instead of silently keeping either.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from tictacgo.games.registry import GAMES, versioned_name

ILLEGAL_POLICIES = ("lose", "penalty")


def resolve_opponent(spec: str, game: Any) -> Any:
    """A registry agent for ``spec`` (e.g. ``"minimax:depth=2"``) playing ``game`` (a game object)."""
    from tictacgo.baselines.registry import make_agent

    return make_agent(spec, game)


def make_env(game: str, opponent: Any = "random", illegal: str = "lose", illegal_penalty: float = -1.0,
             max_illegal_in_a_row: int | None = None, **kwargs: Any) -> gym.Env:
    """The single-agent env of ``game``, wrapped in ``IllegalMovePenalty`` if ``illegal="penalty"``.

    Args:
        game: a game name (the registry's, e.g. ``"littlego"``), class or object.
        opponent: a registry spec, an agent, or a callable ``f(state) -> action``.
        illegal: "lose" (the env's own rule) or "penalty".
        illegal_penalty: the reward of a refused action under "penalty".
        max_illegal_in_a_row: the penalty wrapper's cap (default ``2 * actions``).
        **kwargs: the env's (``tictacgo.envs.single_agent.TurnBasedEnv``: learner,
            observation, render_mode, ...) and the variant's (Little-Go: board_size, komi, ...).
    """
    if illegal not in ILLEGAL_POLICIES:
        raise ValueError(f"illegal must be one of {ILLEGAL_POLICIES}, got {illegal!r}")
    if illegal != "penalty" and (illegal_penalty != -1.0 or max_illegal_in_a_row is not None):
        raise ValueError("illegal_penalty and max_illegal_in_a_row apply only with illegal='penalty'")
    # Imported here, not at the top: ``import tictacgo`` registers the ids without loading the envs.
    from tictacgo.envs.game_envs import single_agent_env

    env = single_agent_env(game, opponent=opponent, opponent_resolver=resolve_opponent, **kwargs)
    if illegal == "penalty":
        from tictacgo.wrappers.illegal_move_penalty import IllegalMovePenalty

        return IllegalMovePenalty(env, penalty=illegal_penalty, max_illegal_in_a_row=max_illegal_in_a_row)
    return env


def make_tictactoe(**kwargs: Any) -> gym.Env:
    """``TicTacToe-v0``: ``make_env("tictactoe", **kwargs)``."""
    return make_env("tictactoe", **kwargs)


def make_littlego(**kwargs: Any) -> gym.Env:
    """``LittleGo-v0``: ``make_env("littlego", **kwargs)`` (board_size, komi, max_actions, ...)."""
    return make_env("littlego", **kwargs)


NAMESPACE = "tictacgo"
ENTRY_POINT = "tictacgo.registration:make_env"
VECTOR_ENTRY_POINT = "tictacgo.envs.game_envs:vector_env"


def register_envs() -> None:
    """Register a Gymnasium id for every game of the registry, plain (``LittleGo-v0``) and namespaced
    (``tictacgo/LittleGo-v0``, listed under the package by ``gymnasium.pprint_registry()``).

    Registering again is fine (a game registered since gets its ids); a foreign id of the same name is
    refused.

    Raises:
        gymnasium.error.Error: an id is already registered with another entry point.
    """
    from gymnasium.envs.registration import register, registry

    ids = [(versioned_name(cls), name) for name, cls in GAMES.items()]  # the ids are the game registry's
    ids += [(f"{NAMESPACE}/{env_id}", name) for env_id, name in ids]
    for env_id, name in ids:
        existing = registry.get(env_id)
        if existing is not None:
            if existing.entry_point == ENTRY_POINT and existing.kwargs.get("game") == name:
                continue
            raise gym.error.Error(f"the Gymnasium id {env_id!r} is already registered with entry point "
                                  f"{existing.entry_point!r}; tictacgo registers it as {ENTRY_POINT!r}. "
                                  f"Remove the other registration (del gymnasium.registry[{env_id!r}]) "
                                  "before importing tictacgo")
        register(id=env_id, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT,
                 kwargs={"game": name})
