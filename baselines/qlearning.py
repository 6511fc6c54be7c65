"""Tabular Q-learning for Tic-Tac-Toe by self-play.

The agent keeps one table of action values ``Q(s, a)`` for the player to
move, shared by X and O, and plays greedily from it (ties broken at random
with its generator; a state it has never seen gets a random legal move).

Learning (``train``): the table plays both sides against itself. At each
move it explores with probability ``epsilon`` (a uniformly random legal move)
and otherwise plays greedily; after the move it updates (the Q-learning tutorial's rule,
written for a two-player game where the next state belongs to the opponent):

    Q(s, a) <- Q(s, a) + alpha * (target - Q(s, a))
    target = r                              if the move ended the game
           = -gamma * max_a' Q(s', a')       otherwise (s' is the opponent's turn)

with ``r = 1`` for a winning move and ``0`` for a draw (the mover can't lose
on its own move). The opponent's best value counts against the mover, as
the tutorial's ``reward - discount * bestNextMove``; unseen states count 0.

Defaults and why: ``alpha = 0.75`` and ``gamma = 0.5`` are the Q-learning tutorial's
learning rate and discount (the game is deterministic, so a large step is
safe, and a small discount still orders a quick win above a slow one and
any loss below a draw). ``epsilon = 0.5`` is the tutorial's exploration
probability during self-play; a high rate keeps every reply an opponent
might play in the table. Rewards are +1 / 0 rather than the tutorial's 10 / 5 /
0: with one table for both sides the values must be zero-sum (a draw is
worth the same to both players). ``tictacgo train tictactoe --algo qlearning`` measures how
many games this needs to stop losing to the exact minimax.

Symmetry (the course homework's hint): the table is keyed by a canonical form of the
board under its 8 symmetries (rotations and reflections): the transform whose
(X bits, O bits) pair is smallest. An action is mapped through the same
transform; when the board is itself symmetric (its stabiliser has several
transforms) the action is mapped to the smallest of its images, so
equivalent moves (the four corners of the empty board) share one entry.
``train(..., symmetry=False)`` keys the table by the board as it is, as a
plain Q-learning table does, to measure what the symmetry saves.

File format (``save`` / ``load``): JSON, written atomically (a temporary file
in the same folder, then ``os.replace``):

    {"format": "tictacgo-qtable", "version": 1,
     "params": {"alpha": 0.75, "gamma": 0.5, "epsilon": 0.5, "symmetry": true},
     "games": 50000,
     "table": {"X...O....": [null, 0.0, ..., -0.125], ...}}

Keys are canonical boards (row-major, ``X``/``O``/``.``; the player to move
follows from the counts); values are 9 entries, a number for each canonical
action and ``null`` elsewhere. Never a pickle.

Registry: ``"qlearning:path=ttt_q.json"`` loads a table (a missing or bad
file is a clear error); plain ``"qlearning"`` plays the shipped table
(``baselines/models/tictactoe_qlearning.json``: 50,000 self-play games, seed 0,
never loses, checked over every line of play); ``"qlearning:path=none"`` is an
untrained agent, which plays random legal moves. On Little-Go the same entry
plays the table of ``tictacgo.baselines.qlearning_go`` (the shipped one
without ``path``).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tictacgo import reading
from tictacgo.agent import Agent
from tictacgo.atomic import atomic_write_json
from tictacgo.baselines.registry import register_agent
from tictacgo.games import tictactoe as ttt
from tictacgo.games.base import Game
from tictacgo.validate import check_int, check_number, check_path, check_probability

FORMAT = "tictacgo-qtable"
VERSION = 1
MAX_FILE_BYTES = 64 << 20  # the shipped table takes 46 kB; the reader refuses bigger files unread
DEFAULTS = {"alpha": 0.75, "gamma": 0.5, "epsilon": 0.5, "symmetry": True}
TIE_TOL = 1e-9


# The 8 symmetries of the 3x3 board as cell permutations ``p[old] = new``: the game's own
# (``TicTacToe.symmetries``). Keys take the smallest image, so they do not depend on the order.
SYMMETRIES = tuple(tuple(int(c) for c in row) for row in ttt.TicTacToe().symmetries())
# _BITMAPS[g][bits]: the 9-bit set ``bits`` moved by symmetry g.
_BITMAPS = tuple(
    tuple(sum(1 << p[c] for c in range(9) if (b >> c) & 1) for b in range(512)) for p in SYMMETRIES)


def transform_state(state: ttt.TTTState, g: int) -> ttt.TTTState:
    """``state`` moved by symmetry ``g`` (0..7); 0 is the identity."""
    m = _BITMAPS[g]
    return state._replace(x=m[state.x], o=m[state.o],
                          last_action=SYMMETRIES[g][state.last_action] if state.last_action >= 0 else -1)


def transform_action(action: int, g: int) -> int:
    """Cell ``action`` moved by symmetry ``g``."""
    return SYMMETRIES[g][action]


def canonical(state: ttt.TTTState) -> tuple[int, tuple[int, ...]]:
    """The canonical key of ``state`` and the symmetries that map it there.

    Returns:
        ``(key, syms)``: ``key = X' << 9 | O'`` for the smallest transformed
        pair, and every symmetry ``g`` reaching it (more than one when the
        board is symmetric).
    """
    x, o = state.x, state.o
    best = 1 << 18
    syms: list[int] = []
    for g, m in enumerate(_BITMAPS):
        k = m[x] << 9 | m[o]
        if k < best:
            best, syms = k, [g]
        elif k == best:
            syms.append(g)
    return best, tuple(syms)


def identity_key(state: ttt.TTTState) -> tuple[int, tuple[int, ...]]:
    """``canonical`` without symmetry: the board as it is (for the ablation ``symmetry=False``)."""
    return state.x << 9 | state.o, (0,)


def canonical_action(syms: tuple[int, ...], action: int) -> int:
    """The action's cell on the canonical board: the smallest image under ``syms``."""
    return min(SYMMETRIES[g][action] for g in syms)


