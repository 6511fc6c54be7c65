"""Proof certificates: the solver's proofs written out, and the independent checker that replays them
on the rules core alone, accepting true proofs and refusing damaged ones with the position that fails."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="extracting a proof needs the solver (the fast extra)")

from positions import endgame  # noqa: E402

from tictacgo.games import littlego  # noqa: E402
from tictacgo.proof import checker as verify_module  # noqa: E402
from tictacgo.proof import proof_file  # noqa: E402
from tictacgo.proof.certificate import claim_of, leaf_rule_names, prove  # noqa: E402
from tictacgo.proof.checker import SETTLED, CertificateError, verify  # noqa: E402
from tictacgo.proof.position_code import (  # noqa: E402
    canonical,
    canonical_key,
    code_of,
    code_of_key,
    from_canonical,
    image,
    key_layout,
    map_bits,  # noqa: E402
    pack_key,
    symmetries,
)
from tictacgo.solver import Solver, move_values, solve  # noqa: E402
from tictacgo.solver import kernels as K  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _certificates(out: Path, leaf_rules) -> dict:
    """Certificates of the 2x2 and 3x3 empty boards and of 3x3, 4x4 and 5x5 endgames."""
    solver = Solver(20)
    made = {}
    for name, state in (("2x2", littlego.LittleGo(2).initial_state()),
                        ("3x3", littlego.LittleGo(3).initial_state()),
                        ("3x3 endgame", endgame(3, 3, 11)), ("4x4", endgame(4, 8, 1)),
                        ("5x5", endgame(5, 16, 2))):
        cert = prove(state, solver, line=[] if state.t == 0 else None, leaf_rules=leaf_rules)
        made[name] = (cert, cert.write(out / f"{name}.cert"))
    return made


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Certificates as ``prove`` makes them by default: lines end where the pass bound settles them."""
    return _certificates(tmp_path_factory.mktemp("certs"), leaf_rules=("pass_bound",))


@pytest.fixture(scope="module")
def full_files(tmp_path_factory):
    """Certificates whose every line goes to the game's end (no leaf rule)."""
    return _certificates(tmp_path_factory.mktemp("full_certs"), leaf_rules=())


def _rewrite(path: Path, dest: Path, header=None, tables=None) -> Path:
    """A copy of a certificate with its header and tables changed by the given functions."""
    h, t = proof_file.read(path, verify_module.FORMAT)
    if header is not None:
        header(h)
    if tables is not None:
        tables(t)
    return proof_file.write(dest, h, t)


def _prover_states(path: Path):
    """(state, canonical code) of every position where the certificate's strategy moves, by a walk."""
    h, t = proof_file.read(path, verify_module.FORMAT)
    game, root, _, claim, _ = verify_module.read_header(path, h)
    (colour, _), = verify_module.CLAIMS[claim]
    table = verify_module.strategy_table(path, t[verify_module.COLOUR_NAMES[colour]], game, colour)
    out, seen, stack = {}, set(), [root]
    while stack:
        state = stack.pop()
        code, s = canonical(state)
        if code in seen:
            continue
        seen.add(code)
        key, _ = canonical_key(state)
        actions = [from_canonical(table[key], s, game.size)] if state.to_move == colour else \
            littlego.legal_actions(state)
        if state.to_move == colour:
            out[code] = state
        for a in actions:
            after = littlego.play(state, a)
            if after.end is None:
                stack.append(after)
    return colour, out


# --- what is proved is checked ---------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["files", "full_files"])
@pytest.mark.parametrize("name", ["2x2", "3x3", "3x3 endgame", "4x4", "5x5"])
def test_a_certificate_of_a_solved_position_is_accepted_with_the_solvers_value(request, kind, name):
    cert, path = request.getfixturevalue(kind)[name]
    report = verify(path)
    value = solve(cert.root).value
    mover = "black" if cert.root.to_move == littlego.BLACK else "white"
    other = "white" if mover == "black" else "black"
    assert report.claim == {1: f"{mover} wins", 0: "draw", -1: f"{other} wins"}[value]
    assert report.rows == cert.rows and all(s.rows_used == s.rows for s in report.strategies)
    assert all(s.guaranteed >= s.needed for s in report.strategies)


def test_the_3x3_empty_board_is_a_white_win_and_the_2x2_a_draw_with_both_strategies(files):
    assert verify(files["3x3"][1]).claim == "white wins"
    report = verify(files["2x2"][1])
    assert report.claim == "draw" and [s.colour for s in report.strategies] == [1, 2]


