"""Ratings from game results: a maximum-likelihood Bradley-Terry fit on the Elo scale.

Model
-----
Each agent ``i`` has a strength ``gamma_i = exp(theta_i)``; ``i`` beats ``j``
with probability ``gamma_i / (gamma_i + gamma_j)``. A draw counts as half a
win for each side (its likelihood is that of half a win and half a loss).
Ratings are reported on the Elo scale, ``elo_i = 400 * log10(gamma_i)``, so a
difference of 400 means 10:1 odds (an expected score of about 0.91), and
they are anchored so that their mean is 0 (``anchor="mean"``) or the first
agent is at 0 (``anchor="first"``).

Fit
---
Ten steps of the minorization-maximization (MM) iteration of Hunter (2004,
"MM algorithms for generalized Bradley-Terry models"):

    gamma_i <- W_i / sum_j n_ij / (gamma_i + gamma_j)

with ``W_i`` the points of agent ``i`` and ``n_ij`` the games between ``i``
and ``j`` (prior terms added, below). MM increases the likelihood at every
step from any start but converges slowly near the optimum (thousands of
steps with lopsided records), so Newton's method on ``theta = log gamma``,
with step halving that never lets the objective decrease, finishes the fit
in a handful of steps. The objective is concave, so the optimum is global.

Perfect records and the prior
-----------------------------
An agent that won (or lost) every game has no finite maximum-likelihood
rating (it would run off to +-infinity), and agents in separate groups that
never met cannot be compared. So every agent is credited with ``prior``
(default 1) virtual game drawn against a fixed reference player of strength
1 (rating 0): half a virtual win and half a virtual loss. This is a weak
prior (a maximum a posteriori fit) that keeps every rating finite and
shrinks ratings of agents with few games slightly toward 0; with many games
its effect is negligible. ``prior=0`` gives the plain maximum-likelihood fit
(which may then not converge: ``Ratings.converged`` says so).

Uncertainty
-----------
Standard errors come from the observed Fisher information (the negative
Hessian of the log-likelihood, prior included) at the fit, in the natural-log
scale ``theta``:

    I_ii = sum_j n_ij p_ij (1 - p_ij) + prior * p_i0 (1 - p_i0),
    I_ij = -n_ij p_ij (1 - p_ij),

inverted (a pseudo-inverse when ``prior=0``) to a covariance, transformed to
the anchored ratings (``theta - mean(theta)`` or ``theta - theta_0``) and
scaled by ``400 / ln 10``. They are asymptotic (normal approximation): rough
with few games, and an agent's ``+-`` is relative to the anchor (with
``anchor="first"`` the first agent's error is 0 by construction).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tictacgo.atomic import atomic_write
from tictacgo.validate import check_choice, check_number

ELO_PER_NAT = 400.0 / math.log(10.0)


def expected_score(elo_diff: float) -> float:
    """The expected score of a player rated ``elo_diff`` points above its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo_diff / 400.0))


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings on the Elo scale, with standard errors.

    Attributes:
        names: one per agent.
        elo: the ratings (Elo scale, anchored).
        se: their standard errors (Elo points).
        points, games: per agent, points scored and games played (real games only).
        anchor: ``"mean"`` or ``"first"``.
        prior: virtual drawn games per agent against a rating-0 reference.
        iterations: Newton steps run.
        converged: whether the fit met its tolerance.
    """

    names: list[str]
    elo: np.ndarray
    se: np.ndarray
    points: np.ndarray
    games: np.ndarray
    anchor: str
    prior: float
    iterations: int
    converged: bool

    def order(self) -> list[int]:
        """Agent indices, best rated first."""
        return sorted(range(len(self.names)), key=lambda i: -self.elo[i])

    def table(self) -> str:
        """Rank, agent, rating +- standard error, 95% interval, score and games."""
        width = max(8, *(len(n) for n in self.names)) + 2
        anchor = "mean" if self.anchor == "mean" else self.names[0]
        rows = [(f"Bradley-Terry ratings, Elo scale ({anchor} = 0); +- is one standard error "
                "(Fisher information)"),
                f"prior: {self.prior:g} virtual draw(s) per agent against a rating-0 reference",
                (f"{'rank':>4s}  {'agent':<{width}s}{'rating':>8s}{'+-':>7s}{'95% interval':>18s}"
                 f"{'score':>8s}{'games':>7s}")]
        for rank, i in enumerate(self.order(), 1):
            lo, hi = self.elo[i] - 1.96 * self.se[i], self.elo[i] + 1.96 * self.se[i]
            score = self.points[i] / self.games[i] if self.games[i] else float("nan")
            rows.append(f"{rank:4d}  {self.names[i]:<{width}s}{self.elo[i]:8.0f}{self.se[i]:7.0f}"
                        f"{f'[{lo:.0f}, {hi:.0f}]':>18s}{score:8.3f}{int(self.games[i]):7d}")
        if not self.converged:
            rows.append(f"warning: the fit did not converge in {self.iterations} iterations")
        return "\n".join(rows)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "model": "bradley-terry", "scale": "elo (400 * log10)", "anchor": self.anchor,
            "prior_virtual_draws": self.prior, "uncertainty": "fisher information standard errors",
            "iterations": self.iterations, "converged": self.converged,
            "agents": [{"name": n, "elo": float(e), "se": float(s), "points": float(p), "games": int(g)}
                       for n, e, s, p, g in zip(self.names, self.elo, self.se, self.points, self.games,
                                                strict=True)],
        }


def fit_bradley_terry(points, games, names: Sequence[str] | None = None, prior: float = 1.0,
                      anchor: str = "mean", tol: float = 1e-9, max_iter: int = 200) -> Ratings:
    """Fit Bradley-Terry strengths to pairwise results (see the module docstring).

    Args:
        points: k x k, ``points[i][j]`` = points agent i scored against j (win 1, draw 1/2).
        games: k x k symmetric, ``games[i][j]`` = games between i and j (diagonal 0).
        names: agent names (default ``"0"``, ``"1"``, ...).
        prior: virtual drawn games per agent against a rating-0 reference (>= 0).
        anchor: ``"mean"`` (ratings average 0) or ``"first"`` (agent 0 at 0).
        tol: stop when no log-strength moves more than this in a Newton step.
        max_iter: the most Newton steps.

    Returns:
        The ``Ratings``.

    Raises:
        ValueError: shapes or values that are not results (nan or inf, negative,
            points exceeding games, games not symmetric) or a bad option.
    """
    W = np.asarray(points, dtype=float)
    N = np.asarray(games, dtype=float)
    k = W.shape[0] if W.ndim == 2 else -1
    if W.ndim != 2 or W.shape != (k, k) or N.shape != (k, k) or k < 1:
        raise ValueError(f"points and games must be square matrices of one size, got {W.shape} and {N.shape}")
    names = [str(i) for i in range(k)] if names is None else [str(n) for n in names]
    if len(names) != k:
        raise ValueError(f"{len(names)} names for {k} agents")
    check_choice("anchor", anchor, ("mean", "first"))
    check_number("prior", prior, min=0)
    if not (np.isfinite(W).all() and np.isfinite(N).all()):
        raise ValueError("points and games must be finite numbers (no nan or inf)")
    if (W < 0).any() or (N < 0).any() or not np.allclose(N, N.T) or np.diag(N).any():
        raise ValueError("games must be symmetric with a zero diagonal, and points and games non-negative")
    if not np.allclose(W + W.T, N):
        raise ValueError("points[i][j] + points[j][i] must equal games[i][j] (a draw gives 1/2 to each)")

    theta, iterations, converged = _fit_theta(W, N, prior, tol, max_iter)

    # Observed Fisher information in theta.
    info = _information(theta, N, prior)
    cov = np.linalg.pinv(info) if prior == 0 else np.linalg.inv(info)
    if anchor == "mean":
        T = np.eye(k) - np.full((k, k), 1.0 / k)
    else:
        T = np.eye(k)
        T[:, 0] -= 1.0
    theta_a = T @ theta
    var = np.clip(np.diag(T @ cov @ T.T), 0.0, None)
    return Ratings(names, ELO_PER_NAT * theta_a, ELO_PER_NAT * np.sqrt(var), W.sum(axis=1), N.sum(axis=1),
                   anchor, float(prior), iterations, converged)


def _information(theta: np.ndarray, N: np.ndarray, prior: float) -> np.ndarray:
    """The negative Hessian of the log-posterior in theta (the observed Fisher information)."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    v = N * p * (1 - p)
    info = -v
    q = 1.0 / (1.0 + np.exp(-theta))  # vs the rating-0 reference
    np.fill_diagonal(info, v.sum(axis=1) - np.diag(v) + prior * q * (1 - q))
    return info