def key_to_board(key: int) -> str:
    """A canonical key as a 9-character board string (``X``, ``O``, ``.``)."""
    x, o = key >> 9, key & 511
    return "".join("X" if (x >> c) & 1 else "O" if (o >> c) & 1 else "." for c in range(9))


def board_to_key(board: str) -> int:
    """The inverse of ``key_to_board`` (no validation)."""
    x = sum(1 << c for c, ch in enumerate(board) if ch == "X")
    o = sum(1 << c for c, ch in enumerate(board) if ch == "O")
    return x << 9 | o


def _new_row(state: ttt.TTTState, syms: tuple[int, ...]) -> list:
    """A fresh table row: 0.0 for each canonical action, None elsewhere."""
    row: list = [None] * 9
    for a in ttt.legal_actions(state):
        row[canonical_action(syms, a)] = 0.0
    return row


class QLearningAgent(Agent):
    """Greedy play from a Q-table (see the module docstring).

    Args:
        game: the Tic-Tac-Toe rules module.
        rng: generator for ties and unseen states.
        path: a table saved by ``save`` to load; None starts empty (random play).
    """

    name = "qlearning"
    games = ("tictactoe",)

    def __init__(self, game: Game | None = None, rng: np.random.Generator | None = None,
                 path: str | os.PathLike | None = None):
        super().__init__(game if game is not None else ttt.TicTacToe(), rng)
        self.table: dict[int, list] = {}
        self.params: dict = dict(DEFAULTS)
        self.games = 0
        if path is not None:
            self.table, self.params, self.games = load_table(path)

    @property
    def _key(self) -> Callable:
        return canonical if self.params.get("symmetry", True) else identity_key

    def __len__(self) -> int:
        return len(self.table)

    def q_values(self, state: ttt.TTTState) -> dict[int, float] | None:
        """Each legal action's value for the mover, or None for an unseen state."""
        key, syms = self._key(state)
        row = self.table.get(key)
        if row is None:
            return None
        return {a: row[canonical_action(syms, a)] for a in ttt.legal_actions(state)}

    def best_actions(self, state: ttt.TTTState) -> list[int]:
        """The greedy moves (all tied for the best value); every legal move for an unseen state."""
        q = self.q_values(state)
        if q is None:
            return ttt.legal_actions(state)
        best = max(q.values())
        return [a for a, v in q.items() if v >= best - TIE_TOL]

    def act(self, state: ttt.TTTState) -> int:
        if ttt.is_terminal(state):
            raise ValueError("act() called on a finished game")
        moves = self.best_actions(state)
        return moves[int(self.rng.integers(len(moves)))]

    def save(self, path: str | os.PathLike) -> Path:
        """Write the table as JSON, atomically. Returns the path."""
        data = {
            "format": FORMAT,
            "version": VERSION,
            "params": self.params,
            "games": self.games,
            "table": {key_to_board(k): row for k, row in sorted(self.table.items())},
        }
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return atomic_write_json(path, data, separators=(",", ":"))

    @classmethod
    def load(cls, path: str | os.PathLike, rng: np.random.Generator | None = None) -> QLearningAgent:
        """An agent playing from the table in ``path`` (see ``load_table`` for errors)."""
        return cls(ttt.TicTacToe(), rng=rng, path=path)


