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
that is stopped keeps what it proved.

    python scripts/solve_frontier.py --budget 7200 --json frontier.json       # 5x5, two hours
    python scripts/solve_frontier.py --size 3 --line random --budget 10       # the whole 3x3 game
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.games import littlego
from tictacgo.protocol.coords import action_to_course, course_to_action
from tictacgo.solver import Solver, SolveResult


def parse_moves(text: str, n: int) -> list[int]:
    """Actions from text such as ``"2,2 1,2 PASS"`` (row,column points, PASS).

    Raises:
        ValueError: a move that is not ``row,col`` on the board or PASS.
    """
    out = []
    for word in text.replace(";", " ").split():
        if word.upper() == "PASS":
            out.append(n * n)
            continue
        out.append(course_to_action(word, n))
    return out


def line_from_moves(game: littlego.LittleGo, actions: list[int]) -> list[littlego.GoState]:
    """The states of a line given as actions, from the empty board (the last may be finished).

    Raises:
        ValueError: an illegal move, or moves after the end of the game.
    """
    states = [game.initial_state()]
    for k, a in enumerate(actions):
        s = states[-1]
        if s.end is not None:
            raise ValueError(f"move {k + 1} ({action_to_course(a, game.size)}) comes after the game's end")
        if a not in littlego.legal_actions(s):
            raise ValueError(f"move {k + 1} ({action_to_course(a, game.size)}) is illegal in that position")
        states.append(littlego.play(s, a))
    return states


def line_from_agent(
    game: littlego.LittleGo, spec: str, seed: int
) -> tuple[list[littlego.GoState], list[int]]:
    """The states and actions of one game the agent ``spec`` plays against itself from the empty board."""
    from tictacgo.baselines import make_agent

    agent = make_agent(spec, game, rng=np.random.default_rng(seed))
    agent.reset()
    states, actions = [game.initial_state()], []
    while states[-1].end is None:
        actions.append(int(agent.act(states[-1])))
        states.append(littlego.play(states[-1], actions[-1]))
    return states, actions


def row(state: littlego.GoState, r: SolveResult, next_action: int | None) -> dict:
    """One proved (or unknown) position of the line, Black's view."""
    black = state.to_move == littlego.BLACK
    value = None if r.value is None else (r.value if black else -r.value)
    n = state.game.size
    return {
        "taken": state.t,
        "left": state.game.max_actions - state.t,
        "mover": "Black" if black else "White",
        "value_for_black": value,
        "best_move": None if r.best_move is None else action_to_course(r.best_move, n),
        "line_move": None if next_action is None else action_to_course(next_action, n),
        "nodes": r.nodes,
        "seconds": round(r.seconds, 3),
        "nodes_per_second": round(r.nodes_per_second),
        "hit_rate": round(r.hit_rate, 4),
    }


def fmt_value(v: int | None) -> str:
    return {1: "Black wins", -1: "White wins", 0: "draw", None: "unknown"}[v]


def solve_line(
    states: list[littlego.GoState],
    actions: list[int],
    start_left: int,
    budget: float,
    reserve: float,
    all_moves: bool,
    table_bits: int,
    report=None,
) -> dict:
    """Solve the line backward from ``start_left`` actions to go (see the module docstring)."""
    game = states[0].game
    live = [k for k, s in enumerate(states) if s.end is None]
    first = min(max(game.max_actions - start_left, 0), live[-1])
    solver = Solver(table_bits)
    deadline = time.perf_counter() + budget
    out: dict = {
        "size": game.size,
        "komi": game.komi,
        "max_actions": game.max_actions,
        "line": [action_to_course(a, game.size) for a in actions],
        "budget_seconds": budget,
        "table_bits": table_bits,
        "positions": [],
        "deepest": None,
        "value_for_black": None,
        "moves_at_deepest": None,
    }
    for k in range(first, -1, -1):
        left = deadline - time.perf_counter() - (reserve if all_moves and k > 0 else 0.0)
        if left <= 0:
            break
        r = solver.solve(states[k], time_limit=left)
        entry = row(states[k], r, actions[k] if k < len(actions) else None)
        later = out["positions"][-1] if out["positions"] else None
        entry["line_move_keeps_value"] = (
            None if later is None or r.value is None else later["value_for_black"] == entry["value_for_black"]
        )
        out["positions"].append(entry)
        if report:
            report(out)
        if r.value is None:
            break
        out["deepest"] = k
        out["value_for_black"] = entry["value_for_black"]
    d = out["deepest"]
    if all_moves and d is not None:
        left = deadline - time.perf_counter()
        if left > 0:
            values = solver.move_values(states[d], time_limit=left)
            black = states[d].to_move == littlego.BLACK
            out["moves_at_deepest"] = {
                action_to_course(a, game.size): {
                    "value_for_black": None if r.value is None else (r.value if black else -r.value),
                    "nodes": r.nodes,
                    "seconds": round(r.seconds, 3),
                }
                for a, r in values.items()
            }
            if report:
                report(out)
    return out


