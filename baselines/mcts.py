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

The tree runs on the rules cores' states (``legal_actions``/``play``) with
Python's ``random.Random`` (seeded from the agent's numpy Generator, so a
fixed ``sims`` budget is reproducible). Uniform random rollouts are one call
each to the game's ``random_playout``, seeded from that stream: compiled with
numba (the ``fast`` extra), or its pure-Python twin, with the same moves.

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
from tictacgo.games.base import Game
from tictacgo.validate import check_bool, check_int, check_number

_log, _sqrt = math.log, math.sqrt
#: The most simulations a move may ask for (hours a move at this search's speed; a larger
#: number is a typo, not a budget).
MAX_SIMS = 10_000_000


class Node:
    """One tree node: a state, its visit count and total result for ``mover``.

    Nodes link only down to their children, so a tree holds no reference
    cycle and is freed as soon as the search lets go of its root.
    """

    __slots__ = ("action", "children", "mover", "n", "p", "state", "untried", "w")

    def __init__(self, state, action: int | None, mover: int, p: float = 1.0):
        self.state = state
        self.action = action
        self.mover = mover          # the player who made ``action`` (moved into this node)
        self.children: list[Node] = []
        self.untried: list | None = None  # the selection rule's actions still to add (None: not seen yet)
        self.n = 0
        self.w = 0.0                # sum of results from ``mover``'s view
        self.p = p                  # prior probability (rules that use one)

    @property
    def q(self) -> float:
        """Mean result from the mover's view (0 before any visit)."""
        return self.w / self.n if self.n else 0.0

    def add(self, game: Game, action: int, p: float = 1.0) -> Node:
        """Add and return the child that ``action`` leads to (prior ``p``)."""
        state = self.state
        child = Node(game.play(state, action), action, game.current_player(state), p)
        self.children.append(child)
        return child

    def __repr__(self) -> str:
        return f"Node(action={self.action}, n={self.n}, q={self.q:+.3f}, children={len(self.children)})"


# -- selection rules ----------------------------------------------------------

class SelectionRule:
    """How a simulation goes down the tree: the child of a node to visit next.

    ``select(node, game, rnd)`` returns a child of ``node``, adding it with
    ``node.add`` when the rule expands the node now, or None to stop at
    ``node`` and evaluate it. ``node.untried`` is the rule's own list of
    actions still to add (None until the rule first sees the node). A rule
    draws randomness only from ``rnd``, so a seeded search is reproducible.
    """

    def select(self, node: Node, game: Game, rnd: random.Random) -> Node | None:
        """The child of ``node`` to visit next, or None to evaluate ``node`` itself."""
        raise NotImplementedError


class UCT(SelectionRule):
    """Untried actions first, one new child per visit in a random order; then the best UCB1 score.

    UCB1 is ``Q + c * sqrt(ln N / n)``: ``Q`` the child's mean result for the
    player who moved into it, ``N`` and ``n`` the visits of the node and the child.

    Args:
        c: the exploration constant.
    """

    def __init__(self, c: float = 1.0):
        self.c = check_number("c", c, min=0)

    def select(self, node: Node, game: Game, rnd: random.Random) -> Node:
        untried = node.untried
        if untried is None:
            untried = node.untried = game.legal_actions(node.state)
            rnd.shuffle(untried)
        if untried:
            return node.add(game, untried.pop())
        c = self.c
        log_n = _log(node.n)
        best, best_score = None, -math.inf
        # formulas.ucb1, inlined: this is the search's innermost loop (a call a child costs a third
        # of the speed); tests check that it picks ucb1's best child.
        for ch in node.children:
            n = ch.n
            score = ch.w / n + c * _sqrt(log_n / n)
            if score > best_score:
                best, best_score = ch, score
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

    def select(self, node: Node, game: Game, rnd: random.Random) -> Node | None:
        if node.untried is None:
            self._expand(node, game)
        if not node.n:
            return None  # a first visit: the node's own value comes first
        children = node.children
        visits = np.array([[ch.n for ch in children]])
        totals = np.array([[ch.w for ch in children]])
        priors = np.array([[ch.p for ch in children]])
        scores = puct_scores(totals / np.maximum(visits, 1), visits, np.array([node.n]), None, priors,
                             np.ones_like(visits, bool), self.c, None)
        return children[int(scores.argmax())]

    def _expand(self, node: Node, game: Game) -> None:
        priors = self.prior(node.state)
        actions = game.legal_actions(node.state)
        total = sum(max(float(priors.get(a, 0.0)), 0.0) for a in actions) if actions else 0.0
        for a in actions:
            p = max(float(priors.get(a, 0.0)), 0.0) / total if total > 0 else 1.0 / len(actions)
            node.add(game, a, p)
        node.untried = []


