"""The value-head check against exact values (``tictacgo.evaluation.value_check``).

Over the Little-Go endgame benchmark the sign of the raw value is compared
with the solver's exact value for the player to move.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from tictacgo.baselines.learning.alphazero.agent import shipped_model  # noqa: E402
from tictacgo.baselines.learning.alphazero.network import NetworkEvaluator, load_model  # noqa: E402
from tictacgo.evaluation.value_check import endgame_values, symmetry_spread  # noqa: E402
from tictacgo.games import LittleGo, TicTacToe  # noqa: E402
from tictacgo.games.base import Game  # noqa: E402
from tictacgo.solver.endgames import load_endgames  # noqa: E402

ENDGAMES = Path(__file__).resolve().parent / "data" / "littlego_endgames.npz"


class Preset:
    """An evaluator whose values are given in the benchmark's order."""

    def __init__(self, game: Game, values: np.ndarray):
        self.game, self.values = game, values

    def evaluate_planes(self, planes: np.ndarray):
        assert len(planes) == len(self.values)
        return np.zeros((len(planes), 26)), self.values


@pytest.fixture(scope="module")
def exact():
    endgames, _ = load_endgames(ENDGAMES)
    return (np.array([e.value for e in endgames], dtype=float),
            np.array([e.decisive for e in endgames]))


def test_exact_values_match_everywhere_and_their_negation_nowhere(exact):
    values, decisive = exact
    right = endgame_values(Preset(LittleGo(), 0.9 * values), ENDGAMES)
    assert right["sign_matches"] == right["sign_matches_decisive"] == 1.0
    assert right["mse"] == pytest.approx(0.01)
    assert right["positions"] == len(values)
    wrong = endgame_values(Preset(LittleGo(), -values), ENDGAMES)
    assert wrong["sign_matches"] == wrong["sign_matches_decisive"] == 0.0


def test_wrong_only_on_decisive_positions_counts_there(exact):
    values, decisive = exact
    r = endgame_values(Preset(LittleGo(), np.where(decisive, -values, values)),
                             ENDGAMES)
    assert r["sign_matches_decisive"] == 0.0
    assert r["sign_matches"] == pytest.approx(1 - decisive.mean())


def test_the_shipped_network_values_endgames_from_the_movers_view():
    """A value from the wrong player's view would match the solver in few positions, not most."""
    net, variant, _ = load_model(shipped_model("littlego"))
    r = endgame_values(NetworkEvaluator(net, variant), ENDGAMES)
    assert r["sign_matches"] > 0.8


def test_a_benchmark_of_another_variant_is_refused():
    with pytest.raises(ValueError, match=r"\(size, komi, limit\) \(5, 2.5, 24\), the network plays \(3,"):
        endgame_values(Preset(LittleGo(3), np.zeros(1)), ENDGAMES)


class Pointwise:
    """An evaluator that reads the board point by point: logits are the first plane's points (and 0 for
    PASS); the value is ``value(planes)``."""

    def __init__(self, game: Game, value):
        self.game, self.value = game, value

    def evaluate_planes(self, planes: np.ndarray):
        points = planes[:, 0].reshape(len(planes), -1)
        extra = np.zeros((len(planes), self.game.num_actions - points.shape[1]))
        return np.concatenate([points, extra], axis=1), self.value(planes)


def _planes(game: Game, count: int = 6) -> np.ndarray:
    rng = np.random.default_rng(0)
    out, state = [], game.initial_state()
    while len(out) < count:
        out.append(game.encoder.from_state(state))
        state = game.play(state, int(rng.choice(game.legal_actions(state))))
        if game.is_terminal(state):
            state = game.initial_state()
    return np.stack(out)


@pytest.mark.parametrize("game", [LittleGo(), TicTacToe()], ids=["littlego", "tictactoe"])
def test_a_network_that_commutes_with_the_symmetries_has_no_spread_and_one_that_does_not_has(game):
    planes = _planes(game)
    even = symmetry_spread(Pointwise(game, lambda p: p.sum(axis=(1, 2, 3))), planes)
    none = {"value_spread_mean": 0.0, "value_spread_max": 0.0, "policy_tv_to_mean": 0.0}
    assert even == pytest.approx(none, abs=1e-4)  # float32 sums in another order
    planes[:, 0] = 0.0
    planes[:, 0, 0, 0] = 1.0  # one own stone, in the top-left corner
    corner = symmetry_spread(Pointwise(game, lambda p: p[:, 0, 0, 0]), planes)
    assert corner["value_spread_max"] == 1.0  # some symmetries keep the stone in that corner, others not
