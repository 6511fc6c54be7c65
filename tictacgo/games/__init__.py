"""Pure rules cores: one module per game, immutable states, no Gymnasium.

Every game module offers the same small interface, so search agents are
written once for all games:

``initial_state()``, ``num_actions(state)``, ``pass_action(state)`` (None if none),
``current_player(state)`` (1 or 2),
``legal_bits(state)`` (an int bitmask), ``legal_actions(state)`` (list of ints),
``legal_mask(state)`` (int8 array), ``illegal_reason(state, a)``,
``play(state, a) -> state`` (raises ``IllegalActionError``), ``forfeit(state)``,
``is_terminal(state)``, ``winner(state)`` (None / 0 draw / 1 / 2),
``returns(state)`` ((first player's, second player's)), ``to_board(state)``
(n x n int8, 0 empty / 1 first player / 2 second player), ``stone_bits(state)``,
``ko_bits(state)``, ``end_reason(state)``, ``render_ascii(state)``, and
``spec(state)``: the game's facts as a ``GameSpec`` (see ``tictacgo.games.spec``;
code outside this package asks the spec, it never tests a game's name).
Games with a fast playout engine also offer ``fast_rollout(state, rnd, ...)``
(``None`` otherwise).
"""

from tictacgo.games import littlego, tictactoe
from tictacgo.games.errors import GameOverError, IllegalActionError
from tictacgo.games.spec import Game, GameSpec

GAMES = {"tictactoe": tictactoe, "littlego": littlego}


def get_game(name: str):
    """The rules module for a game name ("tictactoe" or "littlego")."""
    key = str(name).lower().replace("-", "").replace("_", "")
    aliases = {"tictactoe": "tictactoe", "ttt": "tictactoe", "littlego": "littlego", "go": "littlego"}
    if key not in aliases:
        raise ValueError(f"unknown game {name!r}; expected one of {sorted(GAMES)}")
    return GAMES[aliases[key]]


__all__ = ["littlego", "tictactoe", "GAMES", "get_game", "Game", "GameSpec", "GameOverError",
           "IllegalActionError"]
