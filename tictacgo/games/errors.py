"""Exceptions and action validation shared by the rules cores."""

from __future__ import annotations

import numbers


class IllegalActionError(ValueError):
    """A well-formed action that the rules refuse here (occupied, suicide, ko).

    ``reason`` names the rule; the state the action was tried on is unchanged.
    """

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


class GameOverError(RuntimeError):
    """An action was played on a finished game."""


def check_action_type(action, num_actions: int) -> int:
    """``action`` as a Python int, after checking its type and range.

    Accepts Python and numpy integers (and 0-d integer arrays, as
    ``Discrete.sample()`` and SB3's ``predict`` return); refuses bools,
    floats, None and everything else.

    Raises:
        TypeError: not an integer.
        ValueError: outside ``[0, num_actions)``.
    """
    if type(action) is int and 0 <= action < num_actions:
        return action  # the common case, without the checks below (search calls this per node)
    dtype_kind = getattr(getattr(action, "dtype", None), "kind", "")
    if getattr(action, "shape", None) == () and dtype_kind in ("i", "u"):
        action = action.item()
    if isinstance(action, bool) or not isinstance(action, numbers.Integral):
        raise TypeError(f"action must be an integer in [0, {num_actions - 1}], "
                        f"got {action!r} of type {type(action).__name__}")
    a = int(action)
    if not 0 <= a < num_actions:
        raise ValueError(f"action must be in [0, {num_actions - 1}], got {a}")
    return a
