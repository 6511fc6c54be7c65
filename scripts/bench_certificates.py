"""How long a certificate takes to make and to check: one position of the frontier line, a few rounds.

Proves the position of the 5x5 frontier line (``docs/data/solver_frontier_5x5.json``)
with ``--left`` actions to go, each round with a fresh solver table
(``prove``, the pass bound as leaf rule), writes the certificate to a
temporary folder and checks it (``verify``), and prints one JSON line: the
rows, the positions searched and checked, and each round's seconds with
their medians. To compare two versions of the package, run it under each
(``PYTHONPATH=OTHER_CHECKOUT``), alternating:

    python scripts/bench_certificates.py --left 15 --rounds 3

``--prefer-known`` makes the certificate with known moves first (``prove``'s
``prefer_known``): run with and without it to compare the proofs' sizes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import tictacgo
from tictacgo.games import littlego
from tictacgo.solver import Solver

try:
    from tictacgo.proof import prove, verify
except ModuleNotFoundError:  # a version before tictacgo.proof, to compare with (see above)
    from tictacgo.solver import prove, verify

LINE = Path(__file__).resolve().parents[1] / "docs" / "data" / "solver_frontier_5x5.json"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--left", type=int, default=15,
                   help="actions to go at the position (12 to 19; default 15)")
    p.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    p.add_argument("--table-bits", type=int, default=23,
                   help="log2 of the solver's table entries (default 23)")
    p.add_argument("--prefer-known", action="store_true",
                   help="make the certificate with prove's prefer_known (known moves before the solver's)")
    args = p.parse_args(argv)
    if not 12 <= args.left <= 19:
        p.error(f"--left must be 12 to 19 (the line's proved positions), got {args.left}")
    if args.rounds < 1:
        p.error(f"--rounds must be at least 1, got {args.rounds}")
    run = json.loads(LINE.read_text())
    game = littlego.LittleGo(run["size"], run["komi"], run["max_actions"])
    n = game.size  # the moves as the course writes them; parsed here, so that older versions run it too
    line = [n * n if m == "PASS" else int(m.split(",")[0]) * n + int(m.split(",")[1])
            for m in run["line"][:game.max_actions - args.left]]
    state = game.initial_state()
    for a in line:
        state = littlego.play(state, a)
    Solver(8).solve(littlego.LittleGo(2).initial_state())  # compile before timing
    make, check = [], []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.cert"
        for _ in range(args.rounds):
            start = time.perf_counter()
            known = {"prefer_known": True} if args.prefer_known else {}  # older versions lack it
            cert = prove(state, Solver(args.table_bits), line=line, **known)
            cert.write(path)
            make.append(time.perf_counter() - start)
            report = verify(path)
            check.append(report.seconds)
    print(json.dumps({"package": str(Path(tictacgo.__file__).parent), "left": args.left,
                      "prefer_known": args.prefer_known, "table_bits": args.table_bits, "rows": cert.rows,
                      "solver_positions": cert.oracle_nodes, "checked_positions": report.positions,
                      "make_seconds": [round(x, 2) for x in make],
                      "check_seconds": [round(x, 2) for x in check],
                      "make_median": round(statistics.median(make), 2),
                      "check_median": round(statistics.median(check), 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
