"""Tabular Q-learning for Little-Go: the course homework's second-stage Q-learning player.

The table maps keys of (state, move) pairs to action values. Its keys
(``tictacgo.baselines.qlearning_go_keys``) are of two kinds, both reduced by
the board's 8 symmetries: a *pattern key* for every move (the 3x3 window
around it and what the move captures, ataris and risks, with the phase and
the colour), which every position shares with many others, and a *board key*
(the whole board, canonical) for the opening, where positions do recur.

A move's value is its pattern value, or, when its board key has been seen,
the board value weighted by its visits and shrunk toward the pattern value
with the weight of ``BOARD_PRIOR`` visits::

    value = (n * Q(board key) + BOARD_PRIOR * Q(pattern key)) / (n + BOARD_PRIOR)

Learning (the homework's Q-learner: rewards at the end, ``alpha``,
``gamma``, exploration): the learner plays whole games against an opponent
(or itself), epsilon-greedily, and at the end of each game updates its
moves in reverse order, both keys of each move toward one target::

    Q(k) <- Q(k) + step * (target_t - Q(k))
    target = r (+1 win, -1 loss) after the last move, else gamma * max_a value(s_{t+1}, a)

where ``s_{t+1}`` is the learner's next turn (moves whose pattern key was
never seen are left out of the max; none seen counts 0) and
``step = max(alpha, 1 / visits)``: a key's first visits average its targets,
later ones move by ``alpha``.

Play: the move of highest value among the legal moves whose pattern keys the
table holds, ties at random. **A position where the table holds none of the
legal moves' keys is played by the greedy rule** (the course's greedy
opponent: the placement capturing the most stones, ties at random);
``table_moves`` and ``fallback_moves`` count which decided.

The file (``tictacgo.baselines.qlearning_go_file``) is an ``.npz`` without
pickles, written atomically.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.qlearning_go_keys import BOARD_FLAG, KEY_SCHEME, KEY_SCHEMES, action_keys
from tictacgo.games import littlego
from tictacgo.games.littlego import BLACK, WHITE

DEFAULTS = {"alpha": 0.02, "gamma": 0.9, "epsilon": 0.1, "board_plies": 12}
PATTERN_PRIOR = 0.0     # lost games a pattern key's value counts on top of its visits
BOARD_PRIOR = 8.0       # the pattern value's weight, in visits, against a board key's own
MAX_BOARD_KEYS = 1_500_000  # past this many board keys, training drops those seen once
TIE_TOL = 1e-9
MARGIN_SCALE = 10.0     # a final score margin this large counts fully in the reward
_CLOCK_EVERY = 16          # games between readings of the CPU clock

Keys = list[tuple[int, int, int]]  # action_keys(): (action, pattern key, board key or -1)


# --- the table and the agent ---------------------------------------------------

@dataclass
class QTable:
    """Action values by key, how often each key was updated, and the training record (``meta``)."""

    q: dict[int, float] = field(default_factory=dict)
    visits: dict[int, int] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.q)

    @property
    def board_plies(self) -> int:
        """The actions from the start that have board keys (the training parameter)."""
        return int(self.meta.get("params", {}).get("board_plies", DEFAULTS["board_plies"]))

    @property
    def key_scheme(self) -> int:
        """The pattern keys' scheme the table was trained with (``qlearning_go_keys.KEY_SCHEMES``)."""
        return int(self.meta.get("params", {}).get("keys", KEY_SCHEME))

    def board_keys(self) -> int:
        """How many board keys the table holds."""
        return sum(1 for k in self.q if k & BOARD_FLAG)

    def prune_boards(self, min_visits: int) -> int:
        """Drop the board keys updated fewer than ``min_visits`` times; returns how many went."""
        gone = [k for k in self.q if k & BOARD_FLAG and self.visits[k] < min_visits]
        for k in gone:
            del self.q[k], self.visits[k]
        return len(gone)


def move_values(table: QTable, keys: Keys) -> list[tuple[float, int, int, int]]:
    """``(value, action, pattern key, board key)`` of the moves whose pattern key the table holds."""
    q, visits = table.q, table.visits
    out = []
    for a, pk, bk in keys:
        qp = q.get(pk)
        if qp is None:
            continue
        if PATTERN_PRIOR:
            n = visits[pk]
            qp = (n * qp - PATTERN_PRIOR) / (n + PATTERN_PRIOR)
        if bk in q:
            n = visits[bk]
            qp = (n * q[bk] + BOARD_PRIOR * qp) / (n + BOARD_PRIOR)
        out.append((qp, a, pk, bk))
    return out


