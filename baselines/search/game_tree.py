"""One game's search tree for the rollout searches: the array tree at B = 1, rules-core states beside it.

The rollout searches (``mcts``, ``policy_mcts``, ``mix_mcts``, composed in
``tictacgo.baselines.mcts``) search one game from rules-core states: their
rollouts, policies and value functions take a state. ``GameTree`` keeps their
tree in the arrays of ``tree.Tree`` (mctx's layout, the one the ``az`` agent
and self-play search on), as the batch of one game, and the position of each
node in a Python list beside it (``states[i]``: node ``i``'s state). Node 0 is
the root; nodes are numbered as they join, so a parent comes before its
children. What the rollout searches keep per node (see ``Tree``): ``visits``
and ``total`` (``n`` and ``W`` from the view of ``mover``, the player who
moved into the node), ``terminal``, ``parent``, ``action_from_parent``,
``children`` by action, ``child_visits``, and their rule's ``order``,
``num_children``, ``untried`` and ``prior``.

``SearchNode`` is a view of one node (its state, visits, children, ...) for
the parts of a search written against single nodes: a selection rule of
one's own, a final-move rule. Views hold no data of their own: two views of
a node see the same arrays. The loops that run every simulation
(``rollout_kernels``) work on the arrays themselves.
"""

from __future__ import annotations

import numpy as np

from tictacgo.baselines.search.rollout_kernels import ARRAYS, kernels
from tictacgo.baselines.search.tree import UNBOUNDED, Tree
from tictacgo.games.base import Game
from tictacgo.games.batched_common import resolve_backend

#: Nodes a new tree allocates at first (it doubles as nodes join).
INITIAL_NODES = 256


class GameTree:
    """The search tree of one game: a ``Tree`` of one game and the rules-core state of each node.

    Args:
        game: the game object.
        state: the root's position.
        backend: where the tree kernels run: ``"auto"`` (numba when it imports), ``"numba"``,
            ``"numpy"`` (plain Python), or None for the environment variable
            ``TICTACGO_BATCHED_BACKEND`` (as the batched engines choose).
        initial_nodes: nodes allocated at first.
    """

    def __init__(self, game: Game, state, backend: str | None = None, initial_nodes: int = INITIAL_NODES):
        self.game = game
        self.backend = resolve_backend(backend)
        self.tree = Tree(None, UNBOUNDED, num_actions=game.num_actions, initial_nodes=initial_nodes)
        self.states = [state]
        self._arrays()
        self.mover[0] = 3 - game.current_player(state)
        self.terminal[0] = game.is_terminal(state)
        self.tree.nodes_used = 1

    @property
    def kernels(self):
        """The tree kernels of the backend (``rollout_kernels.kernels``)."""
        return kernels(self.backend)

    def _arrays(self) -> None:
        """The one game's rows of the tree's arrays (again after they grow), and ``flat``, what the
        kernels take: those of ``rollout_kernels.ARRAYS``, flattened (as memoryviews for plain Python)."""
        t = self.tree
        for name in ("visits", "total", "mover", "terminal", "parent", "action_from_parent", "children",
                     "child_visits", "order", "num_children", "untried", "prior"):
            setattr(self, name, getattr(t, name)[0])
        flat = [getattr(self, name).reshape(-1) for name in ARRAYS]
        self.flat = tuple(flat) if self.backend == "numba" else tuple(memoryview(a) for a in flat)

    def __len__(self) -> int:
        return len(self.states)

    # -- growing ------------------------------------------------------------------------------

    def reserve(self, nodes: int) -> None:
        """Room for ``nodes`` nodes (the arrays double when they must)."""
        if nodes > self.tree.capacity:
            self.tree.ensure(nodes)
            self._arrays()

    def new_node(self, node: int, action: int) -> tuple[int, int, bool]:
        """Number the position ``action`` leads to from ``node`` (not yet linked to it):
        ``(new, mover, terminal)``, where ``mover`` is the player who plays ``action``."""
        game = self.game
        state = self.states[node]
        child = game.play(state, action)
        new = len(self.states)
        self.states.append(child)
        if new >= self.tree.capacity:
            self.reserve(new + 1)
        self.tree.nodes_used = new + 1
        return new, game.current_player(state), game.is_terminal(child)

    def add(self, node: int, action: int, prior: float | None = None) -> int:
        """Add and return the child of ``node`` that ``action`` leads to (with the rule's ``prior``)."""
        new, mover, terminal = self.new_node(node, action)
        self.kernels.link_child(node, action, new, mover, terminal, self.tree.num_actions, *self.flat)
        if prior is not None:
            self.prior[node, action] = prior
        return new

    def plan(self, node: int, actions: list[int], priors: list[float] | None = None) -> None:
        """The actions a rule will add at ``node``, in the order it adds them (and their priors)."""
        k = int(self.num_children[node])
        self.order[node, k:k + len(actions)] = actions
        self.untried[node] = len(actions)
        if priors is not None:
            self.prior[node, actions] = priors

    def next_untried(self, node: int) -> int:
        """The action the rule planned to add next at ``node``."""
        return int(self.order[node, self.num_children[node]])

    def backup(self, leaf: int, values) -> None:
        """Add ``values`` (each player's result) to every node from ``leaf`` up to the root."""
        self.kernels.backup(leaf, float(values[0]), float(values[1]), self.tree.num_actions, *self.flat)

    # -- reading ------------------------------------------------------------------------------

    def children_of(self, node: int) -> list[int]:
        """``node``'s children, in the order they were added."""
        return self.children[node, self.order[node, :self.num_children[node]]].tolist()

    def child(self, node: int, action: int) -> int:
        """The child of ``node`` by ``action``, or -1."""
        return int(self.children[node, action])

    def view(self, node: int = 0) -> SearchNode:
        return SearchNode(self, node)

    # -- keeping a subtree --------------------------------------------------------------------

    def find(self, state) -> int:
        """The node of ``state`` among the root and its grandchildren (the position after a move and a
        reply), or -1."""
        states = self.states
        if states[0] == state:
            return 0
        for child in self.children_of(0):
            for grandchild in self.children_of(child):
                if states[grandchild] == state:
                    return grandchild
        return -1

    def subtree(self, node: int) -> GameTree:
        """A tree of the subtree under ``node`` (its root), renumbered from 0, its visits kept."""
        kept = self.nodes_below(node)
        twin = object.__new__(GameTree)
        twin.game, twin.backend = self.game, self.backend
        twin.tree = self.tree.subtree(np.array([node]), 0, kept=[kept])
        twin.tree.num_nodes = UNBOUNDED
        twin.states = [self.states[i] for i in kept.tolist()]
        twin._arrays()
        return twin

    def nodes_below(self, node: int) -> np.ndarray:
        """``node`` and the nodes under it, in the order they joined (so parents before children)."""
        n = len(self.states)
        parent = self.parent[:n]
        inside = np.zeros(n, bool)
        inside[node] = True
        ancestor = np.arange(n)
        live = np.arange(node + 1, n)  # nodes join after their parents: none before ``node`` is below it
        while live.size:
            ancestor[live] = parent[ancestor[live]]
            hit = ancestor[live] == node
            inside[live[hit]] = True
            live = live[~hit & (ancestor[live] > node)]
        return np.nonzero(inside)[0]


