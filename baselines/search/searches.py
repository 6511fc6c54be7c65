"""The searches an agent or self-play runs: Gumbel MuZero's and AlphaZero's, over the one tree.

Both are ``run_search`` (``tictacgo.baselines.search.tree``) with rules of
``tictacgo.baselines.search.rules`` passed in; they differ only in those
rules, their root noise and how they act on the result:

* ``gumbel_search``: Gumbel MuZero ("Policy improvement by planning with
  Gumbel", Danihelka et al., 2022). At the root, Gumbel-top-k sampling of
  ``max_considered`` actions and sequential halving among them; inside the
  tree, the deterministic rule that matches visit counts to
  ``softmax(logits + sigma(completed Q))``. The policy target is that
  improved policy at the root, which improves on the prior even with 8 to 32
  simulations. ``gumbel_scale=0`` plays to win (no exploration noise).
* ``puct_search``: AlphaZero's PUCT with Dirichlet noise on the root prior;
  the policy target is the root's visit distribution.

``SEARCHES`` names them for settings files and the command line; code passes
the function itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tictacgo.baselines.search.formulas import NEG, gumbel_root_scores, masked_logits, softmax
from tictacgo.baselines.search.rules import (
    ConsideredTable,
    GumbelInterior,
    GumbelRoot,
    Puct,
    dirichlet_noise,
    gumbel_noise,
)
from tictacgo.baselines.search.tree import Evaluator, Tree, clone_engine, evaluate_games, run_search
from tictacgo.games.batched_common import BatchedGame


@dataclass
class SearchOutput:
    """What a search gives for each game (arrays over the B games).

    Attributes:
        action: the action to play.
        policy: the training target over all actions: Gumbel's improved policy,
            or PUCT's visit distribution.
        visits: the root's child visit counts.
        prior: the evaluator's prior at the root (legal actions only).
        root_value: the root's backed-up value from the mover's view.
        raw_value: the evaluator's value of the root.
        q: the root's Q per action from the mover's view (0 where unvisited).
        legal: the root's legal actions.
        simulations: simulations run (fewer than asked when a deadline stopped them).
        greedy: the action once a game's exploring moves are over: the most
            visited for PUCT (whose ``action`` samples the visits), ``action``
            for Gumbel (whose noise is its exploration).
        tree: the search's trees, where it was asked to keep them (``keep_tree``), else None.
    """

    action: np.ndarray
    policy: np.ndarray
    visits: np.ndarray
    prior: np.ndarray
    root_value: np.ndarray
    raw_value: np.ndarray
    q: np.ndarray
    legal: np.ndarray
    simulations: int
    greedy: np.ndarray
    tree: Tree | None = None




def _output(tree: Tree, action: np.ndarray, policy: np.ndarray,
            greedy: np.ndarray | None = None) -> SearchOutput:
    games = np.arange(tree.batch_size)
    action = action.astype(np.int64)
    return SearchOutput(action=action, policy=policy, visits=tree.child_visits[:, 0].copy(),
                        prior=softmax(tree.logits[:, 0]), root_value=tree.value[:, 0].copy(),
                        raw_value=tree.raw_value[:, 0].copy(), q=tree.q(games, 0),
                        legal=tree.legal[:, 0].copy(), simulations=tree.simulations,
                        greedy=action if greedy is None else greedy.astype(np.int64))


def _check_positive(name: str, value, integer: bool = False) -> None:
    kind = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(value, bool) or not isinstance(value, kind) or not value > 0:
        raise ValueError(f"{name} must be a positive {'int' if integer else 'number'}, got {value!r}")


def gumbel_search(roots: BatchedGame, evaluate: Evaluator, num_simulations: int, rng: np.random.Generator,
                  max_considered: int = 16, gumbel_scale: float = 1.0, value_scale: float = 0.1,
                  maxvisit_init: float = 50.0, deadline: float | None = None) -> SearchOutput:
    """Gumbel MuZero's search from every game of ``roots``.

    Args:
        roots: a batched engine of live games (left unchanged).
        evaluate: the leaf evaluator.
        num_simulations: simulations per game; 0 plays ``argmax(gumbel + logits)``.
        rng: draws the Gumbel noise.
        max_considered: actions sampled at the root (Gumbel-top-k).
        gumbel_scale: 1 for self-play, 0 to play the best move.
        value_scale: the ``sigma`` transform of Q multiplies it by
            ``(maxvisit_init + max visits) * value_scale`` (``completed_q``).
        maxvisit_init: see ``value_scale``.
        deadline: a ``time.perf_counter()`` time after which no simulation starts.
    Returns:
        ``SearchOutput``: ``action`` is the best considered action by
        ``gumbel + logits + sigma(Q)`` among the most visited; ``policy`` is
        ``softmax(logits + sigma(completed Q))`` over the legal actions.
    """
    _check_positive("max_considered", max_considered, integer=True)
    if not gumbel_scale >= 0:
        raise ValueError(f"gumbel_scale must be >= 0, got {gumbel_scale!r}")
    B, A = roots.batch_size, roots.num_actions
    legal = roots.legal_mask()
    gumbel = gumbel_noise(rng, (B, A), gumbel_scale)
    table = ConsideredTable(max_considered, num_simulations, A)
    root = GumbelRoot(gumbel, np.minimum(max_considered, legal.sum(-1)), table, value_scale, maxvisit_init)
    interior = GumbelInterior(value_scale, maxvisit_init)
    tree = run_search(roots, evaluate, num_simulations, root, interior, deadline)
    games = np.arange(B)
    visits = tree.child_visits[:, 0]
    cq = tree.completed_q(games, 0, value_scale, maxvisit_init)
    logits = tree.logits[:, 0]
    scores = gumbel_root_scores(visits.max(-1), gumbel, logits, cq, visits, tree.legal[:, 0])
    policy = softmax(np.where(tree.legal[:, 0], logits + cq, NEG))
    return _output(tree, scores.argmax(-1), policy)


def puct_search(roots: BatchedGame, evaluate: Evaluator, num_simulations: int, rng: np.random.Generator,
                dirichlet_fraction: float = 0.25, dirichlet_alpha: float = 0.3, c_init: float = 1.25,
                c_base: float = 19652.0, temperature: float = 1.0, deadline: float | None = None,
                reuse: Tree | None = None, keep_tree: bool = False) -> SearchOutput:
    """AlphaZero's search (PUCT, Dirichlet noise at the root) from every game of ``roots``.

    Args:
        roots: a batched engine of live games (left unchanged).
        evaluate: the leaf evaluator.
        num_simulations: simulations per game; 0 acts on the prior.
        rng: draws the Dirichlet noise and the action.
        dirichlet_fraction: the noise's share of the root prior (0: none).
        dirichlet_alpha: the noise's concentration.
        c_init: the PUCT exploration constant with few visits.
        c_base: its growth: it rises by ``log 2`` by ``c_base`` visits of the parent.
        temperature: act in proportion to ``visits ** (1 / temperature)``; 0 plays the most visited.
        deadline: a ``time.perf_counter()`` time after which no simulation starts.
        reuse: the roots' trees kept from the last search (``Tree.subtree``): their visits count, and
            their roots' evaluations stand (see ``run_search``).
        keep_tree: return the trees in ``SearchOutput.tree``.
    Returns:
        ``SearchOutput``; ``policy`` is the visit distribution (the prior with no simulation).
    """
    if not 0 <= dirichlet_fraction <= 1:
        raise ValueError(f"dirichlet_fraction must be in [0, 1], got {dirichlet_fraction!r}")
    if not temperature >= 0:
        raise ValueError(f"temperature must be >= 0, got {temperature!r}")
    B = roots.batch_size
    legal = roots.legal_mask()
    if reuse is None:
        scratch = clone_engine(roots)
        logits, values, _ = evaluate_games(scratch, evaluate, np.arange(B), legal)
    else:
        logits, values = reuse.logits[:, 0], reuse.raw_value[:, 0]
    prior = softmax(masked_logits(logits, legal))
    if dirichlet_fraction > 0:
        _check_positive("dirichlet_alpha", dirichlet_alpha)
        prior = (1 - dirichlet_fraction) * prior + dirichlet_fraction * dirichlet_noise(rng, legal,
                                                                                        dirichlet_alpha)
    rule = Puct(c_init, c_base, root_prior=prior)
    tree = run_search(roots, evaluate, num_simulations, rule, Puct(c_init, c_base), deadline,
                      root_eval=(logits, values, legal), reuse=reuse)
    visits = tree.child_visits[:, 0].astype(np.float64)
    total = visits.sum(-1, keepdims=True)
    policy = np.where(total > 0, visits / np.maximum(total, 1), prior)
    if temperature == 0:
        action = np.where(legal, policy, -np.inf).argmax(-1)
    else:
        w = np.where(legal, policy, 0.0) ** (1.0 / temperature)
        w = w / w.sum(-1, keepdims=True)
        u = rng.random((B, 1))
        action = np.minimum((w.cumsum(-1) < u).sum(-1), w.shape[1] - 1)
        action = np.where(legal[np.arange(B), action], action, np.where(legal, w, -1).argmax(-1))
    out = _output(tree, action, policy)
    out.greedy = np.where(out.legal, out.visits + out.prior * 1e-3, -np.inf).argmax(-1)
    out.tree = tree if keep_tree else None
    return out


#: The searches by the names settings and the command line give them.
SEARCHES = {"gumbel": gumbel_search, "puct": puct_search}
