"""Search trees built by hand, a test helper: a root whose children have the visits and results given."""

from __future__ import annotations

from tictacgo.baselines.search.game_tree import GameTree, SearchNode


def root_with_children(game, stats: list[tuple[float, int, float]]) -> SearchNode:
    """A visited root over ``game``'s first position whose children, actions 0, 1, ..., have
    ``(total, visits, prior)`` as given; every action the rule would add is a child already."""
    tree = GameTree(game, game.initial_state())
    tree.plan(0, list(range(len(stats))), [p for _, _, p in stats])
    for action, (total, n, _) in enumerate(stats):
        child = tree.add(0, action)
        tree.visits[child], tree.total[child] = n, total
        tree.child_visits[0, action] = n
    tree.visits[0] = sum(n for _, n, _ in stats)
    return tree.view(0)
