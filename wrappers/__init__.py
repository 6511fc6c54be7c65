"""Gymnasium wrappers for the tictacgo envs, one a file.

* ``IllegalMovePenalty``: refuse illegal actions with an immediate penalty
  instead of ending the episode.
"""

from tictacgo.wrappers.illegal_move_penalty import IllegalMovePenalty

__all__ = ["IllegalMovePenalty"]
