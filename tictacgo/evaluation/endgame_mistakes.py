"""How often an agent's move keeps an endgame's exact value, over the Little-Go endgame benchmark.

Every position of the benchmark (``tictacgo.solver.endgames``) carries its
exact value for the player to move and the moves that keep it. The agent
plays one move in each (reset before each position, seeded once); the counts
are kept by group: all positions, the decisive ones (where some move loses
the value; elsewhere every move keeps it), by actions left and by colour.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from tictacgo.arena.stats import wilson_interval
from tictacgo.baselines import make_agent
from tictacgo.evaluation.progress import games_progress
from tictacgo.games import littlego
from tictacgo.solver.endgames import Endgame


def subset(endgames: list[Endgame], limit: int | None, seed: int) -> list[Endgame]:
    """A seeded random subset of ``limit`` positions, in the benchmark's order (all when None)."""
    if limit is None or limit >= len(endgames):
        return endgames
    pick = np.random.default_rng([seed, 1]).choice(len(endgames), size=limit, replace=False)
    return [endgames[i] for i in sorted(pick)]


def groups_of(e: Endgame) -> list[str]:
    """The groups a position counts in: all, its actions left, its colour, and the decisive ones."""
    colour = "Black" if e.state.to_move == littlego.BLACK else "White"
    groups = ["all", f"left {e.left:2d}", colour]
    if e.decisive:
        groups += ["decisive", f"decisive, left {e.left:2d}", f"decisive, {colour}"]
    return groups


def count_kept(spec: str, endgames: list[Endgame], seed: int, progress: bool = True) -> dict[str, list[int]]:
    """``group -> [positions where spec's move keeps the value, positions]``, the agent seeded once."""
    agent = make_agent(spec, "littlego", rng=np.random.default_rng([seed, 0]))
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    bar = games_progress(len(endgames), f"{spec} on the endgames", unit="position") if progress else None
    try:
        for e in endgames:
            agent.reset()
            kept = int(agent.act(e.state) in e.optimal)
            for g in groups_of(e):
                counts[g][0] += kept
                counts[g][1] += 1
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    return dict(counts)


def report_order(counts: dict[str, list[int]]) -> list[str]:
    """The groups in the order of the report: totals and colours, then by actions left."""
    order = (["all", "decisive", "Black", "White", "decisive, Black", "decisive, White"]
             + sorted(g for g in counts if g.startswith("left"))
             + sorted(g for g in counts if g.startswith("decisive, left")))
    return [g for g in order if g in counts]


def share(kept: int, n: int) -> str:
    """``"  0.912 [0.894, 0.927]   1000"``: the share kept, its 95% Wilson interval and the count."""
    if not n:
        return f"{'-':>7} {'':>17} {0:>6}"
    lo, hi = wilson_interval(kept, n)
    return f"{kept / n:7.3f} [{lo:.3f}, {hi:.3f}] {n:6d}"
