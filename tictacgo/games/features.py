"""A game's feature encoder: every observation the envs offer and the planes AlphaZero's network reads.

Each game object has one ``FeatureEncoder`` (``game.encoder``), used by the
PettingZoo and Gymnasium envs (single states), the native vector env
(batches on the batched engine) and AlphaZero (its network's input planes, of
single states and of the batched engine's games). It asks the game for what
it needs (``spec``, ``current_player``, ``stone_bits``, ``ko_bits``,
``legal_mask``) and never tests which game it is; boards need not be square.

Observation formats (``FORMATS``):

* ``flat`` / ``board``: the player-relative board, int8, as a vector of
  ``rows*cols`` or as ``(rows, cols)``: +1 the viewer's stones, -1 the
  opponent's, 0 empty (the course board mapped to +1/-1 and multiplied by -1
  on the second player's turn, so one network plays both sides).
* ``planes``: float32 ``(C, rows, cols)`` channels in [0, 1], the ones the
  game declares in ``spec.planes`` (``PLANE_NAMES`` says what each is).
* ``planes_hwc``: the same planes channels last, ``(rows, cols, C)``.

The network's planes (``network_planes``, ``from_state``, ``from_engine``)
are the game's own (``game.network_plane_names``, ``game.network_planes``,
``game.network_planes_batch``): they carry everything the rules depend on
(the previous board for ko, a pending pass), so that a position's value is
a function of its planes. Every plane is spatially equivariant, so the
game's symmetries (``game.symmetries()``) act on planes and policy alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tictacgo.games.bits import signed_board, unpack_bits

FLAT = "flat"
BOARD = "board"
PLANES = "planes"
PLANES_HWC = "planes_hwc"
FORMATS = (FLAT, BOARD, PLANES, PLANES_HWC)

#: The channels a game may declare in ``spec.planes`` for the ``planes`` format.
PLANE_NAMES = {
    "own": "1 on the viewer's stones (marks)",
    "opponent": "1 on the opponent's stones (marks)",
    "legal": "1 where the player to move may place (all zeros once the game is over); for games "
             "whose actions 0..rows*cols-1 are the points",
    "ko": "1 on the points only the ko rule forbids",
    "actions_left": "a constant plane, (max_actions - t) / max_actions",
    "to_move": "a constant plane, 1.0 when the first player is to move",
}


class FeatureEncoder:
    """The observations and network planes of one game variant (see the module docstring).

    Args:
        game: the game object (built once per variant; ``game.encoder`` is the way to get one).
    """

    def __init__(self, game: Any):
        spec = game.spec
        unknown = [name for name in spec.planes if name not in PLANE_NAMES]
        if unknown:
            raise ValueError(f"{spec.name} declares unknown observation planes {unknown}; "
                             f"known: {sorted(PLANE_NAMES)}")
        self.game = game
        self.board_shape = tuple(spec.board_shape)
        self.num_points = self.board_shape[0] * self.board_shape[1]
        if "legal" in spec.planes and spec.num_actions < self.num_points:
            raise ValueError(f"{spec.name} declares a 'legal' plane, which needs an action per point "
                             f"(actions 0..{self.num_points - 1}), but it has {spec.num_actions} actions")
        self.planes = tuple(spec.planes)
        self.network_planes = tuple(game.network_plane_names)

    # -- single states ------------------------------------------------------------------------
    def relative_board(self, state: Any, viewer: int | None = None) -> np.ndarray:
        """The player-relative board of one state: a fresh int8 array of ``board_shape``.

        Args:
            state: a state of the game.
            viewer: the colour whose stones count +1 (default: the player to move).
        """
        own, opp = self.game.stone_bits(state)
        if (self.game.current_player(state) if viewer is None else viewer) != 1:
            own, opp = opp, own
        return signed_board(own, opp, self.num_points).reshape(self.board_shape)

    def _plane(self, name: str, state: Any, rel: np.ndarray) -> np.ndarray:
        game, shape = self.game, self.board_shape
        if name == "own":
            return rel == 1
        if name == "opponent":
            return rel == -1
        if name == "legal":
            return game.legal_mask(state)[: self.num_points].reshape(shape) == 1
        if name == "ko":
            return unpack_bits(game.ko_bits(state), self.num_points).reshape(shape).astype(bool)
        if name == "actions_left":
            limit = game.spec.max_actions
            return np.full(shape, (limit - state.t) / limit)
        if name == "to_move":
            return np.full(shape, game.current_player(state) == 1)
        raise ValueError(f"unknown observation plane {name!r}")

    def observation_planes(self, state: Any, viewer: int | None = None) -> np.ndarray:
        """Float32 ``(C, rows, cols)``: the planes the game declares (``spec.planes``), in order."""
        rel = self.relative_board(state, viewer)
        return np.stack([self._plane(name, state, rel) for name in self.planes]).astype(np.float32)

    def observe(self, state: Any, fmt: str = FLAT, viewer: int | None = None) -> np.ndarray:
        """The observation of ``state`` in format ``fmt`` (one of ``FORMATS``), from ``viewer``'s view.

        Raises:
            ValueError: an unknown format.
        """
        if fmt == FLAT:
            return self.relative_board(state, viewer).ravel()
        if fmt == BOARD:
            return self.relative_board(state, viewer)
        if fmt == PLANES:
            return self.observation_planes(state, viewer)
        if fmt == PLANES_HWC:
            return np.ascontiguousarray(self.observation_planes(state, viewer).transpose(1, 2, 0))
        raise ValueError(f"unknown observation format {fmt!r}; expected one of {FORMATS}")

    # -- batches on the batched engine --------------------------------------------------------
    def relative_boards(self, engine: Any, colour: Any) -> np.ndarray:
        """``(B, rows, cols)`` int8 of an engine's games: +1 the stones of ``colour`` (1 or 2, or one
        per game), -1 the other's, 0 empty."""
        boards = engine.boards()
        c = np.broadcast_to(np.asarray(colour, dtype=np.int8), (engine.batch_size,))[:, None, None]
        return np.where(boards == 0, 0, np.where(boards == c, 1, -1)).astype(np.int8)

    def observe_batch(self, engine: Any, fmt: str = FLAT, colour: Any = None,
                      games: np.ndarray | None = None) -> np.ndarray:
        """The observations of a batched engine's games, ``(len(games), *observation_shape(fmt))``.

        Args:
            engine: a batched engine of this game (``game.batched(B)``'s kind).
            fmt: one of ``FORMATS``.
            colour: the viewer, 1 or 2 or one per game (default: the player to move).
            games: the games to observe (default: all).
        Returns:
            The same arrays as ``observe`` of each game's state. ``flat`` and ``board`` are built
            from the engine's arrays at once; the planes go through each game's state.
        """
        colour = engine.to_move if colour is None else colour
        if fmt in (FLAT, BOARD):
            boards = self.relative_boards(engine, colour)
            if games is not None:
                boards = boards[games]
            return boards.reshape(len(boards), *self.observation_shape(fmt))
        if fmt not in FORMATS:
            raise ValueError(f"unknown observation format {fmt!r}; expected one of {FORMATS}")
        rows = np.arange(engine.batch_size) if games is None else np.asarray(games)
        viewers = np.broadcast_to(np.asarray(colour), (engine.batch_size,))
        out = np.empty((len(rows), *self.observation_shape(fmt)), np.float32)
        for k, i in enumerate(rows):
            out[k] = self.observe(engine.state(int(i)), fmt, int(viewers[i]))
        return out

    # -- shapes -------------------------------------------------------------------------------
    def observation_shape(self, fmt: str) -> tuple[int, ...]:
        """The shape of one observation in format ``fmt``.

        Raises:
            ValueError: an unknown format.
        """
        rows, cols = self.board_shape
        shapes = {FLAT: (self.num_points,), BOARD: (rows, cols), PLANES: (len(self.planes), rows, cols),
                  PLANES_HWC: (rows, cols, len(self.planes))}
        if fmt not in shapes:
            raise ValueError(f"observation must be one of {FORMATS}, got {fmt!r}")
        return shapes[fmt]

    def format_for_shape(self, shape: tuple[int, ...]) -> str:
        """The format whose observations have ``shape`` (how a saved model is read).

        Raises:
            ValueError: the shape fits no format of this game and board.
        """
        shape = tuple(int(x) for x in shape)
        for fmt in (FLAT, BOARD, PLANES):
            if shape == self.observation_shape(fmt):
                return fmt
        rows, cols = self.board_shape
        raise ValueError(f"the model's observations have shape {shape}, which fits no observation of "
                         f"{self.game.spec.name} on a {rows}x{cols} board (flat {(self.num_points,)}, "
                         f"board {(rows, cols)}, planes {(len(self.planes), rows, cols)}): it was "
                         f"trained for another game or size")

    # -- the network's planes -----------------------------------------------------------------
    @property
    def network_shape(self) -> tuple[int, int, int]:
        """``(C, rows, cols)`` of the network's input planes."""
        return (len(self.network_planes), *self.board_shape)

    def from_state(self, state: Any) -> np.ndarray:
        """The network's float32 ``(C, rows, cols)`` planes of one state, from the mover's view."""
        return self.game.network_planes(state)

    def from_engine(self, engine: Any, rows: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The network's ``(len(rows), C, rows, cols)`` float32 planes of a batched engine's games.

        Args:
            engine: a batched engine of this game.
            rows: the games to encode (int indices).
            legal: their ``(len(rows), num_actions)`` bool legal masks.
        """
        return self.game.network_planes_batch(engine, rows, legal)
