"""The agent interface: an object that picks an action for a rules-core state.

Agents search on the rules cores (``tictacgo.games``), never on an env. An
agent is built for one game module and one ``numpy.random.Generator``:

    agent = RandomAgent(littlego, rng=np.random.default_rng(0))
    action = agent.act(state)       # an int legal in ``state``

``reset()`` is called at the start of each game (agents with a tree or a
clock drop it there); ``seed(rng)`` swaps the generator.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np


class Agent:
    """Base class: subclasses implement ``act``."""

    name = "agent"
    #: The games (``spec().name``) this agent plays; None: any game of the interface.
    games: tuple[str, ...] | None = None

    def __init__(self, game: ModuleType, rng: np.random.Generator | None = None):
        if self.games is not None and game.spec().name not in self.games:
            raise ValueError(f"{type(self).__name__} plays {' and '.join(self.games)}, "
                             f"not {game.spec().name!r}")
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

    # Agents hold their rules module, which does not pickle: they travel by the
    # game's name instead, so that envs with agents pickle and deep-copy
    # (async vector envs, SubprocVecEnv's get_attr, tree search over copies).
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for key, value in state.items():
            if isinstance(value, ModuleType) and value.__name__.startswith("tictacgo.games."):
                state[key] = _GameRef(value.spec().name)
        return state

    def __setstate__(self, state: dict) -> None:
        from tictacgo.games import get_game

        for key, value in state.items():
            if isinstance(value, _GameRef):
                state[key] = get_game(value.name)
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game.spec().name!r})"


class _GameRef:
    """A rules module's stand-in inside a pickled agent (restored by name)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __getstate__(self) -> str:
        return self.name

    def __setstate__(self, name: str) -> None:
        self.name = name


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


def placements(game: ModuleType, state) -> list[int]:
    """Legal actions other than PASS."""
    pa = game.pass_action(state)
    return [a for a in game.legal_actions(state) if a != pa]


class FunctionAgent(Agent):
    """Wraps a callable ``fn(state) -> action`` as an agent."""

    def __init__(self, game: ModuleType, fn, rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        self.fn = fn
        self.name = getattr(fn, "__name__", "function")

    def act(self, state) -> int:
        return self.fn(state)
