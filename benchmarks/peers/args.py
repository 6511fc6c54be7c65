"""The peer benchmark's command line: which cases, implementations and batch sizes, the budgets, and
the MaskablePPO and AlphaZero rows' settings. Lists are comma lists checked against the known names."""

from __future__ import annotations

import argparse

from .cases import BATCHES, CASES, IMPLS

DESCRIPTION = "tictacgo against PettingZoo, OpenSpiel, pgx and EnvPool, measured side by side."


def csv_list(kind: str, allowed, cast=str):
    def parse(text: str):
        items = [cast(x.strip()) for x in text.split(",") if x.strip()]
        bad = [x for x in items if x not in allowed]
        if bad or not items:
            choices = ", ".join(map(str, allowed))
            raise argparse.ArgumentTypeError(f"{kind} must be a comma list of {choices}; got {text!r}")
        return items
    return parse


def positive(cast, what: str):
    """An argparse type: ``text`` as ``cast``, refused unless it is above zero (``what`` names it)."""
    def parse(text: str):
        try:
            value = cast(text)
        except ValueError:
            value = cast(0)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    return parse


positive_int = positive(int, "a positive integer")
positive_float = positive(float, "a positive number of seconds")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The benchmark's settings from the command line; budgets and simulations shrink with ``--quick``."""
    ap = argparse.ArgumentParser(prog="bench.py", description=DESCRIPTION)
    ap.add_argument("--budget", type=positive_float, default=None,
                    help="seconds per measurement (default 1.5, or 0.05 with --quick)")
    ap.add_argument("--repeats", type=positive_int, default=3, help="interleaved runs per case (median)")
    ap.add_argument("--cases", type=csv_list("--cases", CASES), default=list(CASES))
    ap.add_argument("--impls", type=csv_list("--impls", IMPLS), default=list(IMPLS))
    ap.add_argument("--batches", type=csv_list("--batches", BATCHES, int), default=list(BATCHES))
    ap.add_argument("--sims", type=positive_int, default=None,
                    help="MCTS simulations per search (default 400, or 20 with --quick)")
    ap.add_argument("--ppo-envs", type=positive_int, default=64, help="n_envs of both MaskablePPO rows")
    ap.add_argument("--ppo-n-steps", type=positive_int, default=64,
                    help="rollout length per env; one measurement is one rollout and its updates")
    ap.add_argument("--az-games", type=positive_int, default=256, help="AlphaZero self-play games at once")
    ap.add_argument("--az-sims", type=positive_int, default=32, help="AlphaZero simulations per move")
    ap.add_argument("--az-channels", type=positive_int, default=32, help="AlphaZero network channels")
    ap.add_argument("--az-blocks", type=positive_int, default=4, help="AlphaZero network residual blocks")
    ap.add_argument("--az-threads", type=positive_int, default=1,
                    help="CPU threads of the AlphaZero rows' torch and XLA (1: as training runs)")
    ap.add_argument("--az-precision", choices=("float32", "bfloat16"), default="float32",
                    help="the AlphaZero rows' network arithmetic, on both sides")
    ap.add_argument("--quick", action="store_true", help="tiny budgets, for a test")
    ap.add_argument("--json", default=None, help="write the rows and the machine to this file")
    ap.add_argument("--note", default="", help="a note about the machine, kept in the JSON")
    args = ap.parse_args(argv)
    if args.budget is None:
        args.budget = 0.05 if args.quick else 1.5
    if args.sims is None:
        args.sims = 20 if args.quick else 400
    return args
