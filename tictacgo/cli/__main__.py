"""``python -m tictacgo.cli``: the ``tictacgo`` command."""

import sys

from tictacgo.cli import main

sys.exit(main())
