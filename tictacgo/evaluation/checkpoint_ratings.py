"""Rate the checkpoints of an AlphaZero run against fixed anchors, for a strength-by-training-time curve.

Each checkpoint plays ``games`` games as each colour against every anchor
(an agent spec; by default for Little-Go random, greedy, aggressive,
alphabeta and mcts at two budgets; for Tic-Tac-Toe random and minimax) with
a number of simulations a move (``0``: the raw network). The results go to
the run's ``ratings.json`` (``scripts/rate_alphazero.py`` skips the
checkpoints already there), which ``tictacgo.evaluation.seed_curves`` fits on
one scale across runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tictacgo.arena.match import run_match
from tictacgo.atomic import atomic_write
from tictacgo.baselines.learning.alphazero.modelfile import read_meta

ANCHORS = {
    "littlego": ["random", "greedy", "aggressive", "alphabeta", "mcts:sims=200", "mcts:sims=1000"],
    "tictactoe": ["random", "minimax"],
}


def rate(folder: Path, game: str, anchors: list[str], games: int, sims: int, seed: int, workers: int) -> dict:
    """One checkpoint's results against every anchor: ``games`` a colour, the anchor k seeded ``seed + k``.

    A bar counts each anchor's games on a terminal (the arena's).
    """
    info = read_meta(folder)["info"]
    entry = {"seconds": info.get("seconds"), "positions": info.get("positions"), "sims": sims, "anchors": {}}
    for k, anchor in enumerate(anchors):
        spec = f"az:path={folder},sims={sims}"
        res = run_match(game, spec, anchor, games=2 * games, seed=seed + k, workers=workers,
                        progress=sys.stderr.isatty())
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


def checkpoints(run: Path, every: int = 1) -> list[Path]:
    """Every ``every``-th checkpoint folder of a training run, the last always.

    Raises:
        ValueError: the run has no checkpoints.
    """
    folders = [f.parent for f in sorted((run / "checkpoints").glob("*/model.json"))]
    if not folders:
        raise ValueError(f"no checkpoints under {run / 'checkpoints'}")
    return [f for i, f in enumerate(folders) if i % every == 0 or f == folders[-1]]
