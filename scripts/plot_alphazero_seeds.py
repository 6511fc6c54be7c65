"""The learning curves of several AlphaZero runs on one rating scale: how reliably the recipe gets there.

Reads each run's ``ratings.json`` (written by ``scripts/rate_alphazero.py``:
every checkpoint's games against fixed anchors) and fits one Bradley-Terry
model to all of those games together, checkpoints of every run and the
anchors, on the Elo scale with the first anchor (``random``) at 0 (see
``tictacgo.arena.ratings``). The anchors also play a round robin among
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

import argparse
import json
import sys
from pathlib import Path

from tictacgo.arena.ratings import ratings_from_results
from tictacgo.atomic import atomic_write, atomic_write_json, check_writable


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
    from tictacgo.arena.round_robin import run_round_robin

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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", nargs="+", required=True, help="training output folders, each rated")
    p.add_argument("--labels", nargs="+", default=None, help="a name for each run (default: its folder's)")
    p.add_argument("--sims", type=int, default=32, help="the simulations the checkpoints were rated with")
    p.add_argument("--anchor-games", type=int, default=20,
                   help="games a pair in the anchors' round robin (0: none)")
    p.add_argument("--anchor-cache", default=None,
                   help="the anchors' round robin results (default: anchors.json in the first run)")
    p.add_argument("--png", default=None, help="draw the curves here")
    p.add_argument("--json", default=None, help="write the ratings and the table here")
    args = p.parse_args(argv)
    for path in (args.png, args.json):
        if path:
            check_writable(path)
    labels = args.labels or [Path(r).name for r in args.runs]
    if len(labels) != len(args.runs) or len(set(labels)) != len(labels):
        p.error(f"--labels needs one distinct name per run ({len(args.runs)}), got {labels}")
    try:
        runs = {label: load_points(Path(r), args.sims) for label, r in zip(labels, args.runs, strict=True)}
    except ValueError as e:
        p.error(str(e))
    among = []
    if args.anchor_games > 0:
        first = Path(args.runs[0])
        game = json.loads((first / "config.json").read_text())["game"]
        cache = Path(args.anchor_cache) if args.anchor_cache else first / "anchors.json"
        among = anchor_games(run_anchors(anchors_of(runs), game, args.anchor_games, cache))
    ratings, anchors, names = fit(runs, among)
    index = {n: i for i, n in enumerate(ratings.names)}
    top = anchors[-1]
    print("anchors (Elo): " + ", ".join(f"{a} {ratings.elo[index[a]]:.0f}" for a in anchors))
    width = max(16, *(len(label) for label in runs))
    print(f"{'run':<{width}} {'hours':>6} {'positions':>11} {'rating':>7} {'+-':>5} {'score vs ' + top:>24}")
    table = []
    for label, points in runs.items():
        for e in points:
            i = index[names[(label, e["checkpoint"])]]
            score = e["anchors"].get(top, {}).get("score")
            table.append({"run": label, "seconds": e["seconds"], "positions": e["positions"],
                          "elo": round(float(ratings.elo[i]), 1), "se": round(float(ratings.se[i]), 1),
                          f"score_vs_{top}": score})
            print(f"{label:<{width}} {e['seconds'] / 3600:6.2f} {e['positions']:11,d} {ratings.elo[i]:7.0f} "
                  f"{ratings.se[i]:5.0f} {'-' if score is None else f'{score:.2f}':>24}")
    title = f"az sims={args.sims} against fixed anchors, one Bradley-Terry fit over {len(runs)} runs"
    if args.png and plot(runs, ratings, anchors, names, Path(args.png), title):
        print(f"wrote {args.png}")
    if args.json:
        atomic_write_json(args.json, {"sims": args.sims, "ratings": ratings.to_json(), "checkpoints": table},
                          indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
