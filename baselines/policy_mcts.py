"""Seed 001's two policy-guided searches ("AlphaGo in Tic Tac Toe") over any policy agent.

Both take a policy: any agent that gives move probabilities
(``probabilities(state) -> {action: p}``: a trained ``PolicyAgent`` such as
``ppo``/``a2c``, or the uniform ``random`` player), wrapped as an
``AgentPolicy`` (``tictacgo.baselines.mcts_evaluators``) that renormalises it
over the legal moves. An agent without probabilities is a clear ValueError.

**Policy MCTS** (``PolicyMCTSAgent``, the seed's ``policy_mcts_ttt``): each
of ``sims`` rollouts (the seed's default: 100) plays one game from the
position to the end, every move, the first included, drawn from the policy
(stochastic, renormalised over the legal moves; ``PolicyRollout`` plays all
but the first). The result is counted for the rollout's first move.

**Mix MCTS** (``MixMCTSAgent``, the seed's ``mix_mcts_ttt``): each rollout
plays one game from the position to the end choosing every move, in the tree
and below it, by the seed's formula

    MIX = Q + c * sqrt(ln N / n) + w * p

(``Q``: the move's mean result from the mover's view, ``n`` its visits, ``N``
the position's visits, ``p`` the policy's probability; the seed's
``c = 1.4`` and ``w = 10``; ``mix_score``). An unvisited move scores
infinity, so every move of a position is tried once before any is tried
again, the most probable first (ties at random). Every position of the game
joins the tree and is backed up, as the seed's ``backpropagate`` records
every prefix of the path.

Both pick the move as the seed's ``best_move`` does: the largest
``(wins - losses) / visits`` of the first moves, an untried legal move
scoring 0 (``best_move``); ties go to the more visited move, then the lower
action (the seed: the first in its dict). An untried PASS (Little-Go) is not
a candidate while another move is legal: the seed's game has no pass, and in
Go, where komi puts most positions below 0 for Black under random play, "an
untried move scores 0" would otherwise make Black pass blind whenever its
rollouts look bad (policy MCTS over the random player, which never passes in
rollouts, lost 4 of 10 games as Black to random that way). One legal move is
played without a search, as in the seed. Each move searches a fresh tree (the seed keeps
nothing between moves). The budget is ``sims`` rollouts, ``time_limit``
seconds, or both, as in ``MCTSAgent``, whose tree (``Node``), budget loop,
backup and seeding both reuse: a fixed ``sims`` budget under a seeded
generator is reproducible.

Two places where the seed's code does not do what its text says, and the
text is followed: its ``ucta=uctb={}`` makes both terms one dict, so ``Q`` is
dropped and the exploration term counted twice; and it keeps ``Q`` from the
root player's view at every depth (the opponent's moves then maximise the
root player's result). Here ``Q`` is in the score, from the view of the
player who moves. And where the seed breaks a tie between unvisited moves
(all infinite) by the lowest move number, here the policy breaks it (the
``w * p`` term of the same formula), so below the tree a rollout follows the
policy's most probable move.

Registry specs (the policy spec's own parameters separated by ``;``):
``policy_mcts:policy=ppo:path=model.zip,sims=100`` and
``mix_mcts:policy=ppo:path=model.zip,sims=100,c=1.4,w=10``; ``policy``
defaults to ``ppo`` (the model shipped for the game).
"""

from __future__ import annotations

import math
import random

import numpy as np

from tictacgo.baselines.mcts import MCTSAgent, Node
from tictacgo.baselines.mcts_evaluators import AgentPolicy, PolicyRollout, ValueAndPrior
from tictacgo.baselines.registry import make_agent, register_agent
from tictacgo.games.spec import Game

DEFAULT_SIMS = 100      # the seed's num_rollouts
DEFAULT_C = 1.4         # the seed's "temperature" (UCT's exploration constant)
DEFAULT_W = 10.0        # the seed's weight on the policy network


