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

Hooks for learned guidance (all None by default; no network is built here):

* ``prior(state) -> {action: probability}``: when given, a node expands all
  its children at once and selection uses PUCT,
  ``Q + c * P * sqrt(N) / (1 + n)`` (unvisited children score ``Q = 0``).
* ``rollout_policy(state, rnd) -> action``: replaces the random rollout
  move (``rnd`` is a ``random.Random``).
* ``evaluate(state) -> float``: the value in [-1, 1] of a non-terminal
  leaf from the view of the player to move, replacing the rollout.

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
from types import ModuleType

import numpy as np

from tictacgo.baselines.base import Agent, check_seconds
from tictacgo.baselines.registry import register_agent

_WIN_VALUES = {0: (0.0, 0.0), 1: (1.0, -1.0), 2: (-1.0, 1.0)}


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


def _bit_actions(bits: int) -> list[int]:
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def random_rollout(game: ModuleType, state, rnd: random.Random, pass_prob: float = 0.0):
    """Play uniformly random legal placements to the end; PASS only when none (or with ``pass_prob``).

    Returns:
        The terminal state.
    """
    return capture_rollout(game, state, rnd, pass_prob=pass_prob, capture_prob=0.0)


def capture_rollout(game: ModuleType, state, rnd: random.Random, pass_prob: float = 0.0,
                    capture_prob: float = 0.5):
    """Like ``random_rollout``, but in Go with probability ``capture_prob`` a random capturing
    placement is played when one exists (Tic-Tac-Toe: a winning move instead)."""
    legal_bits, play, is_terminal = game.legal_bits, game.play, game.is_terminal
    pa = game.pass_action(state)
    not_pass = ~(1 << pa) if pa is not None else -1
    rand = rnd.random
    go = pa is not None
    while not is_terminal(state):
        bits = legal_bits(state) & not_pass
        if not bits or (pass_prob and rand() < pass_prob):
            state = play(state, pa)
            continue
        if capture_prob and rand() < capture_prob:  # no draw at 0: random_rollout's stream
            nxt = _capture_move(game, state, bits) if go else _winning_move(game, state, bits)
            if nxt is not None:
                state = nxt[rnd.randrange(len(nxt))] if isinstance(nxt, list) else nxt
                continue
        r = int(rand() * bits.bit_count())
        while r:
            bits &= bits - 1
            r -= 1
        state = play(state, (bits & -bits).bit_length() - 1)
    return state


def _capture_move(game: ModuleType, state, bits: int):
    """Next states of the placements in ``bits`` that capture, or None.

    Only points next to an opponent group with a single liberty can capture,
    so just those are tried.
    """
    geo = state.geo
    opp = state.white if state.to_move == 1 else state.black
    if not opp:
        return None
    empty = geo.full & ~(state.black | state.white)
    # Candidates: empty points touching opponent stones; try those only.
    cand = bits & geo.neighbours(opp) & empty
    out = []
    while cand:
        low = cand & -cand
        cand ^= low
        child = game.play(state, low.bit_length() - 1)
        if child.captured:
            out.append(child)
    return out or None


def _winning_move(game: ModuleType, state, bits: int):
    while bits:
        low = bits & -bits
        bits ^= low
        child = game.play(state, low.bit_length() - 1)
        if game.is_terminal(child) and game.winner(child) == state.to_move:
            return child
    return None


