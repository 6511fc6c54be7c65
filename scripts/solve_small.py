"""The value of Little-Go from the empty board, solved exactly, on small boards.

Each board is the course's game at its own size: ``n*n - 1`` actions, komi
``n / 2``. For each size the script proves the outcome (who wins with
perfect play) and the exact margin (Black's stones minus White's minus komi),
then the value of every first move, and lists the first moves that keep the
game's value (and its margin). It prints the time, positions searched,
positions per second and the table's hit rate of each search.

On sizes where the search does not finish within ``--time-limit`` seconds
(5x5 on a small machine) it reports the answer as unknown with what the
search covered: positions and time.

With ``--komi-table`` it solves the empty board for each komi from 0 to
``n + 1`` in steps of 0.5 instead (each board keeps its own action limit;
integer komi allows draws): the value for Black of each, one search each
from an empty table, checked against the margin with no komi (Black's best
stone difference ``D``: with komi ``k`` Black wins when ``D > k``, draws when
``D == k``). The fair komi is ``D``: the game is then a draw.

    python scripts/solve_small.py                       # 3x3 and 4x4
    python scripts/solve_small.py --komi-table          # the value of 3x3 and 4x4 for each komi
    python scripts/solve_small.py --sizes 5 --time-limit 7200 --no-moves --json 5x5.json
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.games import littlego
from tictacgo.protocol.coords import action_to_course
from tictacgo.solver import Solver, SolveResult


def new_game(n: int) -> littlego.GoState:
    """The empty board of the course's game at size ``n`` (its own limit and komi)."""
    return littlego.LittleGo(n).initial_state()


def describe(r: SolveResult) -> dict:
    return {"value": r.value, "margin": r.margin, "best_move": r.best_move, "nodes": r.nodes,
            "seconds": round(r.seconds, 3), "nodes_per_second": round(r.nodes_per_second),
            "hit_rate": round(r.hit_rate, 4)}


def solve_size(n: int, time_limit: float | None, moves: bool, table_bits: int) -> dict:
    """Solve the empty ``n x n`` board; a dict of what was proved and what it cost."""
    state = new_game(n)
    solver = Solver(table_bits)
    out: dict = {"size": n, "komi": state.game.komi, "max_actions": state.game.max_actions}
    wall = time.perf_counter()
    outcome = solver.solve(state, time_limit=time_limit)
    out["outcome"] = describe(outcome)
    print(f"{n}x{n}: outcome {fmt(outcome.value)} for Black, {outcome.nodes:,} positions in "
          f"{outcome.seconds:.2f} s ({outcome.nodes_per_second:,.0f}/s, hit rate {outcome.hit_rate:.2f})",
          flush=True)
    if outcome.value is None:
        out["wall_seconds"] = round(time.perf_counter() - wall, 3)
        return out
    exact = solver.solve(state, time_limit=time_limit, margin=True)
    out["margin"] = describe(exact)
    print(f"{n}x{n}: margin {exact.margin} for Black, {exact.nodes:,} positions in {exact.seconds:.2f} s "
          f"({exact.nodes_per_second:,.0f}/s, hit rate {exact.hit_rate:.2f})", flush=True)
    if moves and exact.value is not None:
        values = solver.move_values(state, time_limit=time_limit, margin=True)
        out["first_moves"] = {action_to_course(a, n): describe(r) for a, r in values.items()}
        keep_value = [a for a, r in values.items() if r.value == outcome.value]
        keep_margin = [a for a, r in values.items() if r.margin == exact.margin]
        out["moves_keeping_value"] = [action_to_course(a, n) for a in keep_value]
        out["moves_keeping_margin"] = [action_to_course(a, n) for a in keep_margin]
        print(f"{n}x{n}: first moves (row,col) and Black's margin after each:")
        for i in range(n):
            row = []
            for j in range(n):
                m = values[i * n + j].margin if i * n + j in values else None
                row.append(f"{m:+6.1f}" if m is not None else "     ?")
            print("   " + " ".join(row))
        p = values[n * n].margin
        print(f"   PASS: {p:+.1f}" if p is not None else "   PASS: ?")
        print(f"{n}x{n}: moves keeping the value ({fmt(outcome.value)}): "
              f"{' '.join(out['moves_keeping_value'])}; keeping the margin ({exact.margin}): "
              f"{' '.join(out['moves_keeping_margin'])}", flush=True)
    out["wall_seconds"] = round(time.perf_counter() - wall, 3)
    return out


def komi_table(n: int, time_limit: float | None, table_bits: int) -> dict:
    """The value for Black of the empty ``n x n`` board for each komi in 0, 0.5, ..., n + 1."""
    d = Solver(table_bits).solve(littlego.LittleGo(n, 0).initial_state(), time_limit=time_limit, margin=True)
    out: dict = {"size": n, "max_actions": n * n - 1, "best_stone_difference": d.margin, "rows": []}
    print(f"{n}x{n}: Black's best stone difference (komi 0): {d.margin} ({d.nodes:,} positions, "
          f"{d.seconds:.2f} s)", flush=True)
    print("| komi | value for Black | positions | seconds |\n|---|---|---|---|")
    for k in [x / 2 for x in range(0, 2 * n + 3)]:
        r = Solver(table_bits).solve(littlego.LittleGo(n, k).initial_state(), time_limit=time_limit)
        predicted = None if d.margin is None else (1 if d.margin > k else 0 if d.margin == k else -1)
        if r.value is not None and predicted is not None and r.value != predicted:
            raise RuntimeError(f"{n}x{n} komi {k}: the search says {r.value}, the margin {d.margin} says "
                               f"{predicted}")
        out["rows"].append({"komi": k, **describe(r)})
        print(f"| {k:g} | {fmt(r.value)} | {r.nodes:,} | {r.seconds:.2f} |", flush=True)
    return out


def fmt(value: int | None) -> str:
    return {1: "win", 0: "draw", -1: "loss", None: "unknown"}[value]


@dataclass
class Args:
    sizes: list[int] = setting([3, 4], "Board sizes (2..7).")
    time_limit: float | None = setting(None, "Seconds for each search.", default_text="none")
    moves: bool = setting(True, "Solve the values of the first moves (--no-moves skips them).")
    table_bits: int = setting(22, "Log2 of the table's entries.")
    komi_table: bool = setting(False, "The value of the empty board for each komi from 0 to n + 1 (steps of "
                               "0.5).")
    json: str | None = setting(None, "Write the results to this JSON file.")


def main(argv: list[str] | None = None) -> None:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    if args.json:
        check_writable(args.json)
    Solver(8).solve(new_game(2))  # load the compiled search first, so that no timing includes it
    wall = time.perf_counter()
    if args.komi_table:
        results = [komi_table(n, args.time_limit, args.table_bits) for n in args.sizes]
        print(f"wall time {time.perf_counter() - wall:.1f} s")
    else:
        results = [solve_size(n, args.time_limit, args.moves, args.table_bits) for n in args.sizes]
    if args.json:
        atomic_write_json(args.json, results, indent=1)


if __name__ == "__main__":
    main()
