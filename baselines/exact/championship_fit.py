"""Fitting the championship player's evaluation weights to exact final margins (least squares).

Positions with a few actions to go are drawn from recorded games, each
followed by 0 to 3 random legal actions so the search's side lines are
represented too; the exact solver labels each with its final margin (mover's
stones minus the opponent's, komi counted). The evaluation is linear in its
weights, so each weight's term is read from the compiled evaluation itself
(its value under a unit weight less its value under none), and the weights
are the least-squares fit of the margin less the stone difference, in
hundredths of a stone: the ``DEFAULT_WEIGHTS`` layout of
``championship_search``. ``scripts/fit_championship_weights.py`` is the
command around it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from tictacgo.baselines.exact import championship_search as S
from tictacgo.games import littlego as go
from tictacgo.reading import ReadError, read_json, shown
from tictacgo.solver.search import Solver, actions_left, board_tables, kernel_position

NAMES = ("atari_own", "atari_opp", "two_libs", "libs", "eye", "tempo", "room", "reach")
COLUMNS = ["own", "opp", "black", "t", "left", "margin100", "base", *NAMES]


#: The largest game-records file read (a 100,000-game arena match is about 60 MB).
MAX_RECORDS_BYTES = 256 << 20


def game_moves(paths: list[str]) -> list[list[int]]:
    """The moves of every game in JSON records (``games``, each with ``moves`` or ``record.moves``).

    Read with the package's bounded reader (``tictacgo.reading.read_json``).

    Raises:
        ValueError: a file that is not such JSON, or a move that is not an action number; the
            message names the file.
    """
    games = []
    for path in paths:
        try:
            data = read_json(path, MAX_RECORDS_BYTES)
        except (ReadError, OSError) as e:
            raise ValueError(f"{path}: {getattr(e, 'strerror', None) or e}") from None
        listed = data.get("games", []) if isinstance(data, dict) else None
        if not isinstance(listed, list):
            raise ValueError(f"{path}: expected a JSON object whose 'games' is a list of games")
        for i, g in enumerate(listed):
            record = g.get("record") if isinstance(g, dict) else None
            moves = g.get("moves", record.get("moves") if isinstance(record, dict) else None) \
                if isinstance(g, dict) else None
            if not moves:
                continue
            if not isinstance(moves, list) or not all(type(a) is int for a in moves):
                raise ValueError(f"{path}: game {i}'s moves must be a list of action numbers, got "
                                 f"{shown(moves)}")
            games.append(moves)
    return games


def terms(pos, geo, komi100: int) -> tuple[int, list[int]]:
    """The stone difference with komi (the evaluation under no weight) and each weight's term."""
    zero = np.zeros(len(S.DEFAULT_WEIGHTS), np.int64)
    base = int(S.evaluate(pos.own, pos.opp, pos.black, pos.t, komi100, geo, zero))
    out = []
    for i in range(len(zero)):
        unit = zero.copy()
        unit[i] = 1
        out.append(int(S.evaluate(pos.own, pos.opp, pos.black, pos.t, komi100, geo, unit)) - base)
    return base, out


def label(games: list[list[int]], positions: int, lefts: list[int], rng: np.random.Generator,
          nodes: int, table_bits: int, report: Callable[[str], None] = print) -> np.ndarray:
    """``positions`` positions drawn from ``games``, each labelled by the solver: one row each, ``COLUMNS``.

    A position the solver does not prove within ``nodes`` positions is skipped (and counted in the report).
    """
    if not games:
        raise ValueError("no games with moves to draw positions from")
    game = go.LittleGo(5)
    geo = board_tables(game.size, game.max_actions).geo
    komi100 = int(round(game.komi * S.SCALE))
    solver = Solver(table_bits)
    rows, seen, skipped, start = [], set(), 0, time.monotonic()
    while len(rows) < positions:
        moves = games[int(rng.integers(len(games)))]
        left, extra = int(rng.choice(lefts)), int(rng.integers(0, 4))
        state = game.initial_state()
        for a in moves[:max(0, game.max_actions - left - extra)]:
            state = go.play(state, a)
        for _ in range(extra):
            if game.is_terminal(state):
                break
            state = go.play(state, int(rng.choice(go.legal_actions(state))))
        key = (state.black, state.white, state.t, state.to_move)
        if game.is_terminal(state) or key in seen:
            continue
        seen.add(key)
        result = solver.solve(state, budget_nodes=nodes, margin=True)
        if result.margin is None:
            skipped += 1
            continue
        pos = kernel_position(state)
        base, t = terms(pos, geo, komi100)
        margin100 = int(round(result.margin * S.SCALE))
        rows.append((pos.own, pos.opp, pos.black, pos.t, actions_left(state), margin100, base, *t))
        if len(rows) % 500 == 0:
            report(f"{len(rows)} positions labelled ({time.monotonic() - start:.0f} s)")
    report(f"{len(rows)} positions labelled in {time.monotonic() - start:.0f} s; {skipped} not proved within "
           f"{nodes:,} positions, skipped")
    return np.array(rows, dtype=np.int64)


def save(path: str, rows: np.ndarray) -> None:
    np.savez(path, rows=rows, columns=np.array(COLUMNS))


def load(path: str) -> np.ndarray:
    """The rows a ``save`` wrote (plain arrays: nothing in the file is run)."""
    with np.load(path, allow_pickle=False) as z:
        rows, columns = z["rows"], [str(c) for c in z["columns"]]
    if columns != COLUMNS:
        raise ValueError(f"{path} has columns {columns}, expected {COLUMNS}")
    return rows


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares weights, rounded to whole hundredths of a stone."""
    w, *_ = np.linalg.lstsq(x, y, rcond=None)
    return np.round(w)


def fit_rows(rows: np.ndarray) -> tuple[int, ...]:
    """The weights fitted on every row."""
    margin, base, x = rows[:, 5].astype(float), rows[:, 6].astype(float), rows[:, 7:].astype(float)
    return tuple(int(v) for v in fit(x, margin - base))


def held_out(rows: np.ndarray, seed: int) -> list[tuple[str, float, float]]:
    """The method's error: a fit on three quarters of the rows scored on the rest, beside the shipped
    weights and the stone difference alone; (name, root-mean-square error in stones, sign right)."""
    margin, base, x = rows[:, 5].astype(float), rows[:, 6].astype(float), rows[:, 7:].astype(float)
    order = np.random.default_rng(seed).permutation(len(rows))
    train, test = order[:len(rows) * 3 // 4], order[len(rows) * 3 // 4:]
    out = []
    for name, vector in (("fitted", fit(x[train], margin[train] - base[train])),
                         ("shipped", np.array(S.DEFAULT_WEIGHTS, float)),
                         ("stones alone", np.zeros(x.shape[1]))):
        pred = base[test] + x[test] @ vector
        rmse = float(np.sqrt(np.mean((margin[test] - pred) ** 2)))
        out.append((name, rmse / S.SCALE, float(np.mean(np.sign(pred) == np.sign(margin[test])))))
    return out
