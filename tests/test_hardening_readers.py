"""The bounded readers of certificates, books, check records, frontier runs and Q-tables: a file that
is damaged or crafted is one error naming it, never a traceback, a hang or an allocation of what it
merely declares (tictacgo.reading, the proof file format, the Q-table file; issue 46, items 3-5, 9,
11, 17 and 18), and no crafted certificate is ever "proved" when its claim is false."""

from __future__ import annotations

import io
import json
import os
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tictacgo import reading

ROOT = Path(__file__).resolve().parents[1]
CERT_3X3 = ROOT / "docs" / "data" / "certificates" / "littlego_3x3_empty.cert"  # the empty 3x3: White wins
BOOK_3X3 = ROOT / "tictacgo" / "proof" / "books" / "littlego_3x3_komi1.5_8.book"


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=False)
    return buf.getvalue()


def _npy_header(shape: tuple, dtype) -> bytes:
    """An .npy header declaring ``shape`` of ``dtype``, and no data."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                                              "fortran_order": False, "shape": shape})
    return buf.getvalue()


def _with_header(path: Path, dest: Path, change) -> Path:
    """A copy of a proof file with its header changed by ``change(header)``, which may return a new one."""
    members = _members(path)
    header = json.loads(members["header.json"])
    header = change(header) or header
    members["header.json"] = header if isinstance(header, bytes) else json.dumps(header).encode()
    return _zip(dest, members)


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def _finishes(fn, seconds: float = 20) -> object:
    """``fn()``'s result or exception, run in a thread: a hang fails the test instead of stalling it."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 (handed back to the test)
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "the reader blocked (it should refuse what is not a regular file at once)"
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.fixture
def fifo(tmp_path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    path = tmp_path / "pipe.cert"
    os.mkfifo(path)
    return path


# --- tictacgo.reading ---------------------------------------------------------------------------------

def test_only_a_regular_file_is_opened_and_a_named_pipe_never_blocks(fifo, tmp_path):
    with pytest.raises(reading.ReadError, match="^a named pipe, not a regular file$"):
        _finishes(lambda: reading.open_regular(fifo))
    with pytest.raises(reading.ReadError, match="^a folder, not a regular file$"):
        reading.open_regular(tmp_path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(reading.ReadError, match="^a character device, not a regular file$"):
            reading.read_regular("/dev/zero", 100)
    (tmp_path / "f").write_bytes(b"x" * 101)
    with pytest.raises(reading.ReadError, match="101 bytes, more than the 100 bytes"):
        reading.read_regular(tmp_path / "f", 100)


@pytest.mark.parametrize("text, message", [
    (_deep(100_000), "nest 100,000 deep, more than the 32"),
    ('{"komi": 1e400}', "the number 1e400 is not finite"),
    ('{"komi": NaN}', "NaN is not a finite number"),
    ('{"komi": -Infinity}', "-Infinity is not a finite number"),
    ('{"komi": ' + "9" * 310 + "}", "an integer of 310 digits"),
    ('{"a": "\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}', None),  # brackets in a string do not nest
    ("{nope", "not JSON"),
    (b"\xff\xfe", "not UTF-8 text"),
])
def test_json_is_bounded_in_nesting_and_numbers_before_it_is_parsed(text, message):
    if message is None:
        assert reading.parse_json(text) == {"a": '"' + "[" * 39}
        return
    with pytest.raises(reading.ReadError, match=message) as e:
        reading.parse_json(text)
    assert "\n" not in str(e.value) and len(str(e.value)) < 300


def test_an_npy_member_declaring_more_than_it_holds_is_refused_from_its_header(tmp_path):
    path = _zip(tmp_path / "a.zip", {"x.npy": _npy_header((2**40,), np.uint8) + b"\0" * 1000})
    assert path.stat().st_size < 1400
    with reading.open_regular(path) as f, reading.open_zip(f, max_unpacked=1 << 20) as z:
        with pytest.raises(reading.ReadError, match=r"x.npy: declares shape \(1099511627776,\) of uint8 "
                                                    r"\(1,099,511,627,776 bytes\), but holds 1,000 bytes"):
            reading.npy_declared(z, z.getinfo("x.npy"))


def test_a_zip_that_expands_past_its_ratio_is_refused_unread(tmp_path):
    path = _zip(tmp_path / "a.zip", {"x.npy": _npy(np.zeros(8 << 20, dtype=np.uint8))})
    assert path.stat().st_size < 64 << 10
    with reading.open_regular(path) as f:
        with pytest.raises(reading.ReadError, match=r"unpack to 8,388,7\d\d bytes, [\d,]+ times the file's "
                                                    r".* more than the 64 times"):
            reading.open_zip(f, max_unpacked=None, max_ratio=64)


# --- certificates ------------------------------------------------------------------------------------

numba = pytest.importorskip("numba", reason="the solver package needs numba (the fast extra)")

from tictacgo.games import littlego  # noqa: E402
from tictacgo.proof import proof_file  # noqa: E402
from tictacgo.proof.book import load_book  # noqa: E402
from tictacgo.proof.checker import CertificateError, certificate_root, verify  # noqa: E402


def _one_line_refusal(fn, *args, match: str | None = None, kinds=(ValueError,)) -> str:
    with pytest.raises(kinds, match=match) as e:
        _finishes(lambda: fn(*args))
    text = str(e.value)
    assert "\n" not in text and "\x1b" not in text and len(text) < 600, text
    return text


def test_a_certificate_declaring_a_huge_array_is_one_error_naming_the_member(tmp_path):
    members = _members(CERT_3X3)
    members["white.move.npy"] = _npy_header((2**40,), np.uint8) + b"\0" * 157
    path = _zip(tmp_path / "huge.cert", members)
    text = _one_line_refusal(verify, path, kinds=proof_file.ProofFileError)
    assert "white.move.npy: declares shape (1099511627776,)" in text and str(path) in text


def test_an_all_zero_certificate_is_refused_by_its_expansion_before_it_is_unpacked(tmp_path, monkeypatch):
    members = _members(CERT_3X3)
    rows = 1 << 20
    for column, dtype in proof_file.COLUMNS.items():
        members[f"white.{column}.npy"] = _npy(np.zeros(rows, dtype=dtype))
    path = _zip(tmp_path / "zeros.cert", members)
    monkeypatch.setattr(reading, "read_npy", lambda *a, **k: pytest.fail("an array was unpacked"))
    text = _one_line_refusal(verify, path, kinds=proof_file.ProofFileError)
    assert "more than the 64 times a file of this kind expands" in text


def test_more_rows_than_the_header_says_are_refused_before_they_are_read(tmp_path, monkeypatch):
    members = _members(CERT_3X3)
    header = json.loads(members["header.json"])
    header["rows"]["white"] = 10
    members["header.json"] = json.dumps(header).encode()
    path = _zip(tmp_path / "rows.cert", members)
    monkeypatch.setattr(reading, "read_npy", lambda *a, **k: pytest.fail("an array was unpacked"))
    assert "the header says 10 rows in table 'white', its columns hold 157" in \
        _one_line_refusal(verify, path, kinds=proof_file.ProofFileError)


def test_proof_file_readers_refuse_a_named_pipe_a_device_and_a_folder_at_once(fifo, tmp_path):
    for path in [fifo, tmp_path, *(["/dev/zero"] if os.path.exists("/dev/zero") else [])]:
        for reader in (verify, load_book, certificate_root):
            text = _one_line_refusal(reader, path, kinds=proof_file.ProofFileError)
            assert "not a regular file" in text


@pytest.mark.parametrize("change, message", [
    (lambda h: h.update(claim=["white wins"]), r"claim \['white wins'\], expected one of"),
    (lambda h: h.update(claim={"a": 1}), r"claim \{'a': 1\}, expected one of"),
    (lambda h: h["game"].update(komi=10 ** 309), "an integer of 310 digits"),
    (lambda h: h["game"].update(komi=10 ** 19), r"komi 10000000000000000000, expected a finite number"),
    (lambda h: json.dumps(h).replace('"komi": 1.5', '"komi": 1e400').encode(), "1e400 is not finite"),
    (lambda h: h.update(deep=json.loads(_deep(900))), "nest 901 deep"),
    (lambda h: json.dumps(h).encode()[:-1] + _deep(100_000).encode() + b"}", r"nest 100,00\d deep"),
    (lambda h: h.update(version=[1]), r"certificate version \[1\]"),
    (lambda h: h.update(version=True), r"certificate version True"),
    (lambda h: h.update(leaves={"game_end": 1}), "'leaves' must be a list of rule names"),
    (lambda h: h.update(root=[1, 2]), "the root must be"),
    (lambda h: h["root"].update(board=["0" * 10**5] * 3), "the root must be"),
    (lambda h: h.update(game=[3, 1.5, 8]), "the header's 'game' must be"),
    (lambda h: h["game"].update(max_actions=200), r"max_actions 200, expected an int in \[1, 127\]"),
    (lambda h: h.update(format=["tictacgo-certificate"]), r"format \['tictacgo-certificate'\], expected"),
])
def test_a_certificate_header_of_the_wrong_type_or_depth_is_one_error(tmp_path, change, message):
    path = _with_header(CERT_3X3, tmp_path / "bad.cert", change)
    for reader in (verify, certificate_root):
        assert str(path) in _one_line_refusal(reader, path, match=message, kinds=proof_file.ProofFileError)


def test_a_certificates_rows_of_the_wrong_type_are_one_error(tmp_path):
    path = _with_header(CERT_3X3, tmp_path / "bad.cert", lambda h: h.update(rows=[1]))
    _one_line_refusal(verify, path, match=r"the header's rows are \[1\]", kinds=proof_file.ProofFileError)


# --- books ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("change, message", [
    (lambda h: h.update(sources=5), "the header's sources are 5; expected a list of texts"),
    (lambda h: h.update(sources=[1, 2]), r"the header's sources are \[1, 2\]"),
    (lambda h: h.update(version="1"), "book version '1'"),
    (lambda h: h.update(rows=3), "the header says 3 rows in table 'book', its columns hold"),
])
def test_a_book_header_of_the_wrong_type_is_an_error_naming_the_file(tmp_path, change, message):
    path = _with_header(BOOK_3X3, tmp_path / "bad.book", change)
    assert str(path) in _one_line_refusal(load_book, path, match=message, kinds=proof_file.ProofFileError)


