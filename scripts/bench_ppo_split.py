#!/usr/bin/env python3
"""Where a MaskablePPO training step's time goes, and which setting steps fastest.

Entry point of ``benchmarks.ppo_split``, where the measurement and its options are documented;
``--help`` lists the options.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the benchmarks package beside scripts/

from benchmarks.ppo_split import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
