"""The rollout searches' tree: one game on the array tree's layout, its kernels compiled or in Python.

``GameTree`` (``tictacgo.baselines.search.game_tree``) holds the tree of
``mcts``, ``policy_mcts`` and ``mix_mcts`` in ``tree.Tree``'s arrays at B = 1.
Plain UCT runs a simulation as one kernel call (``rollout_kernels``); any
other rule steps node by node. The tests pin down that every way of running
the search builds the same tree: compiled or plain Python, one call a
simulation or rule by rule, arrays grown on the way or allocated at once.
"""

import math
import random

import numpy as np
import pytest
from search_trees import root_with_children

from tictacgo.baselines import mcts
from tictacgo.baselines.mcts import PUCT, UCT, MCTSAgent
from tictacgo.baselines.mcts_evaluators import CaptureRollout, ValueAndPrior
from tictacgo.baselines.policy_mcts import MixMCTSAgent, PolicyMCTSAgent
from tictacgo.baselines.random_agent import RandomAgent
from tictacgo.baselines.search import formulas
from tictacgo.baselines.search.game_tree import GameTree, SearchNode
from tictacgo.baselines.search.rollout_kernels import UNSEEN, kernels
from tictacgo.games import littlego as go
from tictacgo.games import tictactoe as ttt

TTT = ttt.TicTacToe()
GO = go.LittleGo()
ARRAYS = ("visits", "total", "mover", "terminal", "parent", "action_from_parent", "children", "child_visits",
          "order", "num_children", "untried", "prior")
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not mcts.resolve_backend("auto") == "numba", reason="numba is not installed"))]


def rng(seed=0):
    return np.random.default_rng(seed)


def assert_same_tree(a: GameTree, b: GameTree) -> None:
    assert len(a) == len(b)
    n = len(a)
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(a, name)[:n], getattr(b, name)[:n], err_msg=name)
    assert a.states == b.states


def midgame(game, plies=4, seed=1):
    s, r = game.initial_state(), random.Random(seed)
    for _ in range(plies):
        s = game.play(s, r.choice(game.legal_actions(s)[:-1] if game.pass_action is not None
                                  else game.legal_actions(s)))
    return s


@pytest.mark.parametrize("game", [TTT, GO], ids=["tictactoe", "littlego"])
@pytest.mark.parametrize("capture, depth", [(0.0, None), (1.0, None), (0.0, 2)])
def test_plain_uct_in_one_call_a_simulation_builds_the_tree_of_uct_rule_by_rule(game, capture, depth):
    for seed in range(2):
        fast = MCTSAgent(game, sims=300, capture_prob=capture, max_depth=depth, rng=rng(seed))
        stepped = MCTSAgent(game, sims=300, capture_prob=capture, max_depth=depth, rng=rng(seed),
                            root_selection=UCT(1.0))
        assert fast._plain_uct() and not stepped._plain_uct()
        for state in (game.initial_state(), midgame(game)):
            fast.search(state)
            stepped.search(state)
            assert_same_tree(fast.tree, stepped.tree)


@pytest.mark.skipif(mcts.resolve_backend("auto") != "numba", reason="numba is not installed")
@pytest.mark.parametrize("kind", ["uct", "capture", "depth2", "puct", "mix", "policy"])
def test_the_kernels_build_the_same_trees_compiled_and_in_plain_python(kind, monkeypatch):
    prior = lambda s: {a: 1.0 + a % 3 for a in GO.legal_actions(s)}  # noqa: E731
    make = {"uct": lambda: MCTSAgent(GO, sims=400, rng=rng(1)),
            "capture": lambda: MCTSAgent(GO, sims=300, evaluator=CaptureRollout(GO), rng=rng(1)),
            "depth2": lambda: MCTSAgent(GO, sims=300, max_depth=2, rng=rng(1)),
            "puct": lambda: MCTSAgent(GO, sims=200, evaluator=ValueAndPrior(GO, prior=prior), rng=rng(1)),
            "mix": lambda: MixMCTSAgent(GO, RandomAgent(GO, rng(5)), sims=30, rng=rng(1)),
            "policy": lambda: PolicyMCTSAgent(GO, RandomAgent(GO, rng(5)), sims=30, rng=rng(1))}[kind]
    agents = {}
    for backend in ("numba", "numpy"):  # agents built without a backend take the environment's
        monkeypatch.setenv("TICTACGO_BATCHED_BACKEND", backend)
        agents[backend] = make()
    for state in (GO.initial_state(), midgame(GO)):
        for backend, agent in agents.items():
            agent.search(state)
            assert agent.tree.backend == backend
        assert_same_tree(agents["numba"].tree, agents["numpy"].tree)


def test_a_tree_that_outgrows_its_arrays_is_the_tree_of_one_allocated_at_once(monkeypatch):
    big = MCTSAgent(GO, sims=500, rng=rng(3))
    big.search(GO.initial_state())
    assert big.tree.tree.capacity >= len(big.tree)
    monkeypatch.setattr(mcts, "INITIAL_NODES_CAP", 2)
    small = MCTSAgent(GO, sims=500, rng=rng(3))
    small.search(GO.initial_state())
    assert small.tree.tree.capacity == 512 != big.tree.tree.capacity  # it grew by doubling from 2
    assert_same_tree(small.tree, big.tree)


