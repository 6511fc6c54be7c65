"""Little-Go: the 5x5 Go of the CSCI-561 homework, as a pure rules core.

The rules are those of ``docs/littlego.md`` (the course host's behaviour,
quirks included) and are checked against 300 games recorded from that host:

* Board ``n x n`` (default 5). Point ``(i, j)`` is action ``i * n + j``;
  action ``n * n`` is PASS. Black (1) moves first, White (2) second.
* A placement is legal on an empty point if the new stone's group has a
  liberty at once, or gets one after every liberty-less opponent group is
  removed (otherwise: suicide). Simple ko, one step of memory: a placement is
  refused when the opponent's last action captured something and the board
  after the placement equals the board before the opponent's last action.
  No superko. After a pass no ko applies.
* Every action counts, passes included; the game ends after action
  ``max_actions`` (``n * n - 1``), or on a pass that follows a pass, or on a
  pass as the very first action (the host's quirk: White then wins 0 : komi).
* Score: Black stones on the board; White stones plus komi (``n / 2``).

The game object ``LittleGo(size, komi, max_actions)`` carries the variant;
its states are immutable ``GoState``s (NamedTuples of Python ints used as
bitboards: bit ``i * n + j`` is point ``(i, j)``) that carry their game. The
rules are pure functions of a state, also offered as the game's methods:
``play`` returns a new state and never touches its argument.
"""

from __future__ import annotations

import math
import random
from typing import Any, ClassVar, NamedTuple

import numpy as np

from tictacgo.games import littlego_fast
from tictacgo.games.base import Game, GameSpec
from tictacgo.games.batched_common import load_kernels, unpack
from tictacgo.games.batched_littlego import BatchedLittleGo
from tictacgo.games.bits import unpack_bits
from tictacgo.games.board_labels import go_column, go_row
from tictacgo.games.errors import GameOverError, IllegalActionError, check_action_type
from tictacgo.games.littlego_place import (
    BLACK,
    EMPTY,
    END_DOUBLE_PASS,
    END_ILLEGAL,
    END_MAX_ACTIONS,
    END_PASS_ON_EMPTY_START,
    KO,
    NO_KO,
    OCCUPIED,
    SUICIDE,
    WHITE,
    ko_board,
    place_bits,
)
from tictacgo.games.pictures import go_image
from tictacgo.games.playouts import go_playout
from tictacgo.games.registry import register_game
from tictacgo.games.svg import go_svg
from tictacgo.games.symmetry import board_symmetries
from tictacgo.validate import check_int, check_number

__all__ = ["BLACK", "WHITE", "EMPTY", "END_MAX_ACTIONS", "END_DOUBLE_PASS", "END_PASS_ON_EMPTY_START",
           "END_ILLEGAL", "OCCUPIED", "SUICIDE", "KO", "NO_KO", "NAME", "PLANES", "LittleGo", "GoState",
           "place_bits", "ko_board", "stone_bits", "ko_bits", "end_reason", "fast_rollout", "num_actions",
           "pass_action", "current_player", "is_terminal", "legal_bits", "legal_actions", "legal_mask",
           "illegal_reason", "play", "forfeit", "scores", "winner", "returns", "to_board", "previous_board",
           "from_boards", "from_ascii", "check_state", "render_ascii", "IllegalActionError", "GameOverError"]

NAME = "littlego"