def load_table(path: str | os.PathLike) -> tuple[dict[int, list], dict, int]:
    """Read a Q-table file written by ``QLearningAgent.save``.

    Returns:
        ``(table, params, games)``.
    Raises:
        FileNotFoundError: no such file.
        ValueError: the file is not a valid tictacgo Q-table (the message names it).
    """
    path = Path(path)
    if not path.exists():  # a folder or a named pipe is refused by the reader, naming what it is
        raise FileNotFoundError(f"no Q-table file at {str(path)!r}; train one with "
                                f"tictacgo train tictactoe --algo qlearning --out {path}")

    def bad(why: str) -> ValueError:
        return ValueError(f"{str(path)!r} is not a valid {FORMAT} file: {why}")

    try:  # bounded: a regular file, its size, JSON's nesting and numbers (tictacgo.reading)
        data = reading.read_json(path, MAX_FILE_BYTES)
    except reading.NestingError as e:
        raise bad(f"not a Q-table: its JSON nests too deeply to read ({e})") from None
    except reading.ReadError as e:  # not a regular file, too large, not JSON, a number out of bounds
        raise bad(str(e)) from None
    except OSError as e:
        raise bad(f"cannot be read ({e.strerror or e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise bad(f"expected \"format\": \"{FORMAT}\", found {found!r}")
    if data.get("version") != VERSION:
        raise bad(f"unsupported version {data.get('version')!r} (this code reads version {VERSION})")
    params, games, table = data.get("params", {}), data.get("games", 0), data.get("table")
    if not isinstance(params, dict):
        raise bad("\"params\" must be an object")
    symmetry = params.get("symmetry", True)
    if not isinstance(symmetry, bool):
        raise bad(f"\"params\".\"symmetry\" must be true or false, got {symmetry!r}")
    keyfn = canonical if symmetry else identity_key
    if not isinstance(games, int) or isinstance(games, bool) or games < 0:
        raise bad(f"\"games\" must be a non-negative integer, got {games!r}")
    if not isinstance(table, dict):
        raise bad("\"table\" must be an object of board -> 9 values")
    out: dict[int, list] = {}
    for board, row in table.items():
        if not isinstance(board, str) or len(board) != 9 or set(board) - set("XO."):
            raise bad(f"table key {board!r} is not a 9-character board of X, O and .")
        try:
            state = ttt.from_board(board)
        except ValueError as e:
            raise bad(f"table key {board!r}: {e}") from None
        key, syms = keyfn(state)
        if ttt.is_terminal(state) or key != board_to_key(board):
            raise bad(f"table key {board!r} is not a canonical live position")
        if not isinstance(row, list) or len(row) != 9:
            raise bad(f"the row for {board!r} must be a list of 9 numbers or nulls")
        expected = {canonical_action(syms, a) for a in ttt.legal_actions(state)}
        for cell, v in enumerate(row):
            if cell in expected:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                    raise bad(f"the row for {board!r} needs a finite number at cell {cell}, got {v!r}")
            elif v is not None:
                raise bad(f"the row for {board!r} has a value at cell {cell}, which is not a move there")
        out[key] = [float(v) if v is not None else None for v in row]
    return out, params, games