class MCTSAgent(Agent):
    """UCT Monte Carlo tree search on a rules core.

    Args:
        game: a rules module from ``tictacgo.games``.
        sims: simulations per move (None: limited by ``time_limit`` only;
            1000 when neither is given).
        time_limit: seconds per move (None: limited by ``sims`` only).
        c: exploration constant of UCB1 (or PUCT with a prior).
        reuse: keep the subtree of the reached position for the next move.
        pass_prob: chance of a PASS per rollout move in Go (0: only when forced).
        prior: optional ``f(state) -> {action: p}``; turns on PUCT selection.
        rollout_policy: optional ``f(state, rnd) -> action`` for rollout moves.
        evaluate: optional ``f(state) -> value`` for leaves, instead of a rollout.
        capture_prob: chance per rollout move of taking a capture (Go: an
            opponent group in atari) or a win (Tic-Tac-Toe) when one exists,
            as in ``go_fast_rollout`` / ``capture_rollout``; 0 is plain UCT.
        rng: the agent's generator (seeds the search's ``random.Random``).
    """

    name = "mcts"

    def __init__(self, game: ModuleType, sims: int | None = None, time_limit: float | None = None,
                 c: float = 1.0, reuse: bool = True, pass_prob: float = 0.0,
                 prior: Callable | None = None, rollout_policy: Callable | None = None,
                 evaluate: Callable | None = None, capture_prob: float = 0.0,
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
        if not c >= 0:
            raise ValueError(f"c must be a non-negative number, got {c!r}")
        for label, v in (("pass_prob", pass_prob), ("capture_prob", capture_prob)):
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{label} must be a probability in [0, 1], got {v!r}")
        self.sims = None if sims is None else int(sims)
        self.time_limit = time_limit
        self.c = float(c)
        self.reuse = bool(reuse)
        self.pass_prob = float(pass_prob)
        self.capture_prob = float(capture_prob)
        self.prior = prior
        self.rollout_policy = rollout_policy
        self.evaluate = evaluate
        self.root: Node | None = None
        # Little-Go rollouts without a custom policy run on raw bitboards.
        # Games with a fast playout engine (Little-Go) run default rollouts on it.
        self._fast_rollout = getattr(game, "fast_rollout", None) if rollout_policy is None else None
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
        priors = self.prior(state)
        mover = game.current_player(state)
        actions = game.legal_actions(state)
        total = sum(max(float(priors.get(a, 0.0)), 0.0) for a in actions) if actions else 0.0
        for a in actions:
            p = max(float(priors.get(a, 0.0)), 0.0) / total if total > 0 else 1.0 / len(actions)
            node.children.append(Node(game.play(state, a), node, a, mover, p))
        node.untried = []

    def _select_child(self, node: Node) -> Node:
        c = self.c
        if self.prior is not None:
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
                if self.prior is not None:
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
            if self.prior is not None and node.n == 0:
                break  # a freshly expanded PUCT node: evaluate it, then descend next time
            node = self._select_child(node)
        # Rollout (or evaluation).
        state = node.state
        if game.is_terminal(state):
            values = game.returns(state)
        elif self.evaluate is not None:
            v = float(self.evaluate(state))
            me = game.current_player(state)
            values = (v, -v) if me == 1 else (-v, v)
        elif self._fast_rollout is not None:
            w = self._fast_rollout(state, rnd, self.pass_prob, self.capture_prob)
            values = _WIN_VALUES[w]
        else:
            end = self._rollout(state, rnd)
            values = game.returns(end)
        # Backpropagation.
        while node is not None:
            node.n += 1
            node.w += values[node.mover - 1]
            node = node.parent

    def _rollout(self, state, rnd: random.Random):
        game = self.game
        if self.rollout_policy is not None:
            while not game.is_terminal(state):
                state = game.play(state, self.rollout_policy(state, rnd))
            return state
        if self.capture_prob > 0:
            return capture_rollout(game, state, rnd, self.pass_prob, self.capture_prob)
        return random_rollout(game, state, rnd, self.pass_prob)

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
        root = self.search(state)
        best = max(root.children, key=lambda ch: (ch.n, ch.q))
        return best.action


def _make(game, rng, sims: int | None = None, time: float | None = None, c: float = 1.0,
          reuse: bool = True, rollout: str | None = None, capture_prob: float = 1.0,
          pass_prob: float = 0.0):
    # Tuned defaults: in Go, rollouts that always take a capture when one is on
    # offer (capture_prob=1) model the course's capture-minded opponents far
    # better than uniform ones; Tic-Tac-Toe needs nothing but random rollouts.
    if rollout is None:
        rollout = "capture" if game.spec().captures else "random"
    if rollout not in ("random", "capture"):
        raise ValueError(f"rollout must be 'random' or 'capture', got {rollout!r}")
    if not (isinstance(capture_prob, (int, float)) and 0.0 <= capture_prob <= 1.0):
        raise ValueError(f"capture_prob must be a probability in [0, 1], got {capture_prob!r}")
    return MCTSAgent(game, sims=sims, time_limit=time, c=c, reuse=reuse, pass_prob=pass_prob,
                     capture_prob=capture_prob if rollout == "capture" else 0.0, rng=rng)


register_agent("mcts", _make,
               description="UCT Monte Carlo tree search (sims=, time=, c=, rollout=random|capture)")