def test_a_book_declaring_a_huge_array_is_refused_and_the_solver_agent_says_so(tmp_path):
    from tictacgo.baselines.registry import make_agent

    members = _members(BOOK_3X3)
    members["book.value.npy"] = _npy_header((2**40,), np.int8)
    path = _zip(tmp_path / "huge.book", members)
    _one_line_refusal(load_book, path, match="book.value.npy: declares shape",
                      kinds=proof_file.ProofFileError)
    with pytest.raises(ValueError, match="declares shape"):
        make_agent(f"solver:book={path}", littlego.LittleGo(3))


def test_the_solver_agent_refuses_a_named_pipe_as_its_book_at_once(fifo):
    from tictacgo.baselines.registry import make_agent

    with pytest.raises(ValueError, match="a named pipe, not a regular file"):
        _finishes(lambda: make_agent(f"solver:book={fifo}", littlego.LittleGo(3)))


# --- check records -------------------------------------------------------------------------------------

def test_a_record_nested_deep_or_holding_infinite_numbers_is_not_a_record(tmp_path):
    from tictacgo.proof.check_records import read_record, recorded_checks

    cert = tmp_path / "1-1.cert"
    for text in (_deep(100_000), '{"checked": {"rows": 1e400}}', '{"made": {"rows": ' + "9" * 400 + "}}"):
        (tmp_path / "1-1.json").write_text(text)
        assert read_record(cert) == {}
        with pytest.raises(ValueError, match="1-1.json: not a check record"):
            recorded_checks(tmp_path)


