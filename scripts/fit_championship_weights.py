"""Fit the championship player's evaluation weights to exact final margins (least squares).

The logic is ``tictacgo.baselines.exact.championship_fit``; this is its command.

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

import sys
from dataclasses import dataclass

import numpy as np

from tictacgo.baselines.exact import championship_fit as F
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options


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


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.splitlines()[0])
    try:
        if args.load:
            rows = F.load(args.load)
        else:
            lefts = [int(x) for x in args.lefts.split(",") if x.strip()]
            rng = np.random.default_rng(args.seed)
            games = F.game_moves(args.records)
            rows = F.label(games, args.positions, lefts, rng, args.nodes, args.table_bits,
                           report=lambda line: print(line, flush=True))
    except ValueError as e:
        print(f"fit_championship_weights.py: error: {e}", file=sys.stderr)
        return 1
    if args.save:
        F.save(args.save, rows)
    weights = F.fit_rows(rows)
    for name, rmse, sign in F.held_out(rows, args.seed):
        print(f"{name:13s} held-out error {rmse:.2f} stones, sign right {sign:.1%}")
    print(f"{len(rows)} positions; weights (fitted on all of them):",
          dict(zip(F.NAMES, weights, strict=True)))
    print("DEFAULT_WEIGHTS = " + repr(weights))
    return 0


if __name__ == "__main__":
    sys.exit(main())
