"""Judging trained agents and networks: the library behind the evaluation scripts.

* ``tictactoe_judge``: a learned Tic-Tac-Toe agent's audit over every live position and its matches,
  against the targets of its kind (a learned policy, A2C, AlphaZero).
* ``littlego_ladder``: Little-Go agents against the course's ladder, by colour or game by game.
* ``endgame_mistakes``: how often an agent keeps the exact value of the Little-Go endgame benchmark.
* ``checkpoint_ratings``: an AlphaZero run's checkpoints against fixed anchors.
* ``value_check``: an AlphaZero network's value head against held-out games, the board's symmetries
  and exact values.
* ``seed_curves``: several AlphaZero runs' rated checkpoints in one Bradley-Terry fit (learning
  curves on one scale).
* ``frontier``: a line of Little-Go play solved backward toward the empty board by the exact solver,
  as a run that can stop and go on (``scripts/solve_frontier.py``).
* ``subtree_jobs``: a Little-Go position solved as one frontier run for each class of its symmetric
  moves, the values combined at the root, resumable (``scripts/solve_subtrees.py``); ``subtree_workers``
  runs the jobs in worker processes or as Ray actors.
* ``progress``: games done, elapsed time and an estimate on a terminal, for long evaluations.

The modules import torch, the solver or the arena as they need; importing this package imports none.
"""
