"""Deprecated: ``Variant``, the record of which game an AlphaZero network plays.

The game object is that record now: a network plays ``game`` (``make_game(
"littlego", size=7)``), its variant is ``game.params``, and ``model.json``
holds ``modelfile.game_to_json(game)`` (the same keys ``Variant.to_json``
wrote). ``Variant`` stays for code written against it; it warns once when
built, and ``Variant.of_game(game).game_object`` is the game again.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass
from typing import Any

from tictacgo.baselines.learning.alphazero.modelfile import describe_game, game_from_json, game_to_json
from tictacgo.games import make_game
from tictacgo.games.base import Game
from tictacgo.games.batched_common import BatchedGame
from tictacgo.games.batched_engines import make_batched_engine


@dataclass(frozen=True)
class Variant:
    """Deprecated: a game's name and its variant parameters (use the game object).

    Attributes:
        game: the game's registry name, ``"tictactoe"`` or ``"littlego"``.
        board_size: rows (= columns) of the board, for games with a size parameter.
        komi: points added to the second player's score.
        max_actions: the action limit after which the game ends.
    """

    game: str
    board_size: int | None = None
    komi: float | None = None
    max_actions: int | None = None

    def __post_init__(self):
        warnings.warn("Variant is deprecated: pass the game object (tictacgo.games.make_game) instead",
                      DeprecationWarning, stacklevel=3)

    @classmethod
    def make(cls, game: str, board_size: int | None = None, komi: float | None = None,
             max_actions: int | None = None) -> Variant:
        """The variant of ``game`` with the game's defaults filled in."""
        return cls.of_game(make_game(game, size=board_size, komi=komi, max_actions=max_actions))

    @classmethod
    def of_game(cls, game: Game) -> Variant:
        """The variant a game object plays."""
        return cls(**game_to_json(game))

    @classmethod
    def from_json(cls, data: dict) -> Variant:
        """A variant from ``to_json``'s dict."""
        return cls.of_game(game_from_json(data))

    def to_json(self) -> dict:
        return asdict(self)

    @property
    def game_object(self) -> Game:
        """The game object of this variant."""
        return game_from_json(self.to_json())

    module = game_object

    def initial_state(self) -> Any:
        return self.game_object.initial_state()

    def new_engine(self, batch_size: int, backend: str | None = None) -> BatchedGame:
        return make_batched_engine(self.game_object, batch_size, backend=backend)

    def describe(self) -> str:
        return describe_game(self.game_object)
