"""The learning curves of several AlphaZero runs on one rating scale: how reliably the recipe gets there.

Reads each run's ``ratings.json`` (written by ``scripts/rate_alphazero.py``:
every checkpoint's games against fixed anchors) and fits one Bradley-Terry
model to all of those games together, checkpoints of every run and the
anchors, on the Elo scale with the first anchor (``random``) at 0 (see
``tictacgo.evaluation.seed_curves``). The anchors also play a round robin among
themselves (``--anchor-games`` a pair, seeded; kept in ``--anchor-cache``
and read back on the next call), so that their ratings rest on their own
games and not only on the checkpoints' wins against them. Prints a table
of every checkpoint's rating (with its standard error) and its score
against the strongest anchor, and draws the ratings against training wall
time and against self-play positions, one line per run (needs matplotlib).

    python scripts/plot_alphazero_seeds.py --runs runs/go_az runs/go_az_seed1 runs/go_az_seed2 \\
        --png docs/img/alphazero_seeds.png --json docs/data/alphazero_seeds.json
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.seed_curves import (
    anchor_games,
    anchors_of,
    checkpoint_table,
    fit,
    load_runs,
    plot,
    run_anchors,
)


@dataclass
class Args:
    runs: list[str] = setting([], "Training output folders, each rated.", default_text="none: required")
    labels: list[str] | None = setting(None, "A name for each run.", default_text="each run's folder name")
    sims: int = setting(32, "The simulations the checkpoints were rated with.")
    anchor_games: int = setting(20, "Games a pair in the anchors' round robin (0: none).")
    anchor_cache: str | None = setting(None, "The anchors' round robin results.",
                                       default_text="anchors.json in the first run")
    png: str | None = setting(None, "Draw the curves here.")
    json: str | None = setting(None, "Write the ratings and the table here.")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    try:
        if not args.runs:
            raise ValueError("--runs needs at least one rated training folder")
        for path in (args.png, args.json):
            if path:
                check_writable(path)
        runs = load_runs(args.runs, args.labels, args.sims)
    except (ValueError, OSError) as e:
        print(f"plot_alphazero_seeds.py: error: {e}", file=sys.stderr)
        return 2
    among = []
    if args.anchor_games > 0:
        first = Path(args.runs[0])
        game = json.loads((first / "config.json").read_text())["game"]
        cache = Path(args.anchor_cache) if args.anchor_cache else first / "anchors.json"
        among = anchor_games(run_anchors(anchors_of(runs), game, args.anchor_games, cache))
    ratings, anchors, names = fit(runs, among)
    table = checkpoint_table(runs, ratings, anchors, names)
    index = {n: i for i, n in enumerate(ratings.names)}
    top = anchors[-1]
    print("anchors (Elo): " + ", ".join(f"{a} {ratings.elo[index[a]]:.0f}" for a in anchors))
    width = max(16, *(len(label) for label in runs))
    print(f"{'run':<{width}} {'hours':>6} {'positions':>11} {'rating':>7} {'+-':>5} {'score vs ' + top:>24}")
    for row in table:
        score = row[f"score_vs_{top}"]
        print(f"{row['run']:<{width}} {row['seconds'] / 3600:6.2f} {row['positions']:11,d} {row['elo']:7.0f} "
              f"{row['se']:5.0f} {'-' if score is None else f'{score:.2f}':>24}")
    title = f"az sims={args.sims} against fixed anchors, one Bradley-Terry fit over {len(runs)} runs"
    if args.png and plot(runs, ratings, anchors, names, Path(args.png), title):
        print(f"wrote {args.png}")
    if args.json:
        atomic_write_json(args.json, {"sims": args.sims, "ratings": ratings.to_json(), "checkpoints": table},
                          indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
