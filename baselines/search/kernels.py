"""numba kernels of the array tree: a simulation's walk down and its backup as one compiled loop.

``run_search`` (``tictacgo.baselines.search.tree``) spends most of a
one-game search (the ``az`` agent, B = 1) in the few dozen numpy calls each
step of a simulation makes over ``(B, nodes, actions)`` arrays. These kernels
do the same work game by game, node by node, on scalars:

* ``simulate``: every game's walk from its root to a leaf, one loop for
  every selection rule, which it takes as an int (``GUMBEL``: Gumbel
  MuZero's root and interior rules; ``PUCT``: AlphaZero's), the formulas of
  ``tictacgo.baselines.search.formulas`` line for line (an int rather than a
  compiled function passed in: numba caches no function that takes one);
* ``backward``: the leaf values backed up to the roots.

They compute what the numpy rules compute with the same operations in the
same order (numpy's pairwise summation of a row included), so they choose the
same actions; the one difference is ``exp`` (and ``log`` for PUCT's growing
constant): numpy's vectorised ones differ in the last bit from the C
library's, which numba calls, for about one input in twenty. A softmax that
differs in the last bit changes a choice only at an exact tie of scores, so
the two paths give the same trees on every case the tests check
(``tests/test_search_kernels.py``), not a proof for every position.

Importing this module imports numba (ImportError when it is missing). The
kernels are compiled on their first call and cached on disk (``cache=True``),
as the batched engines' kernels are (``tictacgo.games.batched_kernels``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

TINY = np.finfo(np.float64).tiny
EPS = 1e-8


@njit(cache=True)
def _row_sum(a):
    """numpy's sum of a 1-D float row (its pairwise order: eight running sums, then the rest)."""
    n = a.shape[0]
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return 0.0 + res
    r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
    r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
    i = 8
    stop = n - (n % 8)
    while i < stop:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[i]
        i += 1
    return 0.0 + res


@njit(cache=True)
def _softmax(x, out):
    """``formulas.softmax`` of one row into ``out``."""
    m = x[0]
    for i in range(1, x.shape[0]):
        if x[i] > m:
            m = x[i]
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i] - m)
    s = _row_sum(out)
    for i in range(x.shape[0]):
        out[i] = out[i] / s


@njit(cache=True)
def _argmax(x):
    best = 0
    for i in range(1, x.shape[0]):
        if x[i] > x[best]:
            best = i
    return best


@njit(cache=True)
def _completed_q(raw_value, logits, discount, value, visits, legal, value_scale, maxvisit_init, prior, w, cq):
    """``formulas.completed_q`` of one node into ``cq`` (``prior`` and ``w`` are scratch rows)."""
    A = logits.shape[0]
    _softmax(logits, prior)
    n = 0
    vmax = 0
    for i in range(A):
        n += visits[i]
        if visits[i] > vmax:
            vmax = visits[i]
    for i in range(A):
        w[i] = max(prior[i], TINY) if visits[i] > 0 else 0.0
    wsum = _row_sum(w)
    for i in range(A):
        w[i] = w[i] * (discount[i] * value[i] if visits[i] > 0 else 0.0)
    weighted = _row_sum(w) / max(wsum, TINY)
    mixed = (raw_value + n * weighted) / (n + 1)
    lo, hi = np.inf, -np.inf
    for i in range(A):
        cq[i] = discount[i] * value[i] if visits[i] > 0 else mixed
        if legal[i]:
            lo = min(lo, cq[i])
            hi = max(hi, cq[i])
    if not np.isfinite(lo):
        lo = 0.0
    if not np.isfinite(hi):
        hi = 0.0
    scale = (maxvisit_init + vmax) * value_scale
    span = max(hi - lo, EPS)
    for i in range(A):
        cq[i] = scale * ((cq[i] - lo) / span)


@njit(cache=True)
def _gumbel_root(g, node, considered, gumbel, logits, legal, child_visits, child_value, child_discount,
                 raw_value, value_scale, maxvisit_init, prior, w, cq, score):
    """Sequential halving's action at a root (``rules.GumbelRoot``)."""
    visits = child_visits[g, node]
    _completed_q(raw_value[g, node], logits[g, node], child_discount[g, node], child_value[g, node], visits,
                 legal[g, node], value_scale, maxvisit_init, prior, w, cq)
    for i in range(visits.shape[0]):
        s = max(-1e9, gumbel[g, i] + logits[g, node, i] + cq[i])
        score[i] = s if legal[g, node, i] and visits[i] == considered else -np.inf
    return _argmax(score)


@njit(cache=True)
def _gumbel_interior(g, node, logits, legal, child_visits, child_value, child_discount, raw_value,
                     value_scale, maxvisit_init, prior, w, cq, score):
    """The deterministic interior rule's action (``rules.GumbelInterior``)."""
    visits = child_visits[g, node]
    row = logits[g, node]
    _completed_q(raw_value[g, node], row, child_discount[g, node], child_value[g, node], visits,
                 legal[g, node], value_scale, maxvisit_init, prior, w, cq)
    A = visits.shape[0]
    for i in range(A):
        score[i] = row[i] + cq[i]
    _softmax(score, prior)
    total = 0
    for i in range(A):
        total += visits[i]
    for i in range(A):
        score[i] = prior[i] - visits[i] / (1.0 + total) if legal[g, node, i] else -np.inf
    return _argmax(score)


