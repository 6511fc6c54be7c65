"""Judging trained agents and networks: the library behind the evaluation scripts.

* ``value_check``: an AlphaZero network's value head against held-out games, the board's symmetries
  and exact values.
* ``seed_curves``: several AlphaZero runs' rated checkpoints in one Bradley-Terry fit (learning
  curves on one scale).
* ``progress``: games done, elapsed time and an estimate on a terminal, for long evaluations.

The modules import torch, the solver or the arena as they need; importing this package imports none.
"""
