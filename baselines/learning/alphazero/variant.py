"""Which game and variant an AlphaZero network plays, and the one place that builds its games.

A network is trained for one game variant (Little-Go's board size, komi and
action limit change the value of every position), so the variant travels with
the weights in the model's JSON. ``Variant`` is that record; it also builds
what the search and the training need: the rules module, an initial state and
a batched engine. Nothing else in this package builds a game.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from tictacgo.games import make_game
from tictacgo.games.batched_common import BatchedGame
from tictacgo.games.batched_engines import make_batched_engine
from tictacgo.games.spec import Game


@dataclass(frozen=True)
class Variant:
    """A game and its variant parameters (None where the game has none).

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

    @classmethod
    def make(cls, game: str, board_size: int | None = None, komi: float | None = None,
             max_actions: int | None = None) -> Variant:
        """The variant of ``game`` with the game's defaults filled in.

        Raises:
            ValueError: an unknown game, or variant parameters the game refuses.
        """
        return cls.of_game(make_game(game, size=board_size, komi=komi, max_actions=max_actions))

    @classmethod
    def of_game(cls, game: Game) -> Variant:
        """The variant a game object plays."""
        spec = game.spec
        if spec.max_actions is None:
            return cls(spec.name)
        return cls(spec.name, spec.board_shape[0], float(spec.komi), int(spec.max_actions))

    @classmethod
    def from_json(cls, data: dict) -> Variant:
        """A variant from ``to_json``'s dict (checked by ``make``)."""
        if not isinstance(data, dict) or not isinstance(data.get("game"), str):
            raise ValueError(f"a variant is a dict with a 'game' name, got {data!r}")
        extra = set(data) - {"game", "board_size", "komi", "max_actions"}
        if extra:
            raise ValueError(f"unknown variant fields {sorted(extra)}")
        return cls.make(data["game"], data.get("board_size"), data.get("komi"), data.get("max_actions"))

    def to_json(self) -> dict:
        return asdict(self)

    @property
    def module(self) -> Game:
        """The game object of this variant."""
        return make_game(self.game, size=self.board_size, komi=self.komi, max_actions=self.max_actions)

    def initial_state(self) -> Any:
        """The empty board of this variant."""
        return self.module.initial_state()

    def new_engine(self, batch_size: int, backend: str | None = None) -> BatchedGame:
        """A batched engine of ``batch_size`` new games of this variant."""
        return make_batched_engine(self.module, batch_size, backend=backend)

    def describe(self) -> str:
        """A short readable name: ``"littlego 5x5, komi 2.5, 24 actions"``."""
        if self.max_actions is None:
            return self.game
        n = self.board_size
        return f"{self.game} {n}x{n}, komi {self.komi:g}, {self.max_actions} actions"

