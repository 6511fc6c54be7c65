"""Monte Carlo tree search (UCT) for Tic-Tac-Toe and Little-Go.

``MCTSAgent(game, sims=..., time_limit=..., c=...)`` grows a search tree
from the position to move, one simulation at a time:

1. Selection: from the root, while a node has no untried action left, go to
   the child with the largest UCB1 score ``Q + c * sqrt(ln N / n)`` (``Q``:
   the child's mean result from the view of the player who moved into it,
   in [-1, 1]; ``N``, ``n``: visits of the parent and the child).
2. Expansion: one untried action of that node (in a random order) becomes a
   new child.
3. Rollout: from the new child, the game is played to its end by the
   rollout policy (default: a uniformly random legal placement; in Go a PASS
   only when no placement is legal, or with probability ``pass_prob``,
   0 by default, since random passes mostly end games early by accident).
4. Backpropagation: the result (+1 win, 0 draw, -1 loss) is added to every
   node on the path, each from the view of the player who moved into it.

PASS is an ordinary action inside the tree (Go), so the search can find the
pass that ends a won game. The budget is ``sims`` simulations, ``time_limit``
seconds per move, or both (whichever ends first). The move played is the
most visited root child (ties: the better mean). With ``reuse`` (default
on), the subtree of the position reached after the agent's move and the
opponent's reply is kept for the next move when that position is found
among the root's grandchildren.

The inner loop runs on the rules cores' bitboards (``legal_bits``/``play``)
with Python's ``random.Random`` (seeded from the agent's numpy Generator,
so a fixed ``sims`` budget is reproducible); no numpy in the hot path.

Leaf values and priors come from an evaluator object
(``tictacgo.baselines.mcts_evaluators``, after OpenSpiel's ``mcts.Evaluator``):
random rollouts (``RandomRollout``), capture-first rollouts
(``CaptureRollout``), both on Little-Go's fast playout engine
(``tictacgo.games.littlego_fast``), rollouts from a policy
(``PolicyRollout``), or a value function with an optional prior
(``ValueAndPrior``). An evaluator with a prior (``uses_prior``) makes a node
expand all its children at once and selection use PUCT,
``Q + c * P * sqrt(N) / (1 + n)`` (unvisited children score ``Q = 0``). A
policy network or a policy-value network plugs in as an evaluator; the
search itself does not change.

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

import numpy as np

from tictacgo.baselines.base import Agent, check_seconds
from tictacgo.baselines.mcts_evaluators import CaptureRollout, Evaluator, default_evaluator
from tictacgo.baselines.registry import register_agent
from tictacgo.games.spec import Game


class Node:
    """One tree node: a state, its visit count and total result for ``mover``."""

    __slots__ = ("action", "children", "mover", "n", "p", "parent", "state", "untried", "w")

    def __init__(self, state, parent: Node | None, action: int | None, mover: int, p: float = 1.0):
        self.state = state
        self.parent = parent
        self.action = action
        self.mover = mover          # the player who made ``action`` (moved into this node)
        self.children: list[Node] = []
        self.untried: list[int] | None = None  # filled on first expansion
        self.n = 0
        self.w = 0.0                # sum of results from ``mover``'s view
        self.p = p                  # prior probability (PUCT only)

    @property
    def q(self) -> float:
        """Mean result from the mover's view (0 before any visit)."""
        return self.w / self.n if self.n else 0.0

    def __repr__(self) -> str:
        return f"Node(action={self.action}, n={self.n}, q={self.q:+.3f}, children={len(self.children)})"


