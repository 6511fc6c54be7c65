"""The position audit (every Tic-Tac-Toe position, minimax-optimal moves) and
the RandomOpening wrapper (exploring starts)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import tictacgo  # noqa: F401
from tictacgo.baselines.audit import (
    argmax_illegal_rate,
    optimal_actions,
    optimal_move_rate,
    reachable_positions,
)
from tictacgo.baselines.registry import make_agent
from tictacgo.games import littlego, tictactoe
from tictacgo.wrappers import RandomOpening


@pytest.fixture(scope="module")
def audit():
    positions = reachable_positions(tictactoe.TicTacToe())
    return positions, optimal_actions(tictactoe.TicTacToe(), positions)


def test_tictactoe_has_4520_reachable_live_positions(audit):
    positions, _ = audit
    assert len(positions) == 4520
    assert not any(tictactoe.is_terminal(s) for s in positions)


def test_every_move_of_exact_minimax_keeps_the_value_and_random_often_does_not(audit):
    positions, optimal = audit
    assert optimal_move_rate(make_agent("minimax", "tictactoe").act, positions, optimal) == 1.0
    rate = optimal_move_rate(make_agent("random", "tictactoe", rng=np.random.default_rng(0)).act,
                             positions, optimal)
    assert 0.3 < rate < 0.8


def test_at_the_start_every_move_keeps_the_draw_but_after_a_corner_only_the_centre_does(audit):
    positions, optimal = audit
    assert optimal[0] == frozenset(range(9))  # the empty board: every opening draws
    after_corner = tictactoe.play(tictactoe.TicTacToe().initial_state(), 0)
    assert optimal[positions.index(after_corner)] == frozenset({4})


def test_the_illegal_rate_counts_an_unmasked_favourite_on_an_occupied_square(audit):
    positions, _ = audit
    always_centre = np.eye(9)[4]
    assert argmax_illegal_rate(tictactoe.TicTacToe(), lambda s: always_centre, positions) == pytest.approx(
        sum(not (tictactoe.legal_bits(s) >> 4) & 1 for s in positions) / len(positions))


def test_games_too_large_to_list_are_refused():
    with pytest.raises(ValueError, match="too large"):
        reachable_positions(littlego.LittleGo())


def test_random_openings_start_episodes_after_up_to_n_random_moves_reproducibly():
    env = RandomOpening(gym.make("TicTacToe-v0", opponent="random", learner="alternate"), max_moves=4)
    starts = []
    for seed in range(40):
        obs, _ = env.reset(seed=seed)
        starts.append(np.count_nonzero(obs))
    assert max(starts) >= 4 and min(starts) == 0
    assert max(starts) <= 5  # 4 random moves, plus the opponent's first when it is its turn
    first, _ = env.reset(seed=3)
    again, _ = env.reset(seed=3)
    assert first.tolist() == again.tolist()


def test_a_callers_own_start_state_wins_over_the_random_opening():
    env = RandomOpening(gym.make("TicTacToe-v0", opponent="random", learner="first"), max_moves=6)
    s = tictactoe.play(tictactoe.play(tictactoe.TicTacToe().initial_state(), 4), 0)
    env.reset(seed=0, options={"state": s})
    assert env.unwrapped.game_state == s


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_a_bad_opening_length_is_refused(bad):
    with pytest.raises(ValueError, match="max_moves"):
        RandomOpening(gym.make("TicTacToe-v0"), max_moves=bad)
