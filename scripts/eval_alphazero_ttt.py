"""Judge an AlphaZero Tic-Tac-Toe model: every live position, then games against minimax.

1. **Audit** over all 4,520 reachable live positions: the share where the
   move keeps the game-theoretic value (``tictacgo.baselines.audit``), for
   the raw network (``az:sims=0``, its best legal move) and with the search
   (``--sims``), split by the side to move.
2. **Matches** from the empty board against ``minimax`` (exact, random among
   its best moves) and ``random``, ``--games`` as X and as O, W / D / L from
   the model's view, with the search at ``--sims`` simulations.

The targets: the raw network optimal in at least 99.5% of the positions,
and no game lost to minimax with 16 simulations. The script exits 1 when
one is missed.

    python scripts/eval_alphazero_ttt.py --model runs/ttt_az --games 1000
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from tictacgo.arena import play_wdl
from tictacgo.baselines.audit import (
    optimal_actions,
    optimal_rates_by_side,
    reachable_positions,
)
from tictacgo.baselines.registry import make_agent
from tictacgo.games import tictactoe as ttt

RAW_TARGET = 0.995


def audit(spec: str, positions: list, optimal: list, rng: np.random.Generator) -> dict[str, float]:
    """Optimal-move rates of ``spec``: all positions, X to move, O to move."""
    agent = make_agent(spec, "tictactoe", rng=rng)
    out = optimal_rates_by_side(agent.act, positions, optimal)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default=None, help="model folder (default: the shipped az model)")
    p.add_argument("--sims", type=int, default=16, help="simulations of the searched agent")
    p.add_argument("--games", type=int, default=1000, help="games per side against each opponent")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.games < 1 or args.sims < 0:
        p.error(f"--games must be positive and --sims >= 0, got {args.games} and {args.sims}")
    rng = np.random.default_rng(args.seed)
    base = "az" + (f":path={args.model}," if args.model else ":")
    raw_spec, searched_spec = base + "sims=0", base + f"sims={args.sims}"

    t0 = time.perf_counter()
    positions = reachable_positions(ttt.TicTacToe())
    optimal = optimal_actions(ttt.TicTacToe(), positions)
    print(f"## Audit over {len(positions)} positions\n")
    print("| agent | all | X to move | O to move |")
    print("|---|---:|---:|---:|")
    rates = {}
    for spec in (raw_spec, searched_spec):
        rates[spec] = r = audit(spec, positions, optimal, rng.spawn(1)[0])
        print(f"| {spec} | {r['all']:.2%} | {r['X to move']:.2%} | {r['O to move']:.2%} |")

    print(f"\n## Matches from the empty board, {searched_spec} W / D / L\n")
    print("| opponent | games a side | as X (first) | as O (second) |")
    print("|---|---:|---:|---:|")
    losses = {}
    for opp in ("minimax", "random"):
        ra, rb = rng.spawn(2)
        me, them = make_agent(searched_spec, "tictactoe", rng=ra), make_agent(opp, "tictactoe", rng=rb)
        res = {side: play_wdl(ttt.TicTacToe(), me, them, args.games, colour=side) for side in (ttt.X, ttt.O)}
        losses[opp] = res[ttt.X][2] + res[ttt.O][2]
        print(f"| {opp} | {args.games} | {' / '.join(map(str, res[ttt.X]))} | "
              f"{' / '.join(map(str, res[ttt.O]))} |")
    print(f"\n({time.perf_counter() - t0:.0f} s in all)")
    missed = []
    if rates[raw_spec]["all"] < RAW_TARGET:
        missed.append(f"raw network optimal {rates[raw_spec]['all']:.2%} < {RAW_TARGET:.1%}")
    if losses["minimax"]:
        missed.append(f"{losses['minimax']} games lost to minimax")
    print("targets: " + ("met" if not missed else "MISSED: " + "; ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