def train(n_games: int, rng: np.random.Generator, *, alpha: float = DEFAULTS["alpha"],
          gamma: float = DEFAULTS["gamma"], epsilon: float = DEFAULTS["epsilon"],
          symmetry: bool = True, agent: QLearningAgent | None = None, progress: bool = True,
          every: int = 5000,
          callback: Callable[[int, QLearningAgent], bool | None] | None = None,
          log: Callable[[str], None] = print) -> QLearningAgent:
    """Train a Q-table by self-play (see the module docstring).

    Args:
        n_games: self-play games to play.
        rng: the generator for exploration and ties (training is reproducible from it).
        alpha: learning rate in (0, 1].
        gamma: discount in [0, 1].
        epsilon: exploration probability in [0, 1].
        symmetry: key the table by the canonical board under the 8 symmetries
            (False: by the board as it is, as a plain table does; for comparison).
        agent: continue training this agent's table (a new one if None).
        progress: print a line every ``every`` games.
        every: games between progress lines and ``callback`` calls.
        callback: ``f(games_done, agent)`` every ``every`` games; a true return stops training.
        log: where progress lines go.
    Returns:
        The agent (its ``games`` counts all games trained so far).
    """
    check_int("n_games", n_games, min=0)
    check_number("alpha", alpha, positive=True, max=1, expected="a finite number in (0, 1]")
    check_probability("gamma", gamma)
    check_probability("epsilon", epsilon)
    check_int("every", every, min=1)
    if agent is None:
        agent = QLearningAgent(ttt.TicTacToe(), rng=rng)
    if agent.table and agent.params.get("symmetry", True) != symmetry:
        raise ValueError(f"the agent's table was trained with symmetry={not symmetry}; "
                         f"continue it with the same setting")
    agent.params = {"alpha": alpha, "gamma": gamma, "epsilon": epsilon, "symmetry": symmetry}
    keyfn = canonical if symmetry else identity_key
    table = agent.table
    play, legal_actions = ttt.play, ttt.legal_actions
    random = rng.random
    integers = rng.integers
    start = time.perf_counter()
    in_callback = 0.0

    for i in range(1, n_games + 1):
        state = ttt.TicTacToe().initial_state()
        key, syms = keyfn(state)
        while True:
            row = table.get(key)
            if row is None:
                row = table[key] = _new_row(state, syms)
            moves = legal_actions(state)
            cmoves = [min(SYMMETRIES[g][a] for g in syms) for a in moves]
            if random() < epsilon:
                j = int(integers(len(moves)))
            else:
                qs = [row[c] for c in cmoves]
                best = max(qs)
                ties = [j for j, q in enumerate(qs) if q >= best - TIE_TOL]
                j = ties[int(integers(len(ties)))] if len(ties) > 1 else ties[0]
            c = cmoves[j]
            nxt = play(state, moves[j])
            if nxt.end is not None:
                target = 1.0 if nxt.winner else 0.0
                row[c] += alpha * (target - row[c])
                break
            key, syms = keyfn(nxt)
            nrow = table.get(key)
            best_next = max(v for v in nrow if v is not None) if nrow is not None else 0.0
            row[c] += alpha * (-gamma * best_next - row[c])
            state = nxt
        agent.games += 1
        if i % every == 0 or i == n_games:
            if progress:
                dt = time.perf_counter() - start - in_callback  # training time only
                log(f"games {i:>8,}/{n_games:,}  states {len(table):>6,}  "
                    f"{dt:6.1f}s  {i / max(dt, 1e-9):8,.0f} games/s")
            if callback is not None and i % every == 0:
                c0 = time.perf_counter()
                stop = callback(i, agent)
                in_callback += time.perf_counter() - c0
                if stop:
                    break
    return agent


