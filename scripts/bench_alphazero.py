#!/usr/bin/env python3
"""The batched AlphaZero search's evaluations per second, and where self-play's time goes.

Entry point of ``benchmarks.alphazero_search``, where the measurement and its options are documented;
``--help`` lists the options.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the benchmarks package beside scripts/

from benchmarks.alphazero_search import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