def test_the_checker_never_calls_the_solvers_search(files, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the checker called the solver's kernels")

    for name in dir(K):
        if callable(getattr(K, name)) and not name.startswith("_") and hasattr(getattr(K, name), "py_func"):
            monkeypatch.setattr(K, name, refuse)
    monkeypatch.setattr(Solver, "solve", refuse)
    assert verify(files["3x3"][1]).claim == "white wins"


@pytest.mark.parametrize("module", ["checker", "leaf_rules", "position_code", "proof_file"])
def test_the_checkers_modules_import_only_the_rules_core_and_the_file_format(module):
    tree = ast.parse((ROOT / "tictacgo" / "proof" / f"{module}.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    # ``from tictacgo import reading`` imports the module tictacgo.reading
    imported |= {f"{node.module}.{a.name}" for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module == "tictacgo" for a in node.names}
    ours = {m for m in imported if m and m.startswith("tictacgo") and m != "tictacgo"}
    assert ours <= {"tictacgo.games", "tictacgo.games.symmetry", "tictacgo.atomic", "tictacgo.reading",
                    "tictacgo.proof", "tictacgo.proof.position_code"}, ours
    assert "numba" not in imported


def test_the_checker_and_the_books_run_without_numba_and_without_the_solver(files):
    """``tictacgo.proof`` with numba missing: a certificate checks and a book loads, and neither the
    solver nor numba was imported (``prove`` alone, taken when asked for, needs them)."""
    code = ("import sys; sys.modules['numba'] = None\n"
            "from tictacgo.proof import load_book, verify\n"
            "from tictacgo.proof.book import default_book_path\n"
            "from tictacgo.games import littlego\n"
            f"print(verify({str(files['3x3'][1])!r}).claim)\n"
            "print(len(load_book(default_book_path(littlego.LittleGo(3)))) > 0)\n"
            "print(sorted(m for m, v in sys.modules.items() if v is not None\n"
            "             and m.startswith(('tictacgo.solver', 'numba'))))\n"
            "try:\n    from tictacgo.proof import prove\nexcept ImportError as e:\n    print(e)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    claim, loaded, imported, refused = proc.stdout.splitlines()
    assert (claim, loaded, imported) == ("white wins", "True", "[]")
    assert "the solver needs numba: pip install 'tictacgo[fast]'" in refused


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_a_bitboard_maps_point_by_point_under_each_symmetry(n):
    sym, rng = symmetries(n), np.random.default_rng(n)
    boards = [int(x) for x in rng.integers(0, 1 << (n * n), 200, dtype=np.uint64)]
    for bits in [0, (1 << (n * n)) - 1, *boards]:
        for s in range(8):
            by_point = sum(1 << sym.points[s][p] for p in range(n * n) if bits >> p & 1)
            assert map_bits(sym, s, bits) == by_point


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_a_positions_key_packs_its_canonical_code_and_keys_order_as_codes_do(n):
    layout = key_layout(n, littlego.LittleGo(n).max_actions)
    rng = np.random.default_rng(100 + n)
    codes = []
    for k in range(150):
        state = endgame(n, int(rng.integers(0, min(n * n - 1, 30))), seed=7000 * n + k)
        code, s = canonical(state)
        assert canonical_key(state) == (pack_key(layout, *code), s)
        assert code_of_key(layout, pack_key(layout, *code)) == code
        codes.append(code)
        for s2 in range(8):  # every image has a key no smaller than the canonical one
            assert pack_key(layout, *image(code_of(state), s2, n)) >= pack_key(layout, *code)
    assert sorted(codes) == [code_of_key(layout, k) for k in sorted(pack_key(layout, *c) for c in codes)]


def test_a_row_whose_ko_point_is_off_the_board_is_refused(files, tmp_path):
    def bad_ko(t):
        t["white"]["meta"][0] = (t["white"]["meta"][0] & ~np.uint16(0x3F << 7)) | np.uint16(40 << 7)
    bad = _rewrite(files["3x3"][1], tmp_path / "ko.cert", tables=bad_ko)
    with pytest.raises(CertificateError, match="is not a 3x3 position"):
        verify(bad)


def test_the_rules_treat_the_8_symmetric_images_of_a_position_alike():
    """The checker shares one entry among symmetric positions: the rules must commute with symmetry."""
    for n, moves, seed in ((4, 6, 3), (5, 9, 4), (5, 14, 5)):
        state = endgame(n, moves, seed)
        sym = symmetries(n)
        for s in range(8):
            def m(bits, s=s, sym=sym):
                return map_bits(sym, s, bits)
            mirror = state._replace(black=m(state.black), white=m(state.white),
                                    prev_black=m(state.prev_black), prev_white=m(state.prev_white))
            assert code_of(mirror) == image(code_of(state), s, n)
            assert canonical(mirror)[0] == canonical(state)[0]
            assert sorted(sym.points[s][a] for a in littlego.legal_actions(state)) == \
                littlego.legal_actions(mirror)
            for a in littlego.legal_actions(state):
                after, after_mirror = littlego.play(state, a), littlego.play(mirror, sym.points[s][a])
                if after.end is None:
                    assert code_of(after_mirror) == image(code_of(after), s, n)


# --- what is wrong is refused, naming the position ------------------------------------------------------

def test_a_wrong_move_that_loses_at_the_game_end_is_refused_naming_the_line(full_files, tmp_path):
    _, path = full_files["3x3"]
    colour, states = _prover_states(path)
    # White's last action (the 8th): a move there that loses ends the game lost.
    for code, state in states.items():  # noqa: B007 (the loop's last code is used below)
        if state.t != state.game.max_actions - 1:
            continue
        values = move_values(state)
        losing = [a for a, r in values.items() if r.value < 0]
        if losing:
            break
    else:
        pytest.fail("no last-action position of White's strategy has a losing move")
    _, s = canonical(state)

    def corrupt(tables):
        arrays = tables["white"]
        codes = proof_file.table_codes(arrays)
        arrays["move"][codes.index(code)] = symmetries(3).points[s][losing[0]]

    bad = _rewrite(path, tmp_path / "bad.cert", tables=corrupt)
    with pytest.raises(CertificateError, match=r"the proof fails at the empty board then (\S+ ){8}\(Black to "
                       r"move, 8 actions played\): the game ends \(max_actions\) with Black \d to White "
                       r"[\d.]+, a loss for white, but the claim needs a win"):
        verify(bad)


def test_an_illegal_move_is_refused_naming_the_move_and_why(full_files, tmp_path):
    _, path = full_files["3x3"]

    def corrupt(tables):
        h = tables["white"]
        # Every White position after Black's first stone: point the move at an occupied point.
        for k, code in enumerate(proof_file.table_codes(h)):
            if code.t == 1:
                h["move"][k] = (code.black | code.white).bit_length() - 1

    bad = _rewrite(path, tmp_path / "bad.cert", tables=corrupt)
    with pytest.raises(CertificateError, match=r"the proof fails at the empty board then \d,\d \(White to "
                       r"move, 1 actions played\): the certificate's move \d,\d is illegal here "
                       r"\(occupied\)"):
        verify(bad)


def test_a_missing_reply_is_refused_naming_the_position(full_files, tmp_path):
    _, path = full_files["4x4"]

    def drop_last_row(tables):
        for arrays in tables.values():
            for column in arrays:
                arrays[column] = arrays[column][:-1]

    bad = _rewrite(path, tmp_path / "bad.cert", tables=drop_last_row)
    with pytest.raises(CertificateError, match=r"the proof fails at the certificate's root position( then "
                       r"[^(]+)? \((Black|White) to move, \d+ actions played\): the certificate has no move "
                       r"for (black|white) here"):
        verify(bad)


def test_a_claimed_win_that_the_strategy_only_draws_is_refused_at_a_drawn_game_end(full_files, tmp_path):
    _, path = full_files["2x2"]

    def claim_black_wins(h):
        h["claim"] = "black wins"

    def drop_white(tables):
        del tables["white"]

    bad = _rewrite(path, tmp_path / "bad.cert", header=claim_black_wins, tables=drop_white)
    with pytest.raises(CertificateError, match=r"a draw for black, but the claim needs a win"):
        verify(bad)


@pytest.mark.parametrize("claim, message", [
    ("black wins", r"the claim 'black wins' needs black's strategy \(table 'black'\), which the certificate "
                   r"lacks \(it has \['white'\]\)"),
    ("draw", "the claim 'draw' needs black's strategy"),
    ("white loses", "claim 'white loses', expected one of black wins, white wins, draw"),
])
def test_a_claim_the_tables_do_not_support_is_refused(files, tmp_path, claim, message):
    bad = _rewrite(files["3x3"][1], tmp_path / "bad.cert", header=lambda h: h.update(claim=claim))
    with pytest.raises(CertificateError, match=message):
        verify(bad)


def test_a_certificate_read_as_another_variant_is_refused(files, full_files, tmp_path):
    # 3x3 with komi 0.5: Black wins, so White's strategy meets a lost game end.
    bad = _rewrite(full_files["3x3"][1], tmp_path / "komi.cert", header=lambda h: h["game"].update(komi=0.5))
    with pytest.raises(CertificateError, match="a loss for white, but the claim needs a win"):
        verify(bad)
    bad = _rewrite(files["3x3"][1], tmp_path / "size.cert", header=lambda h: h["game"].update(size=4))
    with pytest.raises(CertificateError, match="the root must be .* board must be 4x4 for this game, "
                                               "got 3x3"):
        verify(bad)
    bad = _rewrite(files["3x3"][1], tmp_path / "huge.cert", header=lambda h: h["game"].update(size=9))
    with pytest.raises(proof_file.ProofFileError, match=r"board size 9, expected an int in \[2, 7\]"):
        verify(bad)


# --- the file is read with care -------------------------------------------------------------------------

def test_a_certificate_over_the_size_cap_is_refused_before_it_is_read(files):
    path = files["4x4"][1]
    size = path.stat().st_size
    with pytest.raises(proof_file.ProofFileError, match=rf"{size:,} bytes, more than the 1,000"):
        verify(path, max_bytes=1000)


def test_a_certificate_whose_members_unpack_past_the_cap_is_refused(files, tmp_path):
    _, path = files["3x3"]
    big = tmp_path / "big.cert"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info, src.read(info))
        z.writestr("pad.move.npy", b"\0" * (4 << 20))
    assert big.stat().st_size < 1 << 20
    with pytest.raises(proof_file.ProofFileError, match="its members unpack to 4,19.,... bytes, more than"):
        verify(big, max_bytes=1 << 20)


@pytest.mark.parametrize("content, message", [
    (b"not a zip", "not a tictacgo-certificate file"),
    ({"header.json": b"{nope"}, "header.json is not JSON"),
    ({"header.json": json.dumps({"format": "tictacgo-book"}).encode()}, "format 'tictacgo-book', expected"),
    ({"header.json": json.dumps({"format": "tictacgo-certificate"}).encode(), "white.move.npy": b"\x93NUMPY"},
     "a member could not be read"),
    ({"header.json": json.dumps({"format": "tictacgo-certificate"}).encode(), "x.y.npy": b""},
     "unexpected member 'x.y.npy'"),
])
def test_a_file_that_is_not_a_certificate_is_one_clear_error(tmp_path, content, message):
    path = tmp_path / "x.cert"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        with zipfile.ZipFile(path, "w") as z:
            for name, data in content.items():
                z.writestr(name, data)
    with pytest.raises(proof_file.ProofFileError, match=message):
        verify(path)


def test_a_pickled_array_in_a_certificate_is_refused(files, tmp_path):
    _, path = files["3x3"]
    bad = tmp_path / "pickle.cert"
    import io
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(bad, "w") as z:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "white.move.npy":
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.array([object()] * 157, dtype=object), allow_pickle=True)
                data = buf.getvalue()
            z.writestr(info, data)
    with pytest.raises(proof_file.ProofFileError, match="a member could not be read"):
        verify(bad)


# --- leaves settled by a rule the checker recomputes ------------------------------------------------------

def _minimax(state: littlego.GoState, colour: int) -> int:
    if state.end is not None:
        return verify_module.outcome_for(state, colour)
    values = [_minimax(littlego.play(state, a), colour) for a in littlego.legal_actions(state)]
    return max(values) if state.to_move == colour else min(values)


def test_a_leaf_settled_by_a_rule_is_accepted_only_when_the_checker_knows_and_recomputes_the_rule(
        tmp_path, monkeypatch):
    root = endgame(3, 4, 7)
    value = _minimax(root, littlego.WHITE)
    claim = "white wins" if value > 0 else "black wins" if value < 0 else "draw"
    colour = "white" if value >= 0 else "black"
    header = {"format": verify_module.FORMAT, "version": 1,
              "game": {"size": 3, "komi": 1.5, "max_actions": 8},
              "root": {"board": ["".join(map(str, r)) for r in littlego.to_board(root).tolist()],
                       "previous": ["".join(map(str, r)) for r in littlego.previous_board(root).tolist()],
                       "to_move": root.to_move, "t": root.t},
              "claim": claim, "leaves": ["game_end", "minimax"]}
    code, _ = canonical(root)
    table = proof_file.table_arrays({code: SETTLED})
    path = proof_file.write(tmp_path / "leaf.cert", header, {colour: table})
    with pytest.raises(CertificateError, match=r"relies on leaf rule\(s\) \['minimax'\] that this checker "
                       "cannot recompute"):
        verify(path)
    monkeypatch.setitem(verify_module.LEAF_RULES, "minimax", _minimax)
    assert verify(path).claim == claim
    monkeypatch.setitem(verify_module.LEAF_RULES, "minimax", lambda state, c: -1)
    with pytest.raises(CertificateError, match="marks this position settled, but its leaf rules"):
        verify(path)


def _settled_rows(path: Path) -> dict[str, int]:
    _, tables = proof_file.read(path, verify_module.FORMAT)
    return {name: int((arrays["move"] == SETTLED).sum()) for name, arrays in tables.items()}


@pytest.mark.parametrize("name", ["3x3", "3x3 endgame", "4x4", "5x5"])
def test_prove_settles_the_positions_the_pass_bound_decides_and_the_certificate_shrinks(files, full_files,
                                                                                        name):
    cert, path = files[name]
    full, full_path = full_files[name]
    assert proof_file.read(path, verify_module.FORMAT)[0]["leaves"] == ["game_end", "pass_bound"]
    assert proof_file.read(full_path, verify_module.FORMAT)[0]["leaves"] == ["game_end"]
    assert sum(_settled_rows(path).values()) == cert.settled > 0 and full.settled == 0
    assert sum(_settled_rows(full_path).values()) == 0
    assert cert.rows < full.rows and path.stat().st_size < full_path.stat().st_size
    assert cert.claim == full.claim == verify(path).claim == verify(full_path).claim
    report = verify(path)
    assert report.positions < verify(full_path).positions  # the checker walks fewer positions too


def test_the_pass_alive_rule_settles_at_least_what_the_pass_bound_settles(files, tmp_path):
    state = endgame(5, 16, 2)
    cert = prove(state, Solver(20), leaf_rules=("pass_bound", "pass_alive"))
    path = cert.write(tmp_path / "alive.cert")
    assert verify(path).claim == files["5x5"][0].claim
    header = proof_file.read(path, verify_module.FORMAT)[0]
    assert header["leaves"] == ["game_end", "pass_bound", "pass_alive"]
    assert cert.rows <= files["5x5"][0].rows


def test_a_settled_row_that_the_rule_does_not_confirm_is_refused_naming_the_position(files, tmp_path):
    _, path = files["3x3"]

    def settle_whites_first_replies(tables):
        # White to move after Black's first stone, 7 actions left: passing cannot promise White anything.
        arrays = tables["white"]
        for k, code in enumerate(proof_file.table_codes(arrays)):
            if code.t == 1:
                arrays["move"][k] = SETTLED

    bad = _rewrite(path, tmp_path / "bad.cert", tables=settle_whites_first_replies)
    with pytest.raises(CertificateError, match=r"the proof fails at the empty board then \d,\d \(White to "
                       r"move, 1 actions played\): the certificate marks this position settled, but its leaf "
                       r"rules \(pass_bound\) do not give white a win"):
        verify(bad)


def test_a_settled_row_whose_rule_the_header_does_not_name_is_refused(files, tmp_path):
    _, path = files["4x4"]
    bad = _rewrite(path, tmp_path / "bad.cert", header=lambda h: h.update(leaves=["game_end"]))
    with pytest.raises(CertificateError, match=r"marks this position settled, but its leaf rules \(none\) "
                                               r"do not give"):
        verify(bad)


def test_the_published_certificates_go_to_the_game_end_and_this_checker_still_accepts_them():
    path = ROOT / "docs" / "data" / "certificates" / "littlego_3x3_empty.cert"
    assert proof_file.read(path, verify_module.FORMAT)[0]["leaves"] == ["game_end"]
    assert _settled_rows(path) == {"white": 0}
    assert verify(path).claim == "white wins"


def test_prove_and_the_command_line_refuse_a_leaf_rule_the_checker_does_not_know():
    with pytest.raises(ValueError, match=r"leaf rule\(s\) \['benson'\]: expected names among pass_bound, "
                                         "pass_alive"):
        prove(littlego.LittleGo(2).initial_state(), leaf_rules=("benson",))
    assert leaf_rule_names("none") == ()
    assert leaf_rule_names("pass_bound, pass_alive") == ("pass_bound", "pass_alive")
    with pytest.raises(ValueError, match="leaf rules 'pass': expected none, or names among pass_bound"):
        leaf_rule_names("pass")


# --- the command line ---------------------------------------------------------------------------------

def test_tictacgo_solve_writes_checks_and_books_a_certificate(tmp_path, capsys):
    from tictacgo.cli import main

    cert, book = tmp_path / "3x3.cert", tmp_path / "3x3.book"
    assert main(["solve", "--size", "3", "--certificate", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "white wins (3x3, komi 1.5, 8 actions, the empty board); wrote" in out
    assert re.search(r"rows \(white \d+; \d+ settled by pass_bound\)", out)
    full = tmp_path / "full.cert"
    assert main(["solve", "--size", "3", "--certificate", str(full), "--leaf-rules", "none"]) == 0
    assert "settled" not in capsys.readouterr().out
    assert verify(full).rows > verify(cert).rows
    known = tmp_path / "known.cert"
    assert main(["solve", "--size", "3", "--certificate", str(known), "--prefer-known"]) == 0
    capsys.readouterr()
    assert verify(known).claim == "white wins" and verify(known).rows <= verify(cert).rows
    assert main(["solve", "--verify", str(cert)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("proved: white wins (3x3, komi 1.5, 8 actions) from the empty board")
    assert main(["solve", "--book", str(book), str(cert)]) == 0
    out = capsys.readouterr().out
    written = re.search(r"3x3\.book: (\d[\d,]*) positions", out)
    checked = re.search(r"checked \((\d[\d,]*) positions\)", out)
    assert written and checked and written.group(1) == checked.group(1)  # every proved position booked
    line = "1,1 2,2 1,2 2,1 PASS 0,0 3,3 1,0 0,1 3,0 0,3 2,3"
    state = littlego.LittleGo(4).initial_state()
    for move in line.split():
        state = littlego.play(state, 16 if move == "PASS" else int(move[0]) * 4 + int(move[2]))
    expected = claim_of(solve(state).value, state.to_move)
    assert main(["solve", "--size", "4", "--line", line]) == 0
    assert capsys.readouterr().out.startswith(f"{expected} (4x4, komi 2, 15 actions, after 1,1 2,2")


def test_tictacgo_solve_exits_1_for_a_failed_proof_and_2_for_a_bad_file_or_move(files, tmp_path, capsys):
    from tictacgo.cli import main

    bad = _rewrite(files["3x3"][1], tmp_path / "bad.cert", header=lambda h: h["game"].update(komi=0.5))
    assert main(["solve", "--verify", str(bad)]) == 1
    assert "not proved: the proof fails at the empty board then" in capsys.readouterr().err
    assert main(["solve", "--verify", str(tmp_path / "missing.cert")]) == 2
    assert "missing.cert: cannot read it" in capsys.readouterr().err
    assert main(["solve", "--size", "3", "--line", "1,1 1,1"]) == 2
    assert "is illegal for White: occupied" in capsys.readouterr().err
    assert main(["solve", "--size", "9"]) == 2
    assert "the solver handles boards up to 7x7, got --size 9" in capsys.readouterr().err
    assert main(["solve", "--size", "3", "--certificate", str(tmp_path / "x.cert"), "--leaf-rules", "x"]) == 2
    assert "leaf rules 'x': expected none, or names among pass_bound, pass_alive" in capsys.readouterr().err
    assert main(["solve", "--verify", str(bad), "--book", str(tmp_path / "x.book")]) == 2


def test_tictacgo_solve_without_numba_exits_2_in_one_line_naming_the_extra(files):
    code = ("import sys; sys.modules['numba'] = None\nfrom tictacgo.cli import main\n"
            f"sys.exit(main(['solve', '--verify', {str(files['3x3'][1])!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "tictacgo solve: error: the solver needs numba: pip install 'tictacgo[fast]'" in proc.stderr


def test_the_certificate_benchmark_prints_the_sizes_and_each_rounds_times():
    argv = ["--left", "12", "--rounds", "2", "--table-bits", "16"]
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_certificates.py"), *argv],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["left"] == 12 and out["rows"] > 0
    assert len(out["make_seconds"]) == len(out["check_seconds"]) == 2
    for kind in ("make", "check"):
        times = out[f"{kind}_seconds"]
        assert min(times) - 0.01 <= out[f"{kind}_median"] <= max(times) + 0.01
