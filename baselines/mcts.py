"""Monte Carlo tree search for Tic-Tac-Toe and Little-Go: one search, composed of parts.

``MCTSAgent`` grows a search tree from the position to move, one simulation
at a time, and is put together from three parts passed in (after mctx's
``search(..., root_action_selection_fn, interior_action_selection_fn)``):

* a **selection rule** (``SelectionRule``): which child a node goes down to,
  and when a node's children come into being. ``UCT``: untried actions
  first, one new child per visit in a random order, then the largest UCB1
  score ``Q + c * sqrt(ln N / n)`` (``Q``: the child's mean result from the
  view of the player who moved into it, in [-1, 1]; ``N``, ``n``: visits of
  the parent and the child). ``PUCT``: all children at once with their
  priors, then ``Q + c * P * sqrt(N) / (1 + n)``. The root may have a rule of
  its own (``root_selection``: where a Gumbel root would go).
* an **evaluator** (``tictacgo.baselines.mcts_evaluators``): the value of
  the leaf a simulation stops at: random or capture-first rollouts, rollouts
  from a policy, or a value function.
* a **final-move rule** (``final_move(root, legal, pass_action) -> action``):
  the move to play once the budget is spent; by default ``most_visited``.

One simulation walks down from the root by the selection rule until the
game ends, ``max_depth`` steps are taken, the rule stops at a node, or it
reaches a node never visited (a leaf; with ``expand_to_end`` the walk goes
on, every position on the way joining the tree, to the end of the game). The
leaf's value (the game's result at the end, else the evaluator's) is added
to every node on the path, each from the view of the player who moved into
it. The policy-guided searches of ``tictacgo.baselines.policy_mcts`` are
this search with other parts, not a different search.

Without a rule given, an evaluator with a prior (``uses_prior``) gets PUCT
over that prior and any other gets UCT: with the default random rollouts
(PASS only when no placement is legal, or with probability ``pass_prob``)
that is plain UCT. PASS is an ordinary action inside the tree (Go), so the
search can find the pass that ends a won game. The budget is ``sims``
simulations, ``time_limit`` seconds per move, or both (whichever ends
first). With ``reuse`` (default on), the subtree of the position reached
after the agent's move and the opponent's reply is kept for the next move
when that position is found among the root's grandchildren.

The tree is the array tree of the ``az`` agent and self-play
(``tictacgo.baselines.search.tree``: mctx's layout) at one game,
``tictacgo.baselines.search.game_tree.GameTree``, with each node's
rules-core state kept beside the arrays (the evaluators and rules take
states; ``legal_actions``/``play`` make them). Plain UCT (``UCT`` at every
step) runs a simulation's walk down, its new child's links and its backup as
one call of ``rollout_kernels.uct_step`` (numba with the ``fast`` extra, the
same Python over the arrays without it); any other rule steps down node by
node in Python, on the same arrays, and builds the same tree where it makes
the same choices. Randomness comes from Python's ``random.Random``, seeded
from the agent's numpy Generator, so a fixed ``sims`` budget is
reproducible. Uniform random rollouts are one call each to the game's
``random_playout``, seeded from that stream: compiled with numba, or its
pure-Python twin, with the same moves.

Registry spec: ``"mcts:sims=400,c=1.0,time=1.0,rollout=capture"`` (1000
simulations when neither ``sims`` nor ``time`` is given). ``rollout`` is
``random`` or ``capture``: with probability ``capture_prob`` (default 1.0)
the rollout mover captures an opponent group in atari when one exists
(Tic-Tac-Toe: takes a winning move). The registry defaults are the tuned
ones: ``capture`` for Little-Go (it models the course's capture-minded
opponents far better: 8/10 against ``aggressive`` as Black at 0.2 s per move
where uniform rollouts won 1/10), ``random`` for Tic-Tac-Toe, ``c=1.0``.
The class itself defaults to plain UCT (``capture_prob=0``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.mcts_evaluators import CaptureRollout, Evaluator, default_evaluator
from tictacgo.baselines.registry import register_agent
from tictacgo.baselines.search.formulas import puct_scores
from tictacgo.baselines.search.game_tree import GameTree, SearchNode
from tictacgo.baselines.search.rollout_kernels import EVALUATE, UNSEEN
from tictacgo.games.base import Game
from tictacgo.games.batched_common import resolve_backend
from tictacgo.validate import check_bool, check_int, check_number

_log, _sqrt = math.log, math.sqrt
#: The most simulations a move may ask for (hours a move at this search's speed; a larger
#: number is a typo, not a budget).
MAX_SIMS = 10_000_000
#: ``max_depth`` when none is given: deeper than any game goes.
NO_DEPTH_LIMIT = 2**62
#: The most nodes a new tree allocates at first (a budget's simulations + 1 up to this; it grows after).
INITIAL_NODES_CAP = 4096


# -- selection rules ----------------------------------------------------------

class SelectionRule:
    """How a simulation goes down the tree: the child of a node to visit next.

    ``choose(tree, node, rnd)`` returns the number of a child of ``node`` in
    the ``GameTree`` ``tree``, adding it (``tree.add``) when the rule expands
    the node now, or -1 to stop at ``node`` and evaluate it. A rule of one's
    own may instead write ``select(node, game, rnd)`` over a ``SearchNode``
    view (``node.state``, ``node.children``, ``node.n``, ``node.w``, ...),
    returning a child (``node.add(game, action, p)`` for a new one) or None;
    the default ``choose`` calls it. A rule draws randomness only from
    ``rnd``, so a seeded search is reproducible.
    """

    def choose(self, tree: GameTree, node: int, rnd: random.Random) -> int:
        """The child of ``node`` to visit next, or -1 to evaluate ``node`` itself."""
        if type(self).select is SelectionRule.select:
            raise NotImplementedError(f"{type(self).__name__} is a SelectionRule without a rule: define "
                                      "choose(tree, node, rnd) or select(node, game, rnd)")
        child = self.select(tree.view(node), tree.game, rnd)
        return -1 if child is None else child.index

    def select(self, node: SearchNode, game: Game, rnd: random.Random) -> SearchNode | None:
        """The child of ``node`` to visit next, or None to evaluate ``node`` itself."""
        child = self.choose(node.tree, node.index, rnd)
        return None if child < 0 else node.tree.view(child)


class UCT(SelectionRule):
    """Untried actions first, one new child per visit in a random order; then the best UCB1 score.

    UCB1 is ``Q + c * sqrt(ln N / n)``: ``Q`` the child's mean result for the
    player who moved into it, ``N`` and ``n`` the visits of the node and the
    child. A node's untried actions are its legal actions shuffled by ``rnd``
    when the rule first sees it, added from the end of that list; among equal
    scores the child added first wins.

    Args:
        c: the exploration constant.
    """

    def __init__(self, c: float = 1.0):
        self.c = check_number("c", c, min=0)

    def choose(self, tree: GameTree, node: int, rnd: random.Random) -> int:
        untried = int(tree.untried[node])
        if untried < 0:
            actions = tree.game.legal_actions(tree.states[node])
            rnd.shuffle(actions)
            tree.plan(node, actions[::-1])
            untried = len(actions)
        if untried:
            return tree.add(node, tree.next_untried(node))
        # formulas.ucb1, inlined as rollout_kernels.uct_descend has it (tests check both pick ucb1's best)
        c = self.c
        log_n = _log(int(tree.visits[node]))
        kids = tree.children_of(node)
        best, best_score = -1, -math.inf
        for child, n, w in zip(kids, tree.visits[kids].tolist(), tree.total[kids].tolist(), strict=True):
            score = w / n + c * _sqrt(log_n / n)
            if score > best_score:
                best, best_score = child, score
        return best


class PUCT(SelectionRule):
    """AlphaZero's rule: every child at once with its prior, then the best ``Q + c * P * sqrt(N) / (1 + n)``.

    A node is evaluated on its first visit, before any child is chosen;
    unvisited children score ``Q = 0`` (``formulas.puct_scores`` with raw Q
    and a fixed ``c``). Priors are clipped at 0 and normalised over the legal
    actions (uniform when they carry no mass).

    Args:
        prior: ``f(state) -> {action: weight}`` (an evaluator's ``prior``).
        c: the exploration constant.
    """

    def __init__(self, prior: Callable[[object], dict[int, float]], c: float = 1.0):
        if not callable(prior):
            raise TypeError(f"prior must be callable f(state) -> {{action: p}}, got {prior!r}")
        self.prior = prior
        self.c = check_number("c", c, min=0)

    def choose(self, tree: GameTree, node: int, rnd: random.Random) -> int:
        if tree.untried[node] < 0:
            self._expand(tree, node)
        node_visits = int(tree.visits[node])
        if not node_visits:
            return -1  # a first visit: the node's own value comes first
        kids = tree.children_of(node)
        visits = tree.visits[kids][None]
        totals = tree.total[kids][None]
        priors = tree.prior[node, tree.action_from_parent[kids]][None]
        scores = puct_scores(totals / np.maximum(visits, 1), visits, np.array([node_visits]), None, priors,
                             np.ones_like(visits, bool), self.c, None)
        return kids[int(scores.argmax())]

    def _expand(self, tree: GameTree, node: int) -> None:
        state = tree.states[node]
        priors = self.prior(state)
        actions = tree.game.legal_actions(state)
        total = sum(max(float(priors.get(a, 0.0)), 0.0) for a in actions) if actions else 0.0
        ps = [max(float(priors.get(a, 0.0)), 0.0) / total if total > 0 else 1.0 / len(actions)
              for a in actions]
        tree.plan(node, actions, ps)
        for a in actions:
            tree.add(node, a)


def most_visited(root: SearchNode, legal: list[int], pass_action: int | None) -> int:
    """The usual final move: the most visited root action, ties to the better mean."""
    return max(root.children, key=lambda ch: (ch.n, ch.q)).action


# -- the search ---------------------------------------------------------------

class MCTSAgent(Agent):
    """Monte Carlo tree search on a rules core, composed of a selection rule, an evaluator and a final move.

    Args:
        game: a rules module from ``tictacgo.games``.
        sims: simulations per move (None: limited by ``time_limit`` only;
            1000 when neither is given).
        time_limit: seconds per move (None: limited by ``sims`` only).
        c: exploration constant of the default rule (UCT, or PUCT with a prior).
        reuse: keep the subtree of the reached position for the next move.
        evaluator: where leaf values come from (an ``Evaluator`` of
            ``tictacgo.baselines.mcts_evaluators``); None: random rollouts
            with ``capture_prob`` and ``pass_prob`` (plain UCT by default).
        capture_prob: for the default evaluator: chance per rollout move of
            taking a capture (Go) or a win (Tic-Tac-Toe); 0 is plain UCT.
        pass_prob: for the default evaluator: chance of a PASS per rollout move.
        rng: the agent's generator (seeds the search's ``random.Random``).
        selection: the ``SelectionRule`` below the root (None: ``PUCT`` over
            the evaluator's prior if it has one, else ``UCT``; both with ``c``).
        root_selection: the rule at the root (None: ``selection``).
        max_depth: the most steps a simulation goes down (None: no limit).
        expand_to_end: go on past a new node to the end of the game, every
            position on the way joining the tree, instead of evaluating it.
        final_move: ``f(root, legal, pass_action) -> action``, the move played
            after the search (default ``most_visited``); ``root`` is a ``SearchNode``.
        backend: where the tree's kernels run (``GameTree``): ``"auto"``,
            ``"numba"``, ``"numpy"``, or None for ``TICTACGO_BATCHED_BACKEND``;
            both build the same trees.
    """

    name = "mcts"

    def __init__(self, game: Game, sims: int | None = None, time_limit: float | None = None,
                 c: float = 1.0, reuse: bool = True, evaluator: Evaluator | None = None,
                 capture_prob: float = 0.0, pass_prob: float = 0.0,
                 rng: np.random.Generator | None = None, *, selection: SelectionRule | None = None,
                 root_selection: SelectionRule | None = None, max_depth: int | None = None,
                 expand_to_end: bool = False,
                 final_move: Callable[[SearchNode, list[int], int | None], int] = most_visited,
                 backend: str | None = None):
        super().__init__(game, rng)
        if sims is None and time_limit is None:
            sims = 1000
        sims = check_int("sims", sims, min=1, max=MAX_SIMS, allow_none=True)
        time_limit = check_number("time_limit", time_limit, positive=True, allow_none=True,
                                  expected="a finite positive number of seconds")
        check_bool("reuse", reuse)
        c = check_number("c", c, min=0)
        if evaluator is None:
            evaluator = CaptureRollout(game, capture_prob=capture_prob, pass_prob=pass_prob)
        if not isinstance(evaluator, Evaluator):
            raise TypeError(f"evaluator must be an Evaluator, got {evaluator!r}")
        if selection is None:
            selection = PUCT(evaluator.prior, c) if evaluator.uses_prior else UCT(c)
        for key, rule in (("selection", selection), ("root_selection", root_selection)):
            if rule is not None and not isinstance(rule, SelectionRule):
                raise TypeError(f"{key} must be a SelectionRule, got {rule!r}")
        max_depth = check_int("max_depth", max_depth, min=1, allow_none=True)
        check_bool("expand_to_end", expand_to_end)
        if not callable(final_move):
            raise TypeError(f"final_move must be callable f(root, legal, pass_action) -> action, "
                            f"got {final_move!r}")
        self.sims = None if sims is None else int(sims)
        self.time_limit = time_limit
        self.c = c
        self.reuse = reuse
        self.evaluator = evaluator
        self.selection = selection
        self.root_selection = root_selection if root_selection is not None else selection
        self.max_depth = max_depth
        self.expand_to_end = expand_to_end
        self.final_move = final_move
        self.backend = resolve_backend(backend)
        self.tree: GameTree | None = None
        self.root: SearchNode | None = None
        self.last_sims = 0          # simulations run by the last act()
        self.reused_visits = 0      # visits inherited by the last act()'s root

    def reset(self) -> None:
        self.tree = self.root = None

    def _find_root(self, state) -> GameTree:
        """The kept tree whose root is ``state`` (the old root, or a grandchild's subtree), or a new one."""
        old = self.tree
        if self.reuse and old is not None:
            node = old.find(state)
            if node == 0:
                return old
            if node > 0:
                return old.subtree(node)
        initial = min(self.sims + 1, INITIAL_NODES_CAP) if self.sims else INITIAL_NODES_CAP
        return GameTree(self.game, state, self.backend, initial_nodes=initial)

    def _plain_uct(self) -> bool:
        """Whether every step is plain UCT's, so that ``_run_uct`` runs the search."""
        rule = self.selection
        return type(rule) is UCT and self.root_selection is rule and not self.expand_to_end

    def _simulate(self, tree: GameTree, rnd: random.Random) -> None:
        """One simulation: down by the selection rules, a value for the leaf, backed up the path."""
        game = self.game
        max_depth = self.max_depth or NO_DEPTH_LIMIT
        stop_at_new = not self.expand_to_end
        choose = self.root_selection.choose
        node = depth = 0
        while depth < max_depth and not tree.terminal[node]:
            child = choose(tree, node, rnd)
            if child < 0:
                break
            node = child
            depth += 1
            choose = self.selection.choose
            if stop_at_new and not tree.visits[child]:
                break  # a new leaf: the evaluator judges it
        state = tree.states[node]
        values = game.returns(state) if game.is_terminal(state) else self.evaluator.evaluate(state, rnd)
        tree.backup(node, values)

    def _run_uct(self, tree: GameTree, rnd: random.Random, limit: float, deadline: float) -> int:
        """Plain UCT's simulations (``_simulate`` with ``UCT`` at every step, the same tree): the walk
        down and the backup run as one kernel call a simulation (``rollout_kernels.uct_step``).

        Returns:
            The simulations run.
        """
        game, k, t = self.game, tree.kernels, tree
        c = self.selection.c
        max_depth = self.max_depth or NO_DEPTH_LIMIT
        evaluate, returns, is_terminal = self.evaluator.evaluate, game.returns, game.is_terminal
        legal_actions, shuffle, states = game.legal_actions, rnd.shuffle, tree.states
        clock = time.perf_counter
        if not (limit > 0 and clock() < deadline):
            return 0
        A = tree.tree.num_actions
        node, _, nxt = k.uct_descend(c, max_depth, A, *t.flat)
        sims = 0
        while True:
            if nxt == EVALUATE:
                new = action = mover = -1
                leaf, state = node, states[node]
                over = is_terminal(state)
            else:
                if nxt == UNSEEN:
                    actions = legal_actions(states[node])
                    shuffle(actions)
                    tree.plan(node, actions[::-1])
                    nxt = actions[-1]
                action = nxt
                new, mover, over = tree.new_node(node, action)
                leaf, state = new, states[new]
            values = returns(state) if over else evaluate(state, rnd)
            sims += 1
            more = sims < limit and bool(sims & 7 or clock() < deadline)
            first, second = float(values[0]), float(values[1])
            node, _, nxt = k.uct_step(new, node, action, mover, over, leaf, first, second, c, max_depth, more,
                                      A, *t.flat)
            if not more:
                return sims

    def search(self, state) -> SearchNode:
        """Run the budget from ``state``; the root node (kept for reuse) comes back."""
        if self.game.is_terminal(state):
            raise ValueError("act() called on a finished game")
        rnd = random.Random(int(self.rng.integers(2**63)))
        tree = self._find_root(state)
        self.reused_visits = int(tree.visits[0])
        deadline = time.perf_counter() + self.time_limit if self.time_limit else math.inf
        limit = self.sims if self.sims is not None else math.inf
        if self._plain_uct():
            sims = self._run_uct(tree, rnd, limit, deadline)
        else:
            sims = 0
            clock = time.perf_counter
            while sims < limit and (sims & 7 or clock() < deadline):
                self._simulate(tree, rnd)
                sims += 1
        self.last_sims = sims
        self.tree = tree
        self.root = tree.view(0)
        return self.root

    def action_stats(self, state) -> dict[int, tuple[int, float]]:
        """Search ``state`` and return each root action's (visits, mean result for the mover)."""
        root = self.search(state)
        return {ch.action: (ch.n, ch.q) for ch in root.children}

    def act(self, state) -> int:
        legal = self.game.legal_actions(state) if not self.game.is_terminal(state) else []
        if not legal:
            raise ValueError("act() called on a finished game")
        if len(legal) == 1:
            self.tree = self.root = None
            return legal[0]
        return self.final_move(self.search(state), legal, self.game.pass_action)


def _make(game, rng, sims: int | None = None, time: float | None = None, c: float = 1.0,
          reuse: bool = True, rollout: str | None = None, capture_prob: float = 1.0,
          pass_prob: float = 0.0):
    # Tuned defaults: in Go, rollouts that always take a capture when one is on
    # offer (capture_prob=1) model the course's capture-minded opponents far
    # better than uniform ones; Tic-Tac-Toe needs nothing but random rollouts.
    # Checked whatever the rollout, so that a typo never passes silently.
    CaptureRollout(game, capture_prob=capture_prob, pass_prob=pass_prob)
    evaluator = default_evaluator(game, rollout, capture_prob=capture_prob, pass_prob=pass_prob)
    return MCTSAgent(game, sims=sims, time_limit=time, c=c, reuse=reuse, evaluator=evaluator, rng=rng)


register_agent("mcts", _make,
               description="UCT Monte Carlo tree search (sims=, time=, c=, rollout=random|capture)")
