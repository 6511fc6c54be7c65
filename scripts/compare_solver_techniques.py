"""Positions searched with and without each of the solver's techniques, on the positions of a line.

The line is docs/solver.md's (the ``az`` agent playing itself on 5x5) unless
``--moves`` gives another. Each position with ``--lefts`` actions to go is
solved for the outcome from an empty table, on one core, once per
configuration: no static bounds, the action-cap bounds alone, and the bounds
with pass-alive chains (Benson's unconditional life). Every configuration
must find the same value (the script stops with an error otherwise).

    python scripts/compare_solver_techniques.py --lefts 12 13 14 15 16 --json runs/techniques.json
"""

from __future__ import annotations

import argparse
import sys
import time

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.games import littlego
from tictacgo.protocol.coords import course_to_action
from tictacgo.solver import Solver

LINE = ("2,2 3,3 2,3 1,3 2,4 2,1 3,1 1,1 1,2 3,0 3,2 0,2 1,4 0,3 4,1 0,1 4,0 4,2 4,3 2,0 0,4 3,4 4,4 1,0")
CONFIGS = {"none": {"bounds": False, "life": False}, "bounds": {"bounds": True, "life": False},
           "bounds+life": {"bounds": True, "life": True}}


def line_states(moves: str, n: int = 5) -> list[littlego.GoState]:
    game = littlego.LittleGo(n)
    states = [game.initial_state()]
    for word in moves.split():
        states.append(littlego.play(states[-1], course_to_action(word, n)))
    return states


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--moves", default=LINE, help="the line, 'row,col' moves from the empty 5x5 board")
    p.add_argument("--lefts", type=int, nargs="+", default=[12, 13, 14, 15, 16], help="actions to go")
    p.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    p.add_argument("--table-bits", type=int, default=24, help="log2 of the table's entries")
    p.add_argument("--json", default=None, help="write the figures here (after every search)")
    args = p.parse_args(argv)
    if args.json:
        check_writable(args.json)
    states = line_states(args.moves)
    Solver(8).solve(littlego.LittleGo(3).initial_state())  # compile outside the timings
    rows = []
    print(f"{'left':>4} {'config':>12} {'value':>6} {'positions':>14} {'seconds':>9} {'per second':>11}")
    for left in args.lefts:
        state = states[24 - left]
        values = set()
        for name in args.configs:
            t0 = time.perf_counter()
            r = Solver(args.table_bits, **CONFIGS[name]).solve(state)
            wall = time.perf_counter() - t0
            values.add(r.value)
            rows.append({"left": left, "config": name, "value_for_mover": r.value, "nodes": r.nodes,
                         "seconds": round(wall, 3), "nodes_per_second": round(r.nodes / wall)})
            print(f"{left:4d} {name:>12} {r.value:6d} {r.nodes:14,d} {wall:9.2f} {r.nodes / wall:11,.0f}",
                  flush=True)
            if args.json:
                atomic_write_json(args.json, {"moves": args.moves, "rows": rows}, indent=1)
        if len(values) != 1:
            print(f"error: the configurations disagree at {left} to go: {values}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
