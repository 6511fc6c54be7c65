"""The agent interface: an object that picks an action for a rules-core state.

Agents search on the rules cores (``tictacgo.games``), never on an env. An
agent is built for one game object and one ``numpy.random.Generator``:

    agent = RandomAgent(LittleGo(size=5), rng=np.random.default_rng(0))
    action = agent.act(state)       # an int legal in ``state``

``reset()`` is called at the start of each game (agents with a tree or a
clock drop it there); ``seed(rng)`` swaps the generator.
"""

from __future__ import annotations

import math

import numpy as np

from tictacgo.games.spec import Game


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


def check_seconds(value, name: str = "time_limit") -> float | None:
    """``value`` as a time budget: None, or a finite positive number of seconds.

    Raises:
        ValueError: anything else (bools, strings, zero, negative, inf, nan).
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value <= 0:
        raise ValueError(f"{name} must be a finite positive number of seconds or None, got {value!r}")
    return float(value)


def placements(game: Game, state) -> list[int]:
    """Legal actions other than PASS."""
    pa = game.pass_action
    return [a for a in game.legal_actions(state) if a != pa]


class FunctionAgent(Agent):
    """Wraps a callable ``fn(state) -> action`` as an agent."""

    def __init__(self, game: Game, fn, rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        self.fn = fn
        self.name = getattr(fn, "__name__", "function")

    def act(self, state) -> int:
        return self.fn(state)
