"""Policy-guided searches over any policy agent: policy MCTS and mix MCTS.

Both are the one search of ``tictacgo.baselines.mcts`` (``MCTSAgent``) with
other parts: a selection rule, an evaluator and a final move from this
module. They follow the two searches of the "AlphaGo in Tic Tac Toe"
project. Both take a policy: any agent that gives move probabilities
(``probabilities(state) -> {action: p}``: a trained ``PolicyAgent`` such as
``ppo``/``a2c``, or the uniform ``random`` player), wrapped as an
``AgentPolicy`` (``tictacgo.baselines.mcts_evaluators``) that renormalises it
over the legal moves. An agent without probabilities is a clear ValueError.

**Policy MCTS** (``PolicyMCTSAgent``): the search with ``PolicySample`` as
its rule, ``max_depth=1`` and ``PolicyRollout`` as its evaluator. Each of
``sims`` simulations (default 100) draws a first move from the policy
(stochastic, renormalised over the legal moves) and plays the game to its
end from there by the policy; the result is counted for that first move.

**Mix MCTS** (``MixMCTSAgent``): the search with ``PolicyBonus`` as its rule
and ``expand_to_end``. Each simulation plays one game to its end choosing
every move, in the tree and below it, by

    MIX = Q + c * sqrt(ln N / n) + w * p

(``Q``: the move's mean result from the view of the player who moves, ``n``
its visits, ``N`` the position's visits, ``p`` the policy's probability;
``c = 1.4`` and ``w = 10`` by default; ``mix_score``). An unvisited move
scores infinity, so every move of a position is tried once before any is
tried again, the most probable first (ties at random): below the tree a
simulation follows the policy's most probable move. Every position of the
game joins the tree and is backed up.

Both play ``best_move``: the largest ``(wins - losses) / visits`` of the
first moves, an untried legal move scoring 0; ties go to the more visited
move, then the lower action. An untried PASS (Little-Go) is not a candidate
while another move is legal: komi puts most positions below 0 for Black
under random play, and "an untried move scores 0" would otherwise make Black
pass blind whenever its rollouts look bad (policy MCTS over the random
player, which never passes in rollouts, lost 4 of 10 games as Black to
random that way). One legal move is played without a search. Each move
searches a fresh tree. The budget is ``sims`` simulations, ``time_limit``
seconds, or both, as in ``MCTSAgent``; a fixed ``sims`` budget under a
seeded generator is reproducible.

Registry specs (the policy spec's own parameters separated by ``;``):
``policy_mcts:policy=ppo:path=model.zip,sims=100`` and
``mix_mcts:policy=ppo:path=model.zip,sims=100,c=1.4,w=10``; ``policy``
defaults to ``ppo`` (the model shipped for the game).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from tictacgo.baselines.agent_spec import AgentSpec
from tictacgo.baselines.mcts import MCTSAgent, SelectionRule
from tictacgo.baselines.mcts_evaluators import AgentPolicy, PolicyRollout
from tictacgo.baselines.registry import make_agent, register_agent
from tictacgo.baselines.search.formulas import policy_bonus, ucb1
from tictacgo.baselines.search.game_tree import GameTree, SearchNode
from tictacgo.games.base import Game
from tictacgo.validate import check_number

DEFAULT_SIMS = 100      # simulations per move
DEFAULT_C = 1.4         # UCT's exploration constant in the MIX score
DEFAULT_W = 10.0        # the weight on the policy in the MIX score


#: UCB1 (``formulas.ucb1``) and the MIX score (``formulas.policy_bonus``: ``ucb1 + w * prior``).
uct_score = ucb1
mix_score = policy_bonus


def best_move(root: SearchNode, legal: list[int], pass_action: int | None = None) -> int:
    """The legal action with the largest (wins - losses) / visits (a final-move rule).

    An action never tried scores 0; ties go to more visits, then the lower
    action. A PASS (``pass_action``) never tried is not a candidate while
    another move is legal (see the module docstring).
    """
    stats = {ch.action: (ch.q, ch.n) for ch in root.children}
    if pass_action is not None and pass_action not in stats and len(legal) > 1:
        legal = [a for a in legal if a != pass_action]
    return max(legal, key=lambda a: (*stats.get(a, (0.0, 0)), -a))


class PolicySample(SelectionRule):
    """The child of a move drawn from a policy, added to the tree when new (policy MCTS's rule).

    Args:
        policy: ``f(state, rnd) -> action`` (e.g. an ``AgentPolicy``).
    """

    def __init__(self, policy: Callable[[object, random.Random], int]):
        if not callable(policy):
            raise TypeError(f"policy must be callable f(state, rnd) -> action, got {policy!r}")
        self.policy = policy

    def choose(self, tree: GameTree, node: int, rnd: random.Random) -> int:
        action = self.policy(tree.states[node], rnd)
        child = tree.child(node, action)
        return child if child >= 0 else tree.add(node, action)


class PolicyBonus(SelectionRule):
    """Mix MCTS's rule: untried moves first, the most probable first; then the best ``mix_score``.

    Ties between untried moves are broken at random (all of them at random
    when ``w`` is 0, since the policy then has no say).

    Args:
        prior: ``f(state) -> {action: p}`` over every legal action (an
            ``AgentPolicy``'s ``probabilities``).
        c: the exploration constant.
        w: the weight on the prior.
    """

    def __init__(self, prior: Callable[[object], dict[int, float]], c: float = DEFAULT_C,
                 w: float = DEFAULT_W):
        if not callable(prior):
            raise TypeError(f"prior must be callable f(state) -> {{action: p}}, got {prior!r}")
        self.prior = prior
        self.c = check_number("c", c, min=0)
        self.w = check_number("w", w, min=0)

    def choose(self, tree: GameTree, node: int, rnd: random.Random) -> int:
        untried = int(tree.untried[node])
        if untried < 0:
            moves = self._untried(tree.states[node], rnd)[::-1]  # the order they are added in
            tree.plan(node, [a for a, _ in moves], [p for _, p in moves])
            untried = len(moves)
        if untried:
            return tree.add(node, tree.next_untried(node))
        c, w, n = self.c, self.w, int(tree.visits[node])
        kids = tree.children_of(node)
        totals, visits = tree.total[kids].tolist(), tree.visits[kids].tolist()
        priors = tree.prior[node, tree.action_from_parent[kids]].tolist()
        best = max(range(len(kids)), key=lambda i: mix_score(totals[i], visits[i], n, priors[i], c, w))
        return kids[best]

    def _untried(self, state, rnd: random.Random) -> list[tuple[int, float]]:
        """(action, prior) of every legal action, sorted so that the last is tried first."""
        rand = rnd.random
        if self.w > 0:
            return sorted(self.prior(state).items(), key=lambda m: (m[1], rand()))
        return sorted(self.prior(state).items(), key=lambda m: rand())


def _as_policy(policy, game: Game) -> AgentPolicy:
    policy = policy if isinstance(policy, AgentPolicy) else AgentPolicy(policy)
    if policy.game.spec.name != game.spec.name:
        raise ValueError(f"the policy plays {policy.game.spec.name}, not {game.spec.name}")
    return policy


class _PolicySearch(MCTSAgent):
    """The search over a policy agent: seeding it seeds the policy agent too, as the registry builds it."""

    policy: AgentPolicy

    def seed(self, rng: np.random.Generator) -> None:
        super().seed(rng)
        seed_policy = getattr(self.policy.agent, "seed", None)
        if callable(seed_policy):
            seed_policy(rng.spawn(1)[0])  # what _policy_from_spec gives a new agent


class PolicyMCTSAgent(_PolicySearch):
    """Policy MCTS: the search with first moves and rollouts drawn from a policy, best by ``best_move``.

    Args:
        game: a rules module.
        policy: an agent with ``probabilities(state)`` (or an ``AgentPolicy``).
        sims: simulations per move (100 when neither budget is given).
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
                         evaluator=PolicyRollout(game, self.policy), rng=rng,
                         selection=PolicySample(self.policy), max_depth=1, final_move=best_move)


class MixMCTSAgent(_PolicySearch):
    """Mix MCTS: the search with every move of every simulation by ``Q + c sqrt(ln N / n) + w p``.

    Args:
        game: a rules module.
        policy: an agent with ``probabilities(state)`` (or an ``AgentPolicy``).
        sims: simulations per move (100 when neither budget is given).
        time_limit: seconds per move.
        c: UCT's exploration constant.
        w: the weight on the policy's probability.
        rng: the agent's generator (seeds each search's ``random.Random``).
    """

    name = "mix_mcts"

    def __init__(self, game: Game, policy, sims: int | None = None, time_limit: float | None = None,
                 c: float = DEFAULT_C, w: float = DEFAULT_W, rng: np.random.Generator | None = None):
        self.policy = _as_policy(policy, game)
        rule = PolicyBonus(self.policy.probabilities, c=c, w=w)
        if sims is None and time_limit is None:
            sims = DEFAULT_SIMS
        super().__init__(game, sims=sims, time_limit=time_limit, c=c, reuse=False, rng=rng,
                         selection=rule, expand_to_end=True, final_move=best_move)
        self.w = rule.w


def _policy_from_spec(game: Game, rng: np.random.Generator, spec: AgentSpec | str) -> AgentPolicy:
    """The ``policy`` parameter: the policy agent's spec (in text, its own parameters separated by ``;``)."""
    try:
        agent = make_agent(spec, game, rng=rng.spawn(1)[0])
    except ValueError as e:
        raise ValueError(f"policy {str(spec)!r}: {e}") from None
    try:
        return AgentPolicy(agent)
    except ValueError:
        raise ValueError(f"policy {str(spec)!r} gives no move probabilities: use a policy agent such as "
                         "'ppo', 'a2c' or 'random'") from None


_PPO = AgentSpec("ppo")


def _make_policy_mcts(game, rng, policy: AgentSpec = _PPO, sims: int | None = None,
                      time: float | None = None):
    return PolicyMCTSAgent(game, _policy_from_spec(game, rng, policy), sims=sims, time_limit=time, rng=rng)


def _make_mix_mcts(game, rng, policy: AgentSpec = _PPO, sims: int | None = None, time: float | None = None,
                   c: float = DEFAULT_C, w: float = DEFAULT_W):
    return MixMCTSAgent(game, _policy_from_spec(game, rng, policy), sims=sims, time_limit=time, c=c, w=w,
                        rng=rng)


register_agent("policy_mcts", _make_policy_mcts,
               description="policy MCTS: rollouts drawn from a policy agent, best by "
               "(wins-losses)/visits (policy=SPEC with ';' between its own parameters, default ppo; "
               "sims=100, time=)")
register_agent("mix_mcts", _make_mix_mcts,
               description="mix MCTS: moves by Q + c*sqrt(ln N/n) + w*p(policy) "
               "(policy=SPEC, default ppo; sims=100, time=, c=1.4, w=10)")
