"""The registry of games: one entry per game, and ``make_game`` to build one.

An entry names everything the package offers for a game: its rules (the
game class, built with the variant's parameters), its batched engine, its
Gymnasium id and PettingZoo module, and its renderer. Code at the edges
(CLI, envs, arena) builds a game with ``make_game(name, **params)`` and
passes the object down; a new game is one entry here.

Engines and renderers are named by ``"module:attribute"`` and imported when
first asked for, so importing the games imports neither numba nor pygame.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any

from tictacgo.games.littlego import LittleGo
from tictacgo.games.tictactoe import TicTacToe


@dataclass(frozen=True)
class GameEntry:
    """What the package offers for one game.

    Attributes:
        name: the game's name (``spec.name``).
        aliases: other names ``make_game`` accepts.
        factory: the game class; its keyword arguments are the variant.
        batched: the batched engine class, as ``"module:attribute"``.
        env_id: the Gymnasium id of the single-agent env.
        env_entry_point: the id's entry point (``gymnasium.make``).
        vector_entry_point: the id's native vector env (``gymnasium.make_vec``).
        gym_env: the single-agent env factory, ``f(**kwargs) -> env``.
        aec_module: the PettingZoo module (``env()``, ``raw_env()``).
        renderer: ``f(board, cell=None, last=None, coords=False) -> RGB array`` that
            draws a board (``to_board``'s array), as ``"module:attribute"``.
        svg: ``f(board, last=None, caption="", captured=(), every_point=False) -> str``
            that draws a board as SVG (``tictacgo.games.svg``), as ``"module:attribute"``.
    """

    name: str
    aliases: tuple[str, ...]
    factory: type
    batched: str
    env_id: str
    env_entry_point: str
    vector_entry_point: str
    gym_env: str
    aec_module: str
    renderer: str
    svg: str

    def load(self, what: str) -> Any:
        """The object named by the ``"module:attribute"`` field ``what`` (``batched``, ``gym_env``, ...)."""
        module, _, attr = getattr(self, what).partition(":")
        return getattr(importlib.import_module(module), attr)


GAMES: dict[str, GameEntry] = {
    "tictactoe": GameEntry(
        name="tictactoe", aliases=("ttt", "tic-tac-toe", "tic_tac_toe"), factory=TicTacToe,
        batched="tictacgo.games.batched_tictactoe:BatchedTicTacToe", env_id="TicTacToe-v0",
        env_entry_point="tictacgo.registration:make_tictactoe",
        vector_entry_point="tictacgo.envs.vector_env:make_tictactoe",
        gym_env="tictacgo.envs.gym_tictactoe:env",
        aec_module="tictacgo.envs.tictactoe_v0", renderer="tictacgo.envs.rendering:tictactoe_image",
        svg="tictacgo.games.svg:tictactoe_svg"),
    "littlego": GameEntry(
        name="littlego", aliases=("go", "little-go", "little_go"), factory=LittleGo,
        batched="tictacgo.games.batched_littlego:BatchedLittleGo", env_id="LittleGo-v0",
        env_entry_point="tictacgo.registration:make_littlego",
        vector_entry_point="tictacgo.envs.vector_env:make_littlego",
        gym_env="tictacgo.envs.gym_littlego:env",
        aec_module="tictacgo.envs.littlego_v0", renderer="tictacgo.envs.rendering:go_image",
        svg="tictacgo.games.svg:go_svg"),
}

_ALIASES = {alias: entry.name for entry in GAMES.values() for alias in (entry.name, *entry.aliases)}


def game_entry(name: Any) -> GameEntry:
    """The registry entry of a game, by name, alias or game object.

    Raises:
        ValueError: an unknown name.
    """
    if not isinstance(name, str):
        spec = getattr(name, "spec", None)
        if spec is None or getattr(spec, "name", None) not in GAMES:
            raise TypeError(f"expected a game name or game object, got {name!r}")
        return GAMES[spec.name]
    key = _ALIASES.get(name.strip().lower())
    if key is None:
        raise ValueError(f"unknown game {name!r}; expected one of {sorted(GAMES)}")
    return GAMES[key]


def make_game(game: Any, **params: Any) -> Any:
    """A game object from a name and its variant's parameters.

    ``make_game("littlego", size=7)`` is ``LittleGo(size=7)``; a game object
    is returned as it is (with no parameters) or rebuilt with them.

    Args:
        game: a game name (or alias), or a game object.
        **params: the variant (Little-Go: ``size``, ``komi``, ``max_actions``;
            Tic-Tac-Toe: none). None values mean the default.
    Raises:
        ValueError: an unknown game, or a parameter the game does not take.
    """
    if not isinstance(game, str):
        if not params:
            game_entry(game)
            return game
        params = {**game.params, **params}
    entry = game_entry(game)
    params = {k: v for k, v in params.items() if v is not None}
    accepted = [p for p in inspect.signature(entry.factory).parameters]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        takes = ", ".join(accepted) if accepted else "no parameters"
        raise ValueError(f"{entry.name} takes {takes}; got unknown parameter(s) {', '.join(unknown)}")
    return entry.factory(**params)
