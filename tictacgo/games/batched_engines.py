"""The batched engine of a game: ``make_batched_engine(game, 1024)``.

Code outside ``tictacgo.games`` builds a batched engine through the game
registry (each entry names its engine) instead of testing which game it was
given.
"""

from __future__ import annotations

from typing import Any

from tictacgo.games.batched_common import BatchedGame
from tictacgo.games.registry import game_entry, make_game


def make_batched_engine(game: Any, batch_size: int, backend: str | None = None) -> BatchedGame:
    """A batched engine of ``batch_size`` games of ``game``.

    Args:
        game: a game object (its variant is the engine's), or a game name
            (its default variant).
        batch_size: the number of games.
        backend: ``"auto"``, ``"numpy"``, ``"numba"`` (see ``batched_common``).
    Raises:
        ValueError: an unknown game, a variant the engine cannot hold.
    """
    game = make_game(game)
    return game_entry(game).load("batched")(batch_size, game, backend=backend)