class LittleGo(Game):
    """Little-Go of one variant: the game object that states carry.

    ``LittleGo(size=5, komi=None, max_actions=None)`` holds the variant (board
    size, komi, action limit), its ``spec`` and the bit masks of the board;
    the rules themselves are the pure functions of this module, offered as
    methods (``game.play(state, a)`` is ``play(state, a)``), with its batched
    engine, playouts, drawings and words. Instances are
    cached and immutable: ``LittleGo(5) is LittleGo(5)``, and a game pickles
    as its three parameters.

    Args:
        size: board size, 2..19.
        komi: added to White's score, a finite number; defaults to ``size / 2``.
        max_actions: actions (passes included) before the game ends; defaults
            to ``size * size - 1`` (the course's limit).
    Raises:
        TypeError: a board size that is not an int, a komi that is not a number.
        ValueError: a board size outside 2..19, a komi that is nan, infinite or
            too large for a float, an action limit below 1.
    """

    name = NAME
    END_REASONS = (END_MAX_ACTIONS, END_DOUBLE_PASS, END_PASS_ON_EMPTY_START, END_ILLEGAL)
    END_WORDS: ClassVar[dict[str, str]] = {
        END_MAX_ACTIONS: "the {limit}-action limit was reached",
        END_DOUBLE_PASS: "both players passed in a row",
        END_PASS_ON_EMPTY_START: "Black passed on the very first action (the course host's rule: White wins)",
        END_ILLEGAL: "{loser} played an illegal action and forfeits",
    }
    ENV_KEYWORDS: ClassVar[dict[str, str]] = {"board_size": "size"}
    writes_vertices = True
    default_rollout = "capture"
    _instances: dict[tuple[int, float, int], LittleGo] = {}

    def __new__(cls, size: int = 5, komi: float | None = None, max_actions: int | None = None):
        key = _variant_key(size, komi, max_actions)
        game = cls._instances.get(key)
        if game is None:
            game = super().__new__(cls)
            game._build(*key)
            cls._instances[key] = game
        return game

    def __init__(self, size: int = 5, komi: float | None = None, max_actions: int | None = None):
        pass  # built once, in __new__: instances are shared

    def _build(self, size: int, komi: float, max_actions: int) -> None:
        full = (1 << (size * size)) - 1
        first_col = sum(1 << (i * size) for i in range(size))
        self.size = size
        self.komi = komi
        self.max_actions = max_actions
        self.full = full
        self.not_first_col = full & ~first_col
        self.not_last_col = full & ~(first_col << (size - 1))
        self.point_bits = tuple(1 << p for p in range(size * size))
        self.neighbour_bits = tuple(self.neighbours(b) for b in self.point_bits)
        # byte_tables[k][b]: the action indices of the set bits of byte k equal to b (PASS is bit n*n).
        self.byte_tables = tuple(
            tuple(tuple(8 * k + i for i in range(8) if (b >> i) & 1) for b in range(256))
            for k in range((size * size + 1 + 7) // 8))
        self.spec = GameSpec(
            name=NAME, title="Little-Go", player_names=("Black", "White"),
            agent_names=("black_0", "white_0"), board_shape=(size, size), num_actions=size * size + 1,
            pass_action=size * size, komi=komi, max_actions=max_actions, planes=PLANES,
            captures=True, solvable=False, pieces="stones", sgf_game=1)

    def __reduce__(self):
        return (LittleGo, (self.size, self.komi, self.max_actions))

    # By variant, not identity: a state's hash (transposition tables) is then
    # the same in every process.
    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, LittleGo) and self.params == other.params)

    def __hash__(self) -> int:
        return hash((self.size, self.komi, self.max_actions))

    def __copy__(self) -> LittleGo:
        return self

    def __deepcopy__(self, memo) -> LittleGo:
        return self

    def __repr__(self) -> str:
        return f"LittleGo(size={self.size}, komi={self.komi:g}, max_actions={self.max_actions})"

    @property
    def params(self) -> dict[str, float | int]:
        """The variant as ``make_game`` keyword arguments."""
        return {"size": self.size, "komi": self.komi, "max_actions": self.max_actions}

    @property
    def num_points(self) -> int:
        return self.size * self.size

    @property
    def pass_action(self) -> int:
        """The PASS action, ``size * size``."""
        return self.size * self.size

    @property
    def num_actions(self) -> int:
        return self.size * self.size + 1

    def initial_state(self) -> GoState:
        """The empty board, Black to move."""
        return GoState(self, 0, 0, BLACK, 0, 0, 0, False, False, 0, -1)

    def neighbours(self, bits: int) -> int:
        """Points orthogonally next to any point of ``bits`` (may include ``bits``)."""
        n = self.size
        return (((bits << 1) & self.not_first_col) | ((bits >> 1) & self.not_last_col)
                | ((bits << n) & self.full) | (bits >> n))

    def flood(self, seed: int, within: int) -> int:
        """The union of the groups of ``within`` that touch ``seed`` (seed must be in within)."""
        n, left, right, full = self.size, self.not_first_col, self.not_last_col, self.full
        group = seed
        while True:
            # neighbours() inlined: this loop is the hottest code of the rules.
            grown = (group | ((group << 1) & left) | ((group >> 1) & right)
                     | ((group << n) & full) | (group >> n)) & within
            if grown == group:
                return group
            group = grown

    def bits_to_list(self, bits: int) -> list[int]:
        """The indices of the set bits of ``bits``, in increasing order."""
        out: list[int] = []
        for k, table in enumerate(self.byte_tables):
            byte = (bits >> (8 * k)) & 255
            if byte:
                out += table[byte]
        return out

    # -- the rules: the pure functions of this module ---------------------------------------
    def current_player(self, state: GoState) -> int:
        return current_player(state)

    def legal_bits(self, state: GoState) -> int:
        return legal_bits(state)

    def legal_actions(self, state: GoState) -> list[int]:
        return legal_actions(state)

    def legal_mask(self, state: GoState) -> np.ndarray:
        return legal_mask(state)

    def illegal_reason(self, state: GoState, action: int) -> str | None:
        return illegal_reason(state, action)

    def play(self, state: GoState, action: int) -> GoState:
        return play(state, action)

    def forfeit(self, state: GoState) -> GoState:
        return forfeit(state)

    def is_terminal(self, state: GoState) -> bool:
        return state.end is not None

    def winner(self, state: GoState) -> int | None:
        return winner(state)

    def returns(self, state: GoState) -> tuple[float, float]:
        return returns(state)

    def scores(self, state: GoState) -> tuple[float, float]:
        return scores(state)

    def to_board(self, state: GoState) -> np.ndarray:
        return to_board(state)

    def heuristic_value(self, state: GoState) -> float:
        """The score margin (stones, komi to White) from the mover's view, squashed into (-1, 1)."""
        black, white = scores(state)
        margin = black - white if state.to_move == BLACK else white - black
        # Keep clear of +-1, which only a finished game may score.
        return 0.9 * math.tanh(margin / 4.0)

    def previous_board(self, state: GoState) -> np.ndarray:
        return previous_board(state)

    def stone_bits(self, state: GoState) -> tuple[int, int]:
        return state.black, state.white

    def ko_bits(self, state: GoState) -> int:
        return ko_bits(state)

    def end_reason(self, state: GoState) -> str | None:
        return state.end

    def check_state(self, state: GoState) -> None:
        check_state(state)

    def render_ascii(self, state: GoState) -> str:
        return render_ascii(state)

    # -- words --------------------------------------------------------------------------
    def player_label(self, colour: int) -> str:
        """``Black (X)``, ``White (O)``: the name with the mark ``render_ascii`` shows."""
        name = self.spec.player_name(colour)
        return f"{name} ({'X' if colour == BLACK else 'O'})" if colour in (BLACK, WHITE) else name

    def point_label(self, action: int) -> str:
        """A Go vertex (``C3``: column letter without I, row 1 at the bottom), or ``pass``."""
        if action == self.pass_action:
            return "pass"
        i, j = divmod(action, self.size)
        return f"{go_column(j)}{go_row(self.size, i)}"

    # -- engines and drawings -------------------------------------------------------------
    def batched(self, batch_size: int, backend: str | None = None) -> BatchedLittleGo:
        """``BatchedLittleGo``: B games of this variant as numpy bitboards (numba kernels when installed)."""
        return BatchedLittleGo(batch_size, self, backend=backend)

    #: ``f(state, rnd, pass_prob=0.0, capture_prob=0.0) -> winner``: play to the end on raw bitboards
    #: (``tictacgo.games.littlego_fast``)
    fast_rollout = staticmethod(littlego_fast.fast_rollout)

    #: ``f(state, seed, pass_prob=0.0, backend=None) -> winner``: a seeded uniformly random playout, the
    #: leaf evaluation of plain UCT search, compiled with numba when it is installed
    #: (``tictacgo.games.playouts.go_playout``)
    random_playout = staticmethod(go_playout)

    def rollout_move(self, state: GoState, candidates: int, rnd: random.Random) -> GoState | None:
        """A capture: the state after one of the placements of ``candidates`` that capture, drawn with
        ``rnd`` (only points next to opponent stones can capture, so only those are tried); None if none."""
        opp = state.white if state.to_move == BLACK else state.black
        if not opp:
            return None
        empty = self.full & ~(state.black | state.white)
        cand = candidates & empty & self.neighbours(opp)
        out = []
        while cand:
            low = cand & -cand
            cand ^= low
            child = play(state, low.bit_length() - 1)
            if child.captured:
                out.append(child)
        return out[rnd.randrange(len(out))] if out else None

    def board_image(self, board: np.ndarray, cell: int | None = None, last: int | None = None,
                    coords: bool = False) -> np.ndarray:
        """A wooden board with stones (``tictacgo.games.pictures.go_image``)."""
        return go_image(board, cell, last=last, coords=coords)

    def board_svg(self, board: np.ndarray, last: int | None = None, caption: str = "",
                  captured: Any = (), every_point: bool = False) -> str:
        """A wooden board with stones as SVG (``tictacgo.games.svg.go_svg``)."""
        return go_svg(board, last=last, caption=caption, captured=captured, every_point=every_point)

    def from_boards(self, board, to_move: int, previous=None, t: int | None = None) -> GoState:
        """A state of this variant from the course's view (see the module's ``from_boards``)."""
        return from_boards(board, to_move, previous, t, komi=self.komi, max_actions=self.max_actions,
                           size=self.size)

    # -- features and symmetries (tictacgo.games.features, tictacgo.games.symmetry) ---------------
    #: The network's input planes (AlphaZero), from the mover's view: the stones, the board before
    #: the opponent's last action (what ko compares with), the legal points, Black to move (komi
    #: goes to White), the fraction of the action limit left and the opponent's pass (a pass now
    #: ends the game): everything the rules depend on, so a position's value is a function of them.
    network_plane_names = ("own", "opponent", "previous_own", "previous_opponent", "legal",
                           "black_to_move", "actions_left", "opponent_passed")

    def symmetries(self) -> np.ndarray:
        """The board's 8 symmetries as action maps, ``(8, size * size + 1)``, PASS fixed
        (``tictacgo.games.symmetry``)."""
        return board_symmetries(self.size, self.size, self.num_actions)

    def network_planes(self, state: GoState) -> np.ndarray:
        """The network's ``(8, n, n)`` float32 planes of one state (``network_plane_names``)."""
        n, N = self.size, self.size * self.size
        black_moves = state.to_move == 1
        own, opp = (state.black, state.white) if black_moves else (state.white, state.black)
        pown, popp = (state.prev_black, state.prev_white) if black_moves else (state.prev_white,
                                                                              state.prev_black)
        legal = legal_mask(state)[:N]
        consts = (float(black_moves), (self.max_actions - state.t) / self.max_actions, float(state.last_pass))
        rows = [unpack_bits(b, N) for b in (own, opp, pown, popp)] + [legal]
        rows += [np.full(N, c, dtype=np.float32) for c in consts]
        return np.stack(rows).astype(np.float32).reshape(len(self.network_plane_names), n, n)

    def network_planes_batch(self, engine, rows: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``(len(rows), 8, n, n)`` float32 planes of a batched engine's games ``rows``.

        Args:
            engine: a batched Little-Go engine of this variant.
            rows: the games to encode (int indices).
            legal: their ``(len(rows), num_actions)`` bool legal masks.
        """
        n, N, C = self.size, self.size * self.size, len(self.network_plane_names)
        if engine.backend == "numba":  # one compiled loop over the games (the same planes)
            out = np.empty((len(rows), C, N), dtype=np.float32)
            load_kernels().go_network_planes(
                np.asarray(rows, np.int64), legal, engine.black, engine.white, engine.prev_black,
                engine.prev_white, engine.to_move, engine.t, engine.last_pass, N, self.max_actions, out)
            return out.reshape(len(rows), C, n, n)
        black_moves = engine.to_move[rows] == 1
        black, white = engine.black[rows], engine.white[rows]
        pb, pw = engine.prev_black[rows], engine.prev_white[rows]
        out = np.empty((len(rows), C, n, n), dtype=np.float32)
        flat = out.reshape(len(rows), C, N)
        flat[:, 0] = unpack(np.where(black_moves, black, white), N)
        flat[:, 1] = unpack(np.where(black_moves, white, black), N)
        flat[:, 2] = unpack(np.where(black_moves, pb, pw), N)
        flat[:, 3] = unpack(np.where(black_moves, pw, pb), N)
        flat[:, 4] = legal[:, :N]
        flat[:, 5] = black_moves[:, None]
        flat[:, 6] = ((self.max_actions - engine.t[rows].astype(np.float32)) / self.max_actions)[:, None]
        flat[:, 7] = engine.last_pass[rows][:, None]
        return out


def _variant_key(size, komi, max_actions) -> tuple[int, float, int]:
    """The checked ``(size, komi, max_actions)`` of a variant, defaults filled in."""
    size = check_int("board size", size, min=2, max=19)
    komi = check_number("komi", size / 2 if komi is None else komi)
    max_actions = check_int("max_actions", size * size - 1 if max_actions is None else max_actions, min=1)
    return size, komi, max_actions


class GoState(NamedTuple):
    """One Little-Go position. Treat as immutable; build with ``initial_state``."""

    game: LittleGo
    black: int
    white: int
    to_move: int            # BLACK or WHITE
    t: int                  # actions played so far, passes included
    prev_black: int         # the board before the opponent's last action
    prev_white: int
    ko_armed: bool          # the opponent's last action captured stones
    last_pass: bool         # the opponent's last action was a pass
    captured: int           # stones the last action removed
    last_action: int        # -1 before the first action
    end: str | None = None  # why the game ended; None while it goes on
    loser: int = 0          # the colour that lost by an illegal action

    def _repr_svg_(self) -> str:
        """The position as an SVG picture (Jupyter shows it; ``tictacgo.games.svg``)."""
        return self.game.svg(self)


# The "planes" observation channels, in order (encoded by ``tictacgo.games.features``).
PLANES = ("own", "opponent", "legal", "ko", "actions_left", "to_move")


def stone_bits(state: GoState) -> tuple[int, int]:
    """(Black's stones, White's stones) as bitboards (bit ``i*n + j`` is point (i, j))."""
    return state.black, state.white


def ko_bits(state: GoState) -> int:
    """The empty points that the ko rule alone forbids to the player to move, as bits.

    A placement is refused for ko when the board after it is the board the
    ko rule keeps (``ko_board``): the mover's stones there are its stones now
    plus the new one, so the one candidate is the single point where the
    mover had a stone on that board and has none now.
    """
    if not state.ko_armed or state.end is not None:
        return 0
    own, _ = _own_opp(state)
    taken = ko_board(state)[0] & ~own
    if not taken or taken & (taken - 1):
        return 0
    return taken if _place(state, taken.bit_length() - 1) == KO else 0


def end_reason(state: GoState) -> str | None:
    """Why the game ended (``max_actions``, ``double_pass``, ...), or None while it goes on."""
    return state.end


fast_rollout = littlego_fast.fast_rollout  # play to the end on raw bitboards; the winner


def num_actions(state: GoState) -> int:
    return state.game.num_actions


def pass_action(state: GoState) -> int:
    """The PASS action, ``n * n``."""
    return state.game.pass_action


def current_player(state: GoState) -> int:
    """The colour to move: 1 Black, 2 White."""
    return state.to_move


def is_terminal(state: GoState) -> bool:
    return state.end is not None


def _own_opp(state: GoState) -> tuple[int, int]:
    if state.to_move == BLACK:
        return state.black, state.white
    return state.white, state.black


def _place(state: GoState, p: int) -> tuple[int, int, int] | str:
    """Try a placement at point ``p``: (own, opp, captured bits) or a refusal reason."""
    own, opp = _own_opp(state)
    ko_own, ko_opp = ko_board(state)
    return place_bits(state.game, own, opp, p, ko_own, ko_opp)


def legal_bits(state: GoState) -> int:
    """Legal actions as a bitmask (bit ``n*n`` is PASS); 0 once the game is over."""
    if state.end is not None:
        return 0
    game = state.game
    own, opp = (state.black, state.white) if state.to_move == BLACK else (state.white, state.black)
    full, n = game.full, game.size
    empty = full & ~(own | opp)
    # An empty point with an empty neighbour is always legal (neighbours() inlined: a hot path).
    legal = empty & (((empty << 1) & game.not_first_col) | ((empty >> 1) & game.not_last_col)
                     | ((empty << n) & full) | (empty >> n))
    rest = empty & ~legal
    if rest:
        ko_own, ko_opp = ko_board(state)
        flood, neighbours = game.flood, game.neighbours
        while rest:
            low = rest & -rest
            rest ^= low
            # A surrounded point is legal at once if the new stone's group keeps a liberty (a test
            # place_bits makes too, after the capture analysis this one skips); else place_bits decides.
            if neighbours(flood(low, own | low)) & empty & ~low or not isinstance(
                    place_bits(game, own, opp, low.bit_length() - 1, ko_own, ko_opp), str):
                legal |= low
    return legal | (full + 1)  # PASS: bit n*n


def legal_actions(state: GoState) -> list[int]:
    """Legal actions in increasing order (PASS, ``n*n``, last); [] once over."""
    return state.game.bits_to_list(legal_bits(state))


def legal_mask(state: GoState) -> np.ndarray:
    """An int8 vector of ``n*n + 1`` entries, 1 where the action is legal."""
    return unpack_bits(legal_bits(state), state.game.num_actions).view(np.int8)


def illegal_reason(state: GoState, action: int) -> str | None:
    """Why ``action`` is illegal here (occupied, suicide, ko), or None if legal.

    Raises:
        TypeError / ValueError: the action is not an int in ``[0, n*n]``.
        GameOverError: the game is over.
    """
    a = check_action_type(action, state.game.num_actions)
    if state.end is not None:
        raise GameOverError(f"the game is over ({state.end}); no action can be played")
    if a == state.game.pass_action:
        return None
    result = _place(state, a)
    return result if isinstance(result, str) else None


def play(state: GoState, action: int) -> GoState:
    """The state after ``action``.

    Raises:
        TypeError: the action is not an integer.
        ValueError: the action is outside ``[0, n*n]``.
        IllegalActionError: occupied point, suicide or ko (the state is untouched).
        GameOverError: the game is already over.
    """
    game = state.game
    a = check_action_type(action, game.num_actions)
    if state.end is not None:
        raise GameOverError(f"the game is over ({state.end}); no action can be played")
    t = state.t + 1
    if a == game.pass_action:
        end = None
        if t >= game.max_actions:
            end = END_MAX_ACTIONS
        elif state.t == 0:
            end = END_PASS_ON_EMPTY_START
        elif state.last_pass:
            end = END_DOUBLE_PASS
        return GoState(game, state.black, state.white, 3 - state.to_move, t,
                       state.black, state.white, False, True, 0, a, end)
    result = _place(state, a)
    if isinstance(result, str):
        i, j = divmod(a, game.size)
        raise IllegalActionError(
            f"action {a} (row {i}, column {j}) is illegal for "
            f"{'Black' if state.to_move == BLACK else 'White'}: {result}", reason=result)
    own, opp, dead = result
    black, white = (own, opp) if state.to_move == BLACK else (opp, own)
    end = END_MAX_ACTIONS if t >= game.max_actions else None
    return GoState(game, black, white, 3 - state.to_move, t, state.black, state.white,
                   dead != 0, False, dead.bit_count(), a, end)


def forfeit(state: GoState) -> GoState:
    """The state where the player to move has lost by an illegal action."""
    if state.end is not None:
        raise GameOverError(f"the game is over ({state.end}); no action can be played")
    return state._replace(end=END_ILLEGAL, loser=state.to_move)


def scores(state: GoState) -> tuple[float, float]:
    """(Black's score, White's score): stones on the board, komi added to White."""
    return float(state.black.bit_count()), state.white.bit_count() + state.game.komi


def winner(state: GoState) -> int | None:
    """1 or 2 for the winner, 0 for a draw, None while the game goes on."""
    if state.end is None:
        return None
    if state.end == END_ILLEGAL:
        return 3 - state.loser
    b, w = scores(state)
    return BLACK if b > w else WHITE if w > b else 0


def returns(state: GoState) -> tuple[float, float]:
    """(Black's return, White's return): +1 win, -1 loss, 0 draw or game not over."""
    w = winner(state)
    if not w:
        return 0.0, 0.0
    return (1.0, -1.0) if w == BLACK else (-1.0, 1.0)


def _bits_to_board(game: LittleGo, black: int, white: int) -> np.ndarray:
    n = game.size
    cells = [BLACK if (black >> p) & 1 else WHITE if (white >> p) & 1 else EMPTY
             for p in range(n * n)]
    return np.array(cells, dtype=np.int8).reshape(n, n)


def to_board(state: GoState) -> np.ndarray:
    """The board as an ``n x n`` int8 array: 0 empty, 1 Black, 2 White."""
    return _bits_to_board(state.game, state.black, state.white)


def previous_board(state: GoState) -> np.ndarray:
    """The board before the opponent's last action (the course's 'previous board')."""
    return _bits_to_board(state.game, state.prev_black, state.prev_white)


def _board_to_bits(board, n: int, what: str) -> tuple[int, int]:
    arr = np.asarray(board)
    if arr.shape != (n, n):
        raise ValueError(f"{what} must be {n}x{n}, got shape {arr.shape}")
    if not np.isin(arr, (0, 1, 2)).all():
        raise ValueError(f"{what} may hold only 0, 1 and 2, got {sorted(set(arr.ravel().tolist()))}")
    flat = arr.ravel()
    black = sum(1 << p for p in range(n * n) if flat[p] == BLACK)
    white = sum(1 << p for p in range(n * n) if flat[p] == WHITE)
    return black, white


def from_boards(board, to_move: int, previous=None, t: int | None = None,
                komi: float | None = None, max_actions: int | None = None,
                size: int | None = None) -> GoState:
    """A state rebuilt from the course's view: current board, previous board, colour.

    The ko information is read as the host keeps it: the opponent's last action
    captured stones exactly when some of the mover's stones on ``previous``
    are gone from ``board``; an unchanged board means the opponent passed.

    Args:
        board: ``n x n`` array-like of 0/1/2, the current board.
        to_move: 1 (Black) or 2 (White).
        previous: the board before the opponent's last action; defaults to ``board``.
        t: actions already played; defaults to the stone count (no passes),
            raised by one when that count gives the other colour the move.
        komi: the variant's komi (default ``n / 2``).
        max_actions: the variant's action limit (default ``n * n - 1``).
        size: the board size the variant expects, if any (checked against the board).
    Raises:
        ValueError: bad shapes or values, a group without liberties, or a
            previous board that no single action of the opponent turns into ``board``.
    """
    arr = np.asarray(board)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"board must be a square 2-D array, got shape {arr.shape}")
    n = arr.shape[0]
    if size is not None and n != size:
        raise ValueError(f"board must be {size}x{size} for this game, got {n}x{n}")
    if to_move not in (BLACK, WHITE):
        raise ValueError(f"to_move must be 1 (Black) or 2 (White), got {to_move!r}")
    game = LittleGo(n, komi, max_actions)
    black, white = _board_to_bits(arr, n, "board")
    if previous is None:
        pb, pw = black, white
    else:
        pb, pw = _board_to_bits(previous, n, "previous board")
    empty = game.full & ~(black | white)
    for colour, stones in ((BLACK, black), (WHITE, white)):
        alive = game.flood(stones & game.neighbours(empty), stones)
        if stones & ~alive:
            raise ValueError(f"board has a {'Black' if colour == BLACK else 'White'} group "
                             "without liberties; no legal game reaches it")
    own_prev, opp_prev = (pb, pw) if to_move == BLACK else (pw, pb)
    own, opp = (black, white) if to_move == BLACK else (white, black)
    last_pass = (pb, pw) == (black, white)
    if not last_pass:
        added = opp & ~opp_prev
        if added.bit_count() != 1 or opp_prev & ~opp or own & ~own_prev:
            raise ValueError("the previous board is not one opponent action away from the board")
        # Replay that action on the previous board: its captures must be exactly the stones gone.
        before = GoState(game, pb, pw, 3 - to_move, 0, pb, pw, False, False, 0, -1)
        replay = _place(before, added.bit_length() - 1)
        if isinstance(replay, str) or (replay[0], replay[1]) != (opp, own):
            raise ValueError("the previous board is not one opponent action away from the board: "
                             "the stones that vanished are not what that action captures")
    captured = (own_prev & ~own).bit_count()
    if t is None:
        # At least one action per stone; Black moves at even t, White at odd t.
        t = (black | white).bit_count()
        if t % 2 != (to_move - 1):
            t += 1
        t = min(t, game.max_actions - 1 - (game.max_actions - to_move) % 2)
    t = check_int("t", t, min=0, max=game.max_actions - 1)  # the actions already played
    if t % 2 != to_move - 1:
        raise ValueError(f"after t={t} actions it is {'White' if t % 2 else 'Black'}'s turn, "
                         f"not {'Black' if to_move == BLACK else 'White'}'s (Black moves at even t)")
    last_action = -1 if t == 0 else game.pass_action if last_pass else ((opp & ~opp_prev).bit_length() - 1)
    return GoState(game, black, white, to_move, int(t), pb, pw, captured > 0,
                   last_pass and t > 0, captured, last_action)


def from_ascii(text: str, to_move: int = BLACK, previous: str | None = None, **kw) -> GoState:
    """A state from an ASCII board: ``X`` or ``B`` Black, ``O`` or ``W`` White, ``.`` empty.

    Rows are lines; spaces are ignored. Handy for tests and examples.
    """
    def parse(s: str) -> list[list[int]]:
        table = {"X": BLACK, "B": BLACK, "O": WHITE, "W": WHITE, ".": EMPTY, "+": EMPTY,
                 "0": EMPTY, "1": BLACK, "2": WHITE}
        rows = [line.replace(" ", "") for line in s.strip().splitlines() if line.strip()]
        try:
            return [[table[c] for c in row] for row in rows]
        except KeyError as e:
            raise ValueError(f"unknown board character {e.args[0]!r}; use X/B, O/W or .") from None
    prev = parse(previous) if previous is not None else None
    return from_boards(parse(text), to_move, prev, **kw)


def check_state(state: GoState) -> None:
    """Raise unless ``state`` is a position that legal play of its variant reaches.

    Checked: the field types; stone bits on the board, non-negative and not
    overlapping (now and before the last action); every group with a
    liberty; the colour to move agreeing with ``t`` (Black at even ``t``),
    ``t`` within the action limit; the last action turning the previous board
    into this one (a pass leaves it, a placement adds the stone and removes
    exactly the ``captured`` stones, ko armed exactly after a capture); and
    the end agreeing with all that (``max_actions`` exactly at the limit,
    ``double_pass`` after a pass, the loser of an illegal action the colour to move).

    Raises:
        TypeError: not a ``GoState`` of a ``LittleGo``, or a field of the wrong type.
        ValueError: the first inconsistency found, named.
    """
    if not isinstance(state, GoState):
        raise TypeError(f"expected a littlego.GoState, got {type(state).__name__}")
    game = state.game
    if not isinstance(game, LittleGo):
        raise TypeError(f"the state's game must be a LittleGo, got {game!r}")
    for field in ("black", "white", "to_move", "t", "prev_black", "prev_white", "captured",
                  "last_action", "loser"):
        value = getattr(state, field)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"state.{field} must be an int, got {value!r} ({type(value).__name__})")
    for field in ("ko_armed", "last_pass"):
        if not isinstance(getattr(state, field), (bool, np.bool_)):
            raise TypeError(f"state.{field} must be a bool, got {getattr(state, field)!r}")
    ends = (None, END_MAX_ACTIONS, END_DOUBLE_PASS, END_PASS_ON_EMPTY_START, END_ILLEGAL)
    if state.end not in ends:
        raise ValueError(f"state.end must be one of {ends}, got {state.end!r}")
    black, white, pb, pw = (int(state.black), int(state.white), int(state.prev_black),
                            int(state.prev_white))
    n, t, to_move, last = game.size, int(state.t), int(state.to_move), int(state.last_action)
    for what, b, w in (("", black, white), ("previous ", pb, pw)):
        for colour, bits in (("Black", b), ("White", w)):
            if bits < 0 or bits & ~game.full:
                raise ValueError(f"the {what}{colour} stones {bits} are not bits of the {n}x{n} board "
                                 f"(0 to {game.full})")
        if b & w:
            raise ValueError(f"the {what}board has Black and White stones on the same points "
                             f"{game.bits_to_list(b & w)}")
        empty = game.full & ~(b | w)
        for colour, stones in (("Black", b), ("White", w)):
            if stones & ~game.flood(stones & game.neighbours(empty), stones):
                raise ValueError(f"the {what}board has a {colour} group without liberties")
    if to_move not in (BLACK, WHITE):
        raise ValueError(f"state.to_move must be 1 (Black) or 2 (White), got {to_move}")
    if not 0 <= t <= game.max_actions:
        raise ValueError(f"state.t must be in [0, {game.max_actions}] (actions played), got {t}")
    if to_move != BLACK + t % 2:
        raise ValueError(f"after t={t} actions it is {'White' if t % 2 else 'Black'}'s turn, not "
                         f"{'Black' if to_move == BLACK else 'White'}'s (Black moves at even t)")
    if not -1 <= last <= game.pass_action or (last == -1) != (t == 0):
        raise ValueError(f"state.last_action must be -1 exactly before the first action and an action "
                         f"in [0, {game.pass_action}] after it; got {last} at t={t}")
    if bool(state.last_pass) != (last == game.pass_action):
        raise ValueError(f"state.last_pass is {bool(state.last_pass)} but the last action is {last}")
    _check_last_action(state, black, white, pb, pw, last)
    _check_end(state, t, to_move)


def _check_last_action(state: GoState, black: int, white: int, pb: int, pw: int, last: int) -> None:
    """The previous board and the last action give this board, ``captured`` and ``ko_armed``."""
    game = state.game
    mover = WHITE if state.to_move == BLACK else BLACK  # who made the last action
    point = last if 0 <= last < game.pass_action else -1
    if last == game.pass_action and (pb, pw) != (black, white):
        raise ValueError("the last action is a pass, but the board differs from the previous board")
    if last == -1 and (pb, pw) != (black, white):
        # Before the first action a previous board may still be given (``from_boards``): one
        # placement of the last mover away, as after any placement.
        added = (white & ~pw) if mover == WHITE else (black & ~pb)
        if added.bit_count() != 1:
            raise ValueError("the previous board is not one action of the last mover away from the board")
        point = added.bit_length() - 1
    if point < 0:
        if state.captured or state.ko_armed:
            raise ValueError(f"nothing was captured by the last action ({last}), but state.captured is "
                             f"{state.captured} and state.ko_armed {bool(state.ko_armed)}")
        return
    own, opp = (pb, pw) if mover == BLACK else (pw, pb)
    replay = place_bits(game, own, opp, point)
    after = (black, white) if mover == BLACK else (white, black)
    if isinstance(replay, str) or (replay[0], replay[1]) != after:
        why = replay if isinstance(replay, str) else "it does not give this board"
        raise ValueError(f"the last action {point} on the previous board is not this board ({why})")
    dead = replay[2]
    if state.captured != dead.bit_count() or bool(state.ko_armed) != (dead != 0):
        raise ValueError(f"the last action captured {dead.bit_count()} stone(s), but state.captured is "
                         f"{state.captured} and state.ko_armed {bool(state.ko_armed)}")


def _check_end(state: GoState, t: int, to_move: int) -> None:
    """``end`` and ``loser`` agree with the rest of the state."""
    game, end = state.game, state.end
    if (end == END_ILLEGAL) != (state.loser != 0) or state.loser not in (0, to_move):
        raise ValueError(f"state.loser must be the colour to move ({to_move}) after an illegal action "
                         f"and 0 otherwise; got loser {state.loser} with end {end!r}")
    at_limit = t >= game.max_actions
    if end != END_ILLEGAL and (end == END_MAX_ACTIONS) != at_limit:
        raise ValueError(f"a game ends by max_actions exactly at action {game.max_actions}; "
                         f"got end {end!r} at t={t}")
    if end == END_ILLEGAL and at_limit:
        raise ValueError(f"the game was already over at t={t} (the action limit); no action was refused")
    if end == END_DOUBLE_PASS and not (state.last_pass and t >= 2):
        raise ValueError("a game ends by double_pass only right after a pass")
    if end == END_PASS_ON_EMPTY_START and not (state.last_pass and t == 1):
        raise ValueError("a game ends by pass_on_empty_start only after a pass as the first action")


def render_ascii(state: GoState) -> str:
    """A readable board with coordinates (rows and columns 0..n-1)."""
    n = state.game.size
    board = to_board(state)
    sym = {EMPTY: ".", BLACK: "X", WHITE: "O"}
    lines = ["   " + " ".join(str(j) for j in range(n))]
    for i in range(n):
        lines.append(f"{i:2d} " + " ".join(sym[int(v)] for v in board[i]))
    b, w = scores(state)
    status = (f"over ({state.end})" if state.end else
              f"{'Black (X)' if state.to_move == BLACK else 'White (O)'} to move")
    lines.append(f"action {state.t}/{state.game.max_actions}, {status}; "
                 f"score X {b:g} : O {w:g}")
    return "\n".join(lines)


register_game(LittleGo, aliases=("go", "little-go", "little_go"))
