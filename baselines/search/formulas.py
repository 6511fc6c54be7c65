"""The selection rules' formulas, one implementation each, shared by every search.

Each rule of the search family is a score per action; a search goes down to
the action with the largest. The formulas are written once here and used by
the rollout searches' rules of ``tictacgo.baselines.mcts`` (scalars, one node
at a time; UCB1 inlined in UCT's loops, which tests check against ``ucb1``)
and by the network searches' rules (rows ``(k, A)``, many nodes and games at
once), on the one array tree of ``tictacgo.baselines.search.tree``:

* ``ucb1``: UCT's ``Q + c * sqrt(ln N / n)`` (infinity while unvisited);
* ``policy_bonus``: mix MCTS's ``ucb1 + w * p``;
* ``puct_scores``: AlphaZero's ``Q + c * P * sqrt(N) / (1 + n)``, with Q
  normalised over the node and a ``c`` that grows with ``N`` (the network
  search), or raw Q and a fixed ``c`` (the rollout searches' ``PUCT``);
* ``completed_q``, ``gumbel_root_scores``, ``gumbel_interior_scores``,
  ``considered_visits``: Gumbel MuZero's root (Gumbel-top-k and sequential
  halving) and its deterministic rule inside the tree.

``Q`` is always from the view of the player who chooses (the node's mover).
"""

from __future__ import annotations

import math

import numpy as np

NEG = -1e30  # the logit of an illegal action: exp() of it is exactly 0, and it stays finite
TINY = np.finfo(np.float64).tiny
EPS = 1e-8


def ucb1(total: float, visits: int, parent_visits: int, c: float) -> float:
    """UCB1, ``total / visits + c * sqrt(ln parent_visits / visits)``; infinity when unvisited.

    Args:
        total: the action's summed results from the chooser's view.
        visits: the action's visits.
        parent_visits: the node's visits.
        c: the exploration constant.
    """
    if visits == 0:
        return math.inf
    return total / visits + c * math.sqrt(math.log(parent_visits) / visits)


def policy_bonus(total: float, visits: int, parent_visits: int, prior: float, c: float, w: float) -> float:
    """Mix MCTS's score, ``ucb1(...) + w * prior`` (infinity when unvisited).

    Args:
        total: the move's summed results from the mover's view (wins minus losses).
        visits: the move's visits (0: infinity).
        parent_visits: the position's visits.
        prior: the policy's probability of the move.
        c: the exploration constant.
        w: the weight on the policy.
    """
    return ucb1(total, visits, parent_visits, c) + w * prior


