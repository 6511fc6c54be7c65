"""tictacgo's games as OpenSpiel games (tictacgo.openspiel_games, the ``openspiel`` extra): pyspiel loads them
by name with their variant parameters, OpenSpiel's own random-simulation test passes on each, their legal
actions, returns and observations are tictacgo's (the rules core's and the PettingZoo env's), OpenSpiel's
alpha-beta gets the values tictacgo's solvers get, and OpenSpiel's MCTS bot plays tictacgo's agents both ways
(as a tictacgo agent, and against tictacgo agents made OpenSpiel bots), moving exactly as it does on
OpenSpiel's own C++ Tic-Tac-Toe. The tests that need pyspiel skip without it."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tictacgo.baselines import make_agent
from tictacgo.envs.game_envs import raw_aec_env
from tictacgo.game_loop import play_game
from tictacgo.games import make_game


def _have_pyspiel() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


needs_pyspiel = pytest.mark.skipif(not _have_pyspiel(),
                                   reason="OpenSpiel is not installed: pip install -e '.[openspiel]'")

VARIANTS = [("python_tictacgo_tictactoe", "tictactoe", {}),
            ("python_tictacgo_littlego", "littlego", {}),
            ("python_tictacgo_littlego(size=3)", "littlego", {"size": 3}),
            ("python_tictacgo_littlego(komi=0.0,max_actions=12,size=4)", "littlego",
             {"size": 4, "komi": 0.0, "max_actions": 12})]


# -- without pyspiel ---------------------------------------------------------------------------------------

def test_importing_the_module_imports_no_pyspiel():
    code = ("import sys, tictacgo.openspiel_games as m; "
            "assert 'pyspiel' not in sys.modules and 'open_spiel' not in sys.modules; print(m.PREFIX)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "python_tictacgo_"


def test_without_pyspiel_registering_names_the_extra(monkeypatch):
    from tictacgo import openspiel_games

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises ImportError
    with pytest.raises(ImportError, match=r"openspiel extra.*tictacgo\[openspiel\]"):
        openspiel_games.register_openspiel_games()
    with pytest.raises(ImportError, match="openspiel extra"):
        openspiel_games.load_openspiel_game("tictactoe")


def test_the_parameter_specification_comes_from_the_constructor():
    from tictacgo.games import GAMES
    from tictacgo.openspiel_games import _parameter_specification, openspiel_name

    spec = _parameter_specification(GAMES["littlego"])
    assert spec["size"] == 5 and spec["max_actions"] == -1 and np.isnan(spec["komi"])
    assert _parameter_specification(GAMES["tictactoe"]) == {}
    assert openspiel_name("ttt") == openspiel_name(make_game("tictactoe")) == "python_tictacgo_tictactoe"


# -- with pyspiel ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pyspiel():
    module = pytest.importorskip("pyspiel")
    from tictacgo.openspiel_games import register_openspiel_games

    names = register_openspiel_games()
    assert {"python_tictacgo_tictactoe", "python_tictacgo_littlego"} <= set(names)
    assert register_openspiel_games() == names  # again: nothing new, no error
    return module


def _mcts(game, sims: int, seed: int):
    from open_spiel.python.algorithms import mcts

    return mcts.MCTSBot(game, uct_c=2.0, max_simulations=sims, solve=True,
                        evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                        random_state=np.random.RandomState(seed))


@needs_pyspiel
@pytest.mark.parametrize("name, tictacgo_name, params", VARIANTS)
def test_pyspiel_loads_each_game_and_variant(pyspiel, name, tictacgo_name, params):
    game = pyspiel.load_game(name)
    tictacgo_game = make_game(tictacgo_name, **params)
    assert game.tictacgo_game == tictacgo_game
    assert game.get_parameters() == tictacgo_game.params   # the actual variant, defaults filled in
    assert pyspiel.load_game(str(game)).tictacgo_game == tictacgo_game  # the game string round-trips
    assert game.num_distinct_actions() == tictacgo_game.num_actions
    assert game.max_game_length() == (tictacgo_game.spec.max_actions or tictacgo_game.num_points)
    assert game.num_players() == 2 and (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.observation_tensor_shape() == list(tictacgo_game.encoder.observation_shape("planes"))


@needs_pyspiel
def test_load_openspiel_game_takes_tictacgo_names_and_variants(pyspiel):
    from tictacgo.openspiel_games import load_openspiel_game

    assert str(load_openspiel_game("go", size=3)) == "python_tictacgo_littlego(komi=1.5,max_actions=8,size=3)"
    assert load_openspiel_game(make_game("littlego", size=4, komi=2)).tictacgo_game == make_game(
        "littlego", size=4, komi=2.0)
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):
        load_openspiel_game("littlego", colour=1)


@needs_pyspiel
@pytest.mark.parametrize("name", [v[0] for v in VARIANTS])
def test_openspiels_random_simulation_test_passes(pyspiel, name):
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=10, serialize=True, verbose=False)


@needs_pyspiel
def test_a_game_registered_later_joins_and_passes_the_random_simulation_test(pyspiel):
    sys.path.insert(0, str(Path(__file__).parent / "games"))
    try:
        from connect_three import register, unregister
    finally:
        sys.path.pop(0)
    from tictacgo.openspiel_games import register_openspiel_games

    register()
    try:
        assert "python_tictacgo_connect_three" in register_openspiel_games()
        game = pyspiel.load_game("python_tictacgo_connect_three")
        assert game.max_game_length() == 20  # no action limit: one piece a move fills the 4x5 board
        pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)
    finally:
        unregister()


@needs_pyspiel
@pytest.mark.parametrize("name, tictacgo_name, params", VARIANTS)
def test_legal_actions_returns_and_observations_are_tictacgos(pyspiel, name, tictacgo_name, params):
    """Along seeded random games, the OpenSpiel state and tictacgo's rules core and PettingZoo env (with
    planes and with the player-relative board) agree at every step."""
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game(name)
    tictacgo_game = make_game(tictacgo_name, **params)
    boards = make_observation(game, params={"format": "board"})
    rng = np.random.default_rng(0)
    for _ in range(5):
        state, position = game.new_initial_state(), tictacgo_game.initial_state()
        env = raw_aec_env(tictacgo_game, observation="planes")
        env.reset()
        while True:
            assert state.is_terminal() == tictacgo_game.is_terminal(position)
            assert state.returns() == list(tictacgo_game.returns(position))
            assert str(state) == state.observation_string(0) == tictacgo_game.render_ascii(position)
            for player in (0, 1):
                planes = tictacgo_game.encoder.observe(position, "planes", viewer=player + 1)
                assert np.array_equal(np.reshape(state.observation_tensor(player), planes.shape), planes)
                boards.set_from(state, player)
                flat = tictacgo_game.encoder.observe(position, "flat", player + 1)
                assert np.array_equal(boards.tensor, flat)
            if state.is_terminal():
                assert env.terminations[env.agents[0]]
                assert [env.rewards[a] for a in env.agents] == state.returns()
                break
            player = state.current_player()
            assert player == tictacgo_game.current_player(position) - 1
            assert env.agent_selection == env.agents[player]
            assert np.array_equal(state.observation_tensor(player), env.observe(env.agent_selection)[
                "observation"].ravel())
            legal = state.legal_actions()
            assert legal == tictacgo_game.legal_actions(position)
            assert state.legal_actions_mask() == tictacgo_game.legal_mask(position).tolist()
            action = int(rng.choice(legal))
            state.apply_action(action)
            position = tictacgo_game.play(position, action)
            env.step(action)
        assert state.tictacgo_state == position


@needs_pyspiel
def test_tictactoe_plays_as_openspiels_own_tictactoe(pyspiel):
    """Cell numbers, legal actions, terminal states and returns are those of OpenSpiel's C++ tic_tac_toe."""
    ours, theirs = pyspiel.load_game("python_tictacgo_tictactoe"), pyspiel.load_game("tic_tac_toe")
    rng = np.random.default_rng(1)
    for _ in range(50):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        while not b.is_terminal():
            assert a.legal_actions() == b.legal_actions() and a.current_player() == b.current_player()
            action = int(rng.choice(b.legal_actions()))
            a.apply_action(action)
            b.apply_action(action)
        assert a.is_terminal() and a.returns() == b.returns()


