"""The solver's public entry points refuse what they cannot answer: impossible hand-built states,
boards it cannot hold, and (in one line naming the extra) a missing numba."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tictacgo.games import littlego as go

GO = go.LittleGo()
START = GO.initial_state()
AFTER_C3 = GO.play(START, 12)

IMPOSSIBLE = {
    "to_move 3": (START._replace(to_move=3), "state.to_move must be 1 (Black) or 2 (White), got 3"),
    "Black and White on one point": (AFTER_C3._replace(white=1 << 12, prev_white=1 << 12),
                                     "Black and White stones on the same points [12]"),
    "stones off the board": (START._replace(black=1 << 25, prev_black=1 << 25),
                             "are not bits of the 5x5 board"),
    "negative stones": (START._replace(white=-1, prev_white=-1), "are not bits of the 5x5 board"),
    "t past the action limit": (START._replace(t=GO.max_actions + 5), "state.t must be in [0, 24]"),
    "t far past the action limit": (START._replace(t=10**6), "state.t must be in [0, 24]"),
    "negative t": (START._replace(t=-1), "state.t must be in [0, 24]"),
}


def _solver():
    pytest.importorskip("numba", reason="the solver needs numba (the fast extra)")
    from tictacgo import solver

    return solver


@pytest.mark.parametrize("case", IMPOSSIBLE)
def test_the_solvers_entry_points_refuse_an_impossible_state_naming_the_field(case):
    solver = _solver()
    state, expected = IMPOSSIBLE[case]
    for entry in (solver.solve, solver.move_values, solver.position_key, solver.kernel_position,
                  solver.Solver(8).solve, solver.Solver(8).move_values):
        with pytest.raises(ValueError) as info:
            entry(state)
        assert "the solver takes a position that legal play reaches" in str(info.value), entry
        assert expected in str(info.value), entry


def test_a_state_with_a_field_of_the_wrong_type_is_a_type_error():
    solver = _solver()
    with pytest.raises(TypeError, match="state.to_move must be an int"):
        solver.solve(START._replace(to_move=1.0))
    with pytest.raises(TypeError, match="GoState"):
        solver.solve(np.zeros((5, 5)))


def test_margin_must_be_true_or_false():
    solver = _solver()
    for entry in (solver.solve, solver.move_values):
        with pytest.raises(TypeError, match="margin must be True or False, got 'yes'"):
            entry(AFTER_C3, budget_nodes=10, margin="yes")


def test_possible_states_are_still_solved():
    solver = _solver()
    state = GO.from_boards([[1, 1, 1, 1, 0], [2, 2, 2, 2, 2], [1, 1, 1, 1, 1], [2, 2, 2, 2, 0],
                            [1, 1, 1, 1, 0]], 2)  # legal play reaches it (the check accepts it)
    go.check_state(state)
    assert solver.solve(state).known
    assert set(solver.move_values(state)) == set(go.legal_actions(state))


def test_the_solver_agent_refuses_a_board_larger_than_it_can_hold_when_built():
    _solver()
    from tictacgo.baselines import make_agent

    with pytest.raises(ValueError, match="the solver handles boards up to 7x7, got 9x9"):
        make_agent("solver:fallback=random", go.LittleGo(9))
    assert make_agent("solver:fallback=random", go.LittleGo(7)).game == go.LittleGo(7)


def _without(module: str, argv: list[str]) -> subprocess.CompletedProcess:
    """``tictacgo ARGV`` in a process where ``module`` cannot be imported."""
    code = (f"import sys; sys.modules[{module!r}] = None\n"
            "from tictacgo.cli import main\n"
            f"sys.exit(main({argv!r}))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("module", ["numba", "llvmlite"])
def test_the_solver_without_numba_exits_2_in_one_line_naming_the_extra(module):
    proc = _without(module, ["arena", "littlego", "solver", "random", "--games", "2", "--no-progress"])
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "the solver needs numba: pip install 'tictacgo[fast]'" in proc.stderr


def test_the_gtp_engine_with_the_solver_and_no_numba_exits_2_in_one_line():
    proc = _without("numba", ["gtp", "--agent", "solver"])
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("tictacgo gtp: ") and proc.stderr.count("\n") == 1
    assert "the solver needs numba: pip install 'tictacgo[fast]'" in proc.stderr


def test_importing_the_solver_without_numba_says_which_extra_brings_it():
    code = ("import sys; sys.modules['numba'] = None\n"
            "try:\n    import tictacgo.solver\n"
            "except ImportError as e:\n    print(type(e).__name__, e)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.startswith("MissingExtraError the solver needs numba: pip install 'tictacgo[fast]'")


def _benchmark_copy(tmp_path, **changes):
    """The shipped endgame benchmark's first positions saved again, with some arrays replaced."""
    _solver()
    from tictacgo.solver.endgames import load_endgames

    with np.load("tests/data/littlego_endgames.npz", allow_pickle=False) as data:
        arrays = {k: data[k][:5] if k != "meta" else data[k] for k in data.files}
    arrays.update(changes)
    path = tmp_path / "bench.npz"
    np.savez(path, **arrays)
    return load_endgames, path


