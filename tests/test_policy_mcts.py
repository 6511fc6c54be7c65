"""The AlphaGo chapter's policy MCTS and mix MCTS over any policy agent.

Policies here are cheap: the random player's uniform distribution, toy agents
with fixed probabilities, and (when sb3-contrib is installed) a PolicyAgent on
an untrained MaskablePPO model built in the test.
"""

from __future__ import annotations

import copy
import math
import pickle
import random

import numpy as np
import pytest
from search_trees import root_with_children

from tictacgo.arena import play_game
from tictacgo.baselines import Agent, make_agent
from tictacgo.baselines.mcts import MCTSAgent
from tictacgo.baselines.mcts_evaluators import AgentPolicy, PolicyRollout
from tictacgo.baselines.minimax import MinimaxAgent
from tictacgo.baselines.policy_mcts import (
    DEFAULT_C,
    DEFAULT_SIMS,
    DEFAULT_W,
    MixMCTSAgent,
    PolicyBonus,
    PolicyMCTSAgent,
    PolicySample,
    best_move,
    mix_score,
    uct_score,
)
from tictacgo.baselines.random_agent import RandomAgent
from tictacgo.games import littlego as go
from tictacgo.games import tictactoe as ttt

TTT = ttt.TicTacToe()
GO = go.LittleGo()

KINDS = {"policy": PolicyMCTSAgent, "mix": MixMCTSAgent}
WIN_IN_ONE = "XX. OO. ..."  # X to move: 2 wins at once (O threatens 5)


def rng(seed=0):
    return np.random.default_rng(seed)


class Weighted(Agent):
    """A toy policy: fixed weights per action (renormalised by the search), maybe on illegal ones too."""

    def __init__(self, game, weights):
        super().__init__(game)
        self.weights = weights

    def probabilities(self, state):
        return dict(self.weights)

    def act(self, state):
        legal = self.game.legal_actions(state)
        return max(legal, key=lambda a: self.weights.get(a, 0.0))


def uniform(game=TTT):
    return RandomAgent(game, rng(0))


# -- the AlphaGo chapter's scores ---------------------------------------------------------

def test_the_mix_score_is_the_uct_score_plus_w_times_the_prior():
    uct = 1 / 2 + 1.4 * math.sqrt(math.log(10) / 2)
    assert uct_score(1.0, 2, 10, 1.4) == pytest.approx(uct)
    assert mix_score(1.0, 2, 10, 0.3, 1.4, 10.0) == pytest.approx(uct + 10 * 0.3)
    assert mix_score(1.0, 2, 10, 0.3, 1.4, 0.0) == pytest.approx(uct)
    assert mix_score(0.0, 0, 10, 0.3, 1.4, 10.0) == math.inf  # unvisited moves come first


def test_the_chapters_defaults():
    assert (DEFAULT_SIMS, DEFAULT_C, DEFAULT_W) == (100, 1.4, 10.0)
    agent = MixMCTSAgent(TTT, uniform(), rng=rng())
    assert (agent.sims, agent.c, agent.w, agent.reuse) == (100, 1.4, 10.0, False)
    assert PolicyMCTSAgent(TTT, uniform(), rng=rng()).sims == 100


def _root_with_children(stats):
    """A visited root whose children have (total, visits, prior) as given."""
    return root_with_children(TTT, stats)


def test_mix_selection_adds_the_weighted_prior_to_uct():
    # Child 0: the better UCT score (mean +0.5); child 1: the policy's favourite (mean 0).
    root = _root_with_children([(5.0, 10, 0.1), (0.0, 10, 0.9)])
    uct = [uct_score(ch.w, ch.n, root.n, DEFAULT_C) for ch in root.children]
    assert uct[0] > uct[1]

    def chosen(w):
        return PolicyBonus(uniform().probabilities, w=w).select(root, TTT, random.Random(0)).action

    assert chosen(0.0) == 0
    assert chosen(1.0) == 1
    # The switch happens where w * (0.9 - 0.1) overtakes the UCT gap.
    w_switch = (uct[0] - uct[1]) / 0.8
    assert chosen(w_switch * 0.99) == 0
    assert chosen(w_switch * 1.01) == 1


def test_mix_tries_every_move_once_first_the_most_probable_first():
    weights = {a: float(a + 1) for a in range(9)}  # 8 is the favourite, 0 the least liked
    agent = MixMCTSAgent(TTT, Weighted(TTT, weights), sims=9, rng=rng())
    root = agent.search(TTT.initial_state())
    assert [ch.action for ch in root.children] == [8, 7, 6, 5, 4, 3, 2, 1, 0]
    assert all(ch.n == 1 for ch in root.children)
    assert [ch.p for ch in root.children] == pytest.approx([(a + 1) / 45 for a in range(8, -1, -1)])


def test_mix_rollouts_put_every_position_of_the_game_in_the_tree():
    agent = MixMCTSAgent(TTT, uniform(), sims=1, rng=rng())
    node = agent.search(TTT.initial_state())
    depth = 0
    while node.children:
        assert len(node.children) == 1 and node.children[0].n == 1
        node = node.children[0]
        depth += 1
    assert ttt.is_terminal(node.state) and depth >= 5


