"""The Gymnasium ids of the package and the entry points behind them.

``import tictacgo`` registers ``TicTacToe-v0`` and ``LittleGo-v0`` (also
reachable as ``gymnasium.make("tictacgo:LittleGo-v0")`` without a prior
import). Their entry points are the two factories below, not the env classes,
because two conveniences of ``gymnasium.make`` sit above the envs in the
package's one-way data flow (games <- envs <- wrappers <- baselines):

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

import functools
from typing import Any

import gymnasium as gym

ILLEGAL_POLICIES = ("lose", "penalty")
ENV_IDS = {
    "TicTacToe-v0": "tictacgo.registration:make_tictactoe",
    "LittleGo-v0": "tictacgo.registration:make_littlego",
}
# gymnasium.make_vec(id, num_envs=..., vectorization_mode="vector_entry_point"): the native vector envs.
VECTOR_ENTRY_POINTS = {
    "TicTacToe-v0": "tictacgo.envs.vector_env:TicTacToeVectorEnv",
    "LittleGo-v0": "tictacgo.envs.vector_env:LittleGoVectorEnv",
}


def resolve_opponent(spec: str, game: str) -> Any:
    """A registry agent for ``spec`` (e.g. ``"minimax:depth=2"``) playing ``game``."""
    from tictacgo.baselines.registry import make_agent

    return make_agent(spec, game)


def _build(env_cls: type, game: str, opponent: Any, illegal: str, illegal_penalty: float,
           max_illegal_in_a_row: int | None, kwargs: dict[str, Any]) -> gym.Env:
    if illegal not in ILLEGAL_POLICIES:
        raise ValueError(f"illegal must be one of {ILLEGAL_POLICIES}, got {illegal!r}")
    resolver = functools.partial(resolve_opponent, game=game)
    env = env_cls(opponent=opponent, opponent_resolver=resolver, **kwargs)
    if illegal == "penalty":
        from tictacgo.wrappers.illegal_move_penalty import IllegalMovePenalty

        return IllegalMovePenalty(env, penalty=illegal_penalty, max_illegal_in_a_row=max_illegal_in_a_row)
    if illegal_penalty != -1.0 or max_illegal_in_a_row is not None:
        raise ValueError("illegal_penalty and max_illegal_in_a_row apply only with illegal='penalty'")
    return env


def make_tictactoe(opponent: Any = "random", illegal: str = "lose", illegal_penalty: float = -1.0,
                   max_illegal_in_a_row: int | None = None, **kwargs: Any) -> gym.Env:
    """``TicTacToe-v0``: a ``TicTacToeEnv``, wrapped in ``IllegalMovePenalty`` if ``illegal="penalty"``.

    Args:
        opponent: a registry spec, an agent, or a callable ``f(state) -> action``.
        illegal: "lose" (the env's own rule) or "penalty".
        illegal_penalty: the reward of a refused action under "penalty".
        max_illegal_in_a_row: the penalty wrapper's cap (default ``2 * actions``).
        **kwargs: ``TicTacToeEnv``'s (learner, observation, render_mode, ...).
    """
    from tictacgo.envs.gym_tictactoe import TicTacToeEnv

    return _build(TicTacToeEnv, "tictactoe", opponent, illegal, illegal_penalty, max_illegal_in_a_row, kwargs)


def make_littlego(opponent: Any = "random", illegal: str = "lose", illegal_penalty: float = -1.0,
                  max_illegal_in_a_row: int | None = None, **kwargs: Any) -> gym.Env:
    """``LittleGo-v0``: a ``LittleGoEnv``, wrapped in ``IllegalMovePenalty`` if ``illegal="penalty"``.

    Args: as ``make_tictactoe``; ``**kwargs`` are ``LittleGoEnv``'s (board_size, komi, ...).
    """
    from tictacgo.envs.gym_littlego import LittleGoEnv

    return _build(LittleGoEnv, "littlego", opponent, illegal, illegal_penalty, max_illegal_in_a_row, kwargs)


def register_envs() -> None:
    """Register the package's Gymnasium ids (again is fine; a foreign one with the same id is refused).

    Raises:
        gymnasium.error.Error: an id is already registered with another entry point.
    """
    from gymnasium.envs.registration import register, registry

    for env_id, entry in ENV_IDS.items():
        existing = registry.get(env_id)
        if existing is not None:
            if existing.entry_point == entry:
                continue
            raise gym.error.Error(f"the Gymnasium id {env_id!r} is already registered with entry point "
                                  f"{existing.entry_point!r}; tictacgo registers it as {entry!r}. "
                                  f"Remove the other registration (del gymnasium.registry[{env_id!r}]) "
                                  "before importing tictacgo")
        register(id=env_id, entry_point=entry, vector_entry_point=VECTOR_ENTRY_POINTS[env_id])