def greedy_rule(state: littlego.GoState, keys: Keys, rng: np.random.Generator) -> int:
    """The fallback: the placement capturing the most stones, ties at random; PASS if none is legal."""
    placements = [e for e in keys if e[0] != state.game.pass_action]
    if not placements:
        return state.game.pass_action
    caps = [pk >> 16 & 3 for _, pk, _ in placements]
    best = max(caps)
    moves = [a for (a, _, _), c in zip(placements, caps, strict=True) if c == best]
    return moves[int(rng.integers(len(moves)))]


def choose(table: QTable, state: littlego.GoState, keys: Keys, rng: np.random.Generator,
           epsilon: float = 0.0) -> tuple[int, int, int, bool]:
    """Pick a move: epsilon-greedy on the values of the moves the table knows.

    Returns:
        ``(action, pattern key, board key, by_table)``: ``by_table`` is False
        when the move was explored at random or played by the greedy rule.
    """
    if epsilon and rng.random() < epsilon:
        a, pk, bk = keys[int(rng.integers(len(keys)))]
        return a, pk, bk, False
    known = move_values(table, keys)
    if not known:
        a = greedy_rule(state, keys, rng)
        _, pk, bk = next(e for e in keys if e[0] == a)
        return a, pk, bk, False
    best = max(v for v, _, _, _ in known)
    ties = [e for e in known if e[0] >= best - TIE_TOL]
    _, a, pk, bk = ties[int(rng.integers(len(ties)))] if len(ties) > 1 else ties[0]
    return a, pk, bk, True


def state_value(table: QTable, keys: Keys) -> float:
    """The best value among the moves the table knows; 0 if it knows none."""
    return max((v for v, _, _, _ in move_values(table, keys)), default=0.0)


class QLearningGoAgent(Agent):
    """Greedy play from a Little-Go Q-table (see the module docstring).

    Args:
        game: a ``LittleGo`` game object; it must be the variant the table was trained on.
        rng: generator for ties and the greedy rule.
        table: the ``QTable`` to play from (empty: every move by the greedy rule).
    """

    name = "qlearning"
    games = ("littlego",)

    def __init__(self, game: littlego.LittleGo | None = None, rng: np.random.Generator | None = None,
                 table: QTable | None = None):
        super().__init__(game if game is not None else littlego.LittleGo(), rng)
        self.table = table if table is not None else QTable()
        check_variant(self.table.meta.get("variant"), self.game)
        self.table_moves = 0
        self.fallback_moves = 0

    def act(self, state: littlego.GoState) -> int:
        if state.end is not None:
            raise ValueError("act() called on a finished game")
        keys = action_keys(state, self.table.board_plies, self.table.key_scheme)
        a, _, _, by_table = choose(self.table, state, keys, self.rng)
        if by_table:
            self.table_moves += 1
        else:
            self.fallback_moves += 1
        return a


def variant_of(game: littlego.LittleGo) -> dict:
    """The variant a table is trained for, as saved in its file."""
    return {"size": game.size, "komi": float(game.komi), "max_actions": game.max_actions}


def check_variant(variant: dict | None, game: littlego.LittleGo) -> None:
    """Raise ValueError when a table trained for ``variant`` is played on another ``game``."""
    if variant is not None and variant != variant_of(game):
        raise ValueError(f"the Q-table was trained for Little-Go {variant}; this game is {variant_of(game)}")


# --- learning ------------------------------------------------------------------

