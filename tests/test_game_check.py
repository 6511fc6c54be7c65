"""``check_game``: the test step of a new game passes the built-in games and names what is wrong with a
broken one (each broken game here breaks one promise of the ``Game`` interface)."""

from __future__ import annotations

import numpy as np
import pytest

from tictacgo.envs import GameCheckError, check_game
from tictacgo.games import make_game
from tictacgo.games.tictactoe import TicTacToe


@pytest.mark.parametrize("name, params", [("tictactoe", {}), ("littlego", {}), ("littlego", {"size": 3})])
def test_the_built_in_games_pass(name, params):
    report = check_game(make_game(name, **params), games=5, seed=1)
    assert report["games"] == 5 and report["symmetries"] == 8


class IllegalReasonLie(TicTacToe):
    """Says the centre is always taken, though legal_bits offers it while it is empty."""

    def illegal_reason(self, state, action):
        return "occupied" if action == 4 else super().illegal_reason(state, action)


class WrongSymmetry(TicTacToe):
    """Claims a symmetry the rules do not have (two cells swapped)."""

    def symmetries(self):
        maps = super().symmetries().copy()
        maps[1] = np.arange(9)
        maps[1][[0, 1]] = [1, 0]
        return maps


class ReturnsLie(TicTacToe):
    """Pays the winner nothing."""

    def returns(self, state):
        return 0.0, 0.0


@pytest.mark.parametrize("broken, message", [
    (IllegalReasonLie(), "legal_bits and illegal_reason must agree, after the moves .*: action 4: "
                         "legal_bits says legal, illegal_reason says 'occupied'"),
    (WrongSymmetry(), "symmetry 1 must keep the end of the game"),
    (ReturnsLie(), "returns must say who won"),
])
def test_a_broken_game_is_named_with_the_check_and_the_moves(broken, message):
    with pytest.raises(GameCheckError, match=message) as e:
        check_game(broken, games=20, seed=0, envs=False)
    assert "after the moves [" in str(e.value)


def test_a_game_object_is_required():
    with pytest.raises(TypeError, match="check_game takes a game object"):
        check_game("tictactoe")