@needs_pyspiel
def test_clones_pickles_and_serialized_states_are_independent_copies(pyspiel):
    game = pyspiel.load_game("python_tictacgo_littlego(size=3)")
    state = game.new_initial_state()
    state.apply_action(4)
    clone = state.clone()
    clone.apply_action(9)  # pass
    assert state.history() == [4] and clone.history() == [4, 9]
    assert state.tictacgo_state.t == 1 and clone.tictacgo_state.t == 2
    again = pickle.loads(pickle.dumps(clone))
    assert again.history() == [4, 9] and again.tictacgo_state == clone.tictacgo_state
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    copy = game.deserialize_state(clone.serialize())
    assert copy.tictacgo_state == clone.tictacgo_state


@needs_pyspiel
def test_openspiels_alpha_beta_gets_the_values_tictacgos_solvers_get(pyspiel):
    from open_spiel.python.algorithms import minimax

    from tictacgo.solver.search import solve

    value, _ = minimax.alpha_beta_search(pyspiel.load_game("python_tictacgo_tictactoe"))
    assert value == 0.0  # Tic-Tac-Toe is a draw
    go3 = make_game("littlego", size=3)
    value, _ = minimax.alpha_beta_search(pyspiel.load_game("python_tictacgo_littlego(size=3)"))
    assert value == solve(go3.initial_state()).value == -1  # 3x3 with komi 1.5 and 8 actions: White wins


