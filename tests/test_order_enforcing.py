"""The AEC envs' order-enforcing wrapper: PettingZoo's order checks, over PettingZoo's public API only."""

from __future__ import annotations

import pickle

import pytest
from pettingzoo.utils.wrappers import BaseWrapper

from tictacgo.envs import littlego_v0, tictactoe_v0
from tictacgo.envs.aec_base import OrderEnforcing, TurnBasedAECEnv
from tictacgo.games import GameOverError

MODULES = [tictactoe_v0, littlego_v0]
IDS = ["tictactoe", "littlego"]


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_env_is_the_raw_env_in_one_order_enforcing_wrapper_on_pettingzoos_base_wrapper(mod):
    env = mod.env()
    assert isinstance(env, OrderEnforcing) and isinstance(env, BaseWrapper)
    assert type(env.unwrapped) is TurnBasedAECEnv and not isinstance(env.unwrapped, BaseWrapper)
    assert str(env) == f"OrderEnforcing<{env.unwrapped.metadata['name']}>"


@pytest.mark.parametrize("name", ["agents", "num_agents", "agent_selection", "terminations", "truncations",
                                  "rewards", "infos"])
def test_the_per_step_attributes_cannot_be_read_before_reset(name):
    env = tictactoe_v0.env()
    with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
        getattr(env, name)
    env.reset()
    getattr(env, name)


@pytest.mark.parametrize("call,what", [
    (lambda env: env.step(0), "step"), (lambda env: env.observe(env.possible_agents[0]), "observe"),
    (lambda env: env.last(), "observe"), (lambda env: env.state(), "state"),
    (lambda env: env.render(), "render"), (lambda env: env.agent_iter(), "agent_iter")],
    ids=["step", "observe", "last", "state", "render", "agent_iter"])
def test_every_call_before_reset_is_refused_as_pettingzoos_wrapper_does(call, what):
    env = tictactoe_v0.env(render_mode="ansi")
    with pytest.raises(AssertionError, match=rf"reset\(\) needs to be called before {what}"):
        call(env)


def test_the_attributes_that_need_no_reset_are_there_before_it():
    env = littlego_v0.env()
    assert env.possible_agents == ["black_0", "white_0"] and env.max_num_agents == 2
    assert env.metadata["name"] == "littlego_v0"
    assert env.action_space("black_0").n == 26


def test_private_names_are_not_forwarded_to_the_raw_env():
    env = tictactoe_v0.env()
    with pytest.raises(AttributeError, match="private"):
        _ = env._state


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_agent_iter_gives_the_agent_to_move_until_every_agent_left(mod):
    env = mod.env()
    env.reset()
    seen = []
    for agent in env.agent_iter():
        seen.append(agent)
        assert agent == env.agent_selection
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else 4)  # the second 4 is on an occupied point: the game ends
    first, second = env.possible_agents
    assert seen == [first, second, first, second] and env.agents == []


def test_a_loop_over_agent_iter_that_does_not_step_is_refused():
    env = tictactoe_v0.env()
    env.reset()
    it = iter(env.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="need to call step"):
        next(it)
    env.step(0)
    assert next(it) == env.possible_agents[1]


def test_agent_iter_stops_after_max_iter_agents():
    env = tictactoe_v0.env()
    env.reset()
    given = []
    for agent in env.agent_iter(max_iter=3):
        given.append(agent)
        env.step(len(given) - 1)
    assert len(given) == 3 and env.agents


def test_a_dead_step_after_every_agent_left_warns_as_pettingzoo_does_and_an_action_raises():
    env = tictactoe_v0.env()
    env.reset()
    env.step(4)
    env.step(4)  # occupied: the game is over
    env.step(None)
    env.step(None)
    assert env.agents == []
    env.step(None)  # logged by PettingZoo's EnvLogger, not raised
    with pytest.raises(GameOverError, match="reset"):
        env.step(0)


def test_a_wrapper_of_something_else_than_an_aec_env_is_refused():
    with pytest.raises(TypeError, match="AECEnv"):
        OrderEnforcing(object())


def test_the_wrapped_env_pickles_with_its_reset_state():
    env = littlego_v0.env()
    env.reset()
    env.step(0)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.agent_selection == env.agent_selection == "white_0"
    assert (copy.unwrapped.state() == env.unwrapped.state()).all()
    copy.step(1)
    assert copy.agent_selection == "black_0"
