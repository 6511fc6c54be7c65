"""How far the exact solver gets toward the value of the empty Little-Go board, within a time budget.

A line of play from the empty board (an agent playing both sides, the
AlphaZero agent ``az`` by default, or moves given with ``--moves``) is solved
backward: first its position with ``--start-left`` actions to go, then the
position one action earlier, and so on toward the empty board. One
``Solver`` keeps its table between the searches, so each search starts from
what the later ones proved. The backward pass stops at the first search that
runs out of time (each may use all of the budget left, less a reserve) or at
the empty board. The earliest position of the line whose value is proved is
the deepest proved position; with the reserve, the script then proves the
value of every legal move there (``--no-all-moves`` skips it), which proves a
whole set of positions one action later.

For each position it reports the actions taken and left, the mover, the
value for Black (win or loss; outcome only, not the margin), the line's
next move and whether that move keeps the value, and what the search cost:
positions searched, seconds, positions a second and the table's hit rate.
Results go to ``--json`` after every search (written atomically), so a run
that is stopped keeps what it proved; ``--checkpoint`` keeps the whole run
(table and search in progress included) for ``--resume``. The work is
``tictacgo.evaluation.frontier``; this script is its command line.

    python scripts/solve_frontier.py --budget 7200 --json frontier.json       # 5x5, two hours
    python scripts/solve_frontier.py --size 3 --line random --budget 10       # the whole 3x3 game
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.evaluation.frontier import (
    FrontierRun,
    Progress,
    line_from_agent,
    line_from_moves,
    parse_moves,
    print_summary,
)
from tictacgo.games import littlego
from tictacgo.proof.combine import fmt_value
from tictacgo.solver import Solver


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=5, help="board size (the course's game at that size)")
    p.add_argument("--line", default="az", help="agent spec that plays the line against itself (default: az)")
    p.add_argument(
        "--moves", default=None, help="the line as moves instead: 'row,col' or PASS, space-separated"
    )
    p.add_argument("--opening", default=None,
                   help="the line's first moves ('row,col' or PASS, space-separated); --line plays on "
                        "from there to the end")
    p.add_argument("--seed", type=int, default=0, help="seeds the line's agent")
    p.add_argument("--start-left", type=int, default=12, help="actions to go at the first position solved")
    p.add_argument("--end-left", type=int, default=None,
                   help="stop the backward pass at this many actions to go (default: the empty board; "
                        "with --resume: the saved run's)")
    p.add_argument("--budget", type=float, default=7200.0,
                   help="seconds for the whole run (over every session of a resumed run)")
    p.add_argument(
        "--reserve",
        type=float,
        default=None,
        help="seconds kept for the moves at the deepest position (default: a fifth of the budget)",
    )
    p.add_argument(
        "--no-all-moves", action="store_true", help="do not solve every move at the deepest position"
    )
    p.add_argument("--table-bits", type=int, default=24, help="log2 of the table's entries (13 bytes each)")
    p.add_argument("--no-bounds", action="store_true", help="search without the static bounds")
    p.add_argument("--no-life", action="store_true", help="bounds without pass-alive chains")
    p.add_argument("--line-first", action="store_true",
                   help="at each line position whose successor on the line is proved, try the line's "
                        "move first (its proof is then a table hit)")
    p.add_argument("--hint-depth", type=int, default=0,
                   help="try the shipped AlphaZero network's move first at every position within this "
                        "many actions of each position solved (0: no hints; see "
                        "scripts/compare_solver_techniques.py --hint-depths)")
    p.add_argument("--json", default=None, help="write the results here (after every search)")
    p.add_argument("--checkpoint", default=None,
                   help="keep the whole run in this file (.npz: results, table, the search in progress), "
                        "written atomically every --every seconds and when stopped (Ctrl-C, SIGTERM)")
    p.add_argument("--every", type=float, default=600.0, help="seconds between two checkpoints")
    p.add_argument("--resume", action="store_true",
                   help="go on with the run in --checkpoint (its line and settings; --budget may be raised)")
    p.add_argument("--progress", type=float, default=60.0,
                   help="seconds between two progress lines on stderr")
    args = p.parse_args(argv)
    if not 2 <= args.size <= 7:
        p.error(f"--size must be 2..7, got {args.size}")
    if args.hint_depth < 0:
        p.error(f"--hint-depth must be 0 or more, got {args.hint_depth}")
    if args.budget <= 0 or args.start_left < 1:
        p.error(
            f"--budget must be positive and --start-left at least 1, got {args.budget} and {args.start_left}"
        )
    if args.opening is not None and args.moves is not None:
        p.error("give either --moves (the whole line) or --opening (its first moves), not both")
    if args.resume and not args.checkpoint:
        p.error("--resume needs --checkpoint FILE (the run to go on with)")
    for path in (args.json, args.checkpoint):
        if path:
            check_writable(path)
    if args.resume:
        try:
            run = FrontierRun.load(args.checkpoint)
        except (OSError, ValueError, KeyError) as e:
            p.error(f"cannot resume from {args.checkpoint}: {e}")
        if args.end_left is not None:
            run.extend_to(args.end_left)
        print(f"resuming {args.checkpoint}: {run.elapsed:,.0f} s spent, {len(run.out['positions'])} "
              f"positions done, now {run.phase}", flush=True)
    else:
        game = littlego.LittleGo(args.size)
        if args.moves is not None:
            try:
                actions = parse_moves(args.moves, args.size)
                states = line_from_moves(game, actions)
            except ValueError as e:
                p.error(str(e))
        else:
            try:
                opening = parse_moves(args.opening or "", args.size)
                print(f"playing the line: {args.line} against itself, seed {args.seed}"
                      + (f", after {args.opening}" if opening else ""), flush=True)
                states, actions = line_from_agent(game, args.line, args.seed, opening)
            except ValueError as e:
                p.error(f"--opening {args.opening!r}: {e}")
        run = FrontierRun(states, actions, args.start_left, not args.no_all_moves, args.table_bits,
                          bounds=not args.no_bounds, life=not args.no_life, end_left=args.end_left,
                          hint_depth=args.hint_depth, line_first=args.line_first)
    run.out["budget_seconds"] = args.budget
    reserve = args.budget / 5 if args.reserve is None else args.reserve
    Solver(8).solve(
        littlego.LittleGo(3).initial_state(), time_limit=60
    )  # compile first, so that no timing includes it
    load = os.getloadavg()[0]
    print(
        f"solving backward from {run.out['start_left']} actions to go, budget {args.budget:.0f} s "
        f"(load average {load:.2f})",
        flush=True,
    )

    shown = [len(run.out["positions"])]

    def report(out: dict) -> None:
        if len(out["positions"]) > shown[0]:
            shown[0] = len(out["positions"])
            e = out["positions"][-1]
            print(
                f"  after {e['taken']:2d} actions ({e['left']:2d} to go, {e['mover']} to move): "
                f"{fmt_value(e['value_for_black'])}, {e['nodes']:,} positions in {e['seconds']:.1f} s",
                flush=True,
            )
        if args.json:
            atomic_write_json(args.json, {**out, "load_average_at_start": load}, indent=1)

    stopping = []

    def on_signal(signum, frame):
        stopping.append(signum)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}

    def checkpoint(r: FrontierRun) -> None:
        if args.checkpoint:
            t0 = time.perf_counter()
            r.save(args.checkpoint)
            print(f"[{time.strftime('%H:%M:%S')}] checkpoint written to {args.checkpoint} "
                  f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)

    try:
        how = run.run(args.budget, reserve, report, stop=lambda: bool(stopping), checkpoint=checkpoint,
                      every=args.every, progress=Progress(args.progress))
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if args.checkpoint:
        checkpoint(run)
    if args.json:
        atomic_write_json(args.json, {**run.out, "load_average_at_start": load}, indent=1)
    if how == "stopped":
        print(f"stopped; everything is kept in {args.checkpoint or '(no --checkpoint: nothing kept)'}"
              + (f"; go on with --checkpoint {args.checkpoint} --resume" if args.checkpoint else ""),
              file=sys.stderr, flush=True)
        return 130
    print_summary(run.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