@needs_pyspiel
def test_openspiels_mcts_moves_as_on_openspiels_own_tictactoe_against_minimax(pyspiel):
    """OpenSpiel's MCTS bot, seeded alike, plays tictacgo's minimax agent move for move the same on the
    adapter as on OpenSpiel's C++ tic_tac_toe; minimax never loses, and 300 simulations draw the games played
    here (with other seeds the same MCTS loses some games as O, on OpenSpiel's own game too)."""
    from tictacgo.openspiel_games import tictacgo_position

    tictactoe = make_game("tictactoe")
    ours, theirs = pyspiel.load_game("python_tictacgo_tictactoe"), pyspiel.load_game("tic_tac_toe")

    def play(game, seed, mcts_player):
        bot = _mcts(game, 300, seed)
        minimax = make_agent("minimax", tictactoe, rng=np.random.default_rng(seed))
        state, position = game.new_initial_state(), tictactoe.initial_state()
        while not state.is_terminal():
            action = bot.step(state) if state.current_player() == mcts_player else minimax.act(position)
            state.apply_action(action)
            position = tictactoe.play(position, action)
        if game is ours:
            assert tictacgo_position(state)[1] == position
        return state.history(), state.returns()

    for seed in (0, 1):
        for mcts_player in (0, 1):
            history, returns = play(ours, seed, mcts_player)
            assert (history, returns) == play(theirs, seed, mcts_player)
            assert returns == [0.0, 0.0], (seed, mcts_player, history)


@needs_pyspiel
@pytest.mark.parametrize("name, sims, seeds", [("tictactoe", 300, (0, 1, 2)), ("littlego", 300, (0,))])
def test_openspiels_mcts_as_a_tictacgo_agent_never_loses_to_random(pyspiel, name, sims, seeds):
    """Seeded games (measured beyond them: 300 simulations never lost Tic-Tac-Toe in 40 games, seeds 0-19
    both colours, and won 23 of 24 Little-Go games, seeds 0-11, losing one as Black)."""
    from tictacgo.openspiel_games import OpenSpielAgent, load_openspiel_game

    game = make_game(name)
    openspiel_game = load_openspiel_game(game)
    for seed in seeds:
        for colour in (1, 2):
            mcts = OpenSpielAgent(game, _mcts(openspiel_game, sims, seed), openspiel_game, name="os-mcts")
            rnd = make_agent("random", game)
            players = (mcts, rnd) if colour == 1 else (rnd, mcts)
            record = play_game(game, *players, rng=np.random.default_rng(seed))
            assert record.winner in (0, colour), (name, seed, colour, record.moves)


@needs_pyspiel
def test_tictacgo_agents_as_openspiel_bots_in_openspiels_evaluate_bots(pyspiel):
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    from tictacgo.openspiel_games import make_openspiel_bot

    game = pyspiel.load_game("python_tictacgo_tictactoe")
    tictactoe = make_game("tictactoe")
    minimax = make_openspiel_bot(make_agent("minimax", tictactoe, rng=np.random.default_rng(0)))
    rng = np.random.RandomState(0)
    for seed in (0, 1):
        bot = _mcts(game, 300, seed)
        assert evaluate_bots(game.new_initial_state(), [bot, minimax], rng) == [0.0, 0.0]
        assert evaluate_bots(game.new_initial_state(), [minimax, bot], rng) == [0.0, 0.0]
    random_bot = make_openspiel_bot(make_agent("random", tictactoe, rng=np.random.default_rng(0)))
    for _ in range(3):  # minimax never loses
        assert evaluate_bots(game.new_initial_state(), [random_bot, minimax], rng)[1] >= 0.0
        assert evaluate_bots(game.new_initial_state(), [minimax, random_bot], rng)[0] >= 0.0