def _fit_theta(W: np.ndarray, N: np.ndarray, prior: float, tol: float, max_iter: int
               ) -> tuple[np.ndarray, int, bool]:
    """Maximize the log-posterior: a few MM steps, then damped Newton steps."""
    k = W.shape[0]
    wins = W.sum(axis=1) + prior / 2

    def log_post(theta: np.ndarray) -> float:
        pair = np.logaddexp(theta[:, None], theta[None, :])
        return float(wins @ theta - 0.5 * (N * pair).sum() - prior * np.logaddexp(theta, 0.0).sum())

    def centre(theta: np.ndarray) -> np.ndarray:
        # Without a prior only differences are defined: keep the mean at 0.
        return theta - theta.mean() if prior == 0 else theta

    # MM (Hunter 2004): monotone and safe from any start; it gets close quickly
    # but crawls at the end, which Newton's method then finishes.
    gamma = np.ones(k)
    for _ in range(10):
        denom = (N / (gamma[:, None] + gamma[None, :])).sum(axis=1) + prior / (gamma + 1.0)
        gamma = np.where(denom > 0, np.maximum(wins, 1e-300) / np.where(denom > 0, denom, 1), 1.0)
    theta = centre(np.log(gamma))
    current = log_post(theta)
    for it in range(1, max_iter + 1):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        grad = wins - (N * p).sum(axis=1) - prior / (1.0 + np.exp(-theta))
        info = _information(theta, N, prior)
        step = centre(np.linalg.pinv(info) @ grad) if prior == 0 else np.linalg.solve(info, grad)
        t = 1.0
        while t > 1e-8:
            trial = centre(theta + t * step)
            value = log_post(trial)
            if value >= current - 1e-12 * abs(current):
                break
            t /= 2
        theta, current = trial, value
        if np.max(np.abs(t * step)) < tol:
            return theta, it, True
    return theta, max_iter, False


