"""``python -m benchmarks.peers``: the peer benchmark (see the package's docstring)."""

import sys

from .driver import main

sys.exit(main())
