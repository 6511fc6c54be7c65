"""How often an agent's move keeps an endgame's exact value: the Little-Go endgame benchmark.

Every position of the benchmark (``scripts/make_endgames.py``; by default
``tests/data/littlego_endgames.npz``) carries its exact value for the player
to move and the moves that keep it. The agent plays one move in each
(reset before each position, seeded once); the script prints the share of
positions where that move keeps the value, with 95% Wilson intervals:
over all positions, over the decisive ones (where some move loses the
value; elsewhere every move keeps it), by actions left and by colour.

    python scripts/eval_mistakes.py --agent greedy
    python scripts/eval_mistakes.py --agent mcts:sims=400 --limit 2000 --json mcts400.json
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from tictacgo.arena.stats import wilson_interval
from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.baselines import make_agent
from tictacgo.games import littlego
from tictacgo.solver.endgames import load_endgames

DEFAULT_DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "littlego_endgames.npz"


def share(kept: int, n: int) -> str:
    if not n:
        return f"{'-':>7} {'':>17} {0:>6}"
    lo, hi = wilson_interval(kept, n)
    return f"{kept / n:7.3f} [{lo:.3f}, {hi:.3f}] {n:6d}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", required=True, help="the agent spec, e.g. greedy or mcts:sims=400")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="the benchmark file (.npz)")
    parser.add_argument("--limit", type=int, default=None,
                        help="evaluate a seeded random subset of this many positions")
    parser.add_argument("--seed", type=int, default=0, help="seeds the agent and the subset")
    parser.add_argument("--json", default=None, help="write the counts to this JSON file")
    args = parser.parse_args(argv)
    if args.json:
        check_writable(args.json)
    endgames, meta = load_endgames(args.data)
    if args.limit is not None and args.limit < len(endgames):
        pick = np.random.default_rng([args.seed, 1]).choice(len(endgames), size=args.limit, replace=False)
        endgames = [endgames[i] for i in sorted(pick)]
    agent = make_agent(args.agent, "littlego", rng=np.random.default_rng([args.seed, 0]))
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # group -> [kept, positions]
    start = last = time.perf_counter()
    for k, e in enumerate(endgames, 1):
        agent.reset()
        kept = int(agent.act(e.state) in e.optimal)
        colour = "Black" if e.state.to_move == littlego.BLACK else "White"
        groups = ["all", f"left {e.left:2d}", colour]
        if e.decisive:
            groups += ["decisive", f"decisive, left {e.left:2d}", f"decisive, {colour}"]
        for g in groups:
            counts[g][0] += kept
            counts[g][1] += 1
        now = time.perf_counter()
        if now - last > 10:
            last = now
            print(f"  {k}/{len(endgames)} positions, {now - start:.0f} s", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    print(f"{args.agent}: {len(endgames)} positions ({meta['size']}x{meta['size']}, at most "
          f"{meta['recipe']['max_left']} actions left), {seconds / len(endgames) * 1000:.1f} ms a move")
    print(f"{'':24s} {'keeps':>7} {'95% interval':>17} {'n':>6}")
    order = (["all", "decisive", "Black", "White", "decisive, Black", "decisive, White"]
             + sorted(g for g in counts if g.startswith("left"))
             + sorted(g for g in counts if g.startswith("decisive, left")))
    for g in order:
        if g in counts:
            print(f"{g:24s} {share(*counts[g])}")
    if args.json:
        atomic_write_json(args.json, {"agent": args.agent, "data": str(args.data), "seed": args.seed,
                                      "limit": args.limit, "seconds": seconds,
                                      "counts": {g: {"kept": c[0], "n": c[1]} for g, c in counts.items()}},
                          indent=1)


if __name__ == "__main__":
    main()