def update(table: QTable, record: list[tuple[int, int, Keys, float]], reward: float,
           alpha: float, gamma: float) -> None:
    """The end-of-game Q-learning update of one player's moves, last move first.

    With the potential ``phi`` of each position (``potential``), the target of
    move t is ``gamma * (phi_{t+1} + max_a Q(s_{t+1}, a)) - phi_t``, and
    ``reward - phi_T`` for the last move (potential-based shaping with a
    potential of 0 at the end; with all ``phi = 0`` it is plain Q-learning).

    Args:
        table: updated in place.
        record: the player's moves in order, each ``(pattern key, board key
            or -1, the keys of every legal action then, the position's potential)``.
        reward: the player's end reward (``end_reward``).
        alpha: the step size once a key has ``1 / alpha`` visits (earlier: ``1 / visits``).
        gamma: the discount of the next turn's value.
    """
    q, visits = table.q, table.visits
    target = reward
    for pk, bk, keys, phi in reversed(record):
        for k in (pk, bk) if bk >= 0 else (pk,):
            n = visits.get(k, 0) + 1
            visits[k] = n
            old = q.get(k, 0.0)
            q[k] = old + max(alpha, 1.0 / n) * (target - phi - old)
        target = gamma * (phi + state_value(table, keys))


def potential(state: littlego.GoState, colour: int) -> float:
    """The shaping potential of ``state`` for ``colour``: ``end_reward``'s margin part, were the game over."""
    black, white = littlego.scores(state)
    margin = (black - white) if colour == BLACK else (white - black)
    return 0.5 * max(-1.0, min(1.0, margin / MARGIN_SCALE))


def play_training_game(table: QTable, game: littlego.LittleGo, opponent: Agent | None, colour: int,
                       rng: np.random.Generator, alpha: float, gamma: float, epsilon: float,
                       board_plies: int, scheme: int = KEY_SCHEME) -> int:
    """One training game, then the update; the learner plays ``colour`` (both if ``opponent`` is None).

    Returns:
        The winning colour (0 for a draw).
    """
    state = game.initial_state()
    learners = (BLACK, WHITE) if opponent is None else (colour,)
    records: dict[int, list] = {c: [] for c in learners}
    play = littlego.play
    while state.end is None:
        c = state.to_move
        if c in records:
            keys = action_keys(state, board_plies, scheme)
            a, pk, bk, _ = choose(table, state, keys, rng, epsilon)
            records[c].append((pk, bk, keys, potential(state, c)))
        else:
            a = opponent.act(state)
        state = play(state, a)
    for c, record in records.items():
        update(table, record, end_reward(state, c), alpha, gamma)
    return littlego.winner(state) or 0


def end_reward(state: littlego.GoState, colour: int) -> float:
    """``colour``'s reward for a finished game: half the result (+1, 0, -1), half the score margin.

    The margin (stones, komi to White) counts ``margin / MARGIN_SCALE``,
    clipped to [-1, 1]: a lost game still tells a move that lost by little
    from one that lost by much. Black loses most games early in training
    (it must capture to beat the komi), and a result alone gives all its
    moves nearly the same value.
    """
    w = littlego.winner(state) or 0
    black, white = littlego.scores(state)
    margin = (black - white) if colour == BLACK else (white - black)
    result = 0.0 if not w else 1.0 if w == colour else -1.0
    return 0.5 * result + 0.5 * max(-1.0, min(1.0, margin / MARGIN_SCALE))