@pytest.mark.parametrize("change, message", [
    ({"to_move": np.array([3, 1, 1, 1, 1])}, "position 0 is not one that legal play reaches: state.to_move"),
    ({"t": np.array([10**6] * 5)}, "position 0 is not one that legal play reaches: state.t"),
    ({"white": np.array([1 << 40] * 5)}, "position 0 is not one that legal play reaches"),
    ({"value": np.array([1, 1])}, "its columns differ in length"),
    ({"meta": np.array("{not json")}, "JSONDecodeError"),
    ({"meta": np.array("[1, 2]")}, "format"),
])
def test_a_damaged_endgame_benchmark_is_one_value_error_naming_the_file(tmp_path, change, message):
    load_endgames, path = _benchmark_copy(tmp_path, **change)
    with pytest.raises(ValueError, match="bench.npz is not an endgame benchmark file") as info:
        load_endgames(path)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_an_endgame_benchmark_that_unpacks_too_large_is_refused_before_its_arrays_are_read(tmp_path,
                                                                                           monkeypatch):
    load_endgames, path = _benchmark_copy(tmp_path)
    from tictacgo.solver import endgames

    monkeypatch.setattr(endgames, "MAX_UNPACKED_BYTES", 1 << 20)
    big = tmp_path / "big.npz"
    np.savez_compressed(big, meta=np.load(path)["meta"], pad=np.zeros(4 << 20, dtype=np.uint8))
    assert big.stat().st_size < 64 << 10  # zeros compress: a small file, 4 MiB unpacked
    with pytest.raises(ValueError, match=r"its arrays unpack to 41\d{5} bytes, over 1048576"):
        load_endgames(big)
    with pytest.raises(ValueError, match="not a regular file"):
        load_endgames(tmp_path)
    assert len(load_endgames(path)[0]) == 5


def test_check_false_skips_only_the_legal_play_check_and_solves_alike():
    solver = _solver()
    s = solver.Solver(16)
    state = GO.from_boards([[1, 1, 1, 1, 0], [2, 2, 2, 2, 2], [1, 1, 1, 1, 1], [2, 2, 2, 2, 0],
                            [1, 1, 1, 1, 0]], 2)
    checked, unchecked = s.solve(state), solver.Solver(16).solve(state, check=False)
    assert (checked.value, checked.best_move) == (unchecked.value, unchecked.best_move)
    with pytest.raises(ValueError, match="Black and White stones on the same points"):  # still read
        s.solve(IMPOSSIBLE["Black and White on one point"][0], check=False)
    with pytest.raises(TypeError, match="check must be True or False, got 0"):
        s.solve(state, check=0)
