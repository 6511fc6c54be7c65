"""The learning curves of several AlphaZero runs on one rating scale: how reliably a recipe gets there.

Each run's ``ratings.json`` (written by ``scripts/rate_alphazero.py``: every checkpoint's games
against fixed anchors) feeds one Bradley-Terry model over all of those games together, checkpoints
of every run and the anchors, on the Elo scale with the first anchor (``random``) at 0 (see
``tictacgo.arena.ratings``). The anchors also play a round robin among themselves, kept in a cache
file, so that their ratings rest on their own games and not only on the checkpoints' wins against
them. ``scripts/plot_alphazero_seeds.py`` prints the table and draws the curves.
"""

from __future__ import annotations

import json
from pathlib import Path

from tictacgo.arena.ratings import ratings_from_results
from tictacgo.arena.round_robin import run_round_robin
from tictacgo.atomic import atomic_write, atomic_write_json


def load_points(run: Path, sims: int) -> list[dict]:
    """The run's rated checkpoints at ``sims`` simulations, by training time.

    Raises:
        ValueError: the run has no ``ratings.json`` or no checkpoint rated at ``sims``.
    """
    path = run / "ratings.json"
    if not path.is_file():
        raise ValueError(f"{path} does not exist: rate the run first (scripts/rate_alphazero.py --run {run})")
    entries = [
        {"checkpoint": key.split("@")[0], **e}
        for key, e in json.loads(path.read_text()).items()
        if e["sims"] == sims
    ]
    if not entries:
        raise ValueError(f"{path} has no checkpoint rated with {sims} simulations")
    return sorted(entries, key=lambda e: e["seconds"])


def wdl_games(a: str, b: str, w: int, d: int, lost: int) -> list[tuple[str, str, float]]:
    """One ``(a, b, a's score)`` triple per game of a's wins, draws and losses against b."""
    return [(a, b, 1.0)] * w + [(a, b, 0.5)] * d + [(a, b, 0.0)] * lost


def games_of(name: str, entry: dict) -> list[tuple[str, str, float]]:
    """One ``(agent, anchor, score)`` triple per game a checkpoint played."""
    return [g for anchor, r in entry["anchors"].items()
            for side in (r["as_first"], r["as_second"]) for g in wdl_games(name, anchor, *side)]


def run_anchors(anchors: list[str], game: str, games: int, cache: Path, seed: int = 0) -> list[list]:
    """The anchors' round robin as ``[A, B, A's W, D, L]`` rows, played once and kept in ``cache``."""
    key = {"game": game, "anchors": anchors, "games_per_pair": games, "seed": seed}
    if cache.is_file():
        kept = json.loads(cache.read_text())
        if {k: kept.get(k) for k in key} == key:
            return kept["pairs"]
    rr = run_round_robin(game, anchors, games, seed, workers=1, progress=False, keep_games=False)
    pairs = [[anchors[i], anchors[j], *m.wdl()] for (i, j), m in sorted(rr.matches.items())]
    atomic_write_json(cache, {**key, "pairs": pairs}, indent=1)
    return pairs


def anchor_games(pairs: list[list]) -> list[tuple[str, str, float]]:
    """One ``(A, B, A's score)`` triple per game of the anchors' round robin."""
    return [g for row in pairs for g in wdl_games(*row)]


def anchors_of(runs: dict[str, list[dict]]) -> list[str]:
    """Every anchor the runs' checkpoints played, in first-seen order."""
    return list(dict.fromkeys(a for points in runs.values() for e in points for a in e["anchors"]))


def load_runs(folders: list[str], labels: list[str] | None, sims: int) -> dict[str, list[dict]]:
    """Each run's rated checkpoints by its label (default: the folder's name).

    Raises:
        ValueError: the labels are not one distinct name per run, or a run is not rated at ``sims``.
    """
    labels = labels or [Path(r).name for r in folders]
    if len(labels) != len(folders) or len(set(labels)) != len(labels):
        raise ValueError(f"--labels needs one distinct name per run ({len(folders)}), got {labels}")
    return {label: load_points(Path(r), sims) for label, r in zip(labels, folders, strict=True)}


def fit(runs: dict[str, list[dict]], among_anchors: list[tuple[str, str, float]]):
    """One Bradley-Terry fit over every run's games; (ratings, anchors, name of each point)."""
    anchors = anchors_of(runs)
    results, names = list(among_anchors), {}
    for label, points in runs.items():
        for e in points:
            names[(label, e["checkpoint"])] = name = f"{label}/{e['checkpoint']}"
            results += games_of(name, e)
    ratings = ratings_from_results(results, names=anchors + list(names.values()), anchor="first")
    return ratings, anchors, names


def plot(runs, ratings, anchors, names, path: Path, title: str) -> bool:
    """Ratings against training hours and against positions; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    index = {n: i for i, n in enumerate(ratings.names)}
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for label, points in runs.items():
        elo = [ratings.elo[index[names[(label, e["checkpoint"])]]] for e in points]
        se = [ratings.se[index[names[(label, e["checkpoint"])]]] for e in points]
        hours = [e["seconds"] / 3600 for e in points]
        millions = [e["positions"] / 1e6 for e in points]
        for ax, x in zip(axes, (hours, millions), strict=True):
            ax.errorbar(x, elo, yerr=se, marker="o", ms=3, capsize=2, label=label)
    for a in anchors[1:]:
        for ax in axes:
            ax.axhline(ratings.elo[index[a]], color="grey", lw=0.7, ls="--")
        axes[1].annotate(a, (1.0, ratings.elo[index[a]]), xycoords=("axes fraction", "data"),
                         fontsize=7, color="grey", ha="right", va="bottom")
    axes[0].set_xlabel("training wall time (hours)")
    axes[1].set_xlabel("self-play positions (millions)")
    axes[0].set_ylabel(f"Bradley-Terry rating, Elo scale ({anchors[0]} = 0)")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, loc="lower right")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=90), binary=True)
    plt.close(fig)
    return True


def checkpoint_table(runs: dict[str, list[dict]], ratings, anchors: list[str], names: dict) -> list[dict]:
    """One row per checkpoint: run, training time, positions, rating and its standard error, and the
    score against the strongest (last) anchor."""
    index = {n: i for i, n in enumerate(ratings.names)}
    top = anchors[-1]
    table = []
    for label, points in runs.items():
        for e in points:
            i = index[names[(label, e["checkpoint"])]]
            table.append({"run": label, "seconds": e["seconds"], "positions": e["positions"],
                          "elo": round(float(ratings.elo[i]), 1), "se": round(float(ratings.se[i]), 1),
                          f"score_vs_{top}": e["anchors"].get(top, {}).get("score")})
    return table
