"""Position-by-position audits of an agent on a solvable game (Tic-Tac-Toe).

A match says how often an agent wins; an audit says how often it is right.
``reachable_positions`` lists every live position reachable from the start
(4,520 for Tic-Tac-Toe), ``optimal_actions`` the actions exact minimax values
best there, and ``optimal_move_rate`` the share of positions where an agent's
chosen move is one of them. ``argmax_illegal_rate`` asks an agent that exposes
raw ``logits(state)`` (a trained policy) how often its unmasked favourite is
illegal: the measure for a policy trained without action masks.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tictacgo.baselines.minimax import MinimaxAgent
from tictacgo.games.base import Game


def reachable_positions(game: Game) -> list:
    """Every non-terminal position reachable from ``game.initial_state()``, each once, in BFS order.

    Raises:
        ValueError: the game is not ``solvable`` (its tree is too large to list).
    """
    if not game.spec.solvable:
        raise ValueError(f"{game.spec.title} is too large to list its positions; "
                         "only solvable games can be audited")
    def key(s):  # positions, not move orders: the board and who is to move
        return game.to_board(s).tobytes(), game.current_player(s)

    start = game.initial_state()
    seen, frontier, out = {key(start)}, [start], []
    while frontier:
        nxt = []
        for s in frontier:
            if game.is_terminal(s):
                continue
            out.append(s)
            for a in game.legal_actions(s):
                child = game.play(s, a)
                if key(child) not in seen:
                    seen.add(key(child))
                    nxt.append(child)
        frontier = nxt
    return out


def optimal_actions(game: Game, positions: list) -> list[frozenset[int]]:
    """For each position, the actions that keep its game-theoretic value (win, draw or loss).

    A winning move that wins later than another still counts: what is audited
    is whether a move throws away the result, as in "never loses to minimax".
    """
    solver = MinimaxAgent(game)
    out = []
    for s in positions:
        outcome = {a: int(np.sign(round(v, 9))) for a, v in solver.action_values(s).items()}
        best = max(outcome.values())
        out.append(frozenset(a for a, v in outcome.items() if v == best))
    return out


def optimal_move_rate(choose: Callable[[object], int], positions: list,
                      optimal: list[frozenset[int]]) -> float:
    """The share of ``positions`` where ``choose(state)`` picks an action in ``optimal``."""
    if len(positions) != len(optimal) or not positions:
        raise ValueError(f"need as many optimal sets as positions (>0), got {len(positions)} "
                         f"positions and {len(optimal)} sets")
    return sum(choose(s) in best for s, best in zip(positions, optimal, strict=True)) / len(positions)


def argmax_illegal_rate(game: Game, logits: Callable[[object], np.ndarray], positions: list) -> float:
    """The share of ``positions`` where the highest of ``logits(state)`` is an illegal action."""
    if not positions:
        raise ValueError("no positions to audit")
    bad = sum(not (game.legal_bits(s) >> int(np.argmax(logits(s)))) & 1 for s in positions)
    return bad / len(positions)


def optimal_rates_by_side(act: Callable[[object], int], positions: list,
                          optimal: list[frozenset[int]]) -> dict[str, float]:
    """``optimal_move_rate`` over all ``positions``, and over those where the first or the second
    player is to move (``"all"``, ``"X to move"``, ``"O to move"`` for Tic-Tac-Toe's names)."""
    out = {"all": optimal_move_rate(act, positions, optimal)}
    for side in (1, 2):
        idx = [i for i, s in enumerate(positions) if s.to_move == side]
        label = f"{'XO'[side - 1]} to move"
        out[label] = optimal_move_rate(act, [positions[i] for i in idx], [optimal[i] for i in idx])
    return out
