"""The Little-Go endgame benchmark (tests/data/littlego_endgames.npz) and its file format."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="the solver needs numba (the fast extra)")

from tictacgo.evaluation.sampling import game_states  # noqa: E402
from tictacgo.games import littlego as go  # noqa: E402
from tictacgo.solver import Solver, kernel_position  # noqa: E402
from tictacgo.solver.endgames import Endgame, label, load_endgames, save_endgames  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "littlego_endgames.npz"


@pytest.fixture(scope="module")
def benchmark():
    return load_endgames(DATA)


def test_the_benchmark_holds_10000_positions_near_the_end_with_its_recipe(benchmark):
    endgames, meta = benchmark
    assert len(endgames) == 10_000
    assert (meta["size"], meta["komi"], meta["max_actions"]) == (5, 2.5, 24)
    assert {e.left for e in endgames} == set(range(1, meta["recipe"]["max_left"] + 1))
    assert {e.state.to_move for e in endgames} == {go.BLACK, go.WHITE}
    assert {e.value for e in endgames} == {-1, 1}  # komi 2.5: no draws
    assert set(meta["recipe"]["agents"]) == {e.black for e in endgames} == {e.white for e in endgames}
    assert sum(e.decisive for e in endgames) > 1000
    # The rules' quirks are among the positions.
    assert any(kernel_position(e.state).ko >= 0 for e in endgames)
    assert any(e.state.last_pass for e in endgames)


def test_every_optimal_move_is_legal_and_a_lost_position_counts_every_move(benchmark):
    for e in benchmark[0]:
        legal = set(go.legal_actions(e.state))
        assert e.optimal and e.optimal <= legal
        if e.value < 0:
            assert e.optimal == legal


def test_stored_values_and_optimal_moves_match_a_fresh_solve(benchmark):
    endgames = benchmark[0]
    rng = np.random.default_rng(0)
    solver = Solver(18)
    decisive = [e for e in endgames if e.decisive]
    for e in [endgames[i] for i in rng.choice(len(endgames), 15, replace=False)] + decisive[:10]:
        assert label(e.state, solver) == (e.value, e.optimal)


def test_the_first_positions_come_back_from_their_seeded_games(benchmark):
    """Replayed from the recipe's seeds. The games with `aggressive` were played by its earlier rule
    (it now plays as the course's TA's player, move for move), so they no longer come back; the
    positions and their values stand as they are."""
    endgames, meta = benchmark
    replayable = [e for e in endgames if "aggressive" not in (e.black, e.white)]
    assert len(replayable) == 7028  # of 10,000: 2,972 came from games with aggressive
    for e in replayable[:4]:
        states = game_states(e.black, e.white, meta["recipe"]["seed"], e.game)
        assert states[e.state.t] == e.state


def test_a_benchmark_file_round_trips_and_a_foreign_file_is_refused(tmp_path, benchmark):
    some = benchmark[0][:20]
    path = tmp_path / "few.npz"
    save_endgames(path, some, {"note": "a test"})
    back, meta = load_endgames(path)
    assert back == some and meta["recipe"] == {"note": "a test"}
    np.savez(tmp_path / "other.npz", x=np.arange(3))
    with pytest.raises(ValueError, match="not an endgame benchmark"):
        load_endgames(tmp_path / "other.npz")
    three = go.LittleGo(3).initial_state()
    mixed = [some[0], Endgame(three, -1, frozenset(go.legal_actions(three)), "random", "random", 0)]
    with pytest.raises(ValueError, match="one variant"):
        save_endgames(tmp_path / "mixed.npz", mixed, {})