def ratings_from_results(results: Iterable[tuple[str, str, float]], names: Sequence[str] | None = None,
                         **kw) -> Ratings:
    """Fit ratings to a list of games ``(agent, opponent, agent's score in {0, 0.5, 1})``.

    Args:
        results: one triple per game.
        names: the agents in the order wanted (default: order of first appearance).
        **kw: passed to ``fit_bradley_terry`` (prior, anchor, ...).

    Returns:
        The ``Ratings``.
    """
    results = list(results)
    if names is None:
        names = list(dict.fromkeys(n for a, b, _ in results for n in (a, b)))
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    W, N = np.zeros((k, k)), np.zeros((k, k))
    for a, b, s in results:
        if a not in index or b not in index or a == b:
            raise ValueError(f"bad game {(a, b, s)!r}: both agents must be among {list(names)} and differ")
        if not 0 <= s <= 1:
            raise ValueError(f"a game's score must be in [0, 1], got {s!r}")
        i, j = index[a], index[b]
        W[i, j] += s
        W[j, i] += 1 - s
        N[i, j] += 1
        N[j, i] += 1
    return fit_bradley_terry(W, N, names=names, **kw)


def plot_ratings(ratings: Ratings, path: str | os.PathLike, title: str = "") -> None:
    """Draw the ratings with 95% error bars (1.96 standard errors) to an image file.

    Args:
        ratings: from ``fit_bradley_terry``.
        path: the image file (``.png``, ``.pdf``, ``.svg``, ...).
        title: the figure title.

    Raises:
        ImportError: matplotlib is not installed (``pip install 'tictacgo[plot]'``).
    """
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError("plotting needs matplotlib: pip install 'tictacgo[plot]'") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = ratings.order()[::-1]  # best at the top
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(order) + 1.5))
    y = np.arange(len(order))
    ax.errorbar([ratings.elo[i] for i in order], y, xerr=[1.96 * ratings.se[i] for i in order],
                fmt="o", capsize=4)
    ax.set_yticks(y, [ratings.names[i] for i in order])
    ax.set_xlabel("rating (Elo scale), bars: 95% interval")
    ax.axvline(0, color="grey", linewidth=0.5)
    ax.set_title(title or "Bradley-Terry ratings")
    fig.tight_layout()
    # Like the results files: a temporary file renamed over the target, never half an image.
    path = os.fspath(path)
    fmt = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    try:
        atomic_write(path, lambda f: fig.savefig(f, format=fmt), binary=True)
    finally:
        plt.close(fig)
