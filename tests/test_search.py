"""The one search: every tree search picks its moves by the formulas of ``tictacgo.baselines.search``.

The single-game rules of ``tictacgo.baselines.mcts`` (UCT, PUCT, mix MCTS's
bonus) and the array-tree rules of the network searches use the same
formulas; one test each pins that down, plus the formulas' own values.
"""

import math
import random

import numpy as np
import pytest
from search_trees import root_with_children

from tictacgo.baselines.learning.alphazero.selfplay import SearchConfig
from tictacgo.baselines.mcts import PUCT, UCT
from tictacgo.baselines.policy_mcts import PolicyBonus, mix_score, uct_score
from tictacgo.baselines.search import SEARCHES, formulas, gumbel_search, puct_search
from tictacgo.games import tictactoe as ttt
from tictacgo.games.batched_engines import make_batched_engine

TTT = ttt.TicTacToe()


def test_ucb1_is_the_mean_plus_the_exploration_term_and_infinite_while_unvisited():
    assert formulas.ucb1(3.0, 4, 20, 1.5) == pytest.approx(0.75 + 1.5 * math.sqrt(math.log(20) / 4))
    assert formulas.ucb1(0.0, 0, 20, 1.5) == math.inf
    bonus = formulas.policy_bonus(3.0, 4, 20, 0.2, 1.5, 10.0)
    assert bonus == pytest.approx(formulas.ucb1(3.0, 4, 20, 1.5) + 2.0)


def test_puct_scores_with_raw_q_and_a_fixed_c_are_alphazeros_formula():
    q = np.array([[0.5, -0.25, 0.0]])
    n = np.array([[2, 4, 0]])
    prior = np.array([[0.2, 0.5, 0.3]])
    legal = np.array([[True, True, False]])
    s = formulas.puct_scores(q, n, np.array([7]), None, prior, legal, 1.3, None)
    want = [0.5 + 1.3 * 0.2 * math.sqrt(7) / 3, -0.25 + 1.3 * 0.5 * math.sqrt(7) / 5]
    assert s[0, :2] == pytest.approx(want)
    assert s[0, 2] == -np.inf  # illegal


def _root_with_children(stats):
    """A visited root over the empty board whose children have (total, visits, prior)."""
    return root_with_children(TTT, stats)


STATS = [(1.0, 3, 0.1), (2.0, 5, 0.3), (-1.0, 2, 0.4), (0.0, 1, 0.2)]


def test_uct_goes_down_to_the_child_with_the_best_ucb1():
    root = _root_with_children(STATS)
    best = max(range(len(STATS)), key=lambda a: formulas.ucb1(STATS[a][0], STATS[a][1], root.n, 0.2))
    assert UCT(0.2).select(root, TTT, random.Random(0)).action == best
    root_wide = _root_with_children(STATS)
    best_wide = max(range(len(STATS)), key=lambda a: formulas.ucb1(STATS[a][0], STATS[a][1], root.n, 5.0))
    assert best_wide != best  # the constant matters, so the check above is not a coincidence
    assert UCT(5.0).select(root_wide, TTT, random.Random(0)).action == best_wide


def test_the_single_game_puct_rule_goes_down_to_the_best_puct_score():
    root = _root_with_children(STATS)
    q = np.array([[w / n for w, n, _ in STATS]])
    n = np.array([[n for _, n, _ in STATS]])
    prior = np.array([[p for _, _, p in STATS]])
    for c in (0.5, 4.0):
        want = formulas.puct_scores(q, n, np.array([root.n]), None, prior, np.ones_like(n, bool), c, None)
        assert PUCT(lambda s: {}, c).select(root, TTT, random.Random(0)).action == int(want.argmax())


def test_mix_mcts_goes_down_to_the_best_policy_bonus():
    root = _root_with_children(STATS)
    for w in (0.0, 10.0):
        want = max(range(len(STATS)), key=lambda a: formulas.policy_bonus(*STATS[a][:2], root.n, STATS[a][2],
                                                                          1.4, w))
        assert PolicyBonus(lambda s: {}, c=1.4, w=w).select(root, TTT, random.Random(0)).action == want
    assert uct_score is formulas.ucb1 and mix_score is formulas.policy_bonus  # one implementation


def _uniform(engine, rows, legal):
    return np.zeros((len(rows), engine.num_actions)), np.zeros(len(rows))


def _engine(states):
    eng = make_batched_engine(TTT, len(states))
    for i, s in enumerate(states):
        eng.set_state(i, s)
    return eng


def test_the_searches_are_named_for_settings_and_run_the_same_tree_at_one_game_and_many():
    assert SEARCHES == {"gumbel": gumbel_search, "puct": puct_search}
    states = [TTT.initial_state(), ttt.from_board("XO. .X. ...")]
    for name in SEARCHES:
        config = SearchConfig(name, 12, gumbel_scale=0.0, dirichlet_fraction=0.0)
        both = config.run(_engine(states), _uniform, np.random.default_rng(0), temperature=0)
        for i, s in enumerate(states):
            one = config.run(_engine([s]), _uniform, np.random.default_rng(0), temperature=0)
            np.testing.assert_array_equal(one.visits[0], both.visits[i], err_msg=name)
            assert one.action[0] == both.action[i]


def test_puct_plays_its_most_visited_move_once_exploring_is_over_and_gumbel_its_action():
    eng = _engine([TTT.initial_state()])
    puct = SearchConfig("puct", 30).run(eng, _uniform, np.random.default_rng(1), temperature=1.0)
    visits = np.where(puct.legal, puct.visits + puct.prior * 1e-3, -np.inf)
    assert puct.greedy[0] == visits.argmax()
    gumbel = SearchConfig("gumbel", 30).run(eng, _uniform, np.random.default_rng(1))
    assert gumbel.greedy[0] == gumbel.action[0]


def test_the_old_alphazero_search_module_re_exports_the_search_packages_names():
    import tictacgo.baselines.learning.alphazero.search as old
    import tictacgo.baselines.search as package

    assert set(package.__all__) <= set(old.__all__)
    for name in old.__all__:
        assert getattr(old, name) is getattr(package, name, None) or name in (
            "EPS", "INITIAL_NODES", "TINY", "clone_engine", "dirichlet_noise", "gumbel_noise")
    assert old.gumbel_search is gumbel_search
    assert old.clone_engine.__module__ == "tictacgo.baselines.search.tree"
