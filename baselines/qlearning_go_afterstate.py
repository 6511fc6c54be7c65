"""Afterstate Q-learning for Little-Go (key scheme 3): Q(s, a) is the value of the board after a.

Moves are deterministic, so a move's value is the value of the position it
leaves, its *afterstate*: ``Q(s, a) = V(play(s, a))``. ``V`` is Black's
expected end reward (``qlearning_go.end_reward``: half the result, half the
clipped score margin), and is held in lookup tables, an *n-tuple network*:

    V(s) = phi(s) + sum over the tuples of table[class, phase, code of the tuple's cells in s]

* the **tuples**: every 3x3 window of the board and every row and column,
  each cell empty, Black or White (a window's code is one of 3^9); a tuple's
  *class* is its orbit under the board's 8 symmetries (on 5x5: corner, edge
  and centre windows; edge, second and middle lines), and every tuple is
  read in all 8 orientations of its class's first member, so all the
  orientations of a shape share one entry and the value is the same on
  the 8 images of a board (symmetric sampling);
* the **phase**: how many actions are left (at most 2, 3 to 6, 7 to 12,
  more) and who moves next, 8 in all;
* ``phi(s)``: the score margin's part of the end reward as the board stands
  (``qlearning_go.potential`` for Black), so the tables learn what the rest
  of the game will change, not the score so far. A finished game is worth
  its end reward exactly.

Black plays the move of highest ``V``, White the lowest; ties at random;
PASS only when no placement is legal, as the course's players do. A table
with no training plays uniformly at random among the placements.

**Learning** is Watkins's Q(lambda) on these values: after each game the
afterstates of all its moves (both players', the opponent's included: they
are positions like any other) are updated last to first toward

    target_T = the end reward;   target_t = lam * target_{t+1} + (1 - lam) * V(s_{t+1})

except that a move explored at random by the learner cuts the trace: the
target before it is the value of the greedy move it replaced (a max for
Black, a min for White), not where the random move led. Each entry a board
reads moves in proportion to how many times the board reads it (the
gradient of ``V``), scaled so that ``V`` moves by ``alpha * (target - V)``.

The table is saved in the Q-table file (``qlearning_go_file``) as key
``AFTERSTATE_FLAG | entry`` for each entry updated at least once, its
value and its update count (``params.keys = 3``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.qlearning_go import check_variant, end_reward, variant_of
from tictacgo.games import littlego
from tictacgo.games.littlego import BLACK, WHITE

AFTERSTATE_SCHEME = 3
AFTERSTATE_FLAG = 1 << 63       # a file key of scheme 3: this bit, then the entry's index
DEFAULTS = {"alpha": 0.3, "gamma": 1.0, "epsilon": 0.05, "lam": 0.5}
PHASES = 8                      # 4 spans of actions left, times who moves next
MAX_SIZE = 7                    # a board's points must fit an int64's bits
TIE_TOL = 1e-9
_CLOCK_EVERY = 16


# --- the tuples ------------------------------------------------------------------

@dataclass(frozen=True)
class TupleLayout:
    """The tuples of one board size: their cells in every orientation, and where their entries are."""

    size: int
    max_actions: int
    groups: tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], ...]
    # per tuple length k: (cells (m, k), powers of 3 (k,), first entry of each tuple's class (m,),
    # entries per phase of each tuple's class (m,))
    classes: tuple[tuple[int, ...], ...]   # each class's first member (cells in reading order)
    total: int                             # entries in all
    active: int                            # entries one board reads (tuples x orientations)

    @classmethod
    def of(cls, size: int, max_actions: int) -> TupleLayout:
        perms = [tuple(int(p) for p in row[:size * size]) for row in littlego.LittleGo(size).symmetries()]
        shapes = [[(i + di) * size + j + dj for di in (-1, 0, 1) for dj in (-1, 0, 1)]
                  for i in range(1, size - 1) for j in range(1, size - 1)]
        shapes += [[i * size + j for j in range(size)] for i in range(size)]
        shapes += [[i * size + j for i in range(size)] for j in range(size)]
        classes: list[tuple[int, ...]] = []
        seen: set[frozenset[int]] = set()
        for shape in shapes:
            if frozenset(shape) in seen:
                continue
            classes.append(tuple(shape))
            seen |= {frozenset(perm[c] for c in shape) for perm in perms}
        by_len: dict[int, list[tuple[tuple[int, ...], int, int]]] = {}
        start = 0
        for shape in classes:
            entries = 3 ** len(shape)
            images = list(dict.fromkeys(tuple(perm[c] for c in shape) for perm in perms))
            by_len.setdefault(len(shape), []).extend((img, start, entries) for img in images)
            start += entries * PHASES
        groups = tuple((np.array([c for c, _, _ in rows], dtype=np.int64),
                        3 ** np.arange(k, dtype=np.int64),
                        np.array([s for _, s, _ in rows], dtype=np.int64),
                        np.array([e for _, _, e in rows], dtype=np.int64))
                       for k, rows in sorted(by_len.items()))
        return cls(size, max_actions, groups, tuple(classes), start, sum(len(g[0]) for g in groups))

    def phase(self, t: int) -> int:
        """The phase of a position after ``t`` actions: the span of actions left, and who moves next."""
        left = self.max_actions - t
        span = 3 if left <= 2 else 2 if left <= 6 else 1 if left <= 12 else 0
        return 2 * span + t % 2

    def entries(self, states: list[littlego.GoState]) -> np.ndarray:
        """``(len(states), active)``: the entries each (live) state reads."""
        n = self.size * self.size
        shifts = np.arange(n, dtype=np.int64)
        black = (np.array([s.black for s in states], dtype=np.int64)[:, None] >> shifts) & 1
        white = (np.array([s.white for s in states], dtype=np.int64)[:, None] >> shifts) & 1
        cells = black + 2 * white
        phases = np.array([self.phase(s.t) for s in states], dtype=np.int64)[:, None]
        return np.concatenate([first + phases * per + cells[:, idx] @ powers
                               for idx, powers, first, per in self.groups], axis=1)


@cache
def tuple_layout(size: int, max_actions: int) -> TupleLayout:
    """The (cached) tuples of a variant."""
    return TupleLayout.of(size, max_actions)


def black_potential(state: littlego.GoState) -> float:
    """The score margin's part of Black's end reward, as the board stands (``qlearning_go.potential``)."""
    black, white = littlego.scores(state)
    return 0.5 * max(-1.0, min(1.0, (black - white) / 10.0))


# --- the table and the agent -----------------------------------------------------

@dataclass
class AfterstateTable:
    """The entries of the lookup tables, how often each was updated, and the training record."""

    weights: np.ndarray
    visits: np.ndarray
    meta: dict = field(default_factory=dict)

    @classmethod
    def empty(cls, game: littlego.LittleGo) -> AfterstateTable:
        """An untrained table for ``game``'s variant."""
        return cls.empty_for(variant_of(game))

    @classmethod
    def empty_for(cls, variant: dict) -> AfterstateTable:
        """An untrained table for a variant as a file records it (size, komi, max_actions)."""
        if not 2 <= int(variant["size"]) <= MAX_SIZE:
            raise ValueError(f"an afterstate table plays boards of 2x2 to {MAX_SIZE}x{MAX_SIZE}, "
                             f"not {variant['size']}x{variant['size']}")
        lay = tuple_layout(int(variant["size"]), int(variant["max_actions"]))
        return cls(np.zeros(lay.total, dtype=np.float32), np.zeros(lay.total, dtype=np.uint32),
                   {"variant": dict(variant), "params": {"keys": AFTERSTATE_SCHEME, "board_plies": 0}})

    def __len__(self) -> int:
        """The entries updated at least once (those a file keeps)."""
        return int(np.count_nonzero(self.visits))

    @property
    def key_scheme(self) -> int:
        return AFTERSTATE_SCHEME

    @property
    def board_plies(self) -> int:
        return 0

    def board_keys(self) -> int:
        return 0

    def layout(self) -> TupleLayout:
        v = self.meta["variant"]
        return tuple_layout(int(v["size"]), int(v["max_actions"]))