def uct_score(total: float, visits: int, parent_visits: int, c: float) -> float:
    """UCB1, ``total / visits + c * sqrt(ln parent_visits / visits)``; infinity when unvisited."""
    if visits == 0:
        return math.inf
    return total / visits + c * math.sqrt(math.log(parent_visits) / visits)


def mix_score(total: float, visits: int, parent_visits: int, prior: float, c: float, w: float) -> float:
    """The seed's MIX score: ``uct_score(...) + w * prior``.

    Args:
        total: the move's summed results from the mover's view (wins minus losses).
        visits: the move's visits (0: infinity).
        parent_visits: the position's visits.
        prior: the policy's probability of the move.
        c: the exploration constant.
        w: the weight on the policy.
    """
    return uct_score(total, visits, parent_visits, c) + w * prior


def best_move(root: Node, legal: list[int], pass_action: int | None = None) -> int:
    """The seed's ``best_move``: the legal action with the largest (wins - losses) / visits.

    An action never tried scores 0; ties go to more visits, then the lower
    action. A PASS (``pass_action``) never tried is not a candidate while
    another move is legal (the seed's game has no pass; see the module docstring).
    """
    stats = {ch.action: (ch.q, ch.n) for ch in root.children}
    if pass_action is not None and pass_action not in stats and len(legal) > 1:
        legal = [a for a in legal if a != pass_action]
    return max(legal, key=lambda a: (*stats.get(a, (0.0, 0)), -a))


def _as_policy(policy, game: Game) -> AgentPolicy:
    policy = policy if isinstance(policy, AgentPolicy) else AgentPolicy(policy)
    if policy.game.spec.name != game.spec.name:
        raise ValueError(f"the policy plays {policy.game.spec.name}, not {game.spec.name}")
    return policy


class _SeedSearch(MCTSAgent):
    """What the seed's two searches share: a fresh tree per move and the seed's best move."""

    def _choose(self, root: Node, legal: list[int], state) -> int:
        return best_move(root, legal, self.game.pass_action)


class PolicyMCTSAgent(_SeedSearch):
    """Seed 001's policy MCTS: rollouts drawn from a policy, counted per first move.

    Args:
        game: a rules module.
        policy: an agent with ``probabilities(state)`` (or an ``AgentPolicy``).
        sims: rollouts per move (the seed's 100 when neither budget is given).
        time_limit: seconds per move.
        rng: the agent's generator (seeds each search's ``random.Random``).
    """

    name = "policy_mcts"

    def __init__(self, game: Game, policy, sims: int | None = None, time_limit: float | None = None,
                 rng: np.random.Generator | None = None):
        self.policy = _as_policy(policy, game)
        if sims is None and time_limit is None:
            sims = DEFAULT_SIMS
        super().__init__(game, sims=sims, time_limit=time_limit, reuse=False,
                         evaluator=PolicyRollout(game, self.policy), rng=rng)

    def _simulate(self, root: Node, rnd: random.Random) -> None:
        game = self.game
        action = self.policy(root.state, rnd)       # the first move, from the policy too
        for child in root.children:
            if child.action == action:
                break
        else:
            child = Node(game.play(root.state, action), root, action, game.current_player(root.state))
            root.children.append(child)
        state = child.state
        values = game.returns(state) if game.is_terminal(state) else self.evaluator.evaluate(state, rnd)
        for node in (child, root):
            node.n += 1
            node.w += values[node.mover - 1]


