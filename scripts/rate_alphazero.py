"""Rate the checkpoints of an AlphaZero run against fixed anchors; draw strength against training time.

Each checkpoint under ``RUN/checkpoints/`` plays ``--games`` games as each
colour against every anchor (an agent spec; by default for Little-Go
random, greedy, aggressive, alphabeta and mcts at two budgets; for
Tic-Tac-Toe random and minimax), with ``--sims`` simulations a move
(``0``: the raw network). Results go to ``RUN/ratings.json`` (checkpoints
already there are skipped, so the script can be rerun while the training
goes on) and the score ``(W + D/2) / N`` against each anchor, by the
checkpoint's training wall time, to ``RUN/strength.png`` (needs matplotlib).
On a terminal a bar counts each match's games. The rating is
``tictacgo.evaluation.checkpoint_ratings``.

    python scripts/rate_alphazero.py --run runs/go_az --games 10 --sims 32
    python scripts/rate_alphazero.py --run runs/ttt_az --games 50 --sims 0
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tictacgo.atomic import atomic_write_json
from tictacgo.baselines.learning.alphazero.modelfile import read_meta
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.checkpoint_ratings import ANCHORS, checkpoints, plot, rate


@dataclass
class Args:
    run: str = setting("", "The training's output folder.", default_text="none: required")
    anchors: str | None = setting(None, "Comma-separated agent specs.", default_text="per game")
    games: int = setting(10, "Games per colour per anchor.")
    sims: int = setting(32, "Simulations per move of the rated network.")
    every: int = setting(1, "Rate every k-th checkpoint (the last always).")
    seed: int = setting(0, "Seeds the matches (anchor k with seed + k).")
    workers: int = setting(1, "Arena worker processes.")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    run = Path(args.run)
    try:
        if not args.run:
            raise ValueError("--run DIR is required")
        folders = checkpoints(run, args.every)
    except ValueError as e:
        print(f"rate_alphazero.py: error: {e}", file=sys.stderr)
        return 2
    game = read_meta(folders[0])["variant"]["game"]
    anchors = args.anchors.split(",") if args.anchors else ANCHORS[game]
    out = run / "ratings.json"
    results = json.loads(out.read_text()) if out.is_file() else {}
    t0 = time.perf_counter()
    for folder in folders:
        key = f"{folder.name}@sims={args.sims}"
        if key in results:
            continue
        results[key] = entry = rate(folder, game, anchors, args.games, args.sims, args.seed, args.workers)
        atomic_write_json(out, results, indent=1)
        scores = ", ".join(f"{a} {v['score']:.2f}" for a, v in entry["anchors"].items())
        print(f"{folder.name} ({entry['seconds']:.0f} s of training): {scores} "
              f"[{time.perf_counter() - t0:.0f} s]", flush=True)
    title = f"{run.name}: az sims={args.sims}, {args.games} games a colour per point"
    mine = {k: v for k, v in results.items() if v["sims"] == args.sims}
    if plot(mine, run / "strength.png", title):
        print(f"wrote {run / 'strength.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
