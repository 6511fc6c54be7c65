"""The arguments of ``reset`` for every tictacgo env, AEC and Gymnasium alike.

``seed`` must be a non-negative int (``check_seed``). Both APIs accept
``options={"state": s}``: the game starts from the rules-core
state ``s`` (any position of the env's game and variant that is not over)
instead of the initial position. The state is checked completely
(``game.check_state``): one that no legal play reaches is refused. Other keys are ignored, as Gymnasium envs
usually do; ``options`` that is not a dict is refused.
"""

from __future__ import annotations

from typing import Any

from tictacgo.games.base import Game
from tictacgo.validate import check_int


def start_state(game: Game, options: Any, initial: Any) -> Any:
    """The state a reset starts from: ``options["state"]`` if given (checked), else ``initial``.

    Args:
        game: the env's game object.
        options: the ``options`` argument of ``reset`` (None or a dict).
        initial: the env's own initial state (gives the type and variant expected).
    Raises:
        TypeError: ``options`` is not a dict, or the state is not a state of this game.
        ValueError: the state is over, of another variant (board size, komi, limit), or
            not a position legal play reaches (``game.check_state``).
    """
    if options is None:
        return initial
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict or None, got {options!r} ({type(options).__name__})")
    start = options.get("state")
    if start is None:
        return initial
    mine = game.spec
    if type(start) is not type(initial):
        raise TypeError(f"options['state'] must be a {type(initial).__name__} of "
                        f"tictacgo.games.{mine.name}, got {type(start).__name__}")
    theirs = getattr(getattr(start, "game", game), "spec", None)  # states of variants carry their game
    if theirs is not None and theirs != mine:
        raise ValueError(f"options['state'] is a game of other rules ({_rules(theirs)}); "
                         f"this env plays {_rules(mine)}")
    try:
        game.check_state(start)
    except (TypeError, ValueError) as e:
        raise type(e)(f"options['state'] is no position of {mine.name}: {e}") from None
    if game.is_terminal(start):
        raise ValueError("options['state'] is a finished game; give a position with a move to play")
    return start


def _rules(spec) -> str:
    rows, cols = spec.board_shape
    text = f"{rows}x{cols}"
    if spec.komi is not None:
        text += f", komi {spec.komi:g}"
    if spec.max_actions is not None:
        text += f", {spec.max_actions} actions"
    return text


def check_seed(seed: Any) -> int:
    """``seed`` as a non-negative int, the seeds Gymnasium's ``np_random`` accepts.

    Raises:
        TypeError: not an int (bools too); numpy integers are returned as Python ints.
        ValueError: negative.
    """
    return int(check_int("seed", seed, min=0, expected="a non-negative int or None"))
