"""Little-Go ladder evaluation: MCTS against the course opponents, and a cross table.

Plays each pairing with colours alternating (game i: the first agent is Black
when i is even), every agent seeded from ``--seed`` and the game index, and
prints wins/draws/losses with the win rate and its 95% Wilson interval. Then
(unless ``--no-cross``) a full cross table of the ladder: random, greedy,
aggressive, alphabeta and mcts, each cell the row agent's win rate against
the column agent. On a terminal a bar counts the games (stderr; nothing in a
pipe). The games are ``tictacgo.evaluation.littlego_ladder.pairings``.

The targets for MCTS at <= 1 s per move: >= 99% against random,
>= 95% against greedy, >= 90% against aggressive, >= 80% against alphabeta.

    python scripts/eval_littlego.py --games 100 --mcts-time 1.0
    python scripts/eval_littlego.py --games 20 --mcts-time 0.2 --cross-games 10
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import numpy as np

from tictacgo.baselines import make_agent
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.littlego_ladder import LADDER, cross_rate, pairings, summary_row


@dataclass
class Args:
    games: int = setting(100, "Games per MCTS pairing.")
    seed: int = setting(0, "Seeds every game's agents, with the game's index.")
    mcts_time: float = setting(1.0, "MCTS seconds per move.")
    mcts_sims: int | None = setting(None, "MCTS simulations per move (overrides --mcts-time).")
    mcts_params: str = setting("", "Extra MCTS spec parameters, e.g. 'c=1.2,rollout=random'.")
    pairs: str = setting(",".join(LADDER), "Comma-separated opponents for MCTS.")
    cross: bool = setting(True, "Also play the cross table of the ladder and MCTS.")
    cross_games: int | None = setting(None, "Games per cross-table pairing.", default_text="--games")
    workers: int = setting(os.cpu_count() or 1, "Worker processes.", default_text="the CPU count")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.splitlines()[0])
    if args.games < 1:
        print(f"eval_littlego.py: error: --games must be >= 1, got {args.games}", file=sys.stderr)
        return 2
    budget = f"sims={args.mcts_sims}" if args.mcts_sims else f"time={args.mcts_time}"
    mcts = "mcts:" + budget + (("," + args.mcts_params) if args.mcts_params else "")
    opponents = [o.strip() for o in args.pairs.split(",") if o.strip()]
    for spec in [*opponents, mcts]:  # fail early on a bad spec
        make_agent(spec, "littlego", rng=np.random.default_rng(0))

    print(f"MCTS ({mcts}) against the ladder, {args.games} games each, colours alternating, seed {args.seed}")
    res = pairings([("mcts", o, mcts, o) for o in opponents], args.games, args.seed, args.workers)
    print(f"{'opponent':12s} {'games':>6s} {'wins':>6s} {'draws':>6s} {'losses':>6s} "
          f"{'win rate':>8s}   95% Wilson")
    for o in opponents:
        print(summary_row(o, res[("mcts", o)]))

    if args.cross:
        names = [*LADDER, "mcts"]
        specs = {n: n for n in LADDER} | {"mcts": mcts}
        cg = args.cross_games or args.games
        pairs = [(a, b, specs[a], specs[b]) for i, a in enumerate(names) for b in names[i + 1:]]
        print(f"\nCross table, {cg} games per pairing: the row agent's win rate against the column agent")
        cross = pairings(pairs, cg, args.seed + 1, args.workers)
        print(f"{'':12s}" + "".join(f"{n:>12s}" for n in names))
        for a in names:
            print(f"{a:12s}" + "".join(f"{'-':>12s}" if a == b else f"{cross_rate(cross, a, b):12.0%}"
                                       for b in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
