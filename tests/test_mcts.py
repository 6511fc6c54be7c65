"""UCT Monte Carlo tree search on Tic-Tac-Toe and Little-Go.

Fixed seeds and simulation budgets keep every test deterministic and fast.
"""

import random

import numpy as np
import pytest

from tictacgo.arena import play_game
from tictacgo.baselines import make_agent
from tictacgo.baselines.mcts import MCTSAgent, SelectionRule
from tictacgo.baselines.mcts_evaluators import (
    CaptureRollout,
    Evaluator,
    PolicyRollout,
    RandomRollout,
    ValueAndPrior,
    random_rollout,
)
from tictacgo.games import littlego as go
from tictacgo.games import tictactoe as ttt
from tictacgo.games.littlego_fast import fast_rollout as go_fast_rollout

TTT = ttt.TicTacToe()
GO = go.LittleGo()


def rng(seed=0):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("seed", range(3))
def test_mcts_takes_a_win_in_one_in_tictactoe(seed):
    # X to move: 2 wins at once (O threatens 5).
    s = ttt.from_board("XX. OO. ...")
    assert MCTSAgent(TTT, sims=400, rng=rng(seed)).act(s) == 2


@pytest.mark.parametrize("seed", range(3))
def test_mcts_blocks_a_loss_in_one_in_tictactoe(seed):
    # O to move: X threatens 2.
    s = ttt.from_board("XX. O.. ...")
    assert MCTSAgent(TTT, sims=400, rng=rng(seed)).act(s) == 2


def test_mcts_never_loses_to_random_in_tictactoe():
    for game in range(20):
        mcts = make_agent("mcts:sims=300", "tictactoe", rng=rng(game))
        rand = make_agent("random", "tictactoe", rng=rng(1000 + game))
        mcts_colour = ttt.X if game % 2 == 0 else ttt.O
        record = play_game(TTT, *((mcts, rand) if mcts_colour == ttt.X else (rand, mcts)))
        assert record.winner in (0, mcts_colour), f"game {game}\n{ttt.render_ascii(record.final_state)}"


@pytest.mark.parametrize("rollout", ["random", "capture"])
def test_mcts_captures_a_hanging_group_in_go(rollout):
    # White's three stones in row 2 have one liberty, (2,4); White leads
    # 8.5 : 7 unless they are taken.
    s = go.from_ascii("""
        .....
        .XXX.
        XOOO.
        .XXX.
        OOO..""", to_move=go.BLACK)
    agent = make_agent(f"mcts:sims=1500,rollout={rollout}", "littlego", rng=rng(0))
    assert agent.act(s) == 14


def test_mcts_with_a_fixed_budget_is_reproducible():
    s = GO.initial_state()
    a = [MCTSAgent(GO, sims=200, rng=rng(7)).act(s) for _ in range(2)]
    assert a[0] == a[1]


def test_mcts_reuses_the_subtree_after_the_opponents_reply():
    agent = MCTSAgent(TTT, sims=300, rng=rng(0))
    s = TTT.initial_state()
    s = ttt.play(s, agent.act(s))
    reply = max(agent.root.children, key=lambda ch: ch.n).children
    s = ttt.play(s, max(reply, key=lambda ch: ch.n).action)
    agent.act(s)
    assert agent.reused_visits > 0
    agent.reset()
    agent.act(s)
    assert agent.reused_visits == 0


def test_mcts_respects_a_time_budget():
    import time
    agent = make_agent("mcts:time=0.05", "littlego", rng=rng(0))
    start = time.perf_counter()
    agent.act(GO.initial_state())
    assert time.perf_counter() - start < 0.5
    assert agent.last_sims > 0


def test_mcts_passes_when_no_placement_is_legal():
    s = go.from_ascii("X.\n.X", to_move=go.WHITE)
    assert make_agent("mcts:sims=50", "littlego", rng=rng()).act(s) == go.pass_action(s)


