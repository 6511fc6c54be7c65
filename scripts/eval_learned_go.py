"""A learned Little-Go agent against the course ladder, each colour apart (the targets for learned agents).

The agent (default: the shipped ``ppo``) plays ``--games`` games as Black and
as White against the course's ``random``, ``greedy``, ``aggressive`` and
``alphabeta``, and our ``mcts`` (at ``--mcts-sims`` simulations,
``--mcts-games`` games a colour). ``--targets`` picks the win rates each
colour must reach: ``policy`` (a learned policy without search, the default:
95%, 90%, 75% against random, greedy, aggressive), ``raw`` (AlphaZero's raw
network: 95%, 95%, 95%, 85% against the four) or ``search`` (AlphaZero with
its search: 99% against the four, 60% against mcts). Each row gives
wins / draws / losses from the agent's view and the win rate's 95% Wilson
interval. Exits 1 if a target is missed.

    python scripts/eval_learned_go.py --agent ppo --games 100 --seed 0
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from tictacgo.arena import play_wdl
from tictacgo.arena.stats import wilson_interval
from tictacgo.baselines.registry import make_agent
from tictacgo.games import littlego

GO = littlego.LittleGo()

TARGETS = {
    "policy": {"random": 0.95, "greedy": 0.90, "aggressive": 0.75},
    "raw": {"random": 0.95, "greedy": 0.95, "aggressive": 0.95, "alphabeta": 0.85},
    "search": {"random": 0.99, "greedy": 0.99, "aggressive": 0.99, "alphabeta": 0.99, "mcts": 0.60},
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agent", default="ppo", help="registry spec of the agent (default: the shipped ppo)")
    p.add_argument("--games", type=int, default=100, help="games a colour against each ladder opponent")
    p.add_argument("--mcts-sims", type=int, default=400)
    p.add_argument("--mcts-games", type=int, default=20, help="games a colour against mcts (0: skip)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--targets", choices=sorted(TARGETS), default="policy",
                   help="the win rates to check: policy (a learned policy, default), "
                        "raw (AlphaZero's raw network), search (AlphaZero with search)")
    args = p.parse_args(argv)
    if args.games < 1 or args.mcts_games < 0 or args.mcts_sims < 1:
        p.error("--games and --mcts-sims must be positive and --mcts-games non-negative")
    rng = np.random.default_rng(args.seed)
    opponents = [(name, args.games) for name in ("random", "greedy", "aggressive", "alphabeta")]
    if args.mcts_games:
        opponents.append((f"mcts:sims={args.mcts_sims}", args.mcts_games))
    targets = TARGETS[args.targets]
    print(f"{args.agent} on 5x5 Little-Go, W / D / L a colour, seed {args.seed}, "
          f"targets: {args.targets}\n")
    print("| opponent | games a colour | as Black | win rate [95% Wilson] | as White | win rate [95% Wilson] "
          "| target |")
    print("|---|---:|---|---|---|---|---:|")
    missed = []
    t0 = time.perf_counter()
    for opp, n in opponents:
        cells = []
        for colour, label in ((littlego.BLACK, "Black"), (littlego.WHITE, "White")):
            ra, rb = rng.spawn(2)
            me, them = make_agent(args.agent, GO, rng=ra), make_agent(opp, GO, rng=rb)
            w, d, lost = play_wdl(GO, me, them, n, colour=colour)
            lo, hi = wilson_interval(w, n)
            cells += [f"{w} / {d} / {lost}", f"{w / n:.0%} [{lo:.0%}, {hi:.0%}]"]
            goal = targets.get(opp.split(":")[0])
            if goal is not None and w / n < goal:
                missed.append(f"{opp} as {label}: {w / n:.0%} < {goal:.0%}")
        goal = targets.get(opp.split(":")[0])
        target = f"{goal:.0%}" if goal is not None else "-"
        print(f"| {opp} | {n} | " + " | ".join(cells) + f" | {target} |", flush=True)
    print(f"\n({time.perf_counter() - t0:.0f} s)")
    print("targets: " + ("met" if not missed else "MISSED: " + "; ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
