"""What a game is: ``GameSpec`` (the facts of a variant) and ``Game``, the base class of every game.

A game object owns everything game-specific, and code above ``tictacgo.games``
asks it instead of testing which game it holds: the rules (pure functions of
immutable states, as methods), the variant's parameters (``params``), its
batched engine (``batched(B)``), its feature encoder (``encoder``: the envs'
observations and AlphaZero's network planes, ``tictacgo.games.features``),
its board symmetries (``symmetries()``, ``tictacgo.games.symmetry``), its
drawings (``image``, ``svg``, ``ansi``), its rollout move and the words for
how a game ended. ``TicTacToe`` and
``LittleGo`` subclass ``Game``; a new game is one subclass (and one
``register_game`` call): see docs/architecture.md, "Add a game".

A subclass must define ``spec`` and the rules marked abstract below. The
rest have defaults built on those rules, which a game overrides for speed or
looks: a batched engine that steps a list of single states
(``tictacgo.games.batched_states``), a seeded random playout through
``play``, pictures of marks in a grid of cells (``tictacgo.games.pictures``,
``tictacgo.games.svg``), the observation planes of ``spec.planes`` as the
network's input, and no symmetry but the identity (a game whose rules are
symmetric declares its board's, as Tic-Tac-Toe and Little-Go do).

This is OpenSpiel's ``_GAME_TYPE`` / ``_GAME_INFO`` habit: algorithms read
the declared facts instead of branching on names.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from tictacgo.games.batched_states import StateBatch
from tictacgo.games.bits import unpack_bits
from tictacgo.games.features import FeatureEncoder
from tictacgo.games.pictures import grid_image
from tictacgo.games.svg import grid_svg


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


class Game(ABC):
    """A game and variant: its rules as methods over immutable states, and everything else it owns.

    Class attributes a subclass sets: ``name`` (the registry name),
    ``END_REASONS`` (every value ``end_reason`` can return, ``"illegal"``
    among them) and ``END_WORDS`` (each reason in words, see ``end_words``);
    ``ENV_KEYWORDS`` maps the envs' keyword of a variant parameter to the
    constructor's (``{"board_size": "size"}``), when they differ. Its
    states are immutable (a ``NamedTuple`` will do) and carry ``t`` (the
    actions played so far) and ``last_action``, which the envs report.
    """

    name: ClassVar[str]
    #: the version of the game's rules and spaces; a change that alters play or observations bumps it
    version: ClassVar[int] = 0
    END_REASONS: ClassVar[tuple[str, ...]]
    END_WORDS: ClassVar[dict[str, str]] = {}
    ENV_KEYWORDS: ClassVar[dict[str, str]] = {}
    #: moves are also written as Go vertices (``C3``, ``pass``) where people type or read them
    writes_vertices: ClassVar[bool] = False
    #: the playout of plain UCT search on raw bits, ``f(state, rnd, pass_prob, capture_prob) -> winner``
    fast_rollout: ClassVar[Any] = None
    #: the rollouts MCTS plays by default: "random", or "capture" (``rollout_move`` first, when it pays)
    default_rollout: ClassVar[str] = "random"

    spec: GameSpec

    # -- the variant -------------------------------------------------------------------
    @property
    def params(self) -> dict[str, Any]:
        """The variant as the constructor's keyword arguments (``make_game(name, **params)``)."""
        return {}

    @property
    def num_actions(self) -> int:
        return self.spec.num_actions

    @property
    def num_points(self) -> int:
        return self.spec.num_points

    @property
    def pass_action(self) -> int | None:
        """The PASS action, or None for a game without one."""
        return self.spec.pass_action

    @classmethod
    def from_keywords(cls, **keywords: Any) -> Game:
        """The variant named by the envs' keywords (``ENV_KEYWORDS``; None values mean the default).

        Raises:
            TypeError: a keyword that is no parameter of the variant.
        """
        params = {cls.ENV_KEYWORDS.get(k, k): v for k, v in keywords.items() if v is not None}
        return cls(**params)

    # -- the rules (abstract: every game defines them) ------------------------------------
    @abstractmethod
    def initial_state(self) -> Any:
        """The state before the first move."""

    @abstractmethod
    def current_player(self, state: Any) -> int:
        """The player to move: 1 (first) or 2 (second)."""

    @abstractmethod
    def legal_bits(self, state: Any) -> int:
        """The legal actions as an int bitmask (bit ``a`` is action ``a``); 0 once the game is over."""

    @abstractmethod
    def illegal_reason(self, state: Any, action: int) -> str | None:
        """Why ``action`` is illegal (``"occupied"``, ...), or None if it is legal.

        Raises:
            TypeError / ValueError: not an action of this game.
            GameOverError: the game is over.
        """

    @abstractmethod
    def play(self, state: Any, action: int) -> Any:
        """The state after the player to move plays ``action`` (``state`` is untouched).

        Raises:
            TypeError / ValueError: not an action of this game.
            IllegalActionError: an illegal action.
            GameOverError: the game is over.
        """

    @abstractmethod
    def forfeit(self, state: Any) -> Any:
        """The state where the player to move has lost by an illegal action."""

    @abstractmethod
    def is_terminal(self, state: Any) -> bool:
        """Whether the game is over."""

    @abstractmethod
    def winner(self, state: Any) -> int | None:
        """1 or 2 for the winner, 0 for a draw, None while the game goes on."""

    @abstractmethod
    def to_board(self, state: Any) -> np.ndarray:
        """The board as an int8 array of ``spec.board_shape``: 0 empty, 1 first player, 2 second."""

    @abstractmethod
    def stone_bits(self, state: Any) -> tuple[int, int]:
        """(first player's pieces, second player's pieces) as bitboards (bit ``i * cols + j``)."""

    @abstractmethod
    def end_reason(self, state: Any) -> str | None:
        """Why the game ended (one of ``END_REASONS``), or None while it goes on."""

    @abstractmethod
    def check_state(self, state: Any) -> None:
        """Raise unless ``state`` is a position legal play reaches.

        Raises:
            TypeError: not a state of this game.
            ValueError: the first inconsistency found, named.
        """

    @abstractmethod
    def render_ascii(self, state: Any) -> str:
        """The board as text; its last line is the status (whose turn, or the result)."""

    # -- the rules derived from those --------------------------------------------------
    def legal_actions(self, state: Any) -> list[int]:
        """The legal actions in increasing order; [] once the game is over."""
        bits = self.legal_bits(state)
        return [a for a in range(self.num_actions) if bits >> a & 1]

    def legal_mask(self, state: Any) -> np.ndarray:
        """An int8 vector of ``num_actions`` entries, 1 where the action is legal."""
        return unpack_bits(self.legal_bits(state), self.num_actions).view(np.int8)

    def returns(self, state: Any) -> tuple[float, float]:
        """(first player's return, second player's): +1 win, -1 loss, 0 draw or game not over."""
        w = self.winner(state)
        if not w:
            return 0.0, 0.0
        return (1.0, -1.0) if w == 1 else (-1.0, 1.0)

    def ko_bits(self, state: Any) -> int:
        """The empty points that a ko rule alone forbids to the player to move: none by default."""
        return 0

    def heuristic_value(self, state: Any) -> float:
        """A guess of a live state's value from the mover's view, in (-1, 1), where a depth-limited
        search stops: 0.0 (no guess) by default; Little-Go's is its score margin."""
        return 0.0

    def last_placement(self, state: Any) -> int | None:
        """The point the last action placed on, or None (no action yet, or a pass)."""
        last = getattr(state, "last_action", -1)
        return int(last) if 0 <= last < self.num_points else None

    # -- features and symmetries (tictacgo.games.features, tictacgo.games.symmetry) -------------
    @cached_property
    def encoder(self) -> FeatureEncoder:
        """The one feature encoder of this variant: the envs' observations in every format (single
        states and batches) and the network's input planes."""
        return FeatureEncoder(self)

    @property
    def network_plane_names(self) -> tuple[str, ...]:
        """The names of the network's input planes (AlphaZero), in order: by default the observation
        planes the game declares (``spec.planes``, from the mover's view). A game overrides them (as
        a class attribute) together with ``network_planes`` and ``network_planes_batch``."""
        return tuple(self.spec.planes)

    def network_planes(self, state: Any) -> np.ndarray:
        """The network's float32 ``(C, rows, cols)`` planes of one state, from the mover's view
        (``network_plane_names``): by default the encoder's ``planes`` observation."""
        return self.encoder.observation_planes(state)

    def network_planes_batch(self, engine: Any, rows: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The network's ``(len(rows), C, rows, cols)`` float32 planes of a batched engine's games.

        The default encodes each game's state with ``network_planes``; a game with its own batched
        engine overrides it to build them from the engine's arrays at once.

        Args:
            engine: a batched engine of this variant (``batched(B)``'s kind).
            rows: the games to encode (int indices).
            legal: their ``(len(rows), num_actions)`` bool legal masks (unused by the default).
        """
        shape = (len(self.network_plane_names), *self.spec.board_shape)
        out = np.empty((len(rows), *shape), dtype=np.float32)
        for k, i in enumerate(rows):
            out[k] = self.network_planes(engine.state(int(i)))
        return out

    def symmetries(self) -> np.ndarray:
        """The symmetries of the rules as maps of actions, int64 ``(S, num_actions)``, the identity
        first (``tictacgo.games.symmetry``): Q-learning, the solver and AlphaZero's augmentation use
        them. By default the identity alone, which is true of every game; a game whose rules are
        symmetric returns its board's (``board_symmetries``; only where actions ``0..rows*cols-1``
        are the board's points)."""
        return np.arange(self.num_actions, dtype=np.int64)[None]

    # -- words ------------------------------------------------------------------------
    def player_label(self, colour: int) -> str:
        """How a player is named to a person (``"X"``; Little-Go: ``"Black (X)"``)."""
        return self.spec.player_name(colour)

    def point_label(self, action: int) -> str:
        """How a move is written for a person: ``"cell 4"`` (Little-Go: ``"C3"``, ``"pass"``)."""
        if action == self.pass_action:
            return "pass"
        return f"cell {action}"

    def end_words(self, state: Any) -> str:
        """Why the game ended, in words (``"X has three in a row"``); "" while it goes on.

        ``END_WORDS[reason]`` with ``{winner}``, ``{loser}`` (``player_label``s)
        and ``{limit}`` (``spec.max_actions``) filled in; the reason itself
        where the game has no words for it.
        """
        reason = self.end_reason(state)
        if reason is None:
            return ""
        w = self.winner(state)
        return self.END_WORDS.get(reason, str(reason)).format(
            limit=self.spec.max_actions, winner=self.player_label(w) if w else "nobody",
            loser=self.player_label(3 - w) if w else "a player")

    # -- engines ------------------------------------------------------------------------
    def batched(self, batch_size: int, backend: str | None = None) -> Any:
        """An engine of ``batch_size`` games of this variant stepped at once (``BatchedGame``'s interface).

        The default steps a list of single states through the rules above
        (``StateBatch``, numpy backend); a game with a faster engine overrides it.
        """
        return StateBatch(batch_size, self, backend=backend)

    def rollout_move(self, state: Any, candidates: int, rnd: random.Random) -> Any | None:
        """A rollout's better move, when there is one: the state after it, or None.

        Capture rollouts (``tictacgo.baselines.mcts_evaluators``) ask for it
        with probability ``capture_prob`` before a uniformly random move. The
        default is the first placement of ``candidates`` (in increasing
        order) that wins at once; Little-Go takes a capture instead.

        Args:
            state: a live state.
            candidates: the placements to look among, as bits of legal actions.
            rnd: the rollout's ``random.Random`` (for a choice among several).
        """
        mover = self.current_player(state)
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            child = self.play(state, low.bit_length() - 1)
            if self.is_terminal(child) and self.winner(child) == mover:
                return child
        return None

    def random_playout(self, state: Any, seed: int, pass_prob: float = 0.0,
                       backend: str | None = None) -> int:
        """Play uniformly random placements to the end (a pass only when none is legal, or with
        probability ``pass_prob``); the winner (0 for a draw). Games with a compiled playout override it.

        Args:
            state: the state to play on from.
            seed: the playout's seed.
            pass_prob: the chance of a pass at each move, in a game with one.
            backend: unused here (compiled playouts choose their backend with it).
        """
        rnd = random.Random(seed)
        pa = self.pass_action
        not_pass = ~(1 << pa) if pa is not None else -1
        while not self.is_terminal(state):
            bits = self.legal_bits(state) & not_pass
            if not bits or (pass_prob and rnd.random() < pass_prob):
                state = self.play(state, pa)
                continue
            r = int(rnd.random() * bits.bit_count())
            while r:
                bits &= bits - 1
                r -= 1
            state = self.play(state, (bits & -bits).bit_length() - 1)
        return int(self.winner(state))

    # -- drawings ---------------------------------------------------------------------
    def board_image(self, board: np.ndarray, cell: int | None = None, last: int | None = None,
                    coords: bool = False) -> np.ndarray:
        """A picture of ``to_board``'s array, ``uint8 (H, W, 3)``: marks in a grid of cells by default.

        Args:
            board: ``to_board``'s array.
            cell: pixels per cell (None: the drawing's default).
            last: the point of the last move, marked with a red dot (None: no mark).
            coords: write each cell's action number (or the board's coordinates).
        """
        return grid_image(board, cell, last=last, coords=coords, stones=self.spec.pieces == "stones")

    def board_svg(self, board: np.ndarray, last: int | None = None, caption: str = "",
                  captured: Any = (), every_point: bool = False) -> str:
        """``to_board``'s array as SVG (``tictacgo.games.svg``: a grid of cells by default, with X and O
        marks, or discs where the spec says ``pieces="stones"``)."""
        return grid_svg(board, last=last, caption=caption, captured=captured, every_point=every_point,
                        stones=self.spec.pieces == "stones")

    def image(self, state: Any, cell: int | None = None) -> np.ndarray:
        """``state`` as an RGB picture, coordinates shown and the last move marked."""
        return self.board_image(self.to_board(state), cell, last=self.last_placement(state), coords=True)

    def svg(self, state: Any) -> str:
        """``state`` as SVG: the board, the last move marked, the status line as its caption."""
        status = self.render_ascii(state).splitlines()[-1]  # the game's own status line, in short lines
        caption = "\n".join(part.strip() for part in status.split(";"))
        return self.board_svg(self.to_board(state), last=self.last_placement(state), caption=caption)

    def ansi(self, state: Any) -> str:
        """``state`` as text (``render_ascii``)."""
        return self.render_ascii(state)