def test_a_prior_evaluator_turns_on_puct_and_still_finds_the_win():
    s = ttt.from_board("XX. OO. ...")
    uniform = lambda state: {a: 1.0 for a in ttt.legal_actions(state)}  # noqa: E731
    agent = MCTSAgent(TTT, sims=400, c=1.5, evaluator=ValueAndPrior(TTT, prior=uniform), rng=rng(0))
    assert agent.act(s) == 2
    assert all(ch.p == pytest.approx(0.2) for ch in agent.root.children)


def test_policy_rollout_and_value_evaluators_are_called():
    calls = {"rollout": 0, "evaluate": 0}

    def first_legal(state, rnd):
        calls["rollout"] += 1
        return ttt.legal_actions(state)[0]

    def zero(state):
        calls["evaluate"] += 1
        return 0.0

    MCTSAgent(TTT, sims=50, evaluator=PolicyRollout(TTT, first_legal), rng=rng()).act(TTT.initial_state())
    MCTSAgent(TTT, sims=50, evaluator=ValueAndPrior(TTT, value=zero), rng=rng()).act(TTT.initial_state())
    assert calls["rollout"] > 0 and calls["evaluate"] > 0


def test_a_new_evaluator_plugs_in_without_touching_the_search():
    class PreferCentre(Evaluator):
        """A toy 'network': values nothing, but puts all prior mass on the centre."""

        uses_prior = True

        def evaluate(self, state, rnd):
            return (0.0, 0.0)

        def prior(self, state):
            return {a: (1.0 if a == 4 else 0.0) for a in ttt.legal_actions(state)}

    agent = MCTSAgent(TTT, sims=30, evaluator=PreferCentre(), rng=rng())
    assert agent.act(TTT.initial_state()) == 4


class LowestFirst(SelectionRule):
    """A toy rule: always the child of the lowest legal action."""

    def select(self, node, game, rnd):
        action = min(game.legal_actions(node.state))
        for child in node.children:
            if child.action == action:
                return child
        return node.add(game, action)


def _tree_nodes(node):
    yield node
    for child in node.children:
        yield from _tree_nodes(child)


def test_a_selection_rule_passed_in_decides_where_the_search_goes():
    s = ttt.from_board("XO. .XO ...")  # X to move: UCT finds the win at 8
    assert MCTSAgent(TTT, sims=200, rng=rng()).act(s) == 8
    agent = MCTSAgent(TTT, sims=200, selection=LowestFirst(), rng=rng())
    assert agent.act(s) == 2  # every simulation went down the lowest action
    assert all(len(node.children) <= 1 for node in _tree_nodes(agent.root))
    assert agent.root.children[0].n == 200


def test_the_root_can_have_its_own_selection_rule():
    agent = MCTSAgent(TTT, sims=200, root_selection=LowestFirst(), rng=rng())
    assert agent.act(TTT.initial_state()) == 0
    (first,) = agent.root.children
    assert first.action == 0 and first.n == 200
    assert len(first.children) == 8  # below the root, UCT tries every reply


def test_a_final_move_rule_and_a_depth_limit_passed_in_are_used():
    seen = []

    def last_legal(root, legal, pass_action):
        seen.append((root.n, pass_action))
        return legal[-1]

    agent = MCTSAgent(GO, sims=30, max_depth=1, final_move=last_legal, rng=rng())
    s = GO.initial_state()
    assert agent.act(s) == go.legal_actions(s)[-1]
    assert seen == [(30, go.pass_action(s))]
    assert all(not child.children for child in agent.root.children)  # one step deep: a flat tree


def test_mcts_rejects_parts_that_do_not_fit():
    with pytest.raises(TypeError, match="selection must be a SelectionRule"):
        MCTSAgent(TTT, sims=10, selection=lambda node, game, rnd: None)
    with pytest.raises(TypeError, match="root_selection must be a SelectionRule"):
        MCTSAgent(TTT, sims=10, root_selection="uct")
    with pytest.raises(ValueError, match="max_depth must be a positive int"):
        MCTSAgent(TTT, sims=10, max_depth=0)
    with pytest.raises(TypeError, match="final_move must be callable"):
        MCTSAgent(TTT, sims=10, final_move="most_visited")


