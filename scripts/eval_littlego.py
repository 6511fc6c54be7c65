"""Little-Go ladder evaluation: MCTS against the course opponents, and a cross table.

Plays each pairing with colours alternating (game i: the first agent is Black
when i is even), every agent seeded from ``--seed`` and the game index, and
prints wins/draws/losses with the win rate and its 95% Wilson interval. Then
(unless ``--no-cross``) a full cross table of the ladder: random, greedy,
aggressive, alphabeta and mcts, each cell the row agent's win rate against
the column agent.

The targets for MCTS at <= 1 s per move: >= 99% against random,
>= 95% against greedy, >= 90% against aggressive, >= 80% against alphabeta.

    python scripts/eval_littlego.py --games 100 --mcts-time 1.0
    python scripts/eval_littlego.py --games 20 --mcts-time 0.2 --cross-games 10
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time

import numpy as np

from tictacgo import arena
from tictacgo.arena.stats import wilson_interval
from tictacgo.baselines import make_agent
from tictacgo.games import littlego

LADDER = ("random", "greedy", "aggressive", "alphabeta")


def play_task(task: tuple[str, str, str, str, int, int]) -> tuple[str, str, int, int]:
    """Play one game; ``task`` = (key_a, key_b, spec_a, spec_b, game index, seed).

    Returns:
        (key_a, key_b, index, result for A: 1 win, 0 draw, -1 loss).
    """
    key_a, key_b, spec_a, spec_b, i, seed = task
    a = make_agent(spec_a, "littlego", rng=np.random.default_rng([seed, i, 0]))
    b = make_agent(spec_b, "littlego", rng=np.random.default_rng([seed, i, 1]))
    a_colour = littlego.BLACK if i % 2 == 0 else littlego.WHITE
    first, second = (a, b) if a_colour == littlego.BLACK else (b, a)
    w = arena.play_game(littlego.LittleGo(), first, second).winner
    return key_a, key_b, i, (0 if w == 0 else 1 if w == a_colour else -1)


def run_pairings(pairings: list[tuple[str, str, str, str]], games: int, seed: int,
                 workers: int) -> dict[tuple[str, str], list[int]]:
    """Play ``games`` games for each (key_a, key_b, spec_a, spec_b); results per (key_a, key_b)."""
    tasks = [(ka, kb, sa, sb, i, seed) for ka, kb, sa, sb in pairings for i in range(games)]
    results: dict[tuple[str, str], list[int]] = {(ka, kb): [] for ka, kb, _, _ in pairings}
    start = time.perf_counter()
    last = start
    if workers > 1:
        pool = mp.Pool(workers)
        it = pool.imap_unordered(play_task, tasks)
    else:
        pool = None
        it = map(play_task, tasks)
    try:
        for done, (ka, kb, _, r) in enumerate(it, 1):
            results[(ka, kb)].append(r)
            now = time.perf_counter()
            if now - last > 10 or done == len(tasks):
                last = now
                print(f"  {done}/{len(tasks)} games, {now - start:.0f} s", file=sys.stderr, flush=True)
    finally:
        if pool is not None:
            pool.terminate()
    return results


def summary_row(name: str, res: list[int]) -> str:
    w, d, lost = res.count(1), res.count(0), res.count(-1)
    n = len(res)
    rate = (w + 0.5 * d) / n if n else 0.0
    lo, hi = wilson_interval(w + 0.5 * d, n)
    return f"{name:12s} {n:6d} {w:6d} {d:6d} {lost:6d} {rate:8.1%}   [{lo:.1%}, {hi:.1%}]"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=100, help="games per MCTS pairing (default 100)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mcts-time", type=float, default=1.0, help="MCTS seconds per move (default 1.0)")
    p.add_argument("--mcts-sims", type=int, default=None,
                   help="MCTS simulations per move (overrides --mcts-time)")
    p.add_argument("--mcts-params", default="",
                   help="extra MCTS spec parameters, e.g. 'c=1.2,rollout=random'")
    p.add_argument("--pairs", default=",".join(LADDER),
                   help="comma-separated opponents for MCTS (default: the course ladder)")
    p.add_argument("--no-cross", action="store_true", help="skip the cross table of the ladder")
    p.add_argument("--cross-games", type=int, default=None,
                   help="games per cross-table pairing (default --games)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = p.parse_args(argv)
    if args.games < 1:
        p.error("--games must be >= 1")

    budget = f"sims={args.mcts_sims}" if args.mcts_sims else f"time={args.mcts_time}"
    mcts = "mcts:" + budget + (("," + args.mcts_params) if args.mcts_params else "")
    opponents = [o.strip() for o in args.pairs.split(",") if o.strip()]
    for o in opponents:  # fail early on a bad spec
        make_agent(o, "littlego", rng=np.random.default_rng(0))
    make_agent(mcts, "littlego", rng=np.random.default_rng(0))

    print(f"MCTS ({mcts}) against the ladder, {args.games} games each, colours alternating, seed {args.seed}")
    res = run_pairings([("mcts", o, mcts, o) for o in opponents], args.games, args.seed, args.workers)
    print(f"{'opponent':12s} {'games':>6s} {'wins':>6s} {'draws':>6s} {'losses':>6s} "
          f"{'win rate':>8s}   95% Wilson")
    for o in opponents:
        print(summary_row(o, res[("mcts", o)]))

    if not args.no_cross:
        names = list(LADDER) + ["mcts"]
        specs = {n: n for n in LADDER} | {"mcts": mcts}
        cg = args.cross_games or args.games
        pairings = [(a, b, specs[a], specs[b]) for i, a in enumerate(names) for b in names[i + 1:]]
        print(f"\nCross table, {cg} games per pairing: the row agent's win rate against the column agent")
        cross = run_pairings(pairings, cg, args.seed + 1, args.workers)
        print(f"{'':12s}" + "".join(f"{n:>12s}" for n in names))
        for a in names:
            cells = []
            for b in names:
                if a == b:
                    cells.append(f"{'-':>12s}")
                    continue
                r = cross[(a, b)] if (a, b) in cross else [-x for x in cross[(b, a)]]
                rate = (r.count(1) + 0.5 * r.count(0)) / len(r)
                cells.append(f"{rate:12.0%}")
            print(f"{a:12s}" + "".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
