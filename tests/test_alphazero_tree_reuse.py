"""Tree reuse between the ``az`` agent's moves (``az:search=puct,reuse=true``; ``alphazero.tree_reuse``)."""

from __future__ import annotations

import numpy as np
import pytest
from engines import NUMBA_MISSING

from tictacgo.baselines.learning.alphazero.selfplay import SearchConfig
from tictacgo.baselines.registry import make_agent
from tictacgo.game_loop import play_game
from tictacgo.games import LittleGo

GO5 = LittleGo()


def _az(spec: str, seed: int = 0):
    return make_agent(spec, GO5, rng=np.random.default_rng(seed))


def _opening(actions):
    s = GO5.initial_state()
    for a in actions:
        s = GO5.play(s, a)
    return s


@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_without_reuse_a_move_is_the_plain_search_of_the_position(search):
    # reuse=false (the default) searches every position from scratch, as the search config alone does.
    agent, default = _az(f"az:search={search},sims=24,reuse=false"), _az(f"az:search={search},sims=24")
    assert agent.reuse is None and default.reuse is None
    for s in (GO5.initial_state(), _opening([12, 7]), _opening([12, 7, 13, 8])):
        out = agent.search(s)
        engine = agent.engine
        engine.set_state(0, s)
        plain = SearchConfig(search, 24, gumbel_scale=0.0, dirichlet_fraction=0.0).run(
            engine, agent.evaluator, np.random.default_rng(0), temperature=0.0)
        again = default.search(s)
        for got in (out, again):
            assert (got.visits == plain.visits).all() and (got.action == plain.action).all()
            assert np.array_equal(got.policy, plain.policy) and np.array_equal(got.q, plain.q)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    NUMBA_MISSING is not None, reason=str(NUMBA_MISSING)))])
def test_reuse_starts_the_next_search_from_the_visits_under_the_move_and_the_reply(monkeypatch, backend):
    # the compiled walk and backup (numba) and numpy's take the kept tree alike
    monkeypatch.setenv("TICTACGO_BATCHED_BACKEND", backend)
    agent, opponent = _az("az:search=puct,sims=64,reuse=true"), _az("az:search=puct,sims=64")
    assert agent.engine.backend == backend
    record = play_game(GO5, agent, opponent)  # the game loop refuses an illegal move
    assert record.illegal_by == 0 and len(record.moves) >= 10  # a whole game, every move legal
    reused = agent.reuse.reused
    assert reused[0] == 0 and sum(r > 0 for r in reused) >= len(reused) // 2, reused
    # A search from a kept subtree adds its simulations to the visits it started from.
    s = _opening([12])
    first = agent.search(s)  # fresh or not, it leaves a tree behind
    tree, move = agent.reuse.tree, int(first.action[0])
    after_move = tree.children[0, 0, move]
    reply = int(np.argmax(tree.child_visits[0, after_move]))  # the reply the search tried most
    expected = int(tree.visits[0, tree.children[0, after_move, reply]])
    out = agent.search(GO5.play(GO5.play(s, move), reply))
    assert agent.reuse.reused[-1] == expected > 0
    assert out.visits[0].sum() == expected - 1 + 64  # the root's own evaluation is one of its visits
    assert out.legal[0, out.action[0]]


def test_a_position_outside_the_kept_tree_gets_a_fresh_search():
    agent = _az("az:search=puct,sims=32,reuse=true")
    agent.search(_opening([12]))
    out = agent.search(_opening([0, 24, 4]))  # not two plies below the last root
    assert agent.reuse.reused == [0, 0]
    assert out.visits[0].sum() == 32


def test_a_subtree_keeps_the_nodes_under_its_root_with_their_links_visits_and_positions():
    agent = _az("az:search=puct,sims=96,reuse=true")
    agent.search(GO5.initial_state())
    tree = agent.reuse.tree
    node = int(np.argmax(tree.visits[0, 1:tree.nodes_used])) + 1  # the most visited node below the root
    below = tree.nodes_below(0, node)
    sub = tree.subtree(np.array([node]), 10)
    k = len(below)
    assert sub.nodes_used == k and sub.num_nodes == k + 10 and sub.simulations == 0
    sub.ensure(k + 10)  # room for the next search's nodes, allocated as they come
    assert (sub.visits[0, :k] == tree.visits[0, below]).all() and sub.parent[0, 0] == -1
    for name in tree.fields:
        assert (sub.states[name][0, :k] == tree.states[name][0, below]).all()
    for new in range(1, k):  # every kept node hangs under its kept parent by the same action
        parent, action = sub.parent[0, new], sub.action_from_parent[0, new]
        assert sub.children[0, parent, action] == new
        assert below[parent] == tree.parent[0, below[new]]
    assert (sub.children[0, :k][sub.children[0, :k] >= 0] < k).all()


def test_reuse_needs_the_puct_search():
    with pytest.raises(ValueError, match="reuse=true needs search=puct"):
        _az("az:reuse=true")
    with pytest.raises(ValueError, match="only the PUCT search keeps its tree"):
        SearchConfig("gumbel", 4).run(None, None, None, keep_tree=True)