def test_best_move_is_wins_minus_losses_over_visits_and_an_untried_move_scores_zero():
    # 0: 3 wins of 4 (+0.5); 1: 9 wins, 1 loss of 10 (+0.8); 2: -1.
    root = _root_with_children([(2.0, 4, 0.0), (8.0, 10, 0.0), (-1.0, 1, 0.0)])
    assert best_move(root, [0, 1, 2, 3]) == 1
    losing = _root_with_children([(-1.0, 3, 0.0), (-2.0, 2, 0.0)])
    assert best_move(losing, [0, 1, 5]) == 5      # untried: 0 beats known losses
    drawn = _root_with_children([(0.0, 2, 0.0), (0.0, 7, 0.0)])
    assert best_move(drawn, [0, 1, 5]) == 1       # equal scores: the more visited


def test_an_untried_pass_is_no_candidate_while_a_placement_is_legal():
    losing = _root_with_children([(-1.0, 3, 0.0), (-2.0, 2, 0.0)])  # as if 9 were PASS
    assert best_move(losing, [0, 1, 9]) == 9
    assert best_move(losing, [0, 1, 9], pass_action=9) == 0
    assert best_move(_root_with_children([]), [9], pass_action=9) == 9


@pytest.mark.parametrize("seed", range(2))
def test_policy_mcts_over_the_random_player_does_not_pass_blind_in_go(seed):
    # Black is behind: random rollouts rate every placement below 0, and the
    # random policy never passes, so PASS stays untried (and would score 0).
    s = go.from_ascii("""
        . O . . .
        O O O O O
        . . X . .
        . X . X .
        . . . . .""", to_move=go.BLACK)
    agent = PolicyMCTSAgent(GO, uniform(GO), sims=100, rng=rng(seed))
    move = agent.act(s)
    assert max(ch.q for ch in agent.root.children) < 0
    assert move != go.pass_action(s) and move in go.legal_actions(s)


def test_policy_mcts_draws_its_first_moves_from_the_policy_and_counts_each_rollout_once():
    agent = PolicyMCTSAgent(TTT, Weighted(TTT, {4: 1.0}), sims=50, rng=rng())
    root = agent.search(TTT.initial_state())
    assert [ch.action for ch in root.children] == [4]
    assert root.n == root.children[0].n == 50
    assert not root.children[0].children  # flat: no tree below the first move
    agent = PolicyMCTSAgent(TTT, uniform(), sims=300, rng=rng())
    root = agent.search(TTT.initial_state())
    assert sum(ch.n for ch in root.children) == root.n == 300
    assert sorted(ch.action for ch in root.children) == list(range(9))


def _root_stats(agent):
    return sorted((ch.action, ch.n, ch.w) for ch in agent.root.children)


@pytest.mark.parametrize("game", [TTT, GO], ids=["tictactoe", "littlego"])
def test_policy_and_mix_mcts_are_the_one_search_with_their_parts(game):
    policy = AgentPolicy(uniform(game))
    state = game.play(game.initial_state(), 4)
    parts = {
        "policy": dict(evaluator=PolicyRollout(game, policy), selection=PolicySample(policy), max_depth=1),
        "mix": dict(selection=PolicyBonus(policy.probabilities, c=0.7, w=2.0), expand_to_end=True),
    }
    for kind, agent in (("policy", PolicyMCTSAgent(game, policy, sims=40, rng=rng(3))),
                        ("mix", MixMCTSAgent(game, policy, sims=40, c=0.7, w=2.0, rng=rng(3)))):
        composed = MCTSAgent(game, sims=40, reuse=False, final_move=best_move, rng=rng(3), **parts[kind])
        assert agent.act(state) == composed.act(state)
        assert _root_stats(agent) == _root_stats(composed)
        # The agents only put the parts together: no step of the search is their own.
        assert [name for name, value in vars(type(agent)).items() if callable(value)] == ["__init__"]


# -- playing ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(3))
def test_both_take_a_win_in_one_in_tictactoe(kind, seed):
    s = ttt.from_board(WIN_IN_ONE)
    assert KINDS[kind](TTT, uniform(), sims=100, rng=rng(seed)).act(s) == 2


@pytest.mark.parametrize("spec", ["policy_mcts:policy=random,sims=100", "mix_mcts:policy=random,sims=100",
                                  "mix_mcts:policy=random,sims=10"])
def test_registry_agents_take_a_win_in_one(spec):
    assert make_agent(spec, "tictactoe", rng=rng(1)).act(ttt.from_board(WIN_IN_ONE)) == 2


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game", [TTT, GO], ids=["tictactoe", "littlego"])
def test_both_choose_only_legal_moves(kind, game):
    sims = 30 if game is ttt else 15
    for i in range(4 if game is ttt else 2):
        agent = KINDS[kind](game, uniform(game), sims=sims, rng=rng(i))
        record = play_game(game, agent, RandomAgent(game), rng=rng(100 + i))
        assert record.forfeit == ""
        record = play_game(game, RandomAgent(game), agent, rng=rng(200 + i))
        assert record.forfeit == ""


