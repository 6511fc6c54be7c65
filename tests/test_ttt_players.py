"""The seed-000 Tic-Tac-Toe players: fast_minimax and the think1/2/3 rule-based players."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tictacgo.baselines.registry import available_agents, make_agent
from tictacgo.baselines.ttt_players import FastMinimaxAgent, ThinkAgent, fork_moves, threat_count
from tictacgo.games import tictactoe as ttt

TTT = ttt.TicTacToe()


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# X to move; X wins at 2 (top row); O threatens 5 (middle row) as well.
WIN_IN_ONE = "XX./OO./..."
# X to move; no X win; O threatens to complete the middle row at 5.
BLOCK_IN_ONE = "X../OO./X.."
# X to move, nothing to win or block; X at 0 and 7 with O at 1 and 4:
# X at 6 threatens 3 (left column) and 8 (bottom row): the only fork.
FORK = "XO./.O./.X."


@pytest.mark.parametrize("name", ["think1", "think2", "think3", "fast_minimax", "minimax"])
def test_players_take_a_win_in_one(name):
    state = ttt.from_board(WIN_IN_ONE)
    for seed in range(10):
        assert make_agent(name, "tictactoe", rng=rng(seed)).act(state) == 2


@pytest.mark.parametrize("name", ["think2", "think3", "fast_minimax"])
def test_players_block_a_loss_in_one(name):
    state = ttt.from_board(BLOCK_IN_ONE)
    for seed in range(10):
        assert make_agent(name, "tictactoe", rng=rng(seed)).act(state) == 5


def test_think1_does_not_block():
    state = ttt.from_board(BLOCK_IN_ONE)
    moves = {ThinkAgent(TTT, depth=1, rng=rng(seed)).act(state) for seed in range(60)}
    assert len(moves) > 1  # random among the free cells, not always the block


def test_think3_makes_a_fork_when_available():
    state = ttt.from_board(FORK)
    assert fork_moves(state) == [6]
    for seed in range(10):
        a = ThinkAgent(TTT, depth=3, rng=rng(seed)).act(state)
        assert a == 6
        after = ttt.play(state, a)
        # Two threats: whatever O does, X wins next move.
        for reply in ttt.legal_actions(after):
            s2 = ttt.play(after, reply)
            assert not ttt.is_terminal(s2)
            assert any(ttt.winner(ttt.play(s2, b)) == ttt.X for b in ttt.legal_actions(s2))


def test_think2_does_not_look_for_forks():
    state = ttt.from_board(FORK)
    moves = {ThinkAgent(TTT, depth=2, rng=rng(seed)).act(state) for seed in range(60)}
    assert len(moves) > 1


def _three_ply_wins(state, m1) -> int:
    """The actor-critic chapter's count: (own move m1, reply m2, own move m3) sequences that win at m3."""
    n = 0
    free = ttt.legal_actions(state)
    for m2, m3 in itertools.permutations([c for c in free if c != m1], 2):
        s = ttt.play(state, m1)
        if ttt.is_terminal(s):
            continue
        s = ttt.play(s, m2)
        if ttt.is_terminal(s):
            continue
        if ttt.winner(ttt.play(s, m3)) == state.to_move:
            n += 1
    return n


# Positions with nothing to win or block, where think3 looks three plies ahead.
@pytest.mark.parametrize("board", [FORK, "X../.O./...", "XOX/.../O..", "O../X../XO.", "X../.../..."])
def test_think3_threat_count_ranks_moves_like_the_three_ply_count(board):
    state = ttt.from_board(board)
    free = ttt.legal_actions(state)
    for a in free:
        assert _three_ply_wins(state, a) == threat_count(state, a) * (len(free) - 2)


def test_fast_minimax_takes_the_centre_on_an_empty_board():
    agent = FastMinimaxAgent(TTT, rng=rng())
    assert agent.act(TTT.initial_state()) == 4
    # As O after a corner, the centre is also its first move.
    assert agent.act(ttt.play(TTT.initial_state(), 0)) == 4


def test_fast_minimax_takes_the_last_free_cell():
    state = ttt.from_board("XOX/XOO/OX.")
    assert FastMinimaxAgent(TTT, rng=rng()).act(state) == 8


def test_fast_minimax_searches_when_the_centre_would_lose():
    # O to move with the centre free, but X threatens the left column at 6.
    state = ttt.from_board("XO./X../...")
    assert FastMinimaxAgent(TTT, rng=rng()).act(state) == 6


def test_fast_minimax_never_loses_to_random(play_ttt_game):
    fast = make_agent("fast_minimax", "tictactoe", rng=rng(1))
    rand = make_agent("random", "tictactoe", rng=rng(2))
    wins = 0
    for _ in range(100):
        w = play_ttt_game(fast, rand)
        assert w != ttt.O
        wins += w == ttt.X
        w = play_ttt_game(rand, fast)
        assert w != ttt.X
        wins += w == ttt.O
    assert wins > 150


def test_think3_never_beats_fast_minimax(play_ttt_game):
    fast = make_agent("fast_minimax", "tictactoe", rng=rng(3))
    think3 = make_agent("think3", "tictactoe", rng=rng(4))
    for _ in range(30):
        assert play_ttt_game(think3, fast) != ttt.X
        assert play_ttt_game(fast, think3) != ttt.O


def test_think_players_are_reproducible_with_a_seed(play_ttt_game):
    for depth in (1, 2, 3):
        a = [ThinkAgent(TTT, depth=depth, rng=rng(7)), ThinkAgent(TTT, depth=depth, rng=rng(7))]
        b = [ThinkAgent(TTT, depth=depth, rng=rng(8)), ThinkAgent(TTT, depth=depth, rng=rng(8))]
        results = [[play_ttt_game(a[i], b[i]) for _ in range(20)] for i in range(2)]
        assert results[0] == results[1]


def test_players_are_registered_for_tictactoe_only():
    names = available_agents("tictactoe")
    for name in ("fast_minimax", "think1", "think2", "think3"):
        assert name in names
        assert name not in available_agents("littlego")
    with pytest.raises(ValueError):
        ThinkAgent(TTT, depth=4)
