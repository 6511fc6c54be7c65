"""The games: each a ``Game`` subclass that owns everything game-specific, and their registry.

``make_game("littlego", size=7)`` (or ``LittleGo(size=7)``) and
``make_game("tictactoe")`` build game objects. Every game object offers the
same interface (``tictacgo.games.base.Game``), so search agents, envs and
tools are written once for all games:

``spec`` (a ``GameSpec``: the game's facts), ``params`` (the variant),
``num_actions``, ``pass_action`` (None if none), ``initial_state()``,
``current_player(state)`` (1 or 2), ``legal_bits(state)`` (an int bitmask),
``legal_actions(state)`` (list of ints), ``legal_mask(state)`` (int8 array),
``illegal_reason(state, a)``, ``play(state, a) -> state`` (raises
``IllegalActionError``), ``forfeit(state)``, ``is_terminal(state)``,
``winner(state)`` (None / 0 draw / 1 / 2), ``returns(state)`` ((first
player's, second player's)), ``to_board(state)`` (rows x cols int8, 0 empty /
1 first player / 2 second player), ``stone_bits(state)``, ``ko_bits(state)``,
``end_reason(state)`` and ``end_words(state)`` (how the game ended, as a name
and in words), ``render_ascii(state)``, ``check_state(state)``;
``batched(B)`` (a batched engine), ``encoder`` (the feature encoder: the
envs' observations and AlphaZero's planes, ``network_planes``),
``symmetries()`` (the board's symmetries as maps of actions),
``random_playout(state, seed)`` (a seeded
random playout to the end: the winner), ``rollout_move``, ``fast_rollout``
(or None), ``image(state)``, ``svg(state)``, ``ansi(state)`` (its drawings),
``player_label`` and ``point_label`` (how players and moves are named).
States are immutable; the rules are pure functions of a state.

A new game is a ``Game`` subclass and a ``register_game`` call: see
docs/architecture.md, "Add a game".
"""

from tictacgo.games import littlego, tictactoe
from tictacgo.games.base import Game, GameSpec
from tictacgo.games.errors import GameOverError, IllegalActionError
from tictacgo.games.littlego import LittleGo
from tictacgo.games.registry import (
                                     GAMES,
                                     GameEntry,
                                     game_class,
                                     game_entry,
                                     make_game,
                                     register_game,
                                     unregister_game,
)
from tictacgo.games.tictactoe import TicTacToe

__all__ = ["littlego", "tictactoe", "LittleGo", "TicTacToe", "GAMES", "GameEntry", "game_class", "game_entry",
           "make_game", "register_game", "unregister_game", "Game", "GameSpec", "GameOverError",
           "IllegalActionError"]
