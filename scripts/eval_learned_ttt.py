"""Audit a learned Tic-Tac-Toe agent: every position, then matches (the targets for learned agents).

1. **Audit**: over all 4,520 reachable non-terminal positions, the share
   where the agent's greedy move keeps the game-theoretic value
   (``tictacgo.baselines.audit``), split by the side to move, next to the
   rule-based ``think3``; for a policy with raw logits, how often its
   unmasked favourite is illegal (the A2C target: under 0.5%).
2. **Matches** from the empty board, W/D/L from the agent's view, as X and
   as O: ``--games`` against ``minimax`` and ``random``, and ``--think3-games``
   against ``think3`` (the actor-critic chapter's table: 72 W / 0 L / 28 D first, 9 / 0 / 91
   second, over 100 games each).

The script exits 1 if the agent misses the targets for learned agents, so it can gate a
shipped model: for a MaskablePPO (``ppo``) agent no loss at all and at least
98% optimal moves; for an ``a2c`` agent (trained without masks) no loss to
minimax and under 0.5% unmasked illegal favourites.

    python scripts/eval_learned_ttt.py --agent ppo --games 1000
    python scripts/eval_learned_ttt.py --agent a2c:path=runs/tictactoe_a2c/best_model.zip
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from tictacgo.arena import play_wdl
from tictacgo.baselines.audit import (
    argmax_illegal_rate,
    optimal_actions,
    optimal_rates_by_side,
    reachable_positions,
)
from tictacgo.baselines.registry import make_agent
from tictacgo.games import tictactoe as ttt

TTT = ttt.TicTacToe()

SEED_000 = {"first": (72, 28, 0), "second": (9, 91, 0)}  # W, D, L against think3, 100 games a side


def audit(spec: str, positions: list, optimal: list, rng: np.random.Generator) -> dict[str, float]:
    """Optimal-move rates of ``spec`` (all, as X, as O) and its unmasked illegal rate if it has logits."""
    agent = make_agent(spec, "tictactoe", rng=rng)
    out = optimal_rates_by_side(agent.act, positions, optimal)
    if hasattr(agent, "logits"):
        out["unmasked argmax illegal"] = argmax_illegal_rate(TTT, agent.logits, positions)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agent", default="ppo", help="registry spec of the agent (default: the shipped ppo)")
    p.add_argument("--games", type=int, default=1000, help="games per side against minimax and random")
    p.add_argument("--think3-games", type=int, default=100, help="games per side against think3")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.games < 1 or args.think3_games < 1:
        p.error(f"--games and --think3-games must be positive, got {args.games} and {args.think3_games}")
    rng = np.random.default_rng(args.seed)

    t0 = time.perf_counter()
    positions = reachable_positions(TTT)
    optimal = optimal_actions(TTT, positions)
    print(f"## Audit over {len(positions)} positions ({time.perf_counter() - t0:.1f} s to solve)\n")
    print("| agent | all | X to move | O to move | unmasked argmax illegal |")
    print("|---|---:|---:|---:|---:|")
    rates = {}
    for spec in (args.agent, "think3"):
        rates[spec] = r = audit(spec, positions, optimal, rng.spawn(1)[0])
        ill = r.get("unmasked argmax illegal")
        print(f"| {spec} | {r['all']:.2%} | {r['X to move']:.2%} | {r['O to move']:.2%} | "
              f"{'-' if ill is None else f'{ill:.2%}'} |")

    print(f"\n## Matches from the empty board, {args.agent} W / D / L\n")
    print("| opponent | games a side | as X (first) | as O (second) | actor-critic chapter (first; second) |")
    print("|---|---:|---:|---:|---|")
    losses = {}
    for opp, n in (("minimax", args.games), ("random", args.games), ("think3", args.think3_games)):
        ra, rb = rng.spawn(2)
        me, them = make_agent(args.agent, "tictactoe", rng=ra), make_agent(opp, "tictactoe", rng=rb)
        res = {label: play_wdl(TTT, me, them, n, colour=side) for label, side in (("first", ttt.X),
                                                                               ("second", ttt.O))}
        losses[opp] = res["first"][2] + res["second"][2]
        seed = ("72 / 28 / 0; 9 / 91 / 0 of 100" if opp == "think3" else "")
        print(f"| {opp} | {n} | {' / '.join(map(str, res['first']))} | "
              f"{' / '.join(map(str, res['second']))} | {seed} |")
    print(f"\n({time.perf_counter() - t0:.0f} s in all)")
    missed = []
    mine = rates[args.agent]
    if args.agent.split(":")[0] == "a2c":
        if losses["minimax"]:
            missed.append(f"{losses['minimax']} games lost to minimax")
        if mine.get("unmasked argmax illegal", 1.0) >= 0.005:
            missed.append(f"unmasked illegal {mine.get('unmasked argmax illegal', 1.0):.2%} >= 0.5%")
    else:
        if sum(losses.values()):
            missed.append(f"{sum(losses.values())} games lost")
        if mine["all"] < 0.98:
            missed.append(f"optimal moves {mine['all']:.2%} < 98%")
    print("targets: " + ("met" if not missed else "MISSED: " + "; ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
