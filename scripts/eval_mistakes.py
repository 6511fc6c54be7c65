"""How often an agent's move keeps an endgame's exact value: the Little-Go endgame benchmark.

Every position of the benchmark (``scripts/make_endgames.py``; by default
``tests/data/littlego_endgames.npz``) carries its exact value for the player
to move and the moves that keep it. The agent plays one move in each
(reset before each position, seeded once); the script prints the share of
positions where that move keeps the value, with 95% Wilson intervals:
over all positions, over the decisive ones (where some move loses the
value; elsewhere every move keeps it), by actions left and by colour.
On a terminal a bar counts the positions (stderr; nothing in a pipe). The
counting is ``tictacgo.evaluation.endgame_mistakes``.

    python scripts/eval_mistakes.py --agent greedy
    python scripts/eval_mistakes.py --agent mcts:sims=400 --limit 2000 --json mcts400.json
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.endgame_mistakes import count_kept, report_order, share, subset
from tictacgo.solver.endgames import load_endgames

DEFAULT_DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "littlego_endgames.npz"


@dataclass
class Args:
    agent: str = setting("", "The agent spec, e.g. greedy or mcts:sims=400.", default_text="none: required")
    data: str = setting(str(DEFAULT_DATA), "The benchmark file (.npz).",
                        default_text="tests/data/littlego_endgames.npz")
    limit: int | None = setting(None, "Evaluate a seeded random subset of this many positions.",
                                default_text="all")
    seed: int = setting(0, "Seeds the agent and the subset.")
    json: str | None = setting(None, "Write the counts to this JSON file.")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    if not args.agent:
        print("eval_mistakes.py: error: --agent SPEC is required", file=sys.stderr)
        return 2
    if args.json:
        check_writable(args.json)
    endgames, meta = load_endgames(args.data)
    endgames = subset(endgames, args.limit, args.seed)
    start = time.perf_counter()
    counts = count_kept(args.agent, endgames, args.seed)
    seconds = time.perf_counter() - start
    print(f"{args.agent}: {len(endgames)} positions ({meta['size']}x{meta['size']}, at most "
          f"{meta['recipe']['max_left']} actions left), {seconds / len(endgames) * 1000:.1f} ms a move")
    print(f"{'':24s} {'keeps':>7} {'95% interval':>17} {'n':>6}")
    for g in report_order(counts):
        print(f"{g:24s} {share(*counts[g])}")
    if args.json:
        atomic_write_json(args.json, {"agent": args.agent, "data": str(args.data), "seed": args.seed,
                                      "limit": args.limit, "seconds": seconds,
                                      "counts": {g: {"kept": c[0], "n": c[1]} for g, c in counts.items()}},
                          indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