def values(table: AfterstateTable, states: list[littlego.GoState]) -> np.ndarray:
    """Black's value of each state: the end reward of a finished game, else ``phi`` plus the tables."""
    out = np.empty(len(states))
    live = [i for i, s in enumerate(states) if s.end is None]
    for i, s in enumerate(states):
        if s.end is not None:
            out[i] = end_reward(s, BLACK)
    if live:
        ls = [states[i] for i in live]
        sums = table.weights[table.layout().entries(ls)].sum(axis=1, dtype=np.float64)
        out[live] = sums + np.array([black_potential(s) for s in ls])
    return out


def candidate_moves(state: littlego.GoState) -> list[int]:
    """The placements; PASS only when none is legal (as the course's players)."""
    game = state.game
    moves = game.bits_to_list(littlego.legal_bits(state) & game.full)
    return moves or [game.pass_action]


def choose(table: AfterstateTable, state: littlego.GoState, rng: np.random.Generator,
           epsilon: float = 0.0) -> tuple[int, littlego.GoState, float | None]:
    """Pick a move: the best afterstate for the mover (Black's highest value, White's lowest), ties at
    random; with probability ``epsilon`` a uniformly random move instead.

    Returns:
        ``(action, afterstate, greedy)``: ``greedy`` is None for a greedy move, else (a random move)
        the value, for Black, of the greedy move it replaced.
    """
    moves = candidate_moves(state)
    afters = [littlego.play(state, a) for a in moves]
    vals = values(table, afters) if len(moves) > 1 else np.zeros(1)
    if state.to_move == WHITE:
        vals = -vals
    best = float(vals.max())
    if epsilon and rng.random() < epsilon:
        k = int(rng.integers(len(moves)))
        return moves[k], afters[k], (best if state.to_move == BLACK else -best)
    ties = np.flatnonzero(vals >= best - TIE_TOL)
    k = int(ties[int(rng.integers(len(ties)))]) if len(ties) > 1 else int(ties[0])
    return moves[k], afters[k], None


