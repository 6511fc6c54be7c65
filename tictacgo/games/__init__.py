"""The games: rules as game objects that carry their variant, and their registry.

``make_game("littlego", size=7)`` (or ``LittleGo(size=7)``) and
``make_game("tictactoe")`` build game objects. Every game object offers the
same small interface, so search agents are written once for all games:

``spec`` (a ``GameSpec``: the game's facts, see ``tictacgo.games.spec``),
``num_actions``, ``pass_action`` (None if none), ``initial_state()``,
``current_player(state)`` (1 or 2), ``legal_bits(state)`` (an int bitmask),
``legal_actions(state)`` (list of ints), ``legal_mask(state)`` (int8 array),
``illegal_reason(state, a)``, ``play(state, a) -> state`` (raises
``IllegalActionError``), ``forfeit(state)``, ``is_terminal(state)``,
``winner(state)`` (None / 0 draw / 1 / 2), ``returns(state)`` ((first
player's, second player's)), ``to_board(state)`` (n x n int8, 0 empty / 1
first player / 2 second player), ``stone_bits(state)``, ``ko_bits(state)``,
``end_reason(state)``, ``render_ascii(state)``, ``fast_rollout`` (a fast
playout function, or None) and ``random_playout(state, seed)`` (a seeded
random playout to the end: the winner; ``tictacgo.games.playouts``). States are immutable; the rules are pure
functions of a state.
"""

from tictacgo.games import littlego, tictactoe
from tictacgo.games.errors import GameOverError, IllegalActionError
from tictacgo.games.littlego import LittleGo
from tictacgo.games.registry import GAMES, GameEntry, game_entry, make_game
from tictacgo.games.spec import Game, GameSpec
from tictacgo.games.tictactoe import TicTacToe

__all__ = ["littlego", "tictactoe", "LittleGo", "TicTacToe", "GAMES", "GameEntry", "game_entry",
           "make_game", "Game", "GameSpec", "GameOverError", "IllegalActionError"]
