#!/usr/bin/env python3
"""Random play through the batched engines, numpy against numba, and numba's compile cost.

Entry point of ``benchmarks.batched_engines``, where the measurement and its options are documented;
``--help`` lists the options.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the benchmarks package beside scripts/

from benchmarks.batched_engines import cli  # noqa: E402

if __name__ == "__main__":
    sys.exit(cli())
