"""Audit a learned Tic-Tac-Toe agent: every position, then matches (issue 7's targets).

1. **Audit**: over all 4,520 reachable non-terminal positions, the share
   where the agent's greedy move keeps the game-theoretic value
   (``tictacgo.baselines.audit``), split by the side to move, next to the
   rule-based ``think3``; for a policy with raw logits, how often its
   unmasked favourite is illegal (the A2C target: under 0.5%).
2. **Matches** from the empty board, W/D/L from the agent's view, as X and
   as O: ``--games`` against ``minimax`` and ``random``, and ``--think3-games``
   against ``think3`` (seed 000's table: 72 W / 0 L / 28 D first, 9 / 0 / 91
   second, over 100 games each).

The script exits 1 if a target is missed (a loss, or the audit under 98%),
so it can gate a shipped model.

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
    optimal_move_rate,
    reachable_positions,
)
from tictacgo.baselines.registry import make_agent
from tictacgo.games import tictactoe as ttt

SEED_000 = {"first": (72, 28, 0), "second": (9, 91, 0)}  # W, D, L against think3, 100 games a side


def audit(spec: str, positions: list, optimal: list, rng: np.random.Generator) -> dict[str, float]:
    """Optimal-move rates of ``spec`` (all, as X, as O) and its unmasked illegal rate if it has logits."""
    agent = make_agent(spec, "tictactoe", rng=rng)
    out = {"all": optimal_move_rate(agent.act, positions, optimal)}
    for side, label in ((ttt.X, "X to move"), (ttt.O, "O to move")):
        idx = [i for i, s in enumerate(positions) if ttt.current_player(s) == side]
        out[label] = optimal_move_rate(agent.act, [positions[i] for i in idx], [optimal[i] for i in idx])
    if hasattr(agent, "logits"):
        out["unmasked argmax illegal"] = argmax_illegal_rate(ttt, agent.logits, positions)
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
    positions = reachable_positions(ttt)
    optimal = optimal_actions(ttt, positions)
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
    print("| opponent | games a side | as X (first) | as O (second) | seed 000 (first; second) |")
    print("|---|---:|---:|---:|---|")
    losses = 0
    for opp, n in (("minimax", args.games), ("random", args.games), ("think3", args.think3_games)):
        ra, rb = rng.spawn(2)
        me, them = make_agent(args.agent, "tictactoe", rng=ra), make_agent(opp, "tictactoe", rng=rb)
        res = {label: play_wdl(ttt, me, them, n, colour=side) for label, side in (("first", ttt.X),
                                                                               ("second", ttt.O))}
        losses += res["first"][2] + res["second"][2]
        seed = ("72 / 28 / 0; 9 / 91 / 0 of 100" if opp == "think3" else "")
        print(f"| {opp} | {n} | {' / '.join(map(str, res['first']))} | "
              f"{' / '.join(map(str, res['second']))} | {seed} |")
    print(f"\n({time.perf_counter() - t0:.0f} s in all)")
    missed = []
    if losses:
        missed.append(f"{losses} games lost")
    if rates[args.agent]["all"] < 0.98:
        missed.append(f"optimal moves {rates[args.agent]['all']:.2%} < 98%")
    ill = rates[args.agent].get("unmasked argmax illegal")
    if ill is not None and ill >= 0.005 and args.agent.startswith("a2c"):
        missed.append(f"unmasked illegal {ill:.2%} >= 0.5%")
    print("targets: " + ("met" if not missed else "MISSED: " + "; ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
