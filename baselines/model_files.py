"""What a trained model file says about the game it plays.

Training writes, beside each model ``NAME.zip``, a JSON file ``NAME.json``
with the game's name and variant (Little-Go's board size, komi and action
limit). A model agent reads it to refuse a model trained for another game
or board before playing, with a message that names both.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tictacgo.baselines.model_reading import read_json


def model_game_file(path: str | os.PathLike) -> Path:
    """The JSON file beside the model ``path`` that names the game it plays."""
    return Path(path).with_suffix(".json")


def check_model_game(path: str | os.PathLike, game: Any) -> None:
    """Raise ValueError if the model at ``path`` was trained for another game or variant than ``game``.

    A model without the JSON file beside it (an older one, or one made
    elsewhere) is not checked here; the agent still checks its action count.
    """
    info = model_game_file(path)
    if not info.is_file():
        return
    try:
        data = read_json(info)  # size-capped; a nesting too deep is a ValueError
        name, variant = str(data["game"]), dict(data.get("variant", {}))
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{info} does not say which game the model plays ({e})") from None
    if name != game.spec.name or variant != dict(game.params):
        raise ValueError(f"the model {os.fspath(path)!r} was trained for {_describe(name, variant)}; "
                         f"this game is {_describe(game.spec.name, dict(game.params))}")


def _describe(name: str, variant: dict[str, Any]) -> str:
    if not variant:
        return name
    return name + " (" + ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
                                   for k, v in variant.items()) + ")"