class AfterstateQAgent(Agent):
    """Greedy play from an afterstate Q-table (see the module docstring)."""

    name = "qlearning"
    games = ("littlego",)

    def __init__(self, game: littlego.LittleGo | None = None, rng: np.random.Generator | None = None,
                 table: AfterstateTable | None = None):
        super().__init__(game if game is not None else littlego.LittleGo(), rng)
        self.table = table if table is not None else AfterstateTable.empty(self.game)
        check_variant(self.table.meta.get("variant"), self.game)
        self.table_moves = 0     # every move is the table's (there is no fallback)
        self.fallback_moves = 0

    def act(self, state: littlego.GoState) -> int:
        if state.end is not None:
            raise ValueError("act() called on a finished game")
        self.table_moves += 1
        return choose(self.table, state, self.rng)[0]


# --- learning --------------------------------------------------------------------

def update(table: AfterstateTable, afters: list[littlego.GoState], greedy: list[float | None],
           reward: float, alpha: float, gamma: float, lam: float) -> None:
    """The end-of-game update of a game's afterstates, last first (Watkins's Q(lambda), see above).

    Args:
        table: updated in place.
        afters: the position after each move of the game, in order (the last is the finished game).
        greedy: per move, None, or for a move the learner explored, Black's value of the greedy move.
        reward: Black's end reward.
        alpha: the step of ``V`` toward its target.
        gamma: the discount of the next position's value.
        lam: the trace's decay.
    """
    live = [j for j, s in enumerate(afters) if s.end is None]
    if not live:
        return
    lay = table.layout()
    rows = lay.entries([afters[j] for j in live])
    phis = [black_potential(afters[j]) for j in live]
    w, visits = table.weights, table.visits
    target = reward   # the target of the position before the move that comes next
    nxt = len(afters) - 1
    for r in range(len(live) - 1, -1, -1):
        j = live[r]
        if greedy[nxt] is not None:          # the move after j was explored: cut the trace there
            target = greedy[nxt]
        entries, reads = np.unique(rows[r], return_counts=True)   # an entry can be read several times
        v = float(w[entries] @ reads) + phis[r]
        err = gamma * target - v
        # The step along V's gradient (the reads) that moves V by alpha * err exactly.
        w[entries] += np.float32(alpha * err / float(reads @ reads)) * reads
        visits[entries] += 1
        v += alpha * err
        target = lam * gamma * target + (1.0 - lam) * v
        nxt = j
    return