# --- Q-tables ------------------------------------------------------------------------------------------

def _qtable_arrays() -> dict[str, bytes]:
    meta = {"format": "tictacgo-qtable-littlego", "version": 2, "params": {"board_plies": 0},
            "variant": {"size": 5, "komi": 2.5, "max_actions": 24}}
    return {"keys.npy": _npy(np.array([1, 2], dtype=np.uint64)),
            "q.npy": _npy(np.array([0.5, -0.5], dtype=np.float32)),
            "visits.npy": _npy(np.array([3, 4], dtype=np.uint32)),
            "meta.npy": _npy(np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))}


@pytest.mark.parametrize("member, data, message", [
    ("keys.npy", _npy_header((2**40,), np.uint64), r"keys.npy: declares shape \(1099511627776,\)"),
    ("q.npy", _npy_header((2, 2**40), np.float32), "declares shape"),
    ("visits.npy", _npy(np.zeros(4 << 20, dtype=np.uint32)), "more than the 64 times"),
    ("meta.npy", _npy(np.frombuffer(_deep(50_000).encode(), dtype=np.uint8)), "nest 50,000 deep"),
    ("meta.npy", _npy(np.frombuffer(b'{"format": 1e400}', dtype=np.uint8)), "1e400 is not finite"),
])
def test_a_q_table_is_read_within_bounds(tmp_path, member, data, message):
    from tictacgo.baselines import qlearning_go_file as qfile
    from tictacgo.baselines.registry import make_agent

    path = _zip(tmp_path / "q.npz", {**_qtable_arrays(), member: data})
    assert path.stat().st_size < 200_000
    with pytest.raises(ValueError, match=message) as e:
        qfile.load_table(path)
    assert "q.npz" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ValueError, match=message):
        make_agent(f"qlearning:path={path}", "littlego")