def test_the_subtree_kept_for_the_next_move_holds_the_grandchilds_nodes_and_visits():
    agent = MCTSAgent(TTT, sims=400, rng=rng(0))
    s = TTT.initial_state()
    root = agent.search(s)
    move = max(root.children, key=lambda ch: ch.n)
    reply = max(move.children, key=lambda ch: ch.n)
    tree = agent.tree
    below = tree.nodes_below(reply.index)
    assert below.tolist() == sorted(tree.tree.nodes_below(0, reply.index).tolist())  # all, in order
    assert tree.find(reply.state) == reply.index
    kept = tree.subtree(reply.index)
    assert len(kept) == len(below) and kept.states[0] == reply.state
    new_root = kept.view(0)
    assert (new_root.n, new_root.w, new_root.action) == (reply.n, reply.w, None)
    assert [(c.action, c.n, c.w) for c in new_root.children] == [(c.action, c.n, c.w) for c in reply.children]
    for node in range(1, len(kept)):  # every node's parent is kept and its state one move before it
        parent = int(kept.parent[node])
        assert 0 <= parent < node
        assert TTT.play(kept.states[parent], int(kept.action_from_parent[node])) == kept.states[node]


@pytest.mark.parametrize("backend", BACKENDS)
def test_ucts_walk_goes_down_to_the_child_of_the_best_ucb1_score(backend):
    stats = [(1.0, 3, 0.0), (2.0, 5, 0.0), (-1.0, 2, 0.0), (0.0, 1, 0.0)]
    tree = root_with_children(TTT, stats).tree
    k = kernels(backend)
    for c in (0.2, 5.0):
        best = max(range(4), key=lambda a: formulas.ucb1(stats[a][0], stats[a][1], 11, c))
        node, depth, nxt = k.uct_descend(c, 10, TTT.num_actions, *tree.flat)
        assert (int(tree.action_from_parent[node]), depth, nxt) == (best, 1, UNSEEN)
    node, depth, nxt = k.uct_descend(1.0, 0, TTT.num_actions, *tree.flat)
    assert (node, depth) == (0, 0)  # a depth limit of 0: the root is the leaf


def test_equal_ucb1_scores_go_to_the_child_added_first():
    stats = [(1.0, 2, 0.0)] * 3
    tree = root_with_children(TTT, stats).tree
    tree.plan(0, [])
    tree.order[0, :3] = [2, 0, 1]  # as if added in the order 2, 0, 1
    assert UCT(1.0).choose(tree, 0, random.Random(0)) == tree.child(0, 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_backup_counts_a_visit_on_the_path_and_adds_each_movers_result(backend):
    tree = GameTree(TTT, TTT.initial_state(), backend=backend)
    child = tree.add(0, 4)
    grandchild = tree.add(child, 0)
    tree.backup(grandchild, (1.0, -1.0))  # X, who moved into the child, won
    tree.backup(child, (0.5, -0.5))
    assert tree.visits[:3].tolist() == [2, 2, 1]
    assert tree.total[:3].tolist() == [-1.5, 1.5, -1.0]  # the root's mover is O, the grandchild's O
    assert tree.child_visits[0, 4] == 2 and tree.child_visits[child, 0] == 1


def test_search_nodes_are_views_of_the_arrays():
    tree = GameTree(TTT, TTT.initial_state())
    root = tree.view(0)
    a = root.add(TTT, 4, 0.25)
    b = root.add(TTT, 0)
    assert [c.action for c in root.children] == [4, 0] and root.children[0] == a
    assert a.p == 0.25 and b.p == 0.0 and root.p == 0.0 and root.action is None
    tree.backup(a.index, (1.0, -1.0))
    assert (a.n, a.w, a.q, a.mover, root.n, root.q) == (1, 1.0, 1.0, ttt.X, 1, -1.0)
    assert b.q == 0.0 and a.state == TTT.play(TTT.initial_state(), 4)
    assert isinstance(a, SearchNode) and "action=4" in repr(a)


def test_a_selection_rule_that_defines_no_rule_says_so():
    class Nothing(mcts.SelectionRule):
        pass

    with pytest.raises(NotImplementedError, match="Nothing is a SelectionRule without a rule"):
        MCTSAgent(TTT, sims=5, selection=Nothing(), rng=rng()).act(TTT.initial_state())


def test_mcts_names_a_backend_it_does_not_know():
    with pytest.raises(ValueError, match="backend must be one of .* got 'fast'"):
        MCTSAgent(TTT, sims=10, backend="fast")


def test_puct_children_carry_their_normalised_priors_in_the_array_tree():
    prior = lambda s: {a: 3.0 if a == 4 else 1.0 for a in TTT.legal_actions(s)}  # noqa: E731
    agent = MCTSAgent(TTT, sims=50, evaluator=ValueAndPrior(TTT, prior=prior), selection=PUCT(prior),
                      rng=rng())
    root = agent.search(TTT.initial_state())
    assert [c.action for c in root.children] == list(range(9))
    assert [c.p for c in root.children] == pytest.approx([3 / 11 if a == 4 else 1 / 11 for a in range(9)])
    assert math.isclose(sum(c.p for c in root.children), 1.0)