def play_training_game(table: AfterstateTable, game: littlego.LittleGo, opponent: Agent | None, colour: int,
                       rng: np.random.Generator, alpha: float, gamma: float, epsilon: float,
                       lam: float) -> int:
    """One training game, then the update; the learner plays ``colour`` (both if ``opponent`` is None).

    Returns:
        The winning colour (0 for a draw).
    """
    state = game.initial_state()
    afters: list[littlego.GoState] = []
    greedy: list[float | None] = []
    while state.end is None:
        if opponent is None or state.to_move == colour:
            _, state, g = choose(table, state, rng, epsilon)
        else:
            state, g = littlego.play(state, opponent.act(state)), None
        afters.append(state)
        greedy.append(g)
    update(table, afters, greedy, end_reward(state, BLACK), alpha, gamma, lam)
    return littlego.winner(state) or 0


def train(table: AfterstateTable, game: littlego.LittleGo, opponents: dict[str, tuple[Agent | None, float]],
          rng: np.random.Generator, *, episodes: int | None = None, max_seconds: float | None = None,
          alpha: float = DEFAULTS["alpha"], gamma: float = DEFAULTS["gamma"],
          epsilon: float = DEFAULTS["epsilon"], lam: float = DEFAULTS["lam"], black_share: float = 0.5,
          every: int = 1000, callback: Callable[[AfterstateTable], bool | None] | None = None,
          log: Callable[[str], None] = print) -> AfterstateTable:
    """Train ``table`` in place by games against a weighted mix of opponents (``qlearning_go.train``'s
    contract: ``episodes`` games or ``max_seconds`` of CPU time, ``callback`` every ``every`` games and
    at the end, the running totals in ``table.meta``)."""
    if episodes is None and max_seconds is None:
        raise ValueError("give episodes or max_seconds (or both)")
    if not 0 <= black_share <= 1:
        raise ValueError(f"black_share must be in [0, 1], got {black_share!r}")
    if not 0 <= lam <= 1 or not 0 < gamma <= 1 or not alpha > 0:
        raise ValueError(f"alpha must be > 0, gamma in (0, 1], lam in [0, 1]; got {alpha}, {gamma}, {lam}")
    if not opponents or any(not w > 0 or not math.isfinite(w) for _, w in opponents.values()):
        raise ValueError(f"opponents must be a non-empty mix with positive weights, got {opponents!r}")
    check_variant(table.meta.get("variant"), game)
    names = list(opponents)
    weights = np.array([opponents[n][1] for n in names], dtype=float)
    weights /= weights.sum()
    meta = table.meta
    meta.setdefault("games", 0)
    meta.setdefault("train_seconds", 0.0)
    meta["variant"] = variant_of(game)
    meta["params"] = {"alpha": alpha, "gamma": gamma, "epsilon": epsilon, "lam": lam, "board_plies": 0,
                      "black_share": black_share, "keys": AFTERSTATE_SCHEME}
    meta["opponents"] = {n: float(w) for n, (_, w) in opponents.items()}
    done = wins = 0
    trained, mark = 0.0, time.process_time()
    while (episodes is None or done < episodes) and (max_seconds is None or trained < max_seconds):
        name = names[int(rng.choice(len(names), p=weights))]
        colour = BLACK if rng.random() < black_share else WHITE
        w = play_training_game(table, game, opponents[name][0], colour, rng, alpha, gamma, epsilon, lam)
        wins += w == colour
        done += 1
        meta["games"] += 1
        if done % _CLOCK_EVERY == 0 or done % every == 0 or done == episodes:
            now = time.process_time()
            trained += now - mark
            meta["train_seconds"] = round(meta["train_seconds"] + now - mark, 3)
            mark = now
        if done % every == 0:
            log(f"games {meta['games']:>9,}  entries {len(table):>9,}  training {meta['train_seconds']:8.1f}s"
                f"  learner won {wins / every:.0%} of the last {every:,}")
            wins = 0
            if callback is not None and callback(table):
                return table
            mark = time.process_time()
    if callback is not None and done % every:
        callback(table)
    return table
