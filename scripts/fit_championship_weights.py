"""Fit the championship player's evaluation weights to exact final margins (least squares).

Positions with ``--lefts`` actions to go are drawn from recorded games (``tictacgo
arena ... --out FILE.json`` files, or any JSON whose ``games`` hold ``moves``),
each followed by 0 to 3 random legal actions so the search's side lines are
represented too; the exact solver labels each with its final margin (mover's
stones minus the opponent's, komi counted). The evaluation's terms are read
from the compiled evaluation itself (its value under a unit weight less its
value under none), and the weights are the least-squares fit of the margin
less the stone difference, in hundredths of a stone: the ``DEFAULT_WEIGHTS``
layout of ``tictacgo.baselines.exact.championship_search``. The weights printed
are fitted on every position; to report the method's error, a second fit on
three quarters of them is scored on the quarter held out (the error, and how
often its sign is the margin's).

    python scripts/fit_championship_weights.py --records a.json b.json --positions 3000 --seed 0
    python scripts/fit_championship_weights.py --load positions.npz    # refit saved positions
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass

import numpy as np

from tictacgo.baselines.exact import championship_search as S
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.games import littlego as go
from tictacgo.solver.search import Solver, actions_left, board_tables, kernel_position

NAMES = ("atari_own", "atari_opp", "two_libs", "libs", "eye", "tempo", "room", "reach")
COLUMNS = ["own", "opp", "black", "t", "left", "margin100", "base", *NAMES]


@dataclass
class Args:
    records: list[str] = setting([], "Game records: tictacgo arena --out files (JSON, games with moves).")
    positions: int = setting(3000, "Positions to label.")
    lefts: str = setting("10,11,12,13,14", "Comma-separated actions to go of the positions.")
    seed: int = setting(0, "Seeds the draw of games, positions and random actions.")
    nodes: int = setting(50_000_000, "The solver's positions a position at most (unproved: skipped).")
    table_bits: int = setting(24, "log2 of the solver's table entries.")
    save: str = setting("", "Write the positions, margins and terms to this .npz (empty: do not).")
    load: str = setting("", "Fit the positions a --save wrote instead of labelling new ones (empty: label).")


def game_moves(paths: list[str]) -> list[list[int]]:
    games = []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for g in data.get("games", []):
            moves = g.get("moves", g.get("record", {}).get("moves"))
            if moves:
                games.append([int(a) for a in moves])
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


def label(args: Args, rng: np.random.Generator) -> np.ndarray | None:
    """Positions drawn from the recorded games, each labelled by the solver: one row each, ``COLUMNS``."""
    games = game_moves(args.records)
    if not games:
        print("fit_championship_weights.py: error: no games with moves in the records", file=sys.stderr)
        return None
    lefts = [int(x) for x in args.lefts.split(",") if x.strip()]
    game = go.LittleGo(5)
    geo = board_tables(game.size, game.max_actions).geo
    komi100 = int(round(game.komi * S.SCALE))
    solver = Solver(args.table_bits)
    rows, seen, skipped, start = [], set(), 0, time.monotonic()
    while len(rows) < args.positions:
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
        result = solver.solve(state, budget_nodes=args.nodes, margin=True)
        if result.margin is None:
            skipped += 1
            continue
        pos = kernel_position(state)
        base, t = terms(pos, geo, komi100)
        margin100 = int(round(result.margin * S.SCALE))
        rows.append((pos.own, pos.opp, pos.black, pos.t, actions_left(state), margin100, base, *t))
        if len(rows) % 500 == 0:
            print(f"{len(rows)} positions labelled ({time.monotonic() - start:.0f} s)", flush=True)
    print(f"{len(rows)} positions labelled in {time.monotonic() - start:.0f} s; {skipped} not proved within "
          f"{args.nodes:,} positions, skipped")
    return np.array(rows, dtype=np.int64)


def load(path: str) -> np.ndarray | None:
    """The rows a ``--save`` wrote (plain arrays: nothing in the file is run)."""
    with np.load(path, allow_pickle=False) as z:
        rows, columns = z["rows"], [str(c) for c in z["columns"]]
    if columns != COLUMNS:
        print(f"fit_championship_weights.py: error: {path} has columns {columns}, expected {COLUMNS}",
              file=sys.stderr)
        return None
    return rows


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares weights, rounded to whole hundredths of a stone."""
    w, *_ = np.linalg.lstsq(x, y, rcond=None)
    return np.round(w)


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.splitlines()[0])
    rng = np.random.default_rng(args.seed)
    data = load(args.load) if args.load else label(args, rng)
    if data is None:
        return 1
    if args.save:
        np.savez(args.save, rows=data, columns=np.array(COLUMNS))
    margin, base, X = data[:, 5].astype(float), data[:, 6].astype(float), data[:, 7:].astype(float)
    weights = [int(x) for x in fit(X, margin - base)]
    order = np.random.default_rng(args.seed).permutation(len(data))
    train, test = order[:len(data) * 3 // 4], order[len(data) * 3 // 4:]
    for label_, vector in (("fitted", fit(X[train], margin[train] - base[train])),
                           ("shipped", np.array(S.DEFAULT_WEIGHTS, float)),
                           ("stones alone", np.zeros(len(weights)))):
        pred = base[test] + X[test] @ vector
        rmse = float(np.sqrt(np.mean((margin[test] - pred) ** 2)))
        sign = float(np.mean(np.sign(pred) == np.sign(margin[test])))
        print(f"{label_:13s} held-out error {rmse / S.SCALE:.2f} stones, sign right {sign:.1%}")
    print(f"{len(data)} positions; weights (fitted on all of them):", dict(zip(NAMES, weights, strict=True)))
    print("DEFAULT_WEIGHTS = " + repr(tuple(weights)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
