"""Bradley-Terry ratings on the Elo scale."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from tictacgo.arena import ratings
from tictacgo.cli import main


def _simulate(true_elo, games_per_pair, seed, draw_rate=0.0):
    """Points and games matrices from the Bradley-Terry model with known strengths."""
    rng = np.random.default_rng(seed)
    k = len(true_elo)
    W, N = np.zeros((k, k)), np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p = ratings.expected_score(true_elo[i] - true_elo[j])
            for _ in range(games_per_pair):
                s = 0.5 if rng.random() < draw_rate else float(rng.random() < p)
                W[i, j] += s
                W[j, i] += 1 - s
            N[i, j] = N[j, i] = games_per_pair
    return W, N


def test_fit_recovers_known_strengths():
    true = np.array([-300.0, 0.0, 150.0, 450.0])
    W, N = _simulate(true, games_per_pair=200, seed=0)
    r = ratings.fit_bradley_terry(W, N, names=["a", "b", "c", "d"])
    assert r.converged
    assert r.order() == [3, 2, 1, 0]
    centred = true - true.mean()
    # Within 3 standard errors (plus a little for the prior's pull toward 0).
    assert np.all(np.abs(r.elo - centred) < 3 * r.se + 10)
    assert abs(r.elo.mean()) < 1e-6


def test_fit_recovers_the_order_with_draws():
    # Random draws pull every score toward 1/2, so only the order is recovered.
    W, N = _simulate([-200.0, 0.0, 100.0, 300.0], games_per_pair=200, seed=1, draw_rate=0.3)
    assert ratings.fit_bradley_terry(W, N).order() == [3, 2, 1, 0]


def test_plain_maximum_likelihood_matches_the_closed_form_for_two_agents():
    # 7 of 10: gamma_0 / gamma_1 = 7 / 3.
    W = np.array([[0, 7], [3, 0]])
    N = np.array([[0, 10], [10, 0]])
    r = ratings.fit_bradley_terry(W, N, prior=0, anchor="first")
    assert r.elo[0] == 0 and r.se[0] == 0
    assert r.elo[1] == pytest.approx(-400 * math.log10(7 / 3), abs=1e-6)
    # Fisher information of the difference: n p (1 - p).
    assert r.se[1] == pytest.approx(ratings.ELO_PER_NAT / math.sqrt(10 * 0.7 * 0.3), rel=1e-6)


def test_perfect_record_gives_finite_ratings():
    W = np.array([[0, 10, 10], [0, 0, 5], [0, 5, 0]])
    N = np.array([[0, 10, 10], [10, 0, 10], [10, 10, 0]])
    r = ratings.fit_bradley_terry(W, N)
    assert r.converged
    assert np.isfinite(r.elo).all() and np.isfinite(r.se).all()
    assert r.order()[0] == 0 and r.elo[0] > r.elo[1] + 200
    assert r.elo[1] == pytest.approx(r.elo[2])


def test_draws_count_as_half_wins():
    from_draws = ratings.ratings_from_results([("a", "b", 0.5)] * 4 + [("a", "c", 1.0)] * 2
                                              + [("b", "c", 0.5)] * 2 + [("c", "b", 1.0)] * 1
                                              + [("c", "b", 0.0)] * 1)
    assert from_draws.names == ["a", "b", "c"]
    assert from_draws.games.tolist() == [6, 8, 6]
    even = ratings.ratings_from_results([("x", "y", 0.5)] * 6)
    assert even.elo[0] == pytest.approx(even.elo[1]) == pytest.approx(0)


def test_standard_errors_shrink_with_more_games():
    true = [0.0, 200.0]
    few = ratings.fit_bradley_terry(*_simulate(true, 20, seed=1))
    many = ratings.fit_bradley_terry(*_simulate(true, 2000, seed=1))
    assert many.se[0] < few.se[0] / 5


def test_bad_results_are_refused():
    with pytest.raises(ValueError, match="square"):
        ratings.fit_bradley_terry([[0, 1]], [[0, 1]])
    with pytest.raises(ValueError, match="must equal"):
        ratings.fit_bradley_terry([[0, 3], [3, 0]], [[0, 4], [4, 0]])
    with pytest.raises(ValueError, match="anchor"):
        ratings.fit_bradley_terry([[0, 1], [0, 0]], [[0, 1], [1, 0]], anchor="median")
    with pytest.raises(ValueError, match="score"):
        ratings.ratings_from_results([("a", "b", 2.0)])


def test_table_and_json_list_every_agent():
    r = ratings.fit_bradley_terry(*_simulate([0, 100, 200], 10, seed=2), names=["p", "q", "r"])
    text = r.table()
    assert all(n in text for n in "pqr") and "+-" in text
    assert [a["name"] for a in r.to_json()["agents"]] == ["p", "q", "r"]


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is not None, reason="matplotlib is installed")
def test_plot_without_matplotlib_says_what_to_install(tmp_path, capsys):
    r = ratings.fit_bradley_terry(*_simulate([0, 100], 10, seed=3))
    with pytest.raises(ImportError, match=r"tictacgo\[plot\]"):
        ratings.plot_ratings(r, tmp_path / "r.png")
    rc = main(["arena", "ttt", "--round-robin", "random", "minimax", "--games", "2", "--no-progress",
               "--plot", str(tmp_path / "r.png")])
    assert rc == 2 and "tictacgo[plot]" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs matplotlib")
def test_plot_writes_an_image(tmp_path):
    r = ratings.fit_bradley_terry(*_simulate([0, 100, 300], 10, seed=3))
    ratings.plot_ratings(r, tmp_path / "r.png")
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs matplotlib")
def test_a_failed_plot_keeps_the_old_image(tmp_path, monkeypatch):
    import matplotlib.figure

    r = ratings.fit_bradley_terry(*_simulate([0, 100], 10, seed=3))
    path = tmp_path / "r.png"
    ratings.plot_ratings(r, path)
    before = path.read_bytes()

    def broken_savefig(self, f, **kw):
        f.write(b"\x89PN")  # half an image, then the disk fills up
        raise OSError("no space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", broken_savefig)
    with pytest.raises(OSError, match="no space"):
        ratings.plot_ratings(r, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["r.png"]


@pytest.mark.parametrize("bad", [math.inf, math.nan])
def test_results_that_are_not_finite_numbers_are_refused(bad):
    points = [[0, bad], [bad, 0]]
    with pytest.raises(ValueError, match="finite"):
        ratings.fit_bradley_terry(points, points)


@pytest.mark.parametrize("z", [math.inf, math.nan, 0.0, -1.96])
def test_score_intervals_refuse_a_quantile_that_is_not_finite_and_positive(z):
    from tictacgo.arena.stats import score_interval, wilson_interval

    with pytest.raises(ValueError, match="z must be a finite positive number"):
        score_interval(3, 1, 2, z=z)
    with pytest.raises(ValueError, match="z must be a finite positive number"):
        wilson_interval(3, 6, z=z)