def masked_logits(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Logits shifted so the best legal one is 0, with ``NEG`` on illegal actions."""
    best = np.where(legal, logits, -np.inf).max(-1, keepdims=True)
    best = np.where(np.isfinite(best), best, 0.0)
    return np.where(legal, logits - best, NEG)


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis (``NEG`` entries get exactly 0)."""
    z = np.exp(x - x.max(-1, keepdims=True))
    return z / z.sum(-1, keepdims=True)


def puct_scores(q: np.ndarray, visits: np.ndarray, node_visits: np.ndarray, node_value: np.ndarray | None,
                prior: np.ndarray, legal: np.ndarray, c_init: float = 1.25,
                c_base: float | None = 19652.0) -> np.ndarray:
    """AlphaZero's PUCT score of every action, ``Q + c * P * sqrt(N) / (1 + n)`` (``-inf`` on illegal ones).

    Args:
        q: ``(k, A)`` Q from each node's mover's view (anything where unvisited).
        visits: ``(k, A)`` child visit counts (``n``).
        node_visits: ``(k,)`` the nodes' visits (``N``).
        node_value: ``(k,)`` the nodes' values: Q is normalised to [0, 1] by the
            node's value and its visited children's Q, unvisited actions counting
            as the lowest of those. None: raw Q, 0 where unvisited.
        prior: ``(k, A)`` prior probabilities (``P``).
        legal: ``(k, A)`` legal actions.
        c_init: the exploration constant with few visits.
        c_base: ``c`` rises by ``log 2`` by ``c_base`` visits of the node; None: ``c = c_init`` always.
    """
    N = np.asarray(node_visits, np.float64)[:, None]
    c = c_init if c_base is None else c_init + np.log((N + c_base + 1.0) / c_base)
    explore = np.sqrt(N) * c * prior / (visits + 1.0)
    visited = visits > 0
    if node_value is None:
        exploit = np.where(visited, q, 0.0)
    else:
        v = node_value[:, None]
        safe = np.where(visited, q, v)
        lo = np.minimum(v, safe.min(-1, keepdims=True))
        hi = np.maximum(v, safe.max(-1, keepdims=True))
        exploit = (np.where(visited, q, lo) - lo) / np.maximum(hi - lo, EPS)
    return np.where(legal, exploit + explore, -np.inf)


def completed_q(raw_value: np.ndarray, q: np.ndarray, visits: np.ndarray, prior: np.ndarray,
                legal: np.ndarray, value_scale: float = 0.1, maxvisit_init: float = 50.0) -> np.ndarray:
    """Gumbel MuZero's ``sigma(completed Q)`` of nodes (``(k, A)``).

    Unvisited actions get the node's mixed value (its raw value averaged with
    the prior-weighted Q of the visited actions); Q is rescaled to [0, 1] over
    the legal actions, then multiplied by ``(maxvisit_init + max visits) * value_scale``.

    Args:
        raw_value: ``(k,)`` the evaluator's value of each node.
        q: ``(k, A)`` Q from each node's mover's view (anything where unvisited).
        visits: ``(k, A)`` child visit counts.
        prior: ``(k, A)`` prior probabilities.
        legal: ``(k, A)`` legal actions.
    """
    visited = visits > 0
    n = visits.sum(-1)
    w = np.where(visited, np.maximum(prior, TINY), 0.0)
    weighted = (w * np.where(visited, q, 0.0)).sum(-1) / np.maximum(w.sum(-1), TINY)
    mixed = (raw_value + n * weighted) / (n + 1)
    cq = np.where(visited, q, mixed[:, None])
    lo = np.where(legal, cq, np.inf).min(-1, keepdims=True)
    hi = np.where(legal, cq, -np.inf).max(-1, keepdims=True)
    lo = np.where(np.isfinite(lo), lo, 0.0)
    hi = np.where(np.isfinite(hi), hi, 0.0)
    scaled = (cq - lo) / np.maximum(hi - lo, EPS)
    return (maxvisit_init + visits.max(-1, keepdims=True)) * value_scale * scaled


def gumbel_root_scores(considered_visit: np.ndarray, gumbel: np.ndarray, logits: np.ndarray,
                       cq: np.ndarray, visits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Sequential halving's score: ``gumbel + logits + sigma(Q)`` among the actions with the considered count.

    Args:
        considered_visit: ``(k,)`` the visit count an action must have to be picked now.
        gumbel: ``(k, A)`` the root's Gumbel draws.
        logits: ``(k, A)`` masked prior logits.
        cq: ``(k, A)`` ``sigma(completed Q)``.
        visits: ``(k, A)`` child visit counts.
        legal: ``(k, A)`` legal actions.
    """
    score = np.maximum(-1e9, gumbel + logits + cq)
    ok = legal & (visits == considered_visit[:, None])
    return np.where(ok, score, -np.inf)


def gumbel_interior_scores(logits: np.ndarray, cq: np.ndarray, visits: np.ndarray,
                           legal: np.ndarray) -> np.ndarray:
    """The deterministic interior rule: the action whose visits lag ``softmax(logits + sigma(Q))`` most."""
    pi = softmax(logits + cq)
    lag = pi - visits / (1.0 + visits.sum(-1, keepdims=True))
    return np.where(legal, lag, -np.inf)


def considered_visits(max_considered: int, num_simulations: int, length: int | None = None) -> list[int]:
    """Sequential halving's schedule: the visit count of the actions considered at each simulation.

    ``max_considered`` actions get visits in turn; after a phase, the better
    half stays (never fewer than 2). Each phase gets about
    ``num_simulations / log2(max_considered)`` simulations.

    Args:
        max_considered: the actions considered at first.
        num_simulations: the simulations the schedule is planned for.
        length: only the schedule's first ``length`` entries (a search stopped by
            its clock never needs the rest of a huge budget's schedule).
    """
    stop = num_simulations if length is None else min(length, num_simulations)
    if max_considered <= 1:
        return list(range(stop))
    phases = math.ceil(math.log2(max_considered))
    out: list[int] = []
    visits, count = 0, max_considered
    while len(out) < stop:
        for _ in range(max(1, int(num_simulations / (phases * count)))):
            out += [visits] * count
            visits += 1
            if len(out) >= stop:
                break
        count = max(2, count // 2)
    return out[:stop]