def test_a_q_table_path_that_is_a_named_pipe_or_empty_is_refused_at_once(fifo):
    from tictacgo.baselines.registry import make_agent

    with pytest.raises(ValueError, match="a named pipe, not a regular file"):
        _finishes(lambda: make_agent(f"qlearning:path={fifo}", "littlego"))
    for game in ("littlego", "tictactoe"):
        with pytest.raises(ValueError, match="path is empty; it must be a Q-table file name$"):
            make_agent("qlearning:path=", game)


def test_the_tic_tac_toe_q_table_is_read_within_bounds(fifo, tmp_path, monkeypatch):
    from tictacgo.baselines import qlearning
    from tictacgo.baselines.registry import make_agent

    with pytest.raises(ValueError, match="a named pipe, not a regular file"):
        _finishes(lambda: make_agent(f"qlearning:path={fifo}", "tictactoe"))
    path = tmp_path / "q.json"
    path.write_text('{"format": "tictacgo-qtable", "version": 1, "games": 1e400, "table": {}}')
    with pytest.raises(ValueError, match="q.json.*1e400 is not finite"):
        qlearning.load_table(path)
    monkeypatch.setattr(qlearning, "MAX_FILE_BYTES", 10)
    with pytest.raises(ValueError, match=r"q.json.*bytes, more than the 10 bytes"):
        qlearning.load_table(path)


# --- fuzz: no crafted certificate is proved falsely, none crashes ------------------------------------------

