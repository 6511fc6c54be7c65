"""The agent interface: an object that picks an action for a rules-core state.

Agents search on the rules cores (``tictacgo.games``), never on an env. An
agent is built for one game object and one ``numpy.random.Generator``:

    agent = RandomAgent(LittleGo(size=5), rng=np.random.default_rng(0))
    action = agent.act(state)       # an int legal in ``state``

``reset()`` is called at the start of each game (agents with a tree or a
clock drop it there); ``seed(rng)`` swaps the generator. The agents
themselves live in ``tictacgo.baselines``, which also builds them by name
(``make_agent``); this module sits below everything that plays (the game
loop, the envs' opponents, the arena), so that none of them needs
``tictacgo.baselines``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tictacgo.games.base import Game


class Agent:
    """Base class: subclasses implement ``act``."""

    name = "agent"
    #: The games (``spec.name``) this agent plays; None: any game of the interface.
    games: tuple[str, ...] | None = None

    def __init__(self, game: Game, rng: np.random.Generator | None = None):
        if not isinstance(game, Game):
            raise TypeError(f"{type(self).__name__} takes a game object (make_game(...)), got {game!r}")
        if self.games is not None and game.spec.name not in self.games:
            raise ValueError(f"{type(self).__name__} plays {' and '.join(self.games)}, "
                             f"not {game.spec.name!r}")
        self.game = game
        self.rng = rng if rng is not None else np.random.default_rng()

    def act(self, state) -> int:
        """The action to play in ``state`` (the game must not be over)."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget anything kept from the previous game."""

    def seed(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, state) -> int:
        return self.act(state)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game.spec.name!r})"


class FunctionAgent(Agent):
    """Wraps a callable ``fn(state) -> action`` as an agent (it keeps no state and draws nothing)."""

    def __init__(self, game: Game, fn: Callable[[Any], int], rng: np.random.Generator | None = None,
                 name: str | None = None):
        super().__init__(game, rng)
        self.fn = fn
        self.name = name or getattr(fn, "__name__", type(fn).__name__)

    def act(self, state) -> int:
        return self.fn(state)

    def __repr__(self) -> str:
        return f"FunctionAgent({self.name}, game={self.game.spec.name!r})"


def as_agent(agent: Any, game: Game) -> Any:
    """``agent`` as an object with ``act(state)``, ``reset()`` and ``seed(rng)``.

    An ``Agent``, or any object with those three methods, comes back as is; an
    object with only ``act``, or a callable ``f(state) -> action``, comes back
    wrapped in a ``FunctionAgent`` for ``game``.

    Args:
        agent: the agent, object or callable.
        game: the game it plays (for the wrapper).

    Returns:
        The agent.

    Raises:
        TypeError: anything else; a registry spec string too (build its agent
            with ``tictacgo.baselines.make_agent(spec, game)``).
    """
    if isinstance(agent, Agent) or all(callable(getattr(agent, m, None)) for m in ("act", "reset", "seed")):
        return agent
    if isinstance(agent, str):
        raise TypeError(f"{agent!r} is an agent spec, not an agent: build it with "
                        "tictacgo.baselines.make_agent(spec, game)")
    act = getattr(agent, "act", agent)
    if callable(act):
        if act is agent:
            return FunctionAgent(game, act)
        name = getattr(agent, "name", None)
        return FunctionAgent(game, act, name=name if isinstance(name, str) else type(agent).__name__)
    raise TypeError(f"an agent must have act(state) or be a callable f(state) -> action, "
                    f"got {agent!r} ({type(agent).__name__})")
