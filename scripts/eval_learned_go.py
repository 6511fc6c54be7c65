"""A learned Little-Go agent against the course ladder, each colour apart (the targets for learned agents).

The agent (default: the shipped ``ppo``) plays ``--games`` games as Black and
as White against the course's ``random``, ``greedy``, ``aggressive`` and
``alphabeta``, and our ``mcts`` (at ``--mcts-sims`` simulations,
``--mcts-games`` games a colour). ``--targets`` picks the win rates each
colour must reach: ``policy`` (a learned policy without search, the default:
95%, 90%, 75% against random, greedy, aggressive), ``raw`` (AlphaZero's raw
network: 95%, 95%, 95%, 85% against the four) or ``search`` (AlphaZero with
its search: 99% against the four, 60% against mcts) or ``qlearning`` (the
tabular Q-learner: 95%, 80%, 50% against random, greedy, aggressive).
``--opponents`` replaces the ladder by other agent specs (players the agent
never trained with, say); a target applies to an opponent of its name.
Each row gives
wins / draws / losses from the agent's view and the win rate's 95% Wilson
interval. Exits 1 if a target is missed. On a terminal a bar counts the
games (stderr; nothing in a pipe). The matches are
``tictacgo.evaluation.littlego_ladder.colour_rows``.

    python scripts/eval_learned_go.py --agent ppo --games 100 --seed 0
    python scripts/eval_learned_go.py --agent qlearning --targets qlearning --mcts-games 0 \
        --opponents random,greedy,aggressive,minimax:depth=1 --games 100
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from tictacgo.baselines import make_agent
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.littlego_ladder import LADDER, TARGETS, colour_rows, rate_cell


@dataclass
class Args:
    agent: str = setting("ppo", "Registry spec of the agent (the shipped ppo by default).")
    games: int = setting(100, "Games a colour against each ladder opponent.")
    mcts_sims: int = setting(400, "Simulations a move of the mcts opponent.")
    mcts_games: int = setting(20, "Games a colour against mcts (0: skip).")
    seed: int = setting(0, "Seeds every agent, once.")
    targets: str = setting("policy", "The win rates to check: policy (a learned policy), raw (AlphaZero's "
                           "raw network), search (AlphaZero with search), qlearning (the tabular "
                           "Q-learner).", choices=tuple(sorted(TARGETS)))
    opponents: str = setting(",".join(LADDER), "Comma-separated agent specs to play instead of the course's "
                             "ladder.", default_text="random,greedy,aggressive,alphabeta")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    if args.games < 1 or args.mcts_games < 0 or args.mcts_sims < 1:
        print("eval_learned_go.py: error: --games and --mcts-sims must be positive and --mcts-games "
              f"non-negative, got {args.games}, {args.mcts_sims} and {args.mcts_games}", file=sys.stderr)
        return 2
    opponents = [(name.strip(), args.games) for name in args.opponents.split(",") if name.strip()]
    if not opponents:
        print("eval_learned_go.py: error: --opponents names no agent", file=sys.stderr)
        return 2
    for spec in [args.agent, *(name for name, _ in opponents)]:  # a bad spec fails now, not mid-run
        try:
            make_agent(spec, "littlego", rng=np.random.default_rng(0))
        except ValueError as e:
            print(f"eval_learned_go.py: error: {e}", file=sys.stderr)
            return 2
    if args.mcts_games:
        opponents.append((f"mcts:sims={args.mcts_sims}", args.mcts_games))
    print(f"{args.agent} on 5x5 Little-Go, W / D / L a colour, seed {args.seed}, "
          f"targets: {args.targets}\n")
    print("| opponent | games a colour | as Black | win rate [95% Wilson] | as White | win rate [95% Wilson] "
          "| target |")
    print("|---|---:|---|---|---|---|---:|")
    t0 = time.perf_counter()
    rows, missed = colour_rows(args.agent, opponents, args.seed, TARGETS[args.targets])
    for r in rows:
        n = r["games"]
        cells = [f"{' / '.join(map(str, r[c]))} | {rate_cell(r[c][0], n)}" for c in ("black", "white")]
        target = f"{r['target']:.0%}" if r["target"] is not None else "-"
        print(f"| {r['opponent']} | {n} | " + " | ".join(cells) + f" | {target} |")
    print(f"\n({time.perf_counter() - t0:.0f} s)")
    print("targets: " + ("met" if not missed else "MISSED: " + "; ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
