"""``GameSpec`` and ``Game`` moved to ``tictacgo.games.base`` (``Game`` is now the base class of every game);
this module keeps the old import path working."""

from tictacgo.games.base import Game, GameSpec

__all__ = ["Game", "GameSpec"]