def train(table: QTable, game: littlego.LittleGo, opponents: dict[str, tuple[Agent | None, float]],
          rng: np.random.Generator, *, episodes: int | None = None, max_seconds: float | None = None,
          alpha: float = DEFAULTS["alpha"], gamma: float = DEFAULTS["gamma"],
          epsilon: float = DEFAULTS["epsilon"], board_plies: int = DEFAULTS["board_plies"],
          black_share: float = 0.5, keys: int | None = None, every: int = 1000,
          callback: Callable[[QTable], bool | None] | None = None,
          log: Callable[[str], None] = print) -> QTable:
    """Train ``table`` in place by games against a weighted mix of opponents.

    Args:
        table: the table to train (empty, or loaded to resume); its ``meta``
            keeps the running totals (``games``, ``train_seconds``: CPU seconds) and the params.
        game: the Little-Go variant.
        opponents: name -> (agent, weight); agent None means the table plays itself.
        rng: exploration, ties, the opponent draw and the learner's colour.
        episodes: games to play (None: until ``max_seconds``).
        max_seconds: CPU seconds of training in this call (callbacks excluded) after
            which to stop; CPU time, since a shared machine stretches wall time.
        alpha: the step size once a key has ``1 / alpha`` visits.
        gamma: the discount of the next turn's value.
        epsilon: the exploration rate (a uniformly random move).
        board_plies: the actions from the start that get board keys (a resumed
            table must keep its value).
        black_share: the share of games against an opponent in which the learner plays Black.
        keys: the pattern keys' scheme (``qlearning_go_keys.KEY_SCHEMES``; None: a resumed
            table's own, else ``KEY_SCHEME``).
        every: games between progress lines and ``callback`` calls.
        callback: ``f(table)`` every ``every`` games and at the end; a true return stops.
        log: where progress lines go.
    Returns:
        ``table``.
    """
    if episodes is None and max_seconds is None:
        raise ValueError("give episodes or max_seconds (or both)")
    if not 0 <= black_share <= 1:
        raise ValueError(f"black_share must be in [0, 1], got {black_share!r}")
    if not opponents or any(not w > 0 or not math.isfinite(w) for _, w in opponents.values()):
        raise ValueError(f"opponents must be a non-empty mix with positive weights, got {opponents!r}")
    if table.q and table.board_plies != board_plies:
        raise ValueError(f"the table was trained with board_plies={table.board_plies}; "
                         f"continue it with the same value, not {board_plies}")
    check_variant(table.meta.get("variant"), game)
    names = list(opponents)
    weights = np.array([opponents[n][1] for n in names], dtype=float)
    weights /= weights.sum()
    meta = table.meta
    meta.setdefault("games", 0)
    meta.setdefault("train_seconds", 0.0)
    meta["variant"] = variant_of(game)
    scheme = table.key_scheme if table.q else keys if keys is not None else KEY_SCHEME
    if keys is not None and keys != scheme:
        raise ValueError(f"the table was trained with key scheme {scheme}; "
                         f"continue it with the same, not {keys}")
    if scheme not in KEY_SCHEMES:
        raise ValueError(f"keys must be one of {KEY_SCHEMES}, got {scheme!r}")
    meta["params"] = {"alpha": alpha, "gamma": gamma, "epsilon": epsilon, "board_plies": board_plies,
                      "black_share": black_share, "keys": scheme}
    meta["opponents"] = {n: float(w) for n, (_, w) in opponents.items()}
    done = wins = 0
    trained, mark = 0.0, time.process_time()
    while (episodes is None or done < episodes) and (max_seconds is None or trained < max_seconds):
        name = names[int(rng.choice(len(names), p=weights))]
        colour = BLACK if rng.random() < black_share else WHITE
        w = play_training_game(table, game, opponents[name][0], colour, rng, alpha, gamma, epsilon,
                               board_plies, scheme)
        wins += w == colour
        done += 1
        meta["games"] += 1
        if done % _CLOCK_EVERY == 0 or done % every == 0 or done == episodes:
            # The CPU clock is a slow system call on some machines: read it every few games.
            now = time.process_time()
            trained += now - mark
            meta["train_seconds"] = round(meta["train_seconds"] + now - mark, 3)
            mark = now
        if done % every == 0:
            if table.board_keys() > MAX_BOARD_KEYS:
                log(f"dropped {table.prune_boards(2):,} board keys seen once")
            log(f"games {meta['games']:>9,}  keys {len(table):>9,}  training {meta['train_seconds']:8.1f}s  "
                f"learner won {wins / every:.0%} of the last {every:,}")
            wins = 0
            if callback is not None and callback(table):
                return table
            mark = time.process_time()
    if callback is not None and done % every:
        callback(table)
    return table


def evaluate(table, game: littlego.LittleGo, opponents: dict[str, Agent], games_per_colour: int,
             rng: np.random.Generator, agent_class: type[Agent] | None = None) -> dict:
    """Win rates of greedy play from ``table`` against each opponent, by colour.

    Args:
        agent_class: the agent that plays the table (``QLearningGoAgent`` by default; an afterstate
            table's is ``qlearning_go_afterstate.AfterstateQAgent``).
    Returns:
        ``{name: {"black": rate, "white": rate}, "table_moves": fraction of
        the learner's moves the table decided}``.
    """
    from tictacgo.game_loop import play_wdl

    agent = (agent_class or QLearningGoAgent)(game, rng=rng, table=table)
    out: dict = {}
    for name, opponent in opponents.items():
        out[name] = {side: play_wdl(game, agent, opponent, games_per_colour, colour=c)[0] / games_per_colour
                     for side, c in (("black", BLACK), ("white", WHITE))}
    moves = agent.table_moves + agent.fallback_moves
    out["table_moves"] = agent.table_moves / moves if moves else 0.0
    return out


