"""Conventions a user trips over: env id registration, the registry listing, the public names of
``tictacgo.envs`` and registering one's own agent."""

import subprocess
import sys
import textwrap

import gymnasium as gym
import pytest

import tictacgo  # noqa: F401  (registers the env ids)
from tictacgo.arena import play_game, run_match
from tictacgo.baselines import RandomAgent, make_agent, registry
from tictacgo.baselines.registry import available_agents, register_agent


def _run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120)


# -- env ids -----------------------------------------------------------------------

def test_importing_tictacgo_after_a_foreign_registration_of_its_id_raises():
    """A stand-in ``TicTacToe-v0`` registered first, then ``import tictacgo`` in a fresh
    process. It must not go on with ``make`` returning the stand-in."""
    done = _run_python("""
        import gymnasium as gym
        gym.register("TicTacToe-v0", entry_point="gymnasium.envs.classic_control:CartPoleEnv")
        try:
            import tictacgo
        except gym.error.Error as e:
            print("REFUSED:", e)
        else:
            print("MADE:", type(gym.make("TicTacToe-v0").unwrapped).__name__)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("REFUSED:"), done.stdout
    assert "'TicTacToe-v0' is already registered" in done.stdout and "CartPoleEnv" in done.stdout


def test_make_with_the_module_prefix_also_refuses_a_foreign_registration():
    done = _run_python("""
        import gymnasium as gym
        gym.register("LittleGo-v0", entry_point="gymnasium.envs.classic_control:CartPoleEnv")
        try:
            gym.make("tictacgo:LittleGo-v0")
        except gym.error.Error as e:
            print("REFUSED:", e)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("REFUSED:") and "'LittleGo-v0' is already registered" in done.stdout


def test_pprint_registry_lists_both_envs_in_one_group():
    text = gym.pprint_registry(disable_print=True)
    groups = {}
    current = None
    for line in text.splitlines():
        if line.startswith("===== ") and line.endswith(" ====="):
            current = line.strip("= ")
        elif current is not None:
            for env_id in line.split():
                groups[env_id] = current
    assert groups["TicTacToe-v0"] == groups["LittleGo-v0"]


# -- tictacgo.envs ---------------------------------------------------------------------

def test_tictacgo_envs_exports_the_aec_modules_the_gym_classes_the_shared_modules_and_action_masks():
    import tictacgo.envs as envs
    from tictacgo.envs.gym_littlego import env as LittleGoEnv
    from tictacgo.envs.gym_tictactoe import env as TicTacToeEnv
    from tictacgo.envs.vector_masks import action_masks

    assert sorted(envs.__all__) == ["GameCheckError", "TurnBasedAECEnv", "TurnBasedEnv", "action_masks",
                                    "check_game", "game_envs", "gym_littlego", "gym_tictactoe",
                                    "littlego_v0", "observations", "rendering", "tictactoe_v0"]
    assert envs.gym_littlego.env is LittleGoEnv and envs.gym_tictactoe.env is TicTacToeEnv
    assert envs.action_masks is action_masks
    for module in (envs.tictactoe_v0, envs.littlego_v0):
        assert callable(module.env) and isinstance(module.raw_env(), envs.TurnBasedAECEnv)
    done = _run_python("from tictacgo.envs import *\nprint(sorted(k for k in dir() if k[0] != '_'))")
    assert done.returncode == 0, done.stderr
    assert eval(done.stdout) == sorted(envs.__all__)


# -- register_agent ---------------------------------------------------------------------

@pytest.fixture
def clean_registry(monkeypatch):
    """Registrations made by a test are dropped after it."""
    registry._load_builtins()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


def _make_first_legal(game, rng, offset=0):
    class FirstLegal(RandomAgent):
        def act(self, state):
            legal = self.game.legal_actions(state)
            return int(legal[min(offset, len(legal) - 1)])

    return FirstLegal(game, rng)


def test_a_registered_agent_plays_by_spec_with_its_parameters(clean_registry):
    register_agent("first_legal", _make_first_legal, games=("tictactoe",), description="the first legal cell")
    assert "first_legal" in available_agents("tictactoe")
    assert "first_legal" not in available_agents("littlego")
    record = play_game("tictactoe", make_agent("first_legal", "tictactoe"),
                       make_agent("first_legal:offset=1", "tictactoe"))
    assert record.moves[:2] == [0, 2]   # X takes cell 0; O, offset 1, the second empty cell
    result = run_match("tictactoe", "first_legal", "minimax", games=2, seed=0, workers=1, progress=False)
    assert len(result.games) == 2
    with pytest.raises(ValueError, match="has no parameter 'depth'"):
        make_agent("first_legal:depth=2", "tictactoe")
    with pytest.raises(ValueError, match="does not play littlego"):
        make_agent("first_legal", "littlego")


def test_register_agent_refuses_a_taken_name_unless_replace_is_given(clean_registry):
    with pytest.raises(ValueError, match="'random' is already registered"):
        register_agent("random", _make_first_legal)
    register_agent("random", _make_first_legal, games=("tictactoe",), replace=True)
    assert make_agent("random", "tictactoe").act(tictacgo.tictactoe.TicTacToe().initial_state()) == 0


@pytest.mark.parametrize("name", ["", "Mine", "my agent", "mine:x", "a,b", 3])
def test_register_agent_refuses_a_name_a_spec_cannot_reach(clean_registry, name):
    with pytest.raises(ValueError, match="agent name"):
        register_agent(name, _make_first_legal)


def test_register_agent_refuses_an_unknown_game_and_a_non_callable(clean_registry):
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        register_agent("mine", _make_first_legal, games=("chess",))
    with pytest.raises(TypeError, match="factory must be callable"):
        register_agent("mine", "not a function")


def make_first_legal_agent(game, rng):
    """A factory for the test below to name by its "module:attr" string."""
    return _make_first_legal(game, rng)


def test_register_agent_takes_a_factory_by_name_and_imports_it_when_first_built(clean_registry):
    register_agent("named", f"{__name__}:make_first_legal_agent", games=("littlego",))
    assert "named" in available_agents("littlego")
    agent = make_agent("named", "littlego")
    from tictacgo.games import littlego

    state = littlego.LittleGo().initial_state()
    assert agent.act(state) == littlego.legal_actions(state)[0]
    register_agent("broken", "tictacgo.no_such_module:f", games=("littlego",))
    with pytest.raises(ImportError, match="agent 'broken' cannot be built"):
        make_agent("broken", "littlego")


def test_the_ids_are_also_registered_under_the_package_namespace():
    import gymnasium

    import tictacgo  # noqa: F401

    for env_id in ("LittleGo-v0", "TicTacToe-v0"):
        spec, namespaced = gymnasium.spec(env_id), gymnasium.spec(f"tictacgo/{env_id}")
        assert namespaced.namespace == "tictacgo" and namespaced.entry_point == spec.entry_point
        env = gymnasium.make(f"tictacgo/{env_id}", opponent="random")
        obs, info = env.reset(seed=0)
        assert info["action_mask"].sum() > 0
    groups = gymnasium.registry.keys()
    assert "tictacgo/LittleGo-v0" in groups


def test_the_agent_list_without_a_game_says_which_games_each_agent_plays():
    from tictacgo.baselines.registry import describe_agents

    lines = {line.split()[0]: line for line in describe_agents().splitlines()}
    assert " littlego " in lines["greedy"] and "tictactoe" not in lines["greedy"]
    assert "tictactoe" in lines["think3"] and "littlego" not in lines["think3"]
    assert "every game" in lines["mcts"]  # an agent that names no games plays every registered game
    assert "every game" not in describe_agents("littlego")
