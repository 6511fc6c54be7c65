"""tictacgo's benchmarks: speed measurements kept apart from the library, each a module here.

* ``benchmarks.peers``: tictacgo against PettingZoo, OpenSpiel, pgx and EnvPool (random play, MCTS,
  MaskablePPO, AlphaZero self-play), measured side by side (``python scripts/bench.py``).
* ``benchmarks.alphazero_search``: the batched AlphaZero search's evaluations per second and where
  self-play's time goes (``python scripts/bench_alphazero.py``).
* ``benchmarks.batched_engines``: random play through the batched engines, numpy against numba, and
  numba's compile cost (``python scripts/bench_batched.py``).
* ``benchmarks.ppo_split``: where a MaskablePPO training step's time goes (``python
  scripts/bench_ppo_split.py``).

The scripts under scripts/ are their entry points; ``python -m benchmarks.<name>`` from the
repository's root runs the same. The benchmarks import the installed tictacgo and nothing in the
library imports them.
"""