def worst_result(agent: QLearningAgent, side: int, opponent: str = "any",
                 minimax: Agent | None = None) -> int:
    """The worst result the agent can get as ``side`` (1 X, 2 O): +1 win, 0 draw, -1 loss.

    Exhaustive, not sampled: the agent may play any of its tied greedy moves
    (any legal move in an unseen state), and the opponent any legal move
    (``opponent="any"``: a worst result of 0 or more means the agent plays
    perfectly) or any move the exact minimax rates best (``"minimax"``).

    Args:
        agent: the trained agent.
        side: which player the agent is.
        opponent: ``"any"`` or ``"minimax"``.
        minimax: a ``MinimaxAgent`` to reuse (its table speeds repeated calls).
    """
    if side not in (ttt.X, ttt.O):
        raise ValueError(f"side must be 1 (X) or 2 (O), got {side!r}")
    if opponent not in ("any", "minimax"):
        raise ValueError(f"opponent must be 'any' or 'minimax', got {opponent!r}")
    if opponent == "minimax" and minimax is None:
        from tictacgo.baselines.minimax import MinimaxAgent
        minimax = MinimaxAgent(ttt.TicTacToe())
    memo: dict = {}

    def opponent_moves(state):
        if opponent == "any":
            return ttt.legal_actions(state)
        values = minimax.action_values(state)
        best = max(values.values())
        return [a for a, v in values.items() if v >= best - 1e-12]

    def rec(state) -> int:
        if state.end is not None:
            return 0 if not state.winner else (1 if state.winner == side else -1)
        got = memo.get((state.x, state.o))
        if got is not None:
            return got
        if state.to_move == side:
            result = min(rec(ttt.play(state, a)) for a in agent.best_actions(state))
        else:
            result = min(rec(ttt.play(state, a)) for a in opponent_moves(state))
        memo[(state.x, state.o)] = result
        return result

    return rec(ttt.TicTacToe().initial_state())


#: The shipped Tic-Tac-Toe table (tictacgo train tictactoe --algo qlearning --games 50000 --seed 0).
SHIPPED_TABLE = Path(__file__).resolve().parent / "models" / "tictactoe_qlearning.json"


def _make(game, rng, path: str | None = str(SHIPPED_TABLE)):
    if path is not None:  # path= with nothing after it is a mistake, not the current folder
        path = check_path("path", path, "a Q-table file name")
    if not isinstance(game, ttt.TicTacToe):
        # Little-Go's table has its own keys and file (tictacgo.baselines.qlearning_go).
        from tictacgo.baselines.qlearning_go_file import make_go_agent

        return make_go_agent(game, rng, None if path == str(SHIPPED_TABLE) else path)
    if path is not None and not Path(path).exists():  # a folder or a pipe: the reader says what it is
        raise ValueError(f"no Q-table file at {path!r}; train one with "
                         f"tictacgo train tictactoe --algo qlearning --out {path}")
    return QLearningAgent(game, rng=rng, path=path)


register_agent("qlearning", _make, games=("tictactoe", "littlego"),
               description="tabular Q-learning; path=FILE loads a table saved by tictacgo train GAME --algo "
                           "qlearning. "
                           "Tic-Tac-Toe: the shipped self-play table (path=none: untrained). Little-Go: the "
                           "shipped afterstate table, each move valued by the board it leaves, in lookup "
                           "tables over every 3x3 window, row and column; a table of move patterns "
                           "(path=) plays the greedy rule where it knows none of the legal moves")
