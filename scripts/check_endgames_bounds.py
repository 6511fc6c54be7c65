"""The endgame benchmark solved with and without the solver's static bounds: the same values everywhere.

Every position of tests/data/littlego_endgames.npz (10,000 5x5 positions
with at most 10 actions to go, each with its exact value and the moves that
keep it) is solved twice on one core, from a table cleared before each: with
the static bounds and pass-alive chains (the default) and without them. The
script checks that both find the stored value and that each best move is one
of the stored optimal moves, and prints the positions searched and the time
of each configuration; it exits 1 on the first disagreement.

    python scripts/check_endgames_bounds.py                # all 10,000
    python scripts/check_endgames_bounds.py --every 10     # every tenth
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.solver import Solver
from tictacgo.solver.endgames import load_endgames

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "littlego_endgames.npz"


@dataclass
class Args:
    file: str = setting(str(DATA), "The benchmark file.", default_text="tests/data/littlego_endgames.npz")
    every: int = setting(1, "Take every k-th position.")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    endgames, _ = load_endgames(args.file)
    endgames = endgames[:: args.every]
    solvers = {"bounds+life": Solver(16), "no bounds": Solver(16, bounds=False)}
    nodes = dict.fromkeys(solvers, 0)
    seconds = dict.fromkeys(solvers, 0.0)
    for i, e in enumerate(endgames):
        for name, solver in solvers.items():
            solver.clear()
            t0 = time.perf_counter()
            r = solver.solve(e.state)
            seconds[name] += time.perf_counter() - t0
            nodes[name] += r.nodes
            if r.value != e.value or r.best_move not in e.optimal:
                print(f"position {i * args.every}: {name} found value {r.value}, move {r.best_move}; stored "
                      f"value {e.value}, optimal moves {sorted(e.optimal)}", file=sys.stderr)
                return 1
        if (i + 1) % 1000 == 0:
            print(f"  {i + 1}/{len(endgames)} agree", file=sys.stderr, flush=True)
    print(f"{len(endgames)} positions: every value and best move agrees with the benchmark")
    for name in solvers:
        print(f"  {name:>12}: {nodes[name]:12,d} positions, {seconds[name]:7.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
