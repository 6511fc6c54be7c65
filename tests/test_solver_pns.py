"""Proof-number search (tictacgo.solver.pns) against the alpha-beta solver on the same positions.

Both searches run over the same compiled rules, so they must agree on the
value of every position: a sample of the 3x3 game tree, random 4x4 positions
(komi 2, so draws occur), and seeded 5x5 endgames of the benchmark, whose
exact values are stored. df-pn's best move must keep the value, and a budget
that runs out must give "unknown", never a value.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="the solver needs numba (the fast extra)")

from tictacgo.games import littlego as go  # noqa: E402
from tictacgo.solver import Solver  # noqa: E402
from tictacgo.solver.endgames import load_endgames  # noqa: E402
from tictacgo.solver.pns import pns_solve  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "littlego_endgames.npz"


def tree_sample(n: int, count: int, seed: int, max_left: int | None = None) -> list[go.GoState]:
    """``count`` distinct live positions of the ``n x n`` game tree, from random games, drawn from
    every depth (with at most ``max_left`` actions to go when given)."""
    rnd = random.Random(seed)
    seen: dict = {}
    while len(seen) < count:
        s = go.LittleGo(n).initial_state()
        limit = s.game.max_actions
        stop = rnd.randrange(0 if max_left is None else limit - max_left, limit)
        while s.end is None and s.t < stop:
            s = go.play(s, rnd.choice(go.legal_actions(s)))
        if s.end is None:
            seen.setdefault(s, None)
    return list(seen)


def keeps_value(state: go.GoState, move: int, value: int, solver: Solver) -> bool:
    """Whether ``move`` keeps ``value`` for the mover (the alpha-beta solves the position after it)."""
    child = go.play(state, move)
    if child.end is not None:
        b, w = go.scores(child)
        m = b - w if state.to_move == go.BLACK else w - b
        return (m > 0) - (m < 0) == value
    return -solver.solve(child).value == value


def assert_same_values(states: list[go.GoState], **kw) -> list[int]:
    solver = Solver(table_bits=16)
    values = []
    for s in states:
        expected = solver.solve(s).value
        got = pns_solve(s, table_bits=14, **kw)
        assert got.value == expected, go.render_ascii(s)
        if got.best_move is not None:
            assert keeps_value(s, got.best_move, got.value, solver), (go.render_ascii(s), got.best_move)
        else:
            assert got.value == -1  # no move to name only where every move loses
        values.append(got.value)
    return values


def test_pns_agrees_with_alpha_beta_on_a_sample_of_the_3x3_game_tree():
    values = assert_same_values(tree_sample(3, 150, seed=3))
    assert {1, -1} <= set(values)


def test_pns_agrees_with_alpha_beta_on_random_4x4_positions_draws_included():
    values = assert_same_values(tree_sample(4, 40, seed=4, max_left=9))
    assert {1, 0, -1} <= set(values)  # komi 2 on 4x4: the second proof (at least a draw) is exercised


def test_pns_gives_the_stored_value_of_seeded_5x5_endgames():
    endgames, _ = load_endgames(DATA)
    rng = np.random.default_rng(5)
    sample = [endgames[i] for i in rng.choice(len(endgames), size=120, replace=False)]
    for e in sample:
        got = pns_solve(e.state, table_bits=14)
        assert got.value == e.value, go.render_ascii(e.state)
        if got.value == 1:
            assert got.best_move in e.optimal


@pytest.mark.parametrize("kw", [{"bounds": False}, {"life": False}, {"epsilon": 0.0}, {"epsilon": 1.0},
                                {"weight": 0}, {"weight": 1000}])
def test_the_values_do_not_depend_on_the_bounds_epsilon_or_weight(kw):
    assert_same_values(tree_sample(4, 12, seed=44, max_left=8), **kw)


def test_the_bounds_save_positions():
    s = tree_sample(5, 1, seed=7, max_left=10)[0]
    assert pns_solve(s, bounds=False).nodes > pns_solve(s).nodes


def test_the_empty_3x3_board_is_a_white_win():
    r = pns_solve(go.LittleGo(3).initial_state())
    assert r.value == -1 and r.best_move is None and r.nodes == r.expanded > 0


def test_a_spent_budget_gives_unknown_never_a_value():
    s = go.LittleGo(4).initial_state()
    r = pns_solve(s, budget_nodes=50)
    assert r.value is None and r.best_move is None and not r.known
    assert r.nodes == 50


@pytest.mark.parametrize("kw, words", [({"budget_nodes": 0}, "budget_nodes"), ({"epsilon": -1}, "epsilon"),
                                       ({"table_bits": 3}, "table_bits"), ({"bounds": 1}, "bounds"),
                                       ({"weight": -1}, "weight"), ({"weight": 2.5}, "weight")])
def test_bad_parameters_are_refused_by_name(kw, words):
    with pytest.raises((ValueError, TypeError), match=words):
        pns_solve(go.LittleGo(3).initial_state(), **kw)


def test_a_finished_game_is_refused():
    s = go.play(go.LittleGo(3).initial_state(), 9)  # a pass on the first action ends the game
    with pytest.raises(ValueError, match="over"):
        pns_solve(s)
