"""Every registered agent and both Gymnasium envs pickle and deep-copy, and a copy
plays as the original does (async vector envs, SubprocVecEnv and tree search need this)."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

import tictacgo  # noqa: F401
from tictacgo.baselines.registry import available_agents, make_agent
from tictacgo.games import make_game

# Search agents on small budgets; policy searches over the random player (no trained model needed).
CHEAP = {"mcts": "mcts:sims=30", "alphabeta": "alphabeta:depth=1",
         "policy_mcts": "policy_mcts:policy=random,sims=30", "mix_mcts": "mix_mcts:policy=random,sims=30",
         "solver": "solver:fallback=mcts:sims=30",
         "championship": "championship:nodes=3000"}  # a node budget: the same search on any machine
# No A2C model is shipped for Little-Go (baselines/models/README.md): a2c needs path= there.
# `program` runs an outside program in its own folder (tests/test_program_agent.py): a copy
# is another handle on that folder, so it is not copied here.
NOT_SHIPPED = {("littlego", "a2c"), ("littlego", "program")}
CASES = [(g, name) for g in ("tictactoe", "littlego") for name in available_agents(g)
         if (g, name) not in NOT_SHIPPED]


def position(game_name: str):
    game = make_game(game_name)
    s = game.initial_state()
    for a in (4, 0) if game_name == "tictactoe" else (12, 6, 13):
        s = game.play(s, a)
    return game, s


@pytest.mark.parametrize("copier", [lambda a: pickle.loads(pickle.dumps(a)), copy.deepcopy],
                         ids=["pickle", "deepcopy"])
@pytest.mark.parametrize("game_name,name", CASES)
def test_every_registered_agent_copies_and_plays_like_the_original(game_name, name, copier):
    spec = "minimax:depth=1" if (game_name, name) == ("littlego", "minimax") else CHEAP.get(name, name)
    agent = make_agent(spec, game_name, rng=np.random.default_rng(7))
    twin = copier(agent)
    assert twin.game is agent.game  # the rules module itself comes back, by name
    game, s = position(game_name)
    assert twin.act(s) == agent.act(s)
    assert twin.act(s) in game.legal_actions(s)


@pytest.mark.parametrize("env_id,opponent", [("TicTacToe-v0", "minimax"), ("LittleGo-v0", "mcts:sims=10")])
def test_gymnasium_envs_pickle_and_deep_copy_mid_game(env_id, opponent):
    env = gym.make(env_id, opponent=opponent)
    env.reset(seed=0)
    env.step(4)
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert twin.unwrapped.game_state == env.unwrapped.game_state
        assert twin.unwrapped.action_masks().tolist() == env.unwrapped.action_masks().tolist()
