"""How fast the exact solver proves 5x5 endgames: medians over positions from seeded games.

Positions come from seeded games between registry agents (by default MCTS
against the greedy course opponent, each colour), taken with exactly 10 and
14 actions to go (the hardest positions of "at most 10" and "at most 14").
Each is solved from an empty table, on one core, for the outcome (or the
exact margin with ``--margin``). Per number of actions left the script
prints how many were proved, the median and largest time, the share proved
within the target (1 s at 10 left, 60 s at 14 left), and the medians of
positions per second and of the table's hit rate.

    python scripts/bench_solver.py                          # 10 games a colour
    python scripts/bench_solver.py --games 25 --lefts 10 12 14 --json bench.json
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import asdict, dataclass

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.sampling import sample_positions
from tictacgo.solver import Solver

TARGETS = {10: 1.0, 14: 60.0}  # seconds: the solver's targets at that many actions left


@dataclass
class Args:
    games: int = setting(10, "Games per pairing.")
    lefts: list[int] = setting([10, 14], "Actions to go.")
    pairings: list[str] = setting(["mcts:sims=400/greedy", "greedy/mcts:sims=400"],
                                  "BLACK/WHITE agent specs of the games the positions come from.")
    seed: int = setting(0, "Seeds the games.")
    time_limit: float = setting(120.0, "Seconds per position.")
    margin: bool = setting(False, "Solve for the exact margin.")
    table_bits: int = setting(22, "Log2 of the table's entries.")
    json: str | None = setting(None, "Write every position's figures to this JSON file.")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    if args.json:
        check_writable(args.json)
    pairings = []
    for p in args.pairings:
        black, slash, white = p.partition("/")
        if not slash:
            print(f"bench_solver.py: error: a pairing is BLACK/WHITE, got {p!r}", file=sys.stderr)
            return 2
        pairings.append((black, white))
    start = time.perf_counter()
    sample = sample_positions(pairings, tuple(args.lefts), args.games, args.seed)
    print(f"{len(sample)} positions from {args.games * len(pairings)} games in "
          f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    Solver(8).solve(sample[0].state, budget_nodes=10)  # load the compiled search outside the timings
    rows = []
    for k, pos in enumerate(sample, 1):
        r = Solver(args.table_bits).solve(pos.state, time_limit=args.time_limit, margin=args.margin)
        rows.append({"left": pos.left, "black": pos.black, "white": pos.white, "game": pos.game,
                     "value": r.value, "margin": r.margin, "seconds": r.seconds, "nodes": r.nodes,
                     "nodes_per_second": r.nodes_per_second, "hit_rate": r.hit_rate})
        print(f"  {k}/{len(sample)}: {pos.left} left, {r.seconds:.3f} s, {r.nodes:,} positions, "
              f"value {r.value}", file=sys.stderr, flush=True)
    print(f"{'left':>4} {'n':>4} {'proved':>6} {'median s':>9} {'max s':>8} {'within':>12} "
          f"{'median pos/s':>12} {'hit rate':>8}")
    for left in args.lefts:
        sel = [r for r in rows if r["left"] == left]
        if not sel:
            continue
        proved = [r for r in sel if r["value"] is not None]
        times = [r["seconds"] for r in sel]
        target = TARGETS.get(left)
        within = (f"{sum(r['seconds'] <= target for r in proved)}/{len(sel)} <={target:g}s"
                  if target else "")
        print(f"{left:4d} {len(sel):4d} {len(proved):6d} {statistics.median(times):9.3f} {max(times):8.2f} "
              f"{within:>12} {statistics.median(r['nodes_per_second'] for r in sel):12,.0f} "
              f"{statistics.median(r['hit_rate'] for r in sel):8.3f}")
    if args.json:
        atomic_write_json(args.json, {"args": asdict(args), "positions": rows}, indent=1)


if __name__ == "__main__":
    sys.exit(main())