def most_visited(root: Node, legal: list[int], pass_action: int | None) -> int:
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
            after the search (default ``most_visited``).
    """

    name = "mcts"

    def __init__(self, game: Game, sims: int | None = None, time_limit: float | None = None,
                 c: float = 1.0, reuse: bool = True, evaluator: Evaluator | None = None,
                 capture_prob: float = 0.0, pass_prob: float = 0.0,
                 rng: np.random.Generator | None = None, *, selection: SelectionRule | None = None,
                 root_selection: SelectionRule | None = None, max_depth: int | None = None,
                 expand_to_end: bool = False,
                 final_move: Callable[[Node, list[int], int | None], int] = most_visited):
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
        self.root: Node | None = None
        self.last_sims = 0          # simulations run by the last act()
        self.reused_visits = 0      # visits inherited by the last act()'s root

    def reset(self) -> None:
        self.root = None

    def _find_root(self, state) -> Node:
        old = self.root
        if self.reuse and old is not None:
            if old.state == state:
                return old
            for child in old.children:
                for grandchild in child.children:
                    if grandchild.state == state:
                        return grandchild
        return Node(state, None, 3 - self.game.current_player(state))

    def _simulate(self, root: Node, rnd: random.Random) -> None:
        """One simulation: down by the selection rules, a value for the leaf, backed up the path."""
        game = self.game
        is_terminal = game.is_terminal
        max_depth = self.max_depth or math.inf
        stop_at_new = not self.expand_to_end
        select = self.root_selection.select
        node = root
        path = [root]
        state = root.state
        while len(path) <= max_depth and not is_terminal(state):
            child = select(node, game, rnd)
            if child is None:
                break
            node = child
            state = child.state
            path.append(child)
            select = self.selection.select
            if stop_at_new and not child.n:
                break  # a new leaf: the evaluator judges it
        values = game.returns(state) if is_terminal(state) else self.evaluator.evaluate(state, rnd)
        for node in path:
            node.n += 1
            node.w += values[node.mover - 1]

    def search(self, state) -> Node:
        """Run the budget from ``state``; the root node (kept for reuse) comes back."""
        if self.game.is_terminal(state):
            raise ValueError("act() called on a finished game")
        rnd = random.Random(int(self.rng.integers(2**63)))
        root = self._find_root(state)
        self.reused_visits = root.n
        deadline = time.perf_counter() + self.time_limit if self.time_limit else math.inf
        limit = self.sims if self.sims is not None else math.inf
        sims = 0
        clock = time.perf_counter
        while sims < limit and (sims & 7 or clock() < deadline):
            self._simulate(root, rnd)
            sims += 1
        self.last_sims = sims
        self.root = root
        return root

    def action_stats(self, state) -> dict[int, tuple[int, float]]:
        """Search ``state`` and return each root action's (visits, mean result for the mover)."""
        root = self.search(state)
        return {ch.action: (ch.n, ch.q) for ch in root.children}

    def act(self, state) -> int:
        legal = self.game.legal_actions(state) if not self.game.is_terminal(state) else []
        if not legal:
            raise ValueError("act() called on a finished game")
        if len(legal) == 1:
            self.root = None
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
