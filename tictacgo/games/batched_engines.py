"""The batched engine of each game, by name: ``make_batched_engine("littlego", 1024, board_size=5)``.

Code outside ``tictacgo.games`` builds a batched engine through this table
instead of testing which game it was given.
"""

from __future__ import annotations

from typing import Any

from tictacgo.games import get_game
from tictacgo.games.batched_common import BatchedGame
from tictacgo.games.batched_littlego import BatchedLittleGo
from tictacgo.games.batched_tictactoe import BatchedTicTacToe


def _littlego(batch_size: int, board_size: int = 5, komi: float | None = None,
              max_actions: int | None = None, backend: str | None = None) -> BatchedLittleGo:
    return BatchedLittleGo(batch_size, n=board_size, komi=komi, max_actions=max_actions, backend=backend)


def _tictactoe(batch_size: int, backend: str | None = None) -> BatchedTicTacToe:
    return BatchedTicTacToe(batch_size, backend=backend)


BATCHED_ENGINES = {"littlego": _littlego, "tictactoe": _tictactoe}


def make_batched_engine(game: str, batch_size: int, **variant: Any) -> BatchedGame:
    """A batched engine of ``batch_size`` games of ``game`` (a name ``get_game`` takes).

    Args:
        game: "littlego", "tictactoe" or an alias ("go", "ttt").
        batch_size: the number of games.
        **variant: Little-Go's ``board_size``, ``komi``, ``max_actions``; and, for
            either game, ``backend`` (``"auto"``, ``"numpy"``, ``"numba"``; see ``batched_common``).
    Raises:
        ValueError: an unknown game; TypeError: a variant argument the game does not take.
    """
    name = get_game(game).NAME
    try:
        return BATCHED_ENGINES[name](batch_size, **variant)
    except TypeError as e:
        raise TypeError(f"{name} takes no such variant argument: {e}") from None
