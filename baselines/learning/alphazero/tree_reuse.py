"""Tree reuse between an agent's moves: the next search starts from the subtree the game went into.

After the ``az`` agent plays action ``a`` from its root, the opponent replies
``b``; if the last search expanded ``a`` and then ``b``, the node it reached
already holds visits, values and priors of the new position. ``TreeReuse``
keeps the last tree and, at the next move, finds that node by comparing its
stored position with the one asked about (the reply is never needed), cuts
the subtree under it out (``Tree.subtree``) and hands it to the search,
which adds its simulations to those visits. A position not found there (a
new game, a reply the search never tried, a position set up by hand) gets a
fresh tree.

Only PUCT keeps its tree: Gumbel MuZero's root schedules its visits from an
empty root (sequential halving over a fixed budget), so ``az:reuse=true``
needs ``search=puct``.
"""

from __future__ import annotations

import numpy as np

from tictacgo.baselines.search.searches import SearchOutput
from tictacgo.baselines.search.tree import Tree
from tictacgo.games.batched_common import BatchedGame


class TreeReuse:
    """The last search's tree of one game and what was played from it (see the module docstring).

    Attributes:
        reused: the root visits each search started from (0 for a fresh tree), one entry a search.
    """

    def __init__(self, search: str):
        if search != "puct":
            raise ValueError(f"reuse=true needs search=puct: Gumbel's root schedules its visits from an "
                             f"empty root, got search={search!r}")
        self.tree: Tree | None = None
        self.played = -1
        self.reused: list[int] = []

    def search(self, config, engine: BatchedGame, evaluate, rng: np.random.Generator,
               deadline: float | None = None) -> SearchOutput:
        """``config.run`` (a PUCT ``SearchConfig``) for game 0 of ``engine``, from the kept subtree where
        the position is in it; remembers the new tree and the action chosen."""
        kept = self.subtree_for(engine, config.simulations)
        self.reused.append(0 if kept is None else int(kept.visits[0, 0]))
        out = config.run(engine, evaluate, rng, temperature=0.0, deadline=deadline, reuse=kept,
                         keep_tree=True)
        self.tree, self.played = out.tree, int(out.action[0])
        out.tree = None  # the agent's last output need not hold the tree twice
        return out

    def subtree_for(self, engine: BatchedGame, num_simulations: int) -> Tree | None:
        """The kept tree's subtree whose root is game 0's position of ``engine``, two plies below the
        last root (the move played, then any reply searched), or None."""
        tree = self.tree
        if tree is None or self.played < 0:
            return None
        after_move = tree.children[0, 0, self.played]
        if after_move < 0:
            return None
        for node in tree.children[0, after_move]:
            if node >= 0 and all(tree.states[f][0, node] == getattr(engine, f)[0] for f in tree.fields):
                return tree.subtree(np.array([node]), num_simulations)
        return None