class MixMCTSAgent(_SeedSearch):
    """Seed 001's mix MCTS: every move of every rollout by ``Q + c sqrt(ln N / n) + w p``.

    Args:
        game: a rules module.
        policy: an agent with ``probabilities(state)`` (or an ``AgentPolicy``).
        sims: rollouts per move (the seed's 100 when neither budget is given).
        time_limit: seconds per move.
        c: UCT's exploration constant (the seed's 1.4).
        w: the weight on the policy's probability (the seed's 10).
        rng: the agent's generator (seeds each search's ``random.Random``).
    """

    name = "mix_mcts"

    def __init__(self, game: Game, policy, sims: int | None = None, time_limit: float | None = None,
                 c: float = DEFAULT_C, w: float = DEFAULT_W, rng: np.random.Generator | None = None):
        self.policy = _as_policy(policy, game)
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 <= w < math.inf:
            raise ValueError(f"w must be a finite non-negative number, got {w!r}")
        if sims is None and time_limit is None:
            sims = DEFAULT_SIMS
        super().__init__(game, sims=sims, time_limit=time_limit, c=c, reuse=False,
                         evaluator=ValueAndPrior(game, prior=self.policy.probabilities), rng=rng)
        self.w = float(w)

    def _untried(self, state, rnd: random.Random) -> list[tuple[int, float]]:
        """(action, prior) of every legal action, in the order ``pop()`` must try them.

        Unvisited moves all score infinity; ``w * p`` orders them (the most
        probable is popped first), ties at random. The prior is the
        ``AgentPolicy``'s: every legal action, probabilities summing to 1.
        """
        rand = rnd.random
        if self.w > 0:
            return sorted(self.evaluator.prior(state).items(), key=lambda m: (m[1], rand()))
        return sorted(self.evaluator.prior(state).items(), key=lambda m: rand())

    def _select_child(self, node: Node) -> Node:
        c, w, n = self.c, self.w, node.n
        return max(node.children, key=lambda ch: mix_score(ch.w, ch.n, n, ch.p, c, w))

    def _simulate(self, root: Node, rnd: random.Random) -> None:
        game = self.game
        node = root
        while not game.is_terminal(node.state):
            if node.untried is None:
                node.untried = self._untried(node.state, rnd)
            if node.untried:
                action, p = node.untried.pop()
                child = Node(game.play(node.state, action), node, action, game.current_player(node.state), p)
                node.children.append(child)
                node = child
            else:
                node = self._select_child(node)
        values = game.returns(node.state)
        while node is not None:
            node.n += 1
            node.w += values[node.mover - 1]
            node = node.parent


def _policy_from_spec(game: Game, rng: np.random.Generator, spec) -> AgentPolicy:
    """The ``policy`` parameter: a registry spec whose own parameters are separated by ``;``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"policy must be an agent spec such as 'ppo' or 'ppo:path=model.zip', got {spec!r}")
    inner = spec.replace(";", ",")
    try:
        agent = make_agent(inner, game, rng=rng.spawn(1)[0])
    except ValueError as e:
        raise ValueError(f"policy {inner!r}: {e}") from None
    try:
        return AgentPolicy(agent)
    except ValueError:
        raise ValueError(f"policy {inner!r} gives no move probabilities: use a policy agent such as "
                         "'ppo', 'a2c' or 'random'") from None


def _make_policy_mcts(game, rng, policy: str = "ppo", sims: int | None = None, time: float | None = None):
    return PolicyMCTSAgent(game, _policy_from_spec(game, rng, policy), sims=sims, time_limit=time, rng=rng)


def _make_mix_mcts(game, rng, policy: str = "ppo", sims: int | None = None, time: float | None = None,
                   c: float = DEFAULT_C, w: float = DEFAULT_W):
    return MixMCTSAgent(game, _policy_from_spec(game, rng, policy), sims=sims, time_limit=time, c=c, w=w,
                        rng=rng)


register_agent("policy_mcts", _make_policy_mcts,
               description="seed 001's policy MCTS: rollouts drawn from a policy agent, best by "
               "(wins-losses)/visits (policy=SPEC with ';' between its own parameters, default ppo; "
               "sims=100, time=)")
register_agent("mix_mcts", _make_mix_mcts,
               description="seed 001's mix MCTS: moves by Q + c*sqrt(ln N/n) + w*p(policy) "
               "(policy=SPEC, default ppo; sims=100, time=, c=1.4, w=10)")
