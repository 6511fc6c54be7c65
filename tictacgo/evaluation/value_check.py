"""Checks of an AlphaZero network's value head: held-out self-play games, the board's symmetries and
exact values (minimax over Tic-Tac-Toe, the solver's endgame benchmark for Little-Go).

A value head that learnt the game predicts held-out results better than a constant, barely changes
under the board's symmetries (training augments with all of them) and agrees in sign with the
exact value. ``scripts/check_alphazero_value.py`` prints these for a model folder.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tictacgo.baselines.audit import reachable_positions
from tictacgo.baselines.learning.alphazero.network import NetworkEvaluator
from tictacgo.baselines.learning.alphazero.search import softmax
from tictacgo.baselines.learning.alphazero.selfplay import SearchConfig, SelfPlay
from tictacgo.baselines.minimax import MinimaxAgent
from tictacgo.games.symmetry import inverse, move_actions, move_boards
from tictacgo.solver.endgames import load_endgames


def held_out(evaluator: NetworkEvaluator, games: int, sims: int, seed: int):
    """The planes and results (mover's view) of the positions of ``games`` self-play games."""
    sp = SelfPlay(evaluator.game, evaluator, min(games, 256), SearchConfig("gumbel", sims),
                  np.random.default_rng(seed))
    planes, values = [], []
    while sp.games_finished < games:
        pos = sp.step()
        if pos is not None:
            planes.append(pos.planes)
            values.append(pos.value)
    return np.concatenate(planes), np.concatenate(values)


def symmetry_spread(evaluator: NetworkEvaluator, planes: np.ndarray) -> dict[str, float]:
    """The value's spread over the game's symmetries of each position (``game.symmetries()``: a square
    board's eight), and the policy's distance.

    Returns the mean and the largest spread (max - min) of the value, and the mean total-variation
    distance between each transformed position's policy (turned back) and their mean.
    """
    maps = evaluator.game.symmetries()
    values, policies = [], []
    for moves, undo in zip(maps, inverse(maps), strict=True):
        logits, v = evaluator.evaluate_planes(np.ascontiguousarray(move_boards(planes, moves)))
        policies.append(move_actions(softmax(logits), undo))
        values.append(v)
    values, policies = np.stack(values), np.stack(policies)
    spread = values.max(0) - values.min(0)
    tv = 0.5 * np.abs(policies - policies.mean(0, keepdims=True)).sum(-1).mean()
    return {"value_spread_mean": float(spread.mean()), "value_spread_max": float(spread.max()),
            "policy_tv_to_mean": float(tv)}


def endgame_values(evaluator: NetworkEvaluator, path: str | Path) -> dict[str, float]:
    """How often the sign of the raw value is the exact value of an endgame benchmark's positions.

    Returns the share over all positions and over the decisive ones, the
    mean squared error against the exact value (+1 or -1, the mover's view)
    and the number of positions.

    Raises:
        ValueError: the benchmark's variant (size, komi, action limit) is not the network's.
    """
    endgames, meta = load_endgames(path)
    game = evaluator.game
    theirs = (int(meta["size"]), float(meta["komi"]), int(meta["max_actions"]))
    ours = (game.spec.board_shape[0], game.spec.komi, game.spec.max_actions)
    if theirs != ours:
        raise ValueError(f"{path} holds (size, komi, limit) {theirs}, the network plays {ours}")
    planes = np.stack([game.encoder.from_state(e.state) for e in endgames])
    _, values = evaluator.evaluate_planes(planes)
    exact = np.array([e.value for e in endgames])
    decisive = np.array([e.decisive for e in endgames])
    right = np.sign(values) == exact
    return {"sign_matches": float(right.mean()), "sign_matches_decisive": float(right[decisive].mean()),
            "mse": float(np.mean((values - exact) ** 2)), "positions": len(endgames)}


def held_out_errors(evaluator: NetworkEvaluator, planes: np.ndarray, results: np.ndarray) -> dict[str, float]:
    """The raw value against the results of held-out positions (the mover's view).

    Returns the value's mean squared error, that of the best constant (the results' variance), and,
    over the positions of decided games, how often the value's sign is the result and their share.
    """
    _, values = evaluator.evaluate_planes(planes)
    decided = results != 0
    out = {"mse": float(np.mean((values - results) ** 2)), "constant_mse": float(np.var(results)),
           "decided_share": float(decided.mean())}
    if decided.any():
        out["sign_matches_decided"] = float(np.mean(np.sign(values[decided]) == results[decided]))
    return out


def exact_value_classes(evaluator: NetworkEvaluator) -> dict[str, float]:
    """For a solvable game (Tic-Tac-Toe): how often the raw value's class is the minimax value.

    The class is a win above 0.5, a loss below -0.5, else a draw; over every reachable live position.
    Returns the share that matches and the number of positions.
    """
    game = evaluator.game
    positions = reachable_positions(game)
    solver = MinimaxAgent(game)
    exact = np.array([np.sign(round(max(solver.action_values(s).values()), 9)) for s in positions])
    _, values = evaluator.evaluate_planes(np.stack([game.encoder.from_state(s) for s in positions]))
    predicted = np.where(values > 0.5, 1, np.where(values < -0.5, -1, 0))
    return {"matches": float(np.mean(predicted == exact)), "positions": len(positions)}
