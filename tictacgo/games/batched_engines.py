"""The batched engine of a game: ``make_batched_engine(game, 1024)`` is ``make_game(game).batched(1024)``.

Kept for the code that builds an engine from a game name; with a game
object in hand, ask it: ``game.batched(batch_size, backend)``.
"""

from __future__ import annotations

from typing import Any

from tictacgo.games.batched_common import BatchedGame
from tictacgo.games.registry import make_game


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
    return make_game(game).batched(batch_size, backend=backend)
