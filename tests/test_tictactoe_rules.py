"""Tic-Tac-Toe rules: cells 0..8 row-major, X first, three in a row wins."""

import numpy as np
import pytest

from tictacgo.baselines import make_agent
from tictacgo.games import tictactoe as ttt
from tictacgo.games.errors import GameOverError, IllegalActionError


def reachable():
    seen = {}
    stack = [ttt.TicTacToe().initial_state()]
    while stack:
        s = stack.pop()
        key = (s.x, s.o)
        if key in seen:
            continue
        seen[key] = s
        for a in ttt.legal_actions(s):
            stack.append(ttt.play(s, a))
    return seen


def test_there_are_5478_reachable_positions_and_958_terminal_ones():
    positions = reachable()
    assert len(positions) == 5478
    assert sum(ttt.is_terminal(s) for s in positions.values()) == 958


def test_three_in_a_row_wins_for_the_mover():
    s = ttt.from_board("XX. / OO. / ...")
    after = ttt.play(s, 2)
    assert after.end == "win" and ttt.winner(after) == ttt.X
    assert ttt.returns(after) == (1.0, -1.0)


def test_a_full_board_without_a_line_is_a_draw():
    s = ttt.from_board("XOX / XOO / OX.")
    after = ttt.play(s, 8)
    assert after.end == "draw" and ttt.winner(after) == 0
    assert ttt.returns(after) == (0.0, 0.0)


def test_an_occupied_cell_is_refused_and_the_state_kept():
    s = ttt.play(ttt.TicTacToe().initial_state(), 4)
    with pytest.raises(IllegalActionError, match="taken"):
        ttt.play(s, 4)
    assert ttt.play(s, 0).o == 1


@pytest.mark.parametrize("action,error", [
    (-1, ValueError), (9, ValueError), (4.0, TypeError), (None, TypeError), ("4", TypeError),
    (False, TypeError)])
def test_bad_actions_get_a_clear_error(action, error):
    with pytest.raises(error, match="action"):
        ttt.play(ttt.TicTacToe().initial_state(), action)


def test_a_finished_game_takes_no_more_moves():
    s = ttt.from_board("XXX / OO. / ...")
    assert ttt.is_terminal(s)
    with pytest.raises(GameOverError):
        ttt.play(s, 5)
    assert ttt.legal_actions(s) == []


def test_from_board_refuses_impossible_counts():
    with pytest.raises(ValueError, match="X has"):
        ttt.from_board("XX. / ... / ...")


def test_the_value_of_tic_tac_toe_is_a_draw():
    agent = make_agent("minimax", "tictactoe", rng=np.random.default_rng(0))
    values = agent.action_values(ttt.TicTacToe().initial_state())
    assert max(values.values()) == pytest.approx(0.0)


def play_game(first, second):
    s = ttt.TicTacToe().initial_state()
    agents = (first, second)
    while not ttt.is_terminal(s):
        s = ttt.play(s, agents[s.to_move - 1].act(s))
    return ttt.winner(s)


def test_minimax_draws_itself():
    a = make_agent("minimax", "tictactoe", rng=np.random.default_rng(1))
    b = make_agent("minimax", "tictactoe", rng=np.random.default_rng(2))
    assert [play_game(a, b) for _ in range(20)] == [0] * 20


def test_minimax_never_loses_to_random_play_from_either_side():
    m = make_agent("minimax", "tictactoe", rng=np.random.default_rng(3))
    r = make_agent("random", "tictactoe", rng=np.random.default_rng(4))
    results_first = [play_game(m, r) for _ in range(150)]
    results_second = [play_game(r, m) for _ in range(150)]
    assert ttt.O not in results_first
    assert ttt.X not in results_second
    assert results_first.count(ttt.X) > 100  # it also wins most games


def test_minimax_wins_in_one_and_blocks_a_loss_in_one():
    m = make_agent("minimax", "tictactoe", rng=np.random.default_rng(5))
    assert m.act(ttt.from_board("XX. / OO. / ...")) == 2          # win now
    assert m.act(ttt.from_board("XX. / .O. / ...")) == 2          # O must block at 2


@pytest.mark.parametrize("board", ["XXX / OO. / O..", "OOO / XX. / XX."])
def test_from_board_refuses_play_after_a_line(board):
    with pytest.raises(ValueError, match="after a line"):
        ttt.from_board(board)
