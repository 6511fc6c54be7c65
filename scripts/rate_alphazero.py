"""Rate the checkpoints of an AlphaZero run against fixed anchors; draw strength against training time.

Each checkpoint under ``RUN/checkpoints/`` plays ``--games`` games as each
colour against every anchor (an agent spec; by default for Little-Go
random, greedy, aggressive, alphabeta and mcts at two budgets; for
Tic-Tac-Toe random and minimax), with ``--sims`` simulations a move
(``0``: the raw network). Results go to ``RUN/ratings.json`` (checkpoints
already there are skipped, so the script can be rerun while the training
goes on) and the score ``(W + D/2) / N`` against each anchor, by the
checkpoint's training wall time, to ``RUN/strength.png`` (needs matplotlib).

    python scripts/rate_alphazero.py --run runs/go_az --games 10 --sims 32
    python scripts/rate_alphazero.py --run runs/ttt_az --games 50 --sims 0
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tictacgo.arena.match import run_match
from tictacgo.atomic import atomic_write, atomic_write_json
from tictacgo.baselines.learning.alphazero.modelfile import read_meta

ANCHORS = {
    "littlego": ["random", "greedy", "aggressive", "alphabeta", "mcts:sims=200", "mcts:sims=1000"],
    "tictactoe": ["random", "minimax"],
}


def rate(folder: Path, game: str, anchors: list[str], games: int, sims: int, seed: int, workers: int) -> dict:
    """One checkpoint's results against every anchor."""
    info = read_meta(folder)["info"]
    entry = {"seconds": info.get("seconds"), "positions": info.get("positions"), "sims": sims, "anchors": {}}
    for k, anchor in enumerate(anchors):
        spec = f"az:path={folder},sims={sims}"
        res = run_match(game, spec, anchor, games=2 * games, seed=seed + k, workers=workers, progress=False)
        entry["anchors"][anchor] = {"score": res.score, "as_first": list(res.wdl(1)),
                                    "as_second": list(res.wdl(2))}
    return entry


def plot(results: dict, path: Path, title: str) -> bool:
    """Score against each anchor by training hours; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = sorted(results.values(), key=lambda e: e["seconds"] or 0)
    anchors = list(dict.fromkeys(a for e in rows for a in e["anchors"]))  # first-seen order
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for a in anchors:
        pts = [(e["seconds"] / 3600, e["anchors"][a]["score"]) for e in rows if a in e["anchors"]]
        ax.plot(*zip(*pts, strict=True), marker="o", label=a)
    ax.set_xlabel("training wall time (hours)")
    ax.set_ylabel("score against the anchor (W + D/2) / N")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=110), binary=True)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", required=True, help="the training's output folder")
    p.add_argument("--anchors", default=None, help="comma-separated agent specs (default: per game)")
    p.add_argument("--games", type=int, default=10, help="games per colour per anchor")
    p.add_argument("--sims", type=int, default=32, help="simulations per move of the rated network")
    p.add_argument("--every", type=int, default=1, help="rate every k-th checkpoint (the last always)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="arena worker processes")
    args = p.parse_args(argv)
    run = Path(args.run)
    folders = sorted((run / "checkpoints").glob("*/model.json"))
    if not folders:
        p.error(f"no checkpoints under {run / 'checkpoints'}")
    folders = [f.parent for f in folders]
    folders = [f for i, f in enumerate(folders) if i % args.every == 0 or f == folders[-1]]
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