@njit(cache=True)
def _puct(g, node, prior, legal, visits_of_node, value, child_visits, child_value, child_discount, c_init,
          c_base, score):
    """AlphaZero's PUCT action at a node (``formulas.puct_scores``, Q normalised over the node)."""
    A = child_visits.shape[2]
    N = float(visits_of_node[g, node])
    c = c_init if c_base <= 0 else c_init + math.log((N + c_base + 1.0) / c_base)
    v = value[g, node]
    smin, smax = np.inf, -np.inf
    for i in range(A):
        s = child_discount[g, node, i] * child_value[g, node, i] if child_visits[g, node, i] > 0 else v
        smin = min(smin, s)
        smax = max(smax, s)
    lo = min(v, smin)
    hi = max(v, smax)
    span = max(hi - lo, EPS)
    root_n = math.sqrt(N) * c
    for i in range(A):
        n = child_visits[g, node, i]
        explore = root_n * prior[i] / (n + 1.0)
        q = child_discount[g, node, i] * child_value[g, node, i] if n > 0 else lo
        score[i] = (q - lo) / span + explore if legal[g, node, i] else -np.inf
    return _argmax(score)


GUMBEL, PUCT = 0, 1  # the selection rules ``simulate`` walks by


@njit(cache=True)
def _choose(rule, g, node, depth, logits, legal, visits, value, raw_value, child_visits, child_value,
            child_discount, root_noise, num_considered, table, consts, prior, w, cq, score):
    """The action ``rule`` picks at ``node`` of game ``g``, ``depth`` plies below the root.

    ``GUMBEL``: ``_gumbel_root`` at the root (``root_noise``: the Gumbel noise), ``_gumbel_interior``
    below; ``consts`` = ``(value_scale, maxvisit_init)``. ``PUCT``: ``_puct`` everywhere, on the
    node's softmaxed logits or, at the root where ``consts[2]`` is set, on ``root_noise`` (the root
    prior); ``consts`` = ``(c_init, c_base, use_root_prior)``.
    """
    if rule == GUMBEL:
        if depth == 0:
            total = 0
            for i in range(child_visits.shape[2]):
                total += child_visits[g, node, i]
            return _gumbel_root(g, node, table[num_considered[g], total], root_noise, logits, legal,
                                child_visits, child_value, child_discount, raw_value, consts[0], consts[1],
                                prior, w, cq, score)
        return _gumbel_interior(g, node, logits, legal, child_visits, child_value, child_discount, raw_value,
                                consts[0], consts[1], prior, w, cq, score)
    if depth == 0 and consts[2] != 0.0:
        for i in range(prior.shape[0]):
            prior[i] = root_noise[g, i]
    else:
        _softmax(logits[g, node], prior)
    return _puct(g, node, prior, legal, visits, value, child_visits, child_value, child_discount, consts[0],
                 consts[1], score)


@njit(cache=True)
def simulate(rule, children, terminal, logits, legal, visits, value, raw_value, child_visits, child_value,
             child_discount, root_noise, num_considered, table, consts, parent, action, leaf):
    """Every game's walk from its root to a leaf under ``rule`` (``tree._simulate`` with the rules
    ``_choose`` names), written into ``parent``, ``action`` and ``leaf`` (``-1`` where none): a
    finished node is the leaf; else the walk stops at the first action without a child node."""
    B, _, A = children.shape
    prior = np.empty(A)
    w = np.empty(A)
    cq = np.empty(A)
    score = np.empty(A)
    for g in range(B):
        node = 0
        parent[g], action[g], leaf[g] = -1, -1, -1
        depth = 0
        while True:
            if terminal[g, node]:
                leaf[g] = node
                break
            a = _choose(rule, g, node, depth, logits, legal, visits, value, raw_value, child_visits,
                        child_value, child_discount, root_noise, num_considered, table, consts, prior, w, cq,
                        score)
            child = children[g, node, a]
            if child < 0:
                parent[g], action[g] = node, a
                break
            node = child
            depth += 1


@njit(cache=True)
def backward(leaf, new, parent, action_from_parent, child_discount, value, visits, child_value, child_visits):
    """Back each game's leaf value up to its root (``tree._backward``); a leaf other than the node ``new``
    just added is a finished game reached again, and its own visits count one more first."""
    for g in range(leaf.shape[0]):
        i = leaf[g]
        if i != new:
            visits[g, i] += 1
        v = value[g, i]
        while i != 0:
            p = parent[g, i]
            a = action_from_parent[g, i]
            val = child_discount[g, p, a] * v
            cnt = visits[g, p]
            value[g, p] = (value[g, p] * cnt + val) / (cnt + 1)
            visits[g, p] = cnt + 1
            child_value[g, p, a] = value[g, i]
            child_visits[g, p, a] += 1
            i, v = p, val


@njit(cache=True)
def record_nodes(games, new, parents, actions, logits, values, legal, done, same_mover, neg, t_logits,
                 t_legal, t_raw_value, t_value, t_visits, t_terminal, t_parent, t_action, t_children,
                 t_discount):
    """Write the evaluated node ``new`` of each of ``games`` into the trees and link it to its parent
    (``tree._set_nodes`` with ``formulas.masked_logits``, and ``tree._expand``'s links)."""
    A = logits.shape[1]
    for k in range(games.shape[0]):
        g, p, a = games[k], parents[k], actions[k]
        best = -np.inf
        for i in range(A):
            if legal[k, i] and logits[k, i] > best:
                best = logits[k, i]
        if not np.isfinite(best):
            best = 0.0
        for i in range(A):
            t_logits[g, new, i] = logits[k, i] - best if legal[k, i] else neg
            t_legal[g, new, i] = legal[k, i]
        t_raw_value[g, new] = values[k]
        t_value[g, new] = values[k]
        t_visits[g, new] = 1
        t_terminal[g, new] = done[k]
        t_parent[g, new] = p
        t_action[g, new] = a
        t_children[g, p, a] = new
        t_discount[g, p, a] = 1.0 if same_mover[k] else -1.0
