"""Positions searched with and without each of the solver's techniques, on the positions of a line.

The line is docs/solver.md's (the ``az`` agent playing itself on 5x5) unless
``--moves`` gives another. Each position with ``--lefts`` actions to go is
solved for the outcome from an empty table, on one core, once per
configuration: no static bounds, the action-cap bounds alone, the bounds
with pass-alive chains (Benson's unconditional life). With ``--pns-weights``,
proof-number search (df-pn, ``tictacgo.solver.pns``) with the same bounds
and life in place of the alpha-beta, new leaves' numbers shaped by the
stone count with each weight (0: plain df-pn). With ``--hint-depths``,
the bounds and life again with the shipped AlphaZero network's move as the
first one tried at every position within that many actions
(``tictacgo.evaluation.solver_hints``; the hints' own time is printed apart). Every
configuration must find the same value (the script stops with an error
otherwise).

    python scripts/compare_solver_techniques.py --lefts 12 13 14 15 16 --json runs/techniques.json
    python scripts/compare_solver_techniques.py --lefts 14 15 16 17 --configs bounds+life --hint-depths 2 3
    python scripts/compare_solver_techniques.py --lefts 12 13 14 --configs bounds+life --pns-weights 0 8
"""

from __future__ import annotations

import argparse
import sys
import time

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.evaluation.solver_hints import network_best_moves, policy_hints
from tictacgo.games import littlego
from tictacgo.protocol.coords import course_to_action
from tictacgo.solver import Solver
from tictacgo.solver.pns import pns_solve

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
    p.add_argument("--configs", nargs="*", default=list(CONFIGS), choices=list(CONFIGS),
                   help="the alpha-beta searches to run (default: all; --configs alone: none)")
    p.add_argument("--hint-depths", type=int, nargs="*", default=[],
                   help="also solve with the network's hints to these depths (bounds and life on)")
    p.add_argument("--table-bits", type=int, default=24, help="log2 of the table's entries")
    p.add_argument("--pns-weights", type=int, nargs="*", default=[],
                   help="also solve with df-pn (bounds and life on), the stone count's weight in new leaves")
    p.add_argument("--epsilon", type=float, default=0.25, help="df-pn's 1 + epsilon trick")
    p.add_argument("--json", default=None, help="write the figures here (after every search)")
    args = p.parse_args(argv)
    if args.json:
        check_writable(args.json)
    states = line_states(args.moves)
    Solver(8).solve(littlego.LittleGo(3).initial_state())  # compile outside the timings
    if args.pns_weights:
        pns_solve(littlego.LittleGo(3).initial_state(), table_bits=8)
    rows = []
    best_moves = network_best_moves() if args.hint_depths else None
    print(f"{'left':>4} {'config':>12} {'value':>6} {'positions':>14} {'seconds':>9} {'per second':>11}")
    for left in args.lefts:
        state = states[24 - left]
        values = set()
        runs = [(name, CONFIGS[name], None) for name in args.configs]
        runs += [(f"hints{d}", CONFIGS["bounds+life"], d) for d in args.hint_depths]
        runs += [(f"pns{w}", None, w) for w in args.pns_weights]
        for name, config, depth in runs:
            extra, text = {}, ""
            if config is None:
                t0 = time.perf_counter()
                r = pns_solve(state, table_bits=args.table_bits, epsilon=args.epsilon, weight=depth)
                wall = time.perf_counter() - t0
                extra = {"expanded": r.expanded, "epsilon": args.epsilon, "weight": depth}
            else:
                solver = Solver(args.table_bits, **config)
                hinted, hint_seconds = 0, 0.0
                if depth is not None:
                    t0 = time.perf_counter()
                    hinted = policy_hints(solver, state, depth, best_moves)
                    hint_seconds = time.perf_counter() - t0
                    text = f"  (hints: {hinted:,} positions in {hint_seconds:.1f} s)"
                t0 = time.perf_counter()
                r = solver.solve(state)
                wall = time.perf_counter() - t0
                extra = {"hinted_positions": hinted, "hint_seconds": round(hint_seconds, 3)}
            values.add(r.value)
            rows.append({"left": left, "config": name, "value_for_mover": r.value, "nodes": r.nodes,
                         "seconds": round(wall, 3), "nodes_per_second": round(r.nodes / wall), **extra})
            print(f"{left:4d} {name:>12} {r.value:6d} {r.nodes:14,d} {wall:9.2f} "
                  f"{r.nodes / wall:11,.0f}{text}", flush=True)
            if args.json:
                atomic_write_json(args.json, {"moves": args.moves, "rows": rows}, indent=1)
        if len(values) != 1:
            print(f"error: the configurations disagree at {left} to go: {values}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