def test_value_function_values_are_from_the_view_of_the_player_to_move():
    s = ttt.play(TTT.initial_state(), 4)  # O to move
    ev = ValueAndPrior(TTT, value=lambda state: 0.5)
    assert ev.evaluate(s, random.Random(0)) == (-0.5, 0.5)


def test_rollouts_run_on_the_fast_engine_only_where_the_game_has_one():
    s = go.play(GO.initial_state(), 12)
    assert CaptureRollout(GO)._fast is go.fast_rollout
    assert CaptureRollout(GO, fast=False)._fast is None
    assert RandomRollout(TTT)._fast is None and RandomRollout(GO).capture_prob == 0.0
    for ev in (CaptureRollout(GO), CaptureRollout(GO, fast=False), RandomRollout(GO, fast=False)):
        for k in range(20):
            assert ev.evaluate(s, random.Random(k)) in ((1.0, -1.0), (-1.0, 1.0), (0.0, 0.0))


def test_evaluators_reject_bad_arguments():
    with pytest.raises(ValueError):
        CaptureRollout(GO, capture_prob=1.5)
    with pytest.raises(ValueError):
        ValueAndPrior(GO)
    with pytest.raises(TypeError):
        PolicyRollout(GO, policy=3)
    with pytest.raises(TypeError):
        MCTSAgent(GO, sims=10, evaluator=lambda s: 0.0)


def test_fast_go_rollout_follows_the_rules_core():
    r = random.Random(3)
    for _ in range(150):
        s = go.LittleGo(size=r.choice([3, 4, 5])).initial_state()
        for _ in range(r.randrange(12)):
            moves = go.legal_actions(s)
            if go.is_terminal(s) or len(moves) == 1:
                break
            s = go.play(s, r.choice(moves[:-1]))
        if go.is_terminal(s):
            continue
        trace = []
        w = go_fast_rollout(s, r, capture_prob=r.choice([0.0, 1.0]), trace=trace)
        for a in trace:
            if a == go.pass_action(s):  # passes only when forced
                assert go.legal_actions(s) == [a]
            s = go.play(s, a)
        assert go.is_terminal(s) and go.winner(s) == w


def test_random_rollout_ends_the_game():
    end = random_rollout(TTT, TTT.initial_state(), random.Random(0))
    assert ttt.is_terminal(end)


@pytest.mark.parametrize("spec", ["mcts", "mcts:sims=50", "mcts:sims=50,c=1.4,reuse=false",
                                  "mcts:time=0.02,rollout=random"])
@pytest.mark.parametrize("game", ["tictactoe", "littlego"])
def test_registry_specs_build_mcts(spec, game):
    if spec == "mcts":
        spec = "mcts:sims=20"
    agent = make_agent(spec, game, rng=rng())
    module = TTT if game == "tictactoe" else GO
    s = module.initial_state()
    assert agent.act(s) in module.legal_actions(s)


@pytest.mark.parametrize("c", ["inf", "nan", "-inf"])
def test_mcts_refuses_an_exploration_constant_that_is_not_finite(c):
    with pytest.raises(ValueError, match=f"c must be a finite non-negative number, got {c}"):
        make_agent(f"mcts:c={c}", "littlego")
    with pytest.raises(ValueError, match="c must be a finite non-negative number"):
        MCTSAgent(GO, sims=10, c=float(c))


def test_mcts_rejects_bad_parameters():
    for spec in ("mcts:sims=0", "mcts:c=-1", "mcts:rollout=smart", "mcts:time=0", "mcts:budget=3"):
        with pytest.raises(ValueError):
            make_agent(spec, "littlego")
    with pytest.raises(ValueError):
        MCTSAgent(GO, sims=10).act(go.play(GO.initial_state(), 25))
