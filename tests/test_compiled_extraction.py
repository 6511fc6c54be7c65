"""The compiled walk of a certificate's strategies writes the very rows of the Python walk.

``prove(..., compiled=True)`` (the default on boards up to 5x5) walks the
strategies in numba; ``compiled=False`` walks them in Python over the rules
core. Both ask a fresh solver the same questions in the same order, so their
tables must agree row for row, settled rows and moves included.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="the compiled walk needs numba (the fast extra)")

from positions import endgame  # noqa: E402

from tictacgo.games import littlego  # noqa: E402
from tictacgo.proof import compiled_extraction, proof_file  # noqa: E402
from tictacgo.proof.certificate import prove  # noqa: E402
from tictacgo.proof.checker import FORMAT, SETTLED, verify  # noqa: E402
from tictacgo.proof.compiled_extraction import ProofExtractionError  # noqa: E402
from tictacgo.proof.position_code import canonical, code_of, symmetries  # noqa: E402
from tictacgo.solver import Solver  # noqa: E402


def _rows(cert) -> dict:
    return {name: dict(table) for name, table in cert.strategies.items()}


POSITIONS = [("2x2 empty board", lambda: littlego.LittleGo(2).initial_state()),
             ("3x3 empty board", lambda: littlego.LittleGo(3).initial_state()),
             ("3x3 endgame", lambda: endgame(3, 3, 11)),
             ("4x4 endgame", lambda: endgame(4, 8, 1)),
             ("5x5 endgame, 8 to go", lambda: endgame(5, 16, 2)),
             ("5x5 endgame, 11 to go", lambda: endgame(5, 13, 5))]


@pytest.mark.parametrize("prefer_known", [False, True], ids=["solver's moves", "known moves first"])
@pytest.mark.parametrize("rules", [("pass_bound",), ()], ids=["pass bound", "no leaf rule"])
@pytest.mark.parametrize("name,make", POSITIONS, ids=[p[0] for p in POSITIONS])
def test_the_compiled_walk_writes_the_rows_of_the_python_walk(name, make, rules, prefer_known):
    state = make()
    python = prove(state, Solver(18), leaf_rules=rules, compiled=False, prefer_known=prefer_known)
    compiled = prove(state, Solver(18), leaf_rules=rules, compiled=True, prefer_known=prefer_known)
    assert all(isinstance(t, compiled_extraction.PackedTable) for t in compiled.strategies.values())
    assert compiled.claim == python.claim
    assert _rows(compiled) == _rows(python)
    assert (compiled.rows, compiled.settled, compiled.oracle_nodes) == (
        python.rows, python.settled, python.oracle_nodes)
    assert compiled.settled > 0 if rules else compiled.settled == 0


def test_both_walks_write_the_same_file_and_the_checker_accepts_it(tmp_path):
    state = endgame(5, 14, 3)
    a = prove(state, Solver(18), compiled=False).write(tmp_path / "python.cert")
    b = prove(state, Solver(18), compiled=True).write(tmp_path / "compiled.cert")
    _, ta = proof_file.read(a, FORMAT)
    _, tb = proof_file.read(b, FORMAT)
    assert ta.keys() == tb.keys()
    for name in ta:
        for column in ta[name]:
            np.testing.assert_array_equal(ta[name][column], tb[name][column])
    assert verify(b).rows == verify(a).rows


@pytest.mark.parametrize("name,make", POSITIONS[2:], ids=[p[0] for p in POSITIONS[2:]])
def test_known_moves_first_make_a_smaller_proof_that_the_checker_accepts(name, make, tmp_path):
    state = make()
    plain = prove(state, Solver(18))
    known = prove(state, Solver(18), prefer_known=True)
    assert known.claim == plain.claim
    if plain.claim == "draw":  # a draw keeps the solver's moves: a shortcut could pass over a win
        assert _rows(known) == _rows(plain)
    else:
        assert known.rows <= plain.rows and known.oracle_nodes <= plain.oracle_nodes
    report = verify(known.write(tmp_path / "known.cert"))
    assert report.claim == known.claim and report.rows == known.rows


def test_known_moves_first_cut_a_5x5_proof_by_a_quarter_or_more():
    """The frontier line's position with 14 actions to go (a White win): 55,316 rows with the solver's
    moves and 37,399 with known moves first, from a 2**22-entry table, when this was written."""
    import json
    from pathlib import Path

    run = json.loads((Path(__file__).resolve().parents[1] / "docs/data/solver_frontier_5x5.json").read_text())
    game = littlego.LittleGo(run["size"], run["komi"], run["max_actions"])
    state = game.initial_state()
    for m in run["line"][:game.max_actions - 14]:
        i, j = (int(x) for x in m.split(","))
        state = littlego.play(state, i * game.size + j)
    plain, known = prove(state, Solver(22)), prove(state, Solver(22), prefer_known=True)
    assert known.rows <= 0.75 * plain.rows


def test_the_walk_grows_its_arrays_and_pauses_without_changing_a_row(monkeypatch):
    state = endgame(4, 8, 1)
    expected = _rows(prove(state, Solver(18), compiled=True))
    monkeypatch.setattr(compiled_extraction, "INITIAL_ROWS", 2)
    monkeypatch.setattr(compiled_extraction, "INITIAL_SET", 4)
    monkeypatch.setattr(compiled_extraction, "SLICE_STEPS", 7)
    monkeypatch.setattr(compiled_extraction, "SLICE_NODES", 50)
    lines = []
    assert _rows(prove(state, Solver(18), compiled=True, progress=lines.append)) == expected
    assert lines and all(line.endswith(" rows") for line in lines)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_the_compiled_canonical_image_is_the_position_codes(n):
    points = np.array(symmetries(n).points, dtype=np.int64)
    rng = np.random.default_rng(n)
    for k in range(200):
        state = endgame(n, int(rng.integers(0, n * n - 1)), seed=1000 * n + k)
        code, s = canonical(state)
        own = code_of(state)
        assert compiled_extraction.canonical(np.int64(own.black), np.int64(own.white), np.int64(own.ko),
                                             points) == (code.black, code.white, code.ko, s)


def test_a_packed_table_reads_back_each_row_by_its_code():
    cert = prove(endgame(5, 15, 4), Solver(18), compiled=True)
    for table in cert.strategies.values():
        rows = dict(table)
        assert len(rows) == len(table) and sorted(rows) == list(table)
        for code, move in list(rows.items())[:50]:
            assert table[code] == move and code in table
        assert table.settled() == sum(1 for m in rows.values() if m == SETTLED)


def test_a_strategy_the_solver_cannot_back_is_a_proof_extraction_error():
    state = littlego.LittleGo(3).initial_state()  # a White win: Black cannot keep a win
    with pytest.raises(ProofExtractionError, match="black strategy that needs 1"):
        compiled_extraction.strategy(Solver(16), state, littlego.BLACK, 1, settle=True)


def test_the_compiled_walk_is_used_only_where_it_applies():
    assert compiled_extraction.usable(littlego.LittleGo(5).initial_state(), ("pass_bound",))
    assert compiled_extraction.usable(littlego.LittleGo(5).initial_state(), ())
    assert not compiled_extraction.usable(littlego.LittleGo(5).initial_state(), ("pass_bound", "pass_alive"))
    assert not compiled_extraction.usable(littlego.LittleGo(6).initial_state(), ("pass_bound",))
