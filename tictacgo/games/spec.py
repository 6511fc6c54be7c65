"""What a game declares about itself: ``GameSpec``, and the ``Game`` interface.

Code outside ``tictacgo.games`` never tests which game it holds (no
``if game.name == "littlego"``): it asks the game object. Each game object
has a ``spec`` attribute, the facts of its variant as data (name, players,
board shape, actions, pass, komi, action limit, observation planes, ...),
and the methods of the ``Game`` protocol below, which search and envs use.

This is OpenSpiel's ``_GAME_TYPE`` / ``_GAME_INFO`` habit: algorithms read the
declared facts instead of branching on names. ``isinstance(game, Game)``
checks that an object offers every method of the interface.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class GameSpec:
    """The facts of one game variant.

    Attributes:
        name: the registry name (``"tictactoe"``, ``"littlego"``).
        title: a display name (``"Tic-Tac-Toe"``, ``"Little-Go"``).
        player_names: display names of the first and second player.
        agent_names: PettingZoo agent names of the first and second player.
        board_shape: ``(rows, cols)``.
        num_actions: size of the action space (placements, then PASS if any).
        pass_action: the PASS action, or None for games without one.
        komi: points added to the second player's score, or None (no score).
        max_actions: the action limit after which the game ends, or None.
        planes: the names of the "planes" observation channels, in order.
        captures: stones can be captured (rollouts may look for captures).
        solvable: small enough for exact search to the end of the game.
        pieces: how pieces are drawn: ``"stones"`` on intersections (Go) or
            ``"marks"`` in cells (X and O).
        sgf_game: the game's SGF type (``GM``; Go is 1), or None if SGF has none.
    """

    name: str
    title: str
    player_names: tuple[str, str]
    agent_names: tuple[str, str]
    board_shape: tuple[int, int]
    num_actions: int
    pass_action: int | None
    komi: float | None
    max_actions: int | None
    planes: tuple[str, ...]
    captures: bool
    solvable: bool
    pieces: str
    sgf_game: int | None = None

    @property
    def num_points(self) -> int:
        """Board points (cells): ``rows * cols``."""
        return self.board_shape[0] * self.board_shape[1]

    @property
    def num_planes(self) -> int:
        return len(self.planes)

    def player_name(self, colour: int) -> str:
        """The display name of colour 1 or 2 (``str(colour)`` for anything else)."""
        return self.player_names[colour - 1] if colour in (1, 2) else str(colour)


@runtime_checkable
class Game(Protocol):
    """What every game object offers (states are immutable).

    Besides these methods: ``spec`` (a ``GameSpec``), ``name``, ``params``
    (the variant as ``make_game`` keywords), ``num_actions``, ``pass_action``
    (None without a pass), ``fast_rollout`` (a playout function or None) and
    ``random_playout`` (a seeded random playout, ``f(state, seed, pass_prob=0.0) -> winner``).
    """

    spec: GameSpec

    def initial_state(self) -> Any: ...
    def current_player(self, state: Any) -> int: ...
    def legal_bits(self, state: Any) -> int: ...
    def legal_actions(self, state: Any) -> list[int]: ...
    def legal_mask(self, state: Any) -> np.ndarray: ...
    def illegal_reason(self, state: Any, action: int) -> str | None: ...
    def play(self, state: Any, action: int) -> Any: ...
    def forfeit(self, state: Any) -> Any: ...
    def is_terminal(self, state: Any) -> bool: ...
    def winner(self, state: Any) -> int | None: ...
    def returns(self, state: Any) -> tuple[float, float]: ...
    def to_board(self, state: Any) -> np.ndarray: ...
    def stone_bits(self, state: Any) -> tuple[int, int]: ...
    def ko_bits(self, state: Any) -> int: ...
    def end_reason(self, state: Any) -> str | None: ...
    def render_ascii(self, state: Any) -> str: ...
    def check_state(self, state: Any) -> None: ...
