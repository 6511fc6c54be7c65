"""Move-ordering hints for the solver (``Solver.hint``, ``tictacgo.evaluation.solver_hints``): order,
never value."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from positions import positions  # noqa: E402

from tictacgo.baselines.registry import make_agent  # noqa: E402
from tictacgo.evaluation.solver_hints import network_best_moves, policy_hints, positions_within  # noqa: E402
from tictacgo.games import littlego as go  # noqa: E402
from tictacgo.solver import Solver  # noqa: E402
from tictacgo.solver.search import position_key  # noqa: E402


def random_hints(seed: int):
    rnd = random.Random(seed)
    return lambda states: [rnd.choice(go.legal_actions(s)) for s in states]


@pytest.mark.parametrize("n,lefts,seed", [(3, (6, 8), 0), (4, (7, 9, 11), 1), (5, (7, 8), 2)])
def test_hints_of_any_moves_never_change_a_value_or_a_margin(n, lefts, seed):
    for i, state in enumerate(positions(n, lefts, 12, seed)):
        plain = Solver(16).solve(state)
        hinted = Solver(16)
        policy_hints(hinted, state, 2, random_hints(seed * 100 + i))
        assert hinted.solve(state).value == plain.value
        margin = Solver(16)
        policy_hints(margin, state, 1, random_hints(i))
        assert margin.solve(state, margin=True).margin == Solver(16).solve(state, margin=True).margin


def position_with_two_winning_moves():
    """A sampled 4x4 position where the mover has at least two winning moves, and those moves."""
    for state in positions(4, (7, 8, 9), 40, 5):
        values = Solver(16).move_values(state)
        winners = [a for a, r in values.items() if r.value == 1]
        if len(winners) >= 2:
            return state, winners
    pytest.fail("no position with two winning moves among the samples")


def test_a_hinted_winning_move_is_the_one_the_search_plays():
    # A position where the mover has several winning moves: each, hinted, is the move played.
    state, winners = position_with_two_winning_moves()
    for a in winners:
        solver = Solver(16)
        solver.hint(state, a)
        assert solver.solve(state).best_move == a


def test_a_second_hint_is_ignored_unless_it_replaces_the_first():
    state, winners = position_with_two_winning_moves()
    first, second = winners[:2]
    kept = Solver(16)
    kept.hint(state, first)
    kept.hint(state, second)  # the position already has an entry: it keeps its move
    assert kept.solve(state).best_move == first
    replaced = Solver(16)
    replaced.hint(state, first)
    replaced.hint(state, second, replace=True)
    assert replaced.solve(state).best_move == second


def test_a_hint_outside_the_actions_is_refused_naming_it():
    state = go.LittleGo(4).initial_state()
    with pytest.raises(ValueError, match=r"action must be in \[0, 16\], got 17"):
        Solver(8).hint(state, 17)


def test_positions_within_a_depth_are_the_live_positions_each_once():
    state = go.LittleGo(3).initial_state()
    assert positions_within(state, 0) == [state]
    one = positions_within(state, 1)
    # the empty board, then 9 placements that are 3 positions under the square's symmetries (a pass
    # on the empty board ends the course's game: no live position)
    assert len(one) == 1 + 3
    two = positions_within(state, 2)
    keys = [position_key(s) for s in two]
    assert len(set(keys)) == len(keys) and all(s.end is None for s in two)
    assert len(two) > len(one)


def test_the_network_hints_are_the_raw_networks_best_legal_moves():
    game = go.LittleGo(5)
    agent = make_agent("az:sims=0", game, np.random.default_rng(0))
    states = positions_within(game.initial_state(), 1)[:7]
    assert network_best_moves()(states) == [agent.act(s) for s in states]


def test_the_network_refuses_positions_of_another_board():
    with pytest.raises(ValueError, match="the network plays 5x5 Little-Go"):
        network_best_moves()([go.LittleGo(4).initial_state()])