class MCTSAgent(Agent):
    """UCT Monte Carlo tree search on a rules core.

    Args:
        game: a rules module from ``tictacgo.games``.
        sims: simulations per move (None: limited by ``time_limit`` only;
            1000 when neither is given).
        time_limit: seconds per move (None: limited by ``sims`` only).
        c: exploration constant of UCB1 (or PUCT with a prior).
        reuse: keep the subtree of the reached position for the next move.
        evaluator: where leaf values and priors come from (an ``Evaluator``
            of ``tictacgo.baselines.mcts_evaluators``); None: random rollouts
            with ``capture_prob`` and ``pass_prob`` (plain UCT by default).
        capture_prob: for the default evaluator: chance per rollout move of
            taking a capture (Go) or a win (Tic-Tac-Toe); 0 is plain UCT.
        pass_prob: for the default evaluator: chance of a PASS per rollout move.
        rng: the agent's generator (seeds the search's ``random.Random``).
    """

    name = "mcts"

    def __init__(self, game: Game, sims: int | None = None, time_limit: float | None = None,
                 c: float = 1.0, reuse: bool = True, evaluator: Evaluator | None = None,
                 capture_prob: float = 0.0, pass_prob: float = 0.0,
                 rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        if sims is None and time_limit is None:
            sims = 1000
        if sims is not None and (isinstance(sims, bool) or not isinstance(sims, (int, np.integer))
                                 or sims < 1):
            raise ValueError(f"sims must be a positive int or None, got {sims!r}")
        time_limit = check_seconds(time_limit)
        if not isinstance(reuse, bool):
            raise ValueError(f"reuse must be true or false, got {reuse!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) \
                or not math.isfinite(c) or c < 0:
            raise ValueError(f"c must be a finite non-negative number, got {c!r}")
        if evaluator is None:
            evaluator = CaptureRollout(game, capture_prob=capture_prob, pass_prob=pass_prob)
        if not isinstance(evaluator, Evaluator):
            raise TypeError(f"evaluator must be an Evaluator, got {evaluator!r}")
        self.sims = None if sims is None else int(sims)
        self.time_limit = time_limit
        self.c = float(c)
        self.reuse = bool(reuse)
        self.evaluator = evaluator
        self.root: Node | None = None
        self.last_sims = 0          # simulations run by the last act()
        self.reused_visits = 0      # visits inherited by the last act()'s root

    def reset(self) -> None:
        self.root = None

    # -- tree -------------------------------------------------------------

    def _find_root(self, state) -> Node:
        old = self.root
        if self.reuse and old is not None:
            if old.state == state:
                return old
            for child in old.children:
                for grandchild in child.children:
                    if grandchild.state == state:
                        grandchild.parent = None
                        return grandchild
        return Node(state, None, None, 3 - self.game.current_player(state))

    def _expand_all(self, node: Node) -> None:
        """PUCT expansion: every legal action becomes a child with its prior."""
        game = self.game
        state = node.state
        priors = self.evaluator.prior(state)
        mover = game.current_player(state)
        actions = game.legal_actions(state)
        total = sum(max(float(priors.get(a, 0.0)), 0.0) for a in actions) if actions else 0.0
        for a in actions:
            p = max(float(priors.get(a, 0.0)), 0.0) / total if total > 0 else 1.0 / len(actions)
            node.children.append(Node(game.play(state, a), node, a, mover, p))
        node.untried = []

    def _select_child(self, node: Node) -> Node:
        c = self.c
        if self.evaluator.uses_prior:
            sq = math.sqrt(node.n)
            return max(node.children,
                       key=lambda ch: (ch.w / ch.n if ch.n else 0.0) + c * ch.p * sq / (1 + ch.n))
        log_n = math.log(node.n)
        best, best_score = None, -math.inf
        for ch in node.children:
            score = ch.w / ch.n + c * math.sqrt(log_n / ch.n)
            if score > best_score:
                best, best_score = ch, score
        return best

    def _simulate(self, root: Node, rnd: random.Random) -> None:
        game = self.game
        node = root
        # Selection.
        while True:
            if game.is_terminal(node.state):
                break
            if node.untried is None:
                if self.evaluator.uses_prior:
                    self._expand_all(node)
                else:
                    node.untried = game.legal_actions(node.state)
                    rnd.shuffle(node.untried)
            if node.untried:
                # Expansion.
                a = node.untried.pop()
                child = Node(game.play(node.state, a), node, a, game.current_player(node.state))
                node.children.append(child)
                node = child
                break
            if self.evaluator.uses_prior and node.n == 0:
                break  # a freshly expanded PUCT node: evaluate it, then descend next time
            node = self._select_child(node)
        # Rollout (or evaluation).
        state = node.state
        if game.is_terminal(state):
            values = game.returns(state)
        else:
            values = self.evaluator.evaluate(state, rnd)
        # Backpropagation.
        while node is not None:
            node.n += 1
            node.w += values[node.mover - 1]
            node = node.parent

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
        return self._choose(self.search(state), legal, state)

    def _choose(self, root, legal: list[int], state) -> int:
        """The move to play after searching ``state``: the most visited, ties to the best mean."""
        return max(root.children, key=lambda ch: (ch.n, ch.q)).action


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
