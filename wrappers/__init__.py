"""Gymnasium wrappers for the tictacgo envs, one a file.

* ``IllegalMovePenalty``: refuse illegal actions with an immediate penalty
  instead of ending the episode.
* ``RandomOpening``: exploring starts, each episode after a few random moves.
"""

from tictacgo.wrappers.illegal_move_penalty import IllegalMovePenalty
from tictacgo.wrappers.random_opening import RandomOpening

__all__ = ["IllegalMovePenalty", "RandomOpening"]
