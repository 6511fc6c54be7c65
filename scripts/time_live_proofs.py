"""How long the perfect agent's live proofs take where the proof's book ends.

For each number of actions to go, ``--samples`` positions of the proof's
strategy (the book's Black moves, a seeded random White), each solved from
an empty table as one ``tictacgo my-player`` process would
(``tictacgo.evaluation.perfect_play.live_proof_times``): the median and worst
seconds and positions.

    python scripts/time_live_proofs.py --left 12,14,16 --samples 60 --seed 0
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass

from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.perfect_play import live_proof_times


@dataclass
class Args:
    left: str = setting("12,14,16", "Comma-separated actions to go (even: Black to move).")
    samples: int = setting(60, "Positions for each.")
    seed: int = setting(0, "Seeds White's random moves.")
    table_bits: int = setting(22, "log2 of the solver's table entries.")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.splitlines()[0])
    print("| to go | positions | median seconds | worst seconds | median positions searched | most |")
    print("|---:|---:|---:|---:|---:|---:|")
    for left in (int(x) for x in args.left.split(",") if x.strip()):
        try:
            rows = live_proof_times(left, args.samples, args.seed, args.table_bits)
        except ValueError as e:
            print(f"time_live_proofs.py: error: {e}", file=sys.stderr)
            return 1
        seconds, nodes = [r[0] for r in rows], [r[1] for r in rows]
        print(f"| {left} | {len(rows)} | {statistics.median(seconds):.3f} | {max(seconds):.2f} | "
              f"{statistics.median(nodes):,.0f} | {max(nodes):,} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