@pytest.mark.parametrize("kind", KINDS)
def test_a_seeded_search_is_reproducible(kind):
    for game, state in ((TTT, TTT.initial_state()), (GO, go.play(GO.initial_state(), 12))):
        runs = []
        for _ in range(2):
            agent = KINDS[kind](game, uniform(game), sims=60, rng=rng(5))
            move = agent.act(state)
            runs.append((move, sorted((ch.action, ch.n, ch.w) for ch in agent.root.children)))
        assert runs[0] == runs[1]


@pytest.mark.parametrize("kind", KINDS)
def test_one_legal_move_is_played_without_a_search(kind):
    s = ttt.from_board("XOX XOO OX.")
    agent = KINDS[kind](TTT, uniform(), sims=10, rng=rng())
    assert agent.act(s) == 8 and agent.root is None


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("copier", [lambda a: pickle.loads(pickle.dumps(a)), copy.deepcopy],
                         ids=["pickle", "deepcopy"])
def test_both_pickle_and_play_like_the_original(kind, copier):
    agent = KINDS[kind](TTT, Weighted(TTT, {a: 1.0 + a for a in range(9)}), sims=40, rng=rng(3))
    agent.act(TTT.initial_state())  # fills the policy's cache and a tree
    twin = copier(agent)
    assert twin.game is TTT and twin.policy.game is TTT
    s = ttt.play(TTT.initial_state(), 4)
    assert twin.act(s) == agent.act(s)


# -- policies ------------------------------------------------------------------------------

def test_an_agent_without_probabilities_is_a_clear_error():
    with pytest.raises(ValueError, match="no move probabilities"):
        PolicyMCTSAgent(TTT, MinimaxAgent(TTT), rng=rng())
    for spec in ("policy_mcts:policy=minimax", "mix_mcts:policy=think3"):
        with pytest.raises(ValueError, match="no move probabilities"):
            make_agent(spec, "tictactoe")
    with pytest.raises(ValueError, match="policy"):
        make_agent("mix_mcts:policy=nonsense", "tictactoe")
    with pytest.raises(ValueError, match="plays littlego"):
        MixMCTSAgent(TTT, uniform(GO), rng=rng())
    with pytest.raises(ValueError, match="w must be"):
        make_agent("mix_mcts:policy=random,w=-1", "tictactoe")


def test_the_policy_is_renormalised_over_the_legal_moves_and_sampled_with_the_search_rng():
    s = ttt.from_board("XO. ... ...")
    policy = AgentPolicy(Weighted(TTT, {0: 5.0, 1: 5.0, 2: 3.0, 8: 1.0}))  # 0 and 1 are taken
    assert policy.probabilities(s) == pytest.approx({2: 0.75, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0, 8: 0.25})
    draws = [policy(s, random.Random(0)) for _ in range(3)]
    assert len(set(draws)) == 1  # same stream, same move
    counts = {2: 0, 8: 0}
    rnd = random.Random(1)
    for _ in range(2000):
        counts[policy(s, rnd)] += 1
    assert 0.7 < counts[2] / 2000 < 0.8
    nothing = AgentPolicy(Weighted(TTT, {}))
    assert nothing.probabilities(s) == pytest.approx(dict.fromkeys(ttt.legal_actions(s), 1 / 7))


def test_the_random_player_is_a_uniform_policy():
    s = go.play(GO.initial_state(), 12)
    probs = RandomAgent(GO, rng()).probabilities(s)
    assert go.pass_action(s) not in probs and len(probs) == 24
    assert sum(probs.values()) == pytest.approx(1.0)


# -- over a PolicyAgent (a network) --------------------------------------------------------------

@pytest.fixture(scope="module")
def untrained_model(tmp_path_factory):
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import tictacgo  # noqa: F401  (registers the envs)

    model = MaskablePPO("MlpPolicy", gym.make("TicTacToe-v0"), seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    path = tmp_path_factory.mktemp("policy") / "untrained.zip"
    model.save(path)
    return path


@pytest.mark.parametrize("kind", ["policy_mcts", "mix_mcts"])
def test_both_search_over_a_policy_agent_from_the_registry(untrained_model, kind):
    spec = f"{kind}:policy=ppo:path={untrained_model};sample=true,sims=60"
    agent = make_agent(spec, "tictactoe", rng=rng(0))
    assert agent.policy.agent.sample is True  # the policy's own parameters after ';'
    assert agent.act(ttt.from_board(WIN_IN_ONE)) == 2
    twin = pickle.loads(pickle.dumps(agent))
    s = ttt.play(TTT.initial_state(), 0)
    assert twin.act(s) == agent.act(s)
    record = play_game(TTT, agent, RandomAgent(TTT), rng=rng(1))
    assert record.forfeit == ""
