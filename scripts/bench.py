#!/usr/bin/env python3
"""tictacgo against PettingZoo, OpenSpiel, pgx and EnvPool, measured side by side (``benchmarks.peers``).

    pip install -e '.[train,bench]'       # the peers: open_spiel, pgx, jax, mctx
    python scripts/bench.py [--budget 1.5] [--repeats 3] [--cases go5_random_play,go5_mcts]
                            [--impls tictacgo_core,pgx] [--batches 1,1024] [--json out.json] [--quick]
    python scripts/bench.py --cases go5_alphazero_selfplay --budget 6   # AlphaZero self-play alone

The cases and how each is measured: the docstring of ``benchmarks/peers/__init__.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the benchmarks package beside scripts/

from benchmarks.peers import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
