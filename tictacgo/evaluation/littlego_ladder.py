"""Little-Go agents against the course's ladder (random, greedy, aggressive, alphabeta) and MCTS.

Two ways to play a ladder, each seeded once:

* ``colour_rows``: one agent, ``n`` games as Black and ``n`` as White against
  each opponent, W / D / L a colour with the win rate's 95% Wilson interval,
  checked against the win rates of ``TARGETS`` (a learned policy, AlphaZero's
  raw network, AlphaZero with its search). Each colour's pair of agents gets
  generators spawned in a fixed order.
* ``pairings``: many pairings of agent specs played game by game, colours
  alternating (game i: the first agent is Black when i is even), each game's
  agents seeded from ``[seed, i, 0]`` and ``[seed, i, 1]``, so the games can
  run in parallel worker processes and still give the same results.

Both count their games with a bar on a terminal (``games_progress``).
"""

from __future__ import annotations

import multiprocessing as mp

import numpy as np

from tictacgo.arena.stats import wilson_interval
from tictacgo.baselines.registry import make_agent
from tictacgo.evaluation.progress import games_progress
from tictacgo.game_loop import play_game, play_wdl
from tictacgo.games import littlego

GO = littlego.LittleGo()
LADDER = ("random", "greedy", "aggressive", "alphabeta")
# The win rates each colour must reach, by the kind of agent.
TARGETS = {
    "policy": {"random": 0.95, "greedy": 0.90, "aggressive": 0.75},
    "raw": {"random": 0.95, "greedy": 0.95, "aggressive": 0.95, "alphabeta": 0.85},
    "search": {"random": 0.99, "greedy": 0.99, "aggressive": 0.99, "alphabeta": 0.99, "mcts": 0.60},
    # The tabular Q-learner (docs/qlearning.md): the course's second stage asks it of each colour.
    "qlearning": {"random": 0.95, "greedy": 0.80, "aggressive": 0.50},
}


def colour_rows(agent: str, opponents: list[tuple[str, int]], seed: int, targets: dict[str, float],
                progress: bool = True) -> tuple[list[dict], list[str]]:
    """``agent`` against each ``(opponent, games a colour)``, as Black then as White.

    Returns:
        One row per opponent (``opponent``, ``games``, ``black`` and ``white`` as (W, D, L), and
        ``target``: the win rate its name must reach, or None), and the targets missed, in words.
    """
    rng = np.random.default_rng(seed)
    total = sum(2 * n for _, n in opponents)
    bar = games_progress(total, f"{agent} against the ladder") if progress else None
    rows, missed = [], []
    try:
        for opp, n in opponents:
            goal = targets.get(opp.split(":")[0])
            row = {"opponent": opp, "games": n, "target": goal}
            for colour, label in ((littlego.BLACK, "Black"), (littlego.WHITE, "White")):
                ra, rb = rng.spawn(2)
                me, them = make_agent(agent, GO, rng=ra), make_agent(opp, GO, rng=rb)
                row[label.lower()] = wdl = play_wdl(GO, me, them, n, colour=colour,
                                                    on_game=bar.update if bar is not None else None)
                if goal is not None and wdl[0] / n < goal:
                    missed.append(f"{opp} as {label}: {wdl[0] / n:.0%} < {goal:.0%}")
            rows.append(row)
    finally:
        if bar is not None:
            bar.close()
    return rows, missed


def rate_cell(wins: int, games: int) -> str:
    """``"95% [89%, 98%]"``: a win rate and its 95% Wilson interval."""
    lo, hi = wilson_interval(wins, games)
    return f"{wins / games:.0%} [{lo:.0%}, {hi:.0%}]"


def play_task(task: tuple[str, str, str, str, int, int]) -> tuple[str, str, int, int]:
    """Play one game; ``task`` = (key_a, key_b, spec_a, spec_b, game index, seed).

    Returns:
        (key_a, key_b, index, result for A: 1 win, 0 draw, -1 loss).
    """
    key_a, key_b, spec_a, spec_b, i, seed = task
    a = make_agent(spec_a, "littlego", rng=np.random.default_rng([seed, i, 0]))
    b = make_agent(spec_b, "littlego", rng=np.random.default_rng([seed, i, 1]))
    a_colour = littlego.BLACK if i % 2 == 0 else littlego.WHITE
    first, second = (a, b) if a_colour == littlego.BLACK else (b, a)
    w = play_game(littlego.LittleGo(), first, second).winner
    return key_a, key_b, i, (0 if w == 0 else 1 if w == a_colour else -1)


def pairings(pairs: list[tuple[str, str, str, str]], games: int, seed: int, workers: int,
             progress: bool = True) -> dict[tuple[str, str], list[int]]:
    """Play ``games`` games for each (key_a, key_b, spec_a, spec_b), on ``workers`` processes.

    Returns:
        The results for A (1 win, 0 draw, -1 loss) per (key_a, key_b), in the order they finished.
    """
    tasks = [(ka, kb, sa, sb, i, seed) for ka, kb, sa, sb in pairs for i in range(games)]
    results: dict[tuple[str, str], list[int]] = {(ka, kb): [] for ka, kb, _, _ in pairs}
    pool = mp.Pool(workers) if workers > 1 else None
    games_done = pool.imap_unordered(play_task, tasks) if pool is not None else map(play_task, tasks)
    bar = games_progress(len(tasks), "ladder games") if progress else None
    try:
        for ka, kb, _, r in games_done:
            results[(ka, kb)].append(r)
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
        if pool is not None:
            pool.terminate()
    return results


def summary_row(name: str, res: list[int]) -> str:
    """A fixed-width row: games, wins, draws, losses, the score rate and its 95% Wilson interval."""
    w, d, lost = res.count(1), res.count(0), res.count(-1)
    n = len(res)
    rate = (w + 0.5 * d) / n if n else 0.0
    lo, hi = wilson_interval(w + 0.5 * d, n)
    return f"{name:12s} {n:6d} {w:6d} {d:6d} {lost:6d} {rate:8.1%}   [{lo:.1%}, {hi:.1%}]"


def cross_rate(cross: dict[tuple[str, str], list[int]], a: str, b: str) -> float:
    """Row agent ``a``'s score rate against column agent ``b`` in a cross table played once a pair."""
    r = cross[(a, b)] if (a, b) in cross else [-x for x in cross[(b, a)]]
    return (r.count(1) + 0.5 * r.count(0)) / len(r)