def print_summary(out: dict) -> None:
    n = out["size"]
    print(f"{n}x{n} (limit {out['max_actions']} actions, komi {out['komi']}), line: {' '.join(out['line'])}")
    print(
        f"{'taken':>5} {'left':>4} {'mover':>5}  {'value':<11} {'line move':>9} {'keeps':>5} "
        f"{'positions':>14} {'seconds':>9} {'per second':>11} {'hit rate':>8}"
    )
    for e in out["positions"]:
        keeps = {True: "yes", False: "no", None: "-"}[e["line_move_keeps_value"]]
        print(
            f"{e['taken']:5d} {e['left']:4d} {e['mover']:>5}  {fmt_value(e['value_for_black']):<11} "
            f"{e['line_move'] or '-':>9} {keeps:>5} {e['nodes']:14,d} {e['seconds']:9.2f} "
            f"{e['nodes_per_second']:11,d} {e['hit_rate']:8.2f}"
        )
    d = out["deepest"]
    if d is None:
        print("no position of the line was proved within the budget")
        return
    print(
        f"deepest proved: after {d} actions ({out['max_actions'] - d} to go): "
        f"{fmt_value(out['value_for_black'])}"
    )
    moves = out["moves_at_deepest"]
    if moves:
        known = {m: v for m, v in moves.items() if v["value_for_black"] is not None}
        print(f"every legal move there ({len(known)} of {len(moves)} proved):")
        for m, v in moves.items():
            print(
                f"  {m:>5}: {fmt_value(v['value_for_black']):<11} {v['nodes']:14,d} positions "
                f"{v['seconds']:9.2f} s"
            )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=5, help="board size (the course's game at that size)")
    p.add_argument("--line", default="az", help="agent spec that plays the line against itself (default: az)")
    p.add_argument(
        "--moves", default=None, help="the line as moves instead: 'row,col' or PASS, space-separated"
    )
    p.add_argument("--seed", type=int, default=0, help="seeds the line's agent")
    p.add_argument("--start-left", type=int, default=12, help="actions to go at the first position solved")
    p.add_argument("--budget", type=float, default=7200.0, help="seconds for the whole run")
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
    p.add_argument("--json", default=None, help="write the results here (after every search)")
    args = p.parse_args(argv)
    if not 2 <= args.size <= 7:
        p.error(f"--size must be 2..7, got {args.size}")
    if args.budget <= 0 or args.start_left < 1:
        p.error(
            f"--budget must be positive and --start-left at least 1, got {args.budget} and {args.start_left}"
        )
    if args.json:
        check_writable(args.json)
    game = littlego.LittleGo(args.size)
    if args.moves is not None:
        try:
            actions = parse_moves(args.moves, args.size)
            states = line_from_moves(game, actions)
        except ValueError as e:
            p.error(str(e))
    else:
        print(f"playing the line: {args.line} against itself, seed {args.seed}", flush=True)
        states, actions = line_from_agent(game, args.line, args.seed)
    reserve = args.budget / 5 if args.reserve is None else args.reserve
    Solver(8).solve(
        littlego.LittleGo(3).initial_state(), time_limit=60
    )  # compile first, so that no timing includes it
    load = os.getloadavg()[0]
    print(
        f"solving backward from {args.start_left} actions to go, budget {args.budget:.0f} s "
        f"(load average {load:.2f})",
        flush=True,
    )

    shown = [0]

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

    out = solve_line(
        states, actions, args.start_left, args.budget, reserve, not args.no_all_moves, args.table_bits, report
    )
    if args.json:
        atomic_write_json(args.json, {**out, "load_average_at_start": load}, indent=1)
    print_summary(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
