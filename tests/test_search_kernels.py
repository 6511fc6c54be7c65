"""The compiled search (numba kernels) grows the same trees as the numpy search it replaces.

Where the roots' engine runs on numba, ``run_search`` walks and backs up
with ``tictacgo.baselines.search.kernels``; on the numpy backend it runs the
numpy rules. Both are run here on the same seeded positions, evaluator and
noise, and must give the same visits, values and actions; the kernels'
formulas are checked against ``formulas`` row by row.
"""

import numpy as np
import pytest

from tictacgo.baselines.search import formulas, gumbel_search, puct_search, tree
from tictacgo.baselines.search.rules import GumbelInterior, Puct
from tictacgo.games import make_game
from tictacgo.games.batched_engines import make_batched_engine

kernels = pytest.importorskip("tictacgo.baselines.search.kernels")  # needs numba (the fast extra)


def _positions(game_name: str, count: int, seed: int) -> list:
    """Live positions of random games: the start and the positions after it, several games long."""
    game = make_game(game_name)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = game.initial_state()
        while not game.is_terminal(s) and len(out) < count:
            out.append(s)
            s = game.play(s, int(rng.choice(game.legal_actions(s))))
    return out


def _engine(game_name: str, states: list, backend: str):
    eng = make_batched_engine(make_game(game_name), len(states), backend=backend)
    for i, s in enumerate(states):
        eng.set_state(i, s)
    return eng


def _position_evaluator(engine, rows, legal):
    """A made-up network: logits and a value that are a fixed function of each position."""
    x = np.zeros(len(rows))
    for i, f in enumerate(engine.state_fields()):
        x += (getattr(engine, f)[rows].astype(np.float64) % 1009) * (0.37 + i)
    actions = np.arange(engine.num_actions)
    logits = 2.0 * np.sin(x[:, None] * 0.013 + actions * 0.7)
    return logits, np.tanh(np.sin(x * 0.029))


SEARCH_CASES = [
    ("littlego", gumbel_search, {"gumbel_scale": 1.0}),
    ("littlego", gumbel_search, {"gumbel_scale": 0.0, "max_considered": 4}),
    ("littlego", puct_search, {"dirichlet_fraction": 0.25, "temperature": 1.0}),
    ("tictactoe", gumbel_search, {"gumbel_scale": 1.0}),
    ("tictactoe", puct_search, {"dirichlet_fraction": 0.0, "temperature": 0.0}),
]


@pytest.mark.parametrize("game_name,search,kw", SEARCH_CASES,
                         ids=lambda c: getattr(c, "__name__", str(c)))
@pytest.mark.parametrize("batch", [1, 6])
def test_compiled_and_numpy_searches_give_the_same_trees(game_name, search, kw, batch):
    for seed in range(3):
        states = _positions(game_name, batch, seed)
        out = {}
        for backend in ("numpy", "numba"):
            out[backend] = search(_engine(game_name, states, backend), _position_evaluator, 60,
                                  np.random.default_rng(seed), **kw)
        a, b = out["numpy"], out["numba"]
        np.testing.assert_array_equal(a.visits, b.visits)
        np.testing.assert_array_equal(a.action, b.action)
        np.testing.assert_array_equal(a.q, b.q)
        np.testing.assert_array_equal(a.root_value, b.root_value)
        assert a.simulations == b.simulations == 60


def test_a_finished_game_reached_again_backs_its_result_up_in_both():
    # Tic-Tac-Toe one move from the end: simulations reach the same finished games again and again.
    game = make_game("tictactoe")
    s = game.initial_state()
    for a in (0, 1, 2, 4, 3, 5, 7):
        s = game.play(s, a)
    out = {b: gumbel_search(_engine("tictactoe", [s], b), _position_evaluator, 20, np.random.default_rng(0))
           for b in ("numpy", "numba")}
    assert out["numpy"].visits.sum() == 20
    np.testing.assert_array_equal(out["numpy"].visits, out["numba"].visits)
    np.testing.assert_array_equal(out["numpy"].q, out["numba"].q)


def test_the_engine_backend_picks_the_walk_and_a_rule_without_kernels_runs_on_numpy():
    states = _positions("littlego", 2, 0)

    def first_legal(t, games, nodes):  # a rule of its own: no ``compiled`` walk
        return t.legal[games, nodes].argmax(-1)

    numba_engine = _engine("littlego", states, "numba")
    walk, backup = tree.walk_and_backup(numba_engine, first_legal, first_legal)
    assert backup is tree._numpy_backup
    t = tree.run_search(numba_engine, _position_evaluator, 10, first_legal, first_legal)
    assert t.child_visits[:, 0].sum(-1).tolist() == [10, 10]
    assert tree.walk_and_backup(numba_engine, Puct(), Puct())[1] is tree._compiled_backup
    assert tree.walk_and_backup(_engine("littlego", states, "numpy"), Puct(), Puct())[1] is tree._numpy_backup
    assert tree.walk_and_backup(numba_engine, Puct(), GumbelInterior())[1] is tree._numpy_backup