class SearchNode:
    """A view of one node of a ``GameTree`` (what a selection or final-move rule of one's own reads).

    Attributes:
        tree: the ``GameTree``.
        index: the node's number (0: the root).
    """

    __slots__ = ("index", "tree")

    def __init__(self, tree: GameTree, index: int):
        self.tree = tree
        self.index = index

    @property
    def state(self):
        """The node's position (a rules-core state)."""
        return self.tree.states[self.index]

    @property
    def action(self) -> int | None:
        """The action that led here (None at the root)."""
        a = int(self.tree.action_from_parent[self.index])
        return None if a < 0 else a

    @property
    def mover(self) -> int:
        """The player who moved into this node (whose view ``w`` and ``q`` take)."""
        return int(self.tree.mover[self.index])

    @property
    def n(self) -> int:
        """Visits."""
        return int(self.tree.visits[self.index])

    @property
    def w(self) -> float:
        """The summed results of the visits, from the mover's view."""
        return float(self.tree.total[self.index])

    @property
    def q(self) -> float:
        """Mean result from the mover's view (0 before any visit)."""
        n = self.n
        return self.w / n if n else 0.0

    @property
    def p(self) -> float:
        """The prior its parent's rule gave this node (0.0 at the root and where the rule has none)."""
        i = self.index
        parent = int(self.tree.parent[i])
        return 0.0 if parent < 0 else float(self.tree.prior[parent, self.tree.action_from_parent[i]])

    @property
    def children(self) -> list[SearchNode]:
        """The children, in the order they were added."""
        return [SearchNode(self.tree, c) for c in self.tree.children_of(self.index)]

    def add(self, game: Game, action: int, p: float | None = None) -> SearchNode:
        """Add and return the child that ``action`` leads to (prior ``p``); ``game`` is the tree's game."""
        return SearchNode(self.tree, self.tree.add(self.index, action, p))

    def __eq__(self, other) -> bool:
        return isinstance(other, SearchNode) and other.tree is self.tree and other.index == self.index

    def __hash__(self) -> int:
        return hash((id(self.tree), self.index))

    def __repr__(self) -> str:
        return (f"SearchNode(action={self.action}, n={self.n}, q={self.q:+.3f}, "
                f"children={int(self.tree.num_children[self.index])})")
