"""Rerun the shipped Tic-Tac-Toe models' recipes and check that their published figures reproduce.

Each recipe (``tictacgo.baselines.learning.recipes.RECIPES``: the commands the
README prints) is trained into ``--out/NAME`` with ``tictacgo train``, then its
model is audited over Tic-Tac-Toe's 4,520 live positions: the share where its
move keeps the minimax value, against the published figure and the lowest
share that still counts as reproducing it, and for the AlphaZero recipe whether
the rerun made the shipped weights exactly. Prints a table; exits 1 if a
recipe does not reproduce. Meant for a scheduled check on a quiet machine
(about 10 minutes there with both recipes), not for the test suite.

    python scripts/check_recipes.py --out runs/recipes
    python scripts/check_recipes.py --only tictactoe-alphazero --out runs/recipes
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tictacgo.baselines.learning.recipes import RECIPES, measure
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli import main as tictacgo
from tictacgo.cli.options import parse_options


@dataclass
class Args:
    """Arguments of the check."""

    out: str = setting("runs/recipes", "One folder per recipe is made (or replaced) below this one.")
    only: str = setting("", "Comma-separated recipe names (default: all of them).")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    names = {r.name for r in RECIPES}
    wanted = [n for n in args.only.split(",") if n] or sorted(names)
    unknown = set(wanted) - names
    if unknown:
        print(f"check_recipes: error: unknown recipe {sorted(unknown)}; choose from {sorted(names)}",
              file=sys.stderr)
        return 2
    rows, failed = [], False
    for recipe in (r for r in RECIPES if r.name in wanted):
        out = Path(args.out) / recipe.name
        print(f"== {recipe.name}: tictacgo {' '.join(recipe.argv(out))} --force", flush=True)
        t0 = time.perf_counter()
        status = tictacgo([*recipe.argv(out), "--force"])
        minutes = (time.perf_counter() - t0) / 60
        if status != 0:
            rows.append((recipe.name, recipe.published, None, recipe.low, minutes, "training failed"))
            failed = True
            continue
        rate = measure(recipe.agent_spec(out))
        ok = recipe.reproduces(rate)
        failed |= not ok
        same = {None: "-", True: "same", False: "other"}[recipe.same_weights(out)]
        rows.append((recipe.name, recipe.published, rate, recipe.low, minutes, "yes" if ok else "NO", same))
    print("\n| recipe | published | rerun | lowest that reproduces | wall minutes | reproduced "
          "| weights as shipped |")
    print("|---|---:|---:|---:|---:|---|---|")
    for name, pub, rate, low, minutes, verdict, *same in rows:
        shown = "-" if rate is None else f"{rate:.2%}"
        same = (same or ["-"])[0]
        print(f"| {name} | {pub:.2%} | {shown} | {low:.2%} | {minutes:.1f} | {verdict} | {same} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