def test_the_kernels_row_sum_is_numpys_sum_bit_for_bit():
    rng = np.random.default_rng(0)
    for n in (1, 3, 8, 9, 17, 26, 82):
        x = np.exp(rng.normal(size=(200, n)) * 4)
        np.testing.assert_array_equal(np.array([kernels._row_sum(r) for r in x]), x.sum(-1))


def test_the_kernels_completed_q_and_softmax_agree_with_the_formulas():
    rng = np.random.default_rng(1)
    A = 26
    for _ in range(200):
        legal = rng.random(A) < 0.7
        legal[rng.integers(A)] = True
        logits = formulas.masked_logits(rng.normal(size=(1, A)) * 3, legal[None])[0]
        visits = np.where(legal & (rng.random(A) < 0.5), rng.integers(0, 9, A), 0).astype(np.int64)
        value = rng.uniform(-1, 1, A)
        discount = np.where(rng.random(A) < 0.5, 1.0, -1.0)
        raw = float(rng.uniform(-1, 1))
        want = formulas.completed_q(np.array([raw]), (discount * value)[None], visits[None],
                                    formulas.softmax(logits[None]), legal[None], 0.1, 50.0)[0]
        got = np.empty(A)
        kernels._completed_q(raw, logits, discount, value, visits, legal, 0.1, 50.0, np.empty(A), np.empty(A),
                             got)
        # exp is the C library's in the kernels and numpy's own in the formulas: last-bit differences only
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        soft = np.empty(A)
        kernels._softmax(logits, soft)
        np.testing.assert_allclose(soft, formulas.softmax(logits[None])[0], rtol=1e-12, atol=1e-300)


# -- one game: the loop with scalar bookkeeping (``one_game``) against the loop over the games ----

ONE_GAME_CASES = [
    ("littlego", gumbel_search, {"gumbel_scale": 1.0}, 300),
    ("littlego", gumbel_search, {"gumbel_scale": 0.0, "max_considered": 4}, 300),
    ("littlego", puct_search, {"dirichlet_fraction": 0.25, "temperature": 1.0, "keep_tree": True}, 300),
    ("tictactoe", gumbel_search, {"gumbel_scale": 1.0}, 300),
    # more simulations than a tree first allocates nodes for: the arrays grow during the search
    ("tictactoe", puct_search, {"dirichlet_fraction": 0.0, "temperature": 0.0, "keep_tree": True},
     tree.INITIAL_NODES + 200),
]


def _searched_both_ways(monkeypatch, run):
    """``run()`` with the one-game loop, then with the loop over the games (B = 1 both times)."""
    one = run()
    with monkeypatch.context() as m:
        m.setattr(tree, "simulate_one_game", tree.simulate_games)
        games = run()
    return one, games


def _assert_same_outputs(one, games):
    for name in ("action", "policy", "visits", "q", "root_value", "raw_value", "greedy"):
        np.testing.assert_array_equal(getattr(one, name), getattr(games, name), err_msg=name)
    assert one.simulations == games.simulations
    if one.tree is not None:
        for name in tree._NODE_ARRAYS:
            np.testing.assert_array_equal(getattr(one.tree, name), getattr(games.tree, name), err_msg=name)
        for name, nodes in one.tree.states.items():
            np.testing.assert_array_equal(nodes, games.tree.states[name], err_msg=name)


@pytest.mark.parametrize("game_name,search,kw,sims", ONE_GAME_CASES,
                         ids=lambda c: getattr(c, "__name__", str(c)))
def test_the_one_game_loop_grows_the_trees_of_the_loop_over_the_games(game_name, search, kw, sims,
                                                                       monkeypatch):
    for seed in range(3):
        states = _positions(game_name, 1 + 4 * seed, seed)[-1:]  # the start, and positions further on

        def run(states=states, seed=seed):
            return search(_engine(game_name, states, "numba"), _position_evaluator, sims,
                          np.random.default_rng(seed), **kw)

        one, games = _searched_both_ways(monkeypatch, run)
        _assert_same_outputs(one, games)
        assert one.visits.sum() == sims


def test_the_one_game_loop_goes_on_from_a_kept_subtree_as_the_loop_over_the_games_does(monkeypatch):
    states = _positions("littlego", 3, 5)[-1:]
    engine = _engine("littlego", states, "numba")
    first = puct_search(engine, _position_evaluator, 200, np.random.default_rng(0), temperature=0.0,
                        keep_tree=True)
    child = int(first.tree.children[0, 0, int(first.action[0])])
    engine.play(first.action)
    one, games = _searched_both_ways(monkeypatch, lambda: puct_search(
        engine, _position_evaluator, 150, np.random.default_rng(1), temperature=0.0, keep_tree=True,
        reuse=first.tree.subtree(np.array([child]), 150)))
    _assert_same_outputs(one, games)


def test_the_az_agent_chooses_as_the_loop_over_the_games_would_on_seeded_positions(monkeypatch):
    from tictacgo.baselines import make_agent

    game = make_game("littlego")
    agent = make_agent("az:sims=128", game, rng=np.random.default_rng(0))
    for state in _positions("littlego", 40, 7)[::8]:
        one, games = _searched_both_ways(monkeypatch, lambda state=state: agent.search(state))
        _assert_same_outputs(one, games)