def _mutations(rng: np.random.Generator, members: dict[str, bytes], count: int):
    """Crafted variants of a certificate's members: header fields replaced, array values changed, rows
    dropped or repeated, members dropped or swapped, bytes of the packed file flipped."""
    header = json.loads(members["header.json"])
    arrays = {name: np.lib.format.read_array(io.BytesIO(data)) for name, data in members.items()
              if name.endswith(".npy")}
    odd_values = [None, True, -1, 0, 1, 2, 127, 128, 10 ** 18, 1.5, -0.0, "", "white wins", "black wins",
                  "draw", [], {}, ["white wins"], {"size": 3}, "0" * 50, json.loads(_deep(20))]
    paths = [("claim",), ("version",), ("leaves",), ("game", "size"), ("game", "komi"),
             ("game", "max_actions"), ("root", "board"), ("root", "previous"), ("root", "to_move"),
             ("root", "t"), ("root", "line"), ("rows", "white"), ("rows",), ("format",)]
    for k in range(count):
        h, a = json.loads(json.dumps(header)), {n: x.copy() for n, x in arrays.items()}
        kind = k % 5
        if kind == 0:
            where = paths[rng.integers(len(paths))]
            target = h
            for key in where[:-1]:
                target = target[key]
            target[where[-1]] = odd_values[rng.integers(len(odd_values))]
        elif kind == 1:
            name = sorted(a)[rng.integers(len(a))]
            x = a[name]
            i = rng.integers(len(x))
            x[i] = rng.integers(0, np.iinfo(x.dtype).max, dtype=x.dtype, endpoint=True)
        elif kind == 2:
            keep = rng.random(len(next(iter(a.values())))) < 0.9
            a = {n: x[keep] for n, x in a.items()}
        elif kind == 3:
            name = sorted(a)[rng.integers(len(a))]
            if rng.random() < 0.5:
                del a[name]
            else:
                a[name] = a[name].astype(np.int64)
        out = {"header.json": json.dumps(h).encode(), **{n: _npy(x) for n, x in a.items()}}
        if kind == 4:
            yield out, int(rng.integers(1, 200))  # flip bytes of the packed file
        else:
            yield out, 0


def test_no_crafted_certificate_is_proved_falsely_or_crashes(tmp_path):
    from tictacgo.proof.certificate import claim_of
    from tictacgo.solver import solve

    rng = np.random.default_rng(46)
    members = _members(CERT_3X3)
    proved = refused = 0
    for k, (crafted, flips) in enumerate(_mutations(rng, members, 250)):
        path = _zip(tmp_path / f"c{k}.cert", crafted)
        if flips:
            data = bytearray(path.read_bytes())
            for i in rng.integers(0, len(data), flips):
                data[i] ^= int(rng.integers(1, 256))
            path.write_bytes(bytes(data))
        try:
            report = verify(path)
        except (proof_file.ProofFileError, CertificateError) as e:
            text = str(e)
            assert "\n" not in text and "\x1b" not in text, (k, text)
            refused += 1
            continue
        truth = solve(report.root).value
        assert report.claim == claim_of(truth, report.root.to_move), (k, report.claim)
        if report.root.t == 0:
            assert report.claim == "white wins" and report.game == littlego.LittleGo(3)
        proved += 1
    assert refused > 100 and proved > 0, (proved, refused)


def test_no_crafted_book_crashes_its_reader(tmp_path):
    rng = np.random.default_rng(18)
    members = _members(BOOK_3X3)
    for k in range(150):
        crafted = dict(members)
        header = json.loads(crafted["header.json"])
        key = ["sources", "rows", "version", "game", "format"][k % 5]
        header[key] = [None, 5, "x", [1], {"a": 1}, 10 ** 20, 1.5, json.loads(_deep(30))][k % 8]
        crafted["header.json"] = json.dumps(header).encode()
        path = _zip(tmp_path / f"b{k}.book", crafted)
        data = bytearray(path.read_bytes())
        if k % 3 == 0:
            for i in rng.integers(0, len(data), 5):
                data[i] ^= 0xFF
            path.write_bytes(bytes(data))
        try:
            load_book(path)
        except proof_file.ProofFileError as e:
            assert "\n" not in str(e) and str(path) in str(e)


def test_combine_reads_its_result_files_within_bounds(tmp_path):
    from tictacgo.proof.combine import combine

    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file|named pipe"):
        combine([fifo], "")  # refused at once, not read (a FIFO would hang the reader)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError):
        combine([deep], "")
    huge = tmp_path / "huge.json"
    huge.write_text('{"size": 3, "komi": 1.5, "max_actions": 8, "line": [], '
                    '"positions": [{"taken": 1e400, "value_for_black": 1}]}')
    with pytest.raises(ValueError):
        combine([huge], "")
