"""Deprecated: the network's input planes are the game's own (``game.encoder``).

``game.encoder.from_state(state)`` and ``game.encoder.from_engine(engine,
rows, legal)`` give the planes ``game.encoder.network_planes`` names
(``tictacgo.games.features``); ``encoder_for`` returns that encoder for code
written against this module.
"""

from __future__ import annotations

from typing import Any

from tictacgo.games.features import FeatureEncoder


def encoder_for(game: Any) -> FeatureEncoder:
    """The game's feature encoder (``game.encoder``); a deprecated ``Variant`` is accepted too."""
    game = getattr(game, "game_object", game)
    return game.encoder
