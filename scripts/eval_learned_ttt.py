"""Audit a learned Tic-Tac-Toe agent: every position, then matches (the targets for learned agents).

1. **Audit**: over all 4,520 reachable non-terminal positions, the share
   where the agent's greedy move keeps the game-theoretic value, split by the
   side to move, next to the rule-based ``think3`` (for an AlphaZero agent:
   next to its raw network, ``sims=0``); for a policy with raw logits, how
   often its unmasked favourite is illegal (the A2C target: under 0.5%).
2. **Matches** from the empty board, W/D/L from the agent's view, as X and
   as O: ``--games`` against ``minimax`` and ``random``, and, for a learned
   policy, ``--think3-games`` against ``think3`` (the actor-critic chapter's
   table: 72 W / 0 L / 28 D first, 9 / 0 / 91 second, over 100 games each).

The script exits 1 if the agent misses the targets of its kind, so it can gate a
shipped model: for a MaskablePPO (``ppo``) agent no loss at all and at least
98% optimal moves; for an ``a2c`` agent (trained without masks) no loss to
minimax and under 0.5% unmasked illegal favourites; for an ``az`` agent the
raw network optimal in at least 99.5% of the positions and no loss to minimax.
On a terminal a bar counts the games (stderr; nothing in a pipe). The
judgement is ``tictacgo.evaluation.tictactoe_judge``.

    python scripts/eval_learned_ttt.py --agent ppo --games 1000
    python scripts/eval_learned_ttt.py --agent a2c:path=runs/tictactoe_a2c/best_model.zip
    python scripts/eval_learned_ttt.py --agent az:path=runs/ttt_az,sims=16 --games 1000
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.tictactoe_judge import THINK3_CHAPTER, judge


@dataclass
class Args:
    agent: str = setting("ppo", "Registry spec of the agent (the shipped ppo by default).")
    games: int = setting(1000, "Games a side against minimax and random.")
    think3_games: int = setting(100, "Games a side against think3 (learned policies).")
    seed: int = setting(0, "Seeds every agent, once.")


def cells(rates: dict[str, float]) -> str:
    illegal = rates.get("unmasked argmax illegal")
    return (f"{rates['all']:.2%} | {rates['X to move']:.2%} | {rates['O to move']:.2%} | "
            f"{'-' if illegal is None else f'{illegal:.2%}'}")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    t0 = time.perf_counter()
    try:
        out = judge(args.agent, args.games, args.think3_games, args.seed)
    except ValueError as e:
        print(f"eval_learned_ttt.py: error: {e}", file=sys.stderr)
        return 2
    print(f"## Audit over {out['positions']} positions\n")
    print("| agent | all | X to move | O to move | unmasked argmax illegal |")
    print("|---|---:|---:|---:|---:|")
    for spec, rates in out["rates"].items():
        print(f"| {spec} | {cells(rates)} |")
    print(f"\n## Matches from the empty board, {args.agent} W / D / L\n")
    print("| opponent | games a side | as X (first) | as O (second) | actor-critic chapter (first; second) |")
    print("|---|---:|---:|---:|---|")
    for opp, n in out["plan"].opponents:
        res = out["results"][opp]
        chapter = THINK3_CHAPTER if opp == "think3" else ""
        print(f"| {opp} | {n} | {' / '.join(map(str, res['first']))} | "
              f"{' / '.join(map(str, res['second']))} | {chapter} |")
    print(f"\n({time.perf_counter() - t0:.0f} s in all)")
    print("targets: " + ("met" if not out["missed"] else "MISSED: " + "; ".join(out["missed"])))
    return 1 if out["missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
