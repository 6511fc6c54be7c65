"""Combining frontier runs and certificates (tictacgo.proof.combine, the work of scripts/combine_proofs.py):
a position's value from the proved values below it; and the certificates that make it checked
(tictacgo.proof.proof_leaves, and tictacgo.proof.leaf_job, the work of scripts/certify_leaves.py).

The runs here are real frontier runs on 3x3 (komi 1.5, 8 actions: the empty
board is a White win), one per class of first moves; the combined values
must be the solver's own, found through the rules' moves and symmetries.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("numba", reason="the solver needs numba (the fast extra)")

from tictacgo.cli import main as cli_main  # noqa: E402
from tictacgo.evaluation import frontier  # noqa: E402
from tictacgo.games import littlego  # noqa: E402
from tictacgo.proof import (  # noqa: E402
    CertificateError,
    book_from_certificates,
    book_from_frontier,
    load_book,
    prove,
)
from tictacgo.proof.check_records import (  # noqa: E402
    checked_claim,
    parse_time,
    print_records_table,
    read_record,
    record_path,
)
from tictacgo.proof.combine import (  # noqa: E402
    CHECKED,
    RECORDED,
    UNCHECKED,
    combine,
    combine_and_report,
    trust_words,
)
from tictacgo.proof.leaf_job import LeafJob, UsageError, recorded_leaves, run_leaf_job  # noqa: E402
from tictacgo.proof.proof_leaves import certify, proof_leaves  # noqa: E402
from tictacgo.protocol.coords import action_to_course  # noqa: E402
from tictacgo.solver import solve  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

GAME = littlego.LittleGo(3)
#: One Black first move of each class on 3x3: the centre, a side point, a corner (a pass on the
#: empty board ends the game, a quirk of the course's rules: the rules give its result).
FIRST_MOVES = {"centre": "1,1", "side": "0,1", "corner": "0,0"}


def leaf_job(**settings) -> int:
    """The job of scripts/certify_leaves.py with these settings (its flags' names; the script's
    defaults), refused as the script refuses them (``UsageError``) before it runs; its exit status."""
    job = LeafJob(**settings)
    job.check()
    return run_leaf_job(job)


def black_value(state) -> int:
    if state.end is not None:
        w = littlego.winner(state)
        return 1 if w == littlego.BLACK else -1 if w == littlego.WHITE else 0
    v = solve(state).value
    return v if state.to_move == littlego.BLACK else -v


def after(moves: str | tuple[str, ...], game: littlego.LittleGo = GAME) -> littlego.GoState:
    """The position after ``moves`` (course notation, a string or a sequence) from the empty board."""
    state = game.initial_state()
    for word in moves.split() if isinstance(moves, str) else moves:
        state = littlego.play(state, frontier.parse_moves(word, game.size)[0])
    return state


def write_run(path: Path, opening: str, keep_from: int) -> Path:
    """A frontier run along a line that starts with ``opening``, solved back to the empty board, its
    rows before ``keep_from`` moves dropped (so the run proves nothing before the opening's end)."""
    first = frontier.parse_moves(opening, 3)
    states, actions = frontier.line_from_agent(GAME, "random", seed=1, opening=first)
    out = frontier.solve_line(states, actions, start_left=6, budget=60, reserve=0, all_moves=False,
                              table_bits=16)
    out["positions"] = [r for r in out["positions"] if r["taken"] >= keep_from]
    path.write_text(json.dumps(out))
    return path


@pytest.fixture(scope="module")
def first_move_runs(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("runs")
    return {name: write_run(d / f"{name}.json", move, keep_from=1) for name, move in FIRST_MOVES.items()}


def test_every_first_move_of_3x3_is_found_among_the_classes_and_the_empty_board_loses(first_move_runs):
    result = combine(list(first_move_runs.values()), "")
    empty = GAME.initial_state()
    legal = [action_to_course(a, 3) for a in littlego.legal_actions(empty)]
    assert [c.move for c in result.children] == legal
    for c in result.children:
        assert c.value_for_black == black_value(after(c.move)), c.move
    corners = [c for c in result.children if c.move in ("0,0", "0,2", "2,0", "2,2")]
    assert all(c.how.startswith("proved by corner.json") for c in corners)  # images of the run's corner
    assert result.children[-1].move == "PASS" and result.children[-1].how == "game end"
    assert result.values == [-1] == [black_value(empty)]
    assert result.missing == [] and result.best_moves == [None]  # Black has no winning move


def test_a_missing_class_leaves_the_value_unknown_and_names_its_moves(first_move_runs, capsys):
    runs = [p for name, p in first_move_runs.items() if name != "side"]
    result = combine(runs, "")
    assert result.root_value is None
    assert result.missing == ["0,1", "1,0", "1,2", "2,1"]
    assert combine_and_report(runs) == 1
    assert "not proved: the position after 0,1, 1,0, 1,2, 2,1" in capsys.readouterr().out


def test_a_win_for_the_mover_needs_one_child_and_goes_back_along_the_opening(tmp_path):
    reply = action_to_course(solve(after("1,1")).best_move, 3)  # White's winning answer to the centre
    run = write_run(tmp_path / "answer.json", f"1,1 {reply}", keep_from=2)
    result = combine([run], "1,1")
    assert result.root_value == -1 and result.best_moves[1] == reply
    known = [c for c in result.children if c.value_for_black is not None]
    assert all(c.value_for_black == black_value(after(f"1,1 {c.move}")) for c in known)
    assert len(known) < len(result.children)  # the other replies were not needed
    # Black's centre loses, which does not decide the empty board: Black has other first moves
    assert result.values[0] is None and result.best_moves[0] is None


def test_the_combined_json_is_a_frontier_result_that_a_book_reads(tmp_path):
    reply = action_to_course(solve(after("1,1")).best_move, 3)
    run = write_run(tmp_path / "answer.json", f"1,1 {reply}", keep_from=2)
    out = tmp_path / "combined.json"
    assert combine_and_report([run], "1,1", json_path=out) == 0
    data = json.loads(out.read_text())
    assert data["line"] == ["1,1"] and [r["value_for_black"] for r in data["positions"]] == [None, -1]
    book = book_from_frontier(out)
    move, value = book.lookup(after("1,1"))
    assert (action_to_course(move, 3), value) == (reply, 1)
    both = tmp_path / "both.book"  # --frontier repeats: the run's positions and the combined one
    assert cli_main(["solve", "--book", str(both), "--frontier", str(run), "--frontier", str(out)]) == 0
    run_only = book_from_frontier(run)
    assert run_only.lookup(after("1,1")) is None
    assert load_book(both).entries == {**run_only.entries, **book.entries}


def test_runs_that_contradict_each_other_are_refused_naming_both(first_move_runs, tmp_path):
    run = json.loads(first_move_runs["corner"].read_text())
    row = next(r for r in run["positions"] if r["taken"] == 1)
    row["value_for_black"] = -row["value_for_black"] or 1
    bad = tmp_path / "flipped.json"
    bad.write_text(json.dumps(run))
    with pytest.raises(ValueError, match=r"flipped\.json: the position after '0,0' is .* but corner\.json"):
        combine([first_move_runs["corner"], bad], "")


def test_bad_runs_and_openings_are_refused_with_what_was_expected(first_move_runs, tmp_path):
    run = json.loads(first_move_runs["centre"].read_text())
    other = dict(run, size=4, komi=2, max_actions=15)
    (tmp_path / "four.json").write_text(json.dumps(other))
    with pytest.raises(ValueError, match=r"four\.json: a result on 4x4, komi 2, 15 actions, but centre"):
        combine([first_move_runs["centre"], tmp_path / "four.json"], "")
    illegal = dict(run, line=["1,1", "1,1"] + run["line"][2:])
    (tmp_path / "illegal.json").write_text(json.dumps(illegal))
    with pytest.raises(ValueError, match=r"illegal\.json: move 2 \(1,1\) after '1,1' is illegal"):
        combine([tmp_path / "illegal.json"], "")
    (tmp_path / "notes.json").write_text(json.dumps({"size": 3}))
    with pytest.raises(ValueError, match=r"notes\.json: not a frontier run's JSON"):
        combine([tmp_path / "notes.json"], "")
    with pytest.raises(ValueError, match=r"the opening: move '9,9' is off the 3x3 board \(the line's move"):
        combine([first_move_runs["centre"]], "9,9")
    assert combine_and_report([tmp_path / "notes.json"]) == 2


def write_certificate(path: Path, moves: str) -> Path:
    state = after(moves)
    prove(state, line=frontier.parse_moves(moves, 3)).write(path)
    return path


def test_certificates_of_every_first_move_make_a_checked_value_of_the_empty_board(tmp_path):
    certs = [write_certificate(tmp_path / f"{name}.cert", move) for name, move in FIRST_MOVES.items()]
    result = combine(certs, "")
    assert result.values == [-1] and result.checked == [CHECKED]
    assert all(c.checked == CHECKED for c in result.children)
    assert "proved by corner.cert after '0,0'" in {c.how for c in result.children}


def test_a_value_that_needs_a_runs_value_is_not_marked_checked(first_move_runs, tmp_path):
    certs = [write_certificate(tmp_path / f"{name}.cert", FIRST_MOVES[name]) for name in ("centre", "side")]
    result = combine([*certs, first_move_runs["corner"]], "")
    assert result.values == [-1] and result.checked == [UNCHECKED]
    assert [c.checked for c in result.children if c.move in ("0,0", "1,1")] == [UNCHECKED, CHECKED]


def test_depth_two_reaches_certificates_of_the_positions_two_actions_below(tmp_path):
    certs = []
    for name, move in FIRST_MOVES.items():  # White's winning answer to each first move, as a certificate
        reply = action_to_course(solve(after(move)).best_move, 3)
        certs.append(write_certificate(tmp_path / f"{name}.cert", f"{move} {reply}"))
    assert combine(certs, "").root_value is None  # one action deep: Black's first moves are not proved
    result = combine(certs, "", depth=2)
    assert result.values == [-1] and result.checked == [CHECKED]
    assert {c.how for c in result.children} == {"from the proved positions below it", "game end"}
    with pytest.raises(ValueError, match="depth must be an integer of at least 1, got 0"):
        combine(certs, "", depth=0)


def test_a_certificate_that_does_not_prove_its_claim_is_refused(tmp_path, capsys):
    cert = write_certificate(tmp_path / "centre.cert", "1,1")
    with zipfile.ZipFile(cert) as z:
        members = {name: z.read(name) for name in z.namelist()}
    header = json.loads(members["header.json"])
    header["claim"] = "black wins"
    members["header.json"] = json.dumps(header).encode()
    bad = tmp_path / "flipped.cert"
    with zipfile.ZipFile(bad, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    with pytest.raises(CertificateError, match=r"flipped\.cert"):
        combine([bad], "")
    assert combine_and_report([bad]) == 2
    assert "flipped.cert" in capsys.readouterr().err


# -- the leaves of a combined proof, and their certificates (tictacgo.proof.proof_leaves) -------------

@pytest.fixture(scope="module")
def answer_runs(tmp_path_factory) -> list[Path]:
    """For each of Black's first-move classes on 3x3, a run along White's winning answer."""
    d = tmp_path_factory.mktemp("answers")
    runs = []
    for name, move in FIRST_MOVES.items():
        reply = action_to_course(solve(after(move)).best_move, 3)
        runs.append(write_run(d / f"{name}.json", f"{move} {reply}", keep_from=1))
    return runs


def test_the_leaves_are_every_move_where_the_mover_loses_and_one_proved_win_where_it_wins(answer_runs):
    leaves = proof_leaves(answer_runs, "", depth=2)
    # Black loses the empty board, so all 9 first moves count (3 up to symmetry; the pass ends the
    # game); White wins after each, so one winning answer each: 3 leaves, two actions deep
    assert len(leaves) == 3 and all(len(leaf.moves) == 2 for leaf in leaves)
    for leaf in leaves:
        assert leaf.state == after(" ".join(leaf.moves)) and black_value(leaf.state) == -1
    assert {leaf.moves[0] for leaf in leaves} == {"0,0", "0,1", "1,1"}  # the first move of each class
    with pytest.raises(ValueError, match=r"the results do not prove the position after '', which the "
                                         r"proof passes through \(2 actions above the leaves\)"):
        proof_leaves(answer_runs[:2], "", depth=2)  # without the corner's run


def test_certifying_the_leaves_makes_the_value_checked_and_a_second_run_makes_nothing(answer_runs, tmp_path,
                                                                                      capsys):
    folder = tmp_path / "certs"
    args = {"dir": str(folder), "depth": 2, "table_bits": 16, "results": [*map(str, answer_runs)]}
    assert leaf_job(**args) == 0
    out = capsys.readouterr().out
    assert "3 of 3 leaves certified and checked (3 made now, 3 checked now)" in out
    assert "the empty board: White wins, checked" in out
    records = [read_record(c) for c in sorted(folder.glob("*.cert"))]  # NAME.json beside NAME.cert
    assert len(records) == 3 and all(r["made"]["rows"] == r["checked"]["rows"] > 0 for r in records)
    first = sorted(folder.glob("*.cert"))[0]
    first.rename(folder / "renamed.cert")  # found by its root, whatever its name; its record is not
    # two certificates are taken from their records of the first run's checks: not "checked" now
    assert leaf_job(**args) == 1
    out = capsys.readouterr().out
    assert "3 of 3 leaves certified and checked (0 made now, 1 checked now)" in out
    assert "the empty board: White wins, from records of earlier checks, not re-checked" in out
    assert leaf_job(**args, trust_records=True) == 0
    (folder / "renamed.cert").unlink()
    assert leaf_job(**args, trust_records=True) == 0
    assert "(1 made now, 1 checked now)" in capsys.readouterr().out
    assert leaf_job(**args, recheck=True) == 0  # every certificate checked again
    assert "the empty board: White wins, checked" in capsys.readouterr().out


def test_leaves_are_made_with_known_moves_first_unless_told_to_take_the_solvers(answer_runs, tmp_path,
                                                                                 capsys):
    args = {"depth": 2, "table_bits": 16, "shared_table": True, "results": [*map(str, answer_runs)]}
    assert leaf_job(dir=str(tmp_path / "known"), **args) == 0
    assert leaf_job(dir=str(tmp_path / "solver"), solver_moves=True, **args) == 0
    capsys.readouterr()
    known = [read_record(c)["made"] for c in sorted((tmp_path / "known").glob("*.cert"))]
    plain = [read_record(c)["made"] for c in sorted((tmp_path / "solver").glob("*.cert"))]
    assert [m["prefer_known"] for m in known] == [True] * 3
    assert [m["prefer_known"] for m in plain] == [False] * 3
    assert sum(m["rows"] for m in known) <= sum(m["rows"] for m in plain)


def test_list_says_where_each_leaf_stands_and_how_many_are_checked(answer_runs, tmp_path, capsys):
    args = {"dir": str(tmp_path), "depth": 2, "table_bits": 16, "results": [*map(str, answer_runs)]}
    assert leaf_job(**args, list=True) == 0
    out = capsys.readouterr().out
    assert out.count(": to make") == 3 and "0 of 3 checked (0 rows, 0 s of checks), 0 made and not " \
        "checked yet, 3 to make" in out
    assert leaf_job(**args, shard="0/2") == 1  # leaves 0 and 2 of 3
    capsys.readouterr()
    assert leaf_job(**args, list=True) == 0
    out = capsys.readouterr().out
    assert out.count(", checked: ") == 2 and out.count(": to make") == 1
    assert re.search(r"2 of 3 checked \([\d,]+ rows, [\d,]+ s of checks\), 0 made and not checked yet, "
                     r"1 to make", out)


def test_the_checkers_size_cap_is_the_jobs_to_set(answer_runs, tmp_path, capsys):
    from tictacgo.proof.proof_file import ProofFileError

    leaves = proof_leaves(answer_runs, "", depth=2)
    with pytest.raises(ProofFileError, match="more than the 100 bytes"):
        certify(leaves[:1], tmp_path, table_bits=16, max_bytes=100)  # made, then too large to check
    args = {"dir": str(tmp_path), "depth": 2, "table_bits": 16, "results": [*map(str, answer_runs)]}
    assert leaf_job(**args, max_mb=0.0001) == 2
    assert "more than the 104 bytes" in capsys.readouterr().err
    assert leaf_job(**args, recheck=True) == 0  # the default cap (4096 MB) takes it
    with pytest.raises(UsageError, match="--max-mb must be a finite positive number, got 0.0"):
        leaf_job(**args, max_mb=0.0)


def test_how_a_certificate_was_made_is_recorded_before_its_check(answer_runs, tmp_path, capsys):
    from tictacgo.proof.proof_file import ProofFileError

    leaves = proof_leaves(answer_runs, "", depth=2)
    with pytest.raises(ProofFileError):  # the job stops between the make and the check
        certify(leaves[:1], tmp_path, table_bits=16, max_bytes=100)
    cert = tmp_path / f"{leaves[0].name}.cert"
    record = read_record(cert)
    assert "checked" not in record and record["made"]["moves"] == " ".join(leaves[0].moves)
    assert record["made"]["rows"] > 0 and record["made"]["seconds"] >= 0
    args = {"dir": str(tmp_path), "depth": 2, "table_bits": 16, "results": [*map(str, answer_runs)]}
    assert leaf_job(**args, list=True) == 0
    assert f"made ({record['made']['rows']:,} rows in " in capsys.readouterr().out
    done = certify(leaves[:1], tmp_path, table_bits=16)  # the job goes on: it checks, keeping the make
    assert [(m.made, m.checked_now) for m in done] == [(False, True)]
    assert read_record(cert)["made"] == record["made"] and checked_claim(cert) == "white wins"


def test_a_record_is_trusted_only_for_the_very_bytes_it_names(answer_runs, tmp_path):
    leaves = proof_leaves(answer_runs, "", depth=2)
    done = certify(leaves, tmp_path, table_bits=16)
    cert = done[0].path
    assert checked_claim(cert) == "white wins"
    record = read_record(cert)
    record["checked"]["claim"] = "black wins"  # a record that says more than the checker did
    record_path(cert).write_text(json.dumps(record))
    assert checked_claim(cert) == "black wins"
    with zipfile.ZipFile(cert) as z:  # the certificate's own header still claims a White win
        assert json.loads(z.read("header.json"))["claim"] == "white wins"
    with pytest.raises(ValueError, match=rf"{record_path(cert).name}: the record says the checker accepted "
                                         rf"'black wins' for {cert.name}, whose own claim is 'white wins'"):
        combine([m.path for m in done], "", depth=2, records=True)  # an error naming both
    result = combine([m.path for m in done], "", depth=2)  # no records: every certificate checked now
    assert result.values == [-1] and result.checked == [CHECKED]
    cert.write_bytes(cert.read_bytes() + b"\0")  # other bytes: the record no longer holds them
    assert checked_claim(cert) is None
    assert [m.checked_now for m in certify(leaves, tmp_path, table_bits=16)] == [True, False, False]


def test_a_leaf_made_twice_is_the_same_file_and_its_record_names_the_root_and_the_game(answer_runs,
                                                                                     tmp_path):
    leaves = proof_leaves(answer_runs, "", depth=2)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    first = certify(leaves, tmp_path / "a", table_bits=16)
    # made again, alone and in another order: a fresh table for each leaf, fixed times in the zip
    again = certify(leaves[::-1], tmp_path / "b", table_bits=16)[::-1]
    for one, two in zip(first, again, strict=True):
        assert one.path.read_bytes() == two.path.read_bytes()
        made = one.record["made"]
        assert made["sha256"] == two.record["made"]["sha256"] == one.record["checked"]["sha256"]
        assert made["game"] == {"size": 3, "komi": 1.5, "max_actions": 8}
        assert made["root"]["line"] == " ".join(one.leaf.moves) and made["root"]["t"] == 2
        assert made["claim"] == one.record["checked"]["claim"] == "white wins"
        assert made["fresh_table"] is True and made["leaf_rules"] == ["pass_bound"]
        assert one.record["checked"]["checker_version"] == 1
    shared = certify(leaves, tmp_path / "c", table_bits=16, fresh_table=False)
    assert [m.record["made"]["fresh_table"] for m in shared] == [False] * 3


def test_a_checked_leaf_can_leave_its_moves_near_the_root_as_a_book_fragment(answer_runs, tmp_path):
    from tictacgo.proof.checker import verify

    leaves = proof_leaves(answer_runs, "", depth=2)
    done = certify(leaves, tmp_path, table_bits=16, book_until=4)
    for m in done:
        fragment = load_book(m.path.with_suffix(".book"))
        full = book_from_certificates([m.path])
        assert 0 < len(fragment) < len(full)
        assert all(key[2] & 0x7F <= 4 for key in fragment.entries)  # t, bits 0-6 of the packed meta
        assert all(full.entries[key] == entry for key, entry in fragment.entries.items())
        assert "checked" in fragment.sources[0]
        # Black is to move at the leaf and loses: after any move of Black's, White's winning move
        state = littlego.play(m.leaf.state, littlego.legal_actions(m.leaf.state)[0])
        move, value = fragment.lookup(state)
        assert value == 1 and verify(m.path).strategies[0].guaranteed == 1
        assert littlego.illegal_reason(state, move) is None


def test_a_stopped_job_goes_on_with_the_leaves_left(answer_runs, tmp_path):
    leaves = proof_leaves(answer_runs, "", depth=2)
    asked = []
    done = certify(leaves, tmp_path, table_bits=16, stop=lambda: len(asked.append(1) or asked) > 1)
    assert [m.made for m in done] == [True]
    done = certify(leaves, tmp_path, table_bits=16)
    assert [m.made for m in done] == [False, True, True]
    assert combine([m.path for m in done], "", depth=2).checked == [CHECKED]


def test_shards_split_the_leaves_and_the_run_without_one_checks_them_all(answer_runs, tmp_path, capsys):
    args = {"dir": str(tmp_path), "depth": 2, "table_bits": 16, "results": [*map(str, answer_runs)]}
    assert leaf_job(**args, shard="1/2") == 1  # leaf 1 of 0, 1, 2
    out = capsys.readouterr().out
    assert "this shard makes 1 of them" in out and "run the command without --shard" in out
    assert len(list(tmp_path.glob("*.cert"))) == 1
    assert leaf_job(**args, shard="0/2") == 1
    assert len(list(tmp_path.glob("*.cert"))) == 3
    assert leaf_job(**args, trust_records=True) == 0  # the shards' records of their checks
    assert "(0 made now, 0 checked now)" in capsys.readouterr().out
    assert leaf_job(**args, shard="2/2") == 2
    assert "--shard '2/2': expected I/N with 0 <= I < N" in capsys.readouterr().err


def test_the_published_value_of_the_empty_board_follows_from_the_six_published_runs():
    data = ROOT / "docs" / "data"
    runs = [data / "frontier_22_to_go.json", *sorted((data / "after_centre").glob("*.json"))]
    result = combine(runs, "2,2")
    assert result.values == [1, 1] and result.best_moves[0] == "2,2" and result.missing == []
    assert len(result.children) == 25 and not any(result.checked)  # the runs' values, not certificates
    assert result.to_json() == json.loads((data / "empty_board.json").read_text())


def test_the_published_records_of_leaf_checks_are_leaves_of_that_proof_and_agree_with_its_runs():
    data = ROOT / "docs" / "data"
    runs = [data / "frontier_22_to_go.json", *sorted((data / "after_centre").glob("*.json"))]
    kept = data / "empty_board_leaves"
    leaves = proof_leaves(runs, "2,2", depth=3)
    recorded = recorded_leaves(leaves, kept)  # refuses a record of a position that is no leaf
    assert len(leaves) == 109 and len(recorded) == len(list(kept.glob("*.json"))) == 109
    result = combine(runs, "2,2", depth=3, kept=kept)  # refuses a record that contradicts a run
    assert result.values == [1, 1] and result.kept == 109 and result.checked == [RECORDED, RECORDED]


def test_the_published_value_follows_from_the_records_of_the_leaf_checks_alone_and_says_so(tmp_path):
    data = ROOT / "docs" / "data"
    kept = data / "empty_board_leaves"
    result = combine([], "2,2", depth=3, kept=kept, game=littlego.LittleGo(5))  # no run's value
    assert result.values == [1, 1] and result.best_moves[0] == "2,2" and result.checked == [RECORDED] * 2
    assert len(result.children) == 25 and all(c.checked == RECORDED and c.value_for_black == 1
                                              for c in result.children)
    assert not any(row["checked"] for row in result.to_json()["positions"])  # records are not checks
    assert {row["how"] for row in result.to_json()["positions"]} == {trust_words(RECORDED)}
    assert result.to_json() == json.loads((data / "empty_board_from_records.json").read_text())
    for record in sorted(kept.glob("*.json"))[1:]:  # every record but one
        (tmp_path / record.name).write_bytes(record.read_bytes())
    short = combine([], "2,2", depth=3, kept=tmp_path, game=littlego.LittleGo(5))
    assert short.values == [None, None] and short.checked == [UNCHECKED, UNCHECKED]


def test_the_5x5_books_first_black_moves_are_those_of_the_checked_proof():
    """The shipped book's `2,2` and its answer to each of White's 25 replies lead to positions that the
    proof checked through the leaf certificates passes through (up to symmetry)."""
    from tictacgo.proof.book import default_book_path
    from tictacgo.proof.position_code import canonical

    data = ROOT / "docs" / "data"
    runs = [data / "frontier_22_to_go.json", *sorted((data / "after_centre").glob("*.json"))]
    game = littlego.LittleGo(5)
    proved = {canonical(after(leaf.moves[:3], game))[0] for leaf in proof_leaves(runs, "2,2", depth=3)}
    book = load_book(default_book_path(game))
    first = book.lookup(game.initial_state())
    assert first is not None and action_to_course(first[0], 5) == "2,2" and first[1] == 1
    centre = littlego.play(game.initial_state(), first[0])
    for reply in littlego.legal_actions(centre):
        position = littlego.play(centre, reply)
        move, value = book.lookup(position)
        assert value == 1 and canonical(littlego.play(position, move))[0] in proved, reply


def test_certificates_below_the_runs_positions_make_the_value_checked(answer_runs, tmp_path):
    leaves = proof_leaves(answer_runs, "", depth=2)
    certs = [m.path for m in certify(leaves, tmp_path, table_bits=16)]
    assert combine(answer_runs, "", depth=2).checked == [UNCHECKED]  # the runs alone: their values
    result = combine([*answer_runs, *certs], "", depth=2)  # the runs prove Black's first moves too
    assert result.values == [-1] and result.checked == [CHECKED]
    assert all(c.checked == CHECKED and c.how == "from the proved positions below it" for c in result.children
               if c.how != "game end")


def test_a_run_that_the_certificates_below_it_contradict_is_refused(answer_runs, tmp_path):
    leaves = proof_leaves(answer_runs, "", depth=2)
    certs = [m.path for m in certify(leaves, tmp_path, table_bits=16)]
    run = json.loads(answer_runs[0].read_text())  # the centre's run: White wins after 1,1
    next(r for r in run["positions"] if r["taken"] == 1)["value_for_black"] = 1
    bad = tmp_path / "flipped.json"
    bad.write_text(json.dumps(run))
    with pytest.raises(ValueError, match=r"flipped\.json proves the position after '1,1' a Black win, "
                                         r"but the results below it make it a White win"):
        combine([bad, *certs], "", depth=2)


def test_a_leaf_made_by_another_job_meanwhile_is_not_made_again(answer_runs, tmp_path):
    leaves = proof_leaves(answer_runs, "", depth=2)
    other = tmp_path / "other"
    other.mkdir()
    made_elsewhere = certify(leaves[1:2], other, table_bits=16)[0].path

    def report(m):  # while the first leaf is made, another job writes the second
        if m.leaf is leaves[0]:
            (tmp_path / "by_the_other_job.cert").write_bytes(made_elsewhere.read_bytes())

    done = certify(leaves, tmp_path, table_bits=16, report=report)
    assert [m.made for m in done] == [True, False, True]
    assert done[1].path.name == "by_the_other_job.cert"


def test_jobs_that_share_a_folder_check_one_certificate_at_a_time(tmp_path):
    import threading

    from tictacgo.proof.proof_leaves import one_check_at_a_time

    fcntl = pytest.importorskip("fcntl", reason="the lock is an flock (POSIX)")
    order = []

    def other_job():
        with one_check_at_a_time(tmp_path):
            order.append("other")

    with one_check_at_a_time(tmp_path):
        with open(tmp_path / ".check.lock") as f:  # held: a try without waiting fails
            with pytest.raises(BlockingIOError):
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        thread = threading.Thread(target=other_job)
        thread.start()
        thread.join(0.3)
        assert thread.is_alive() and order == []  # it waits for this check to end
        order.append("this")
    thread.join(5)
    assert order == ["this", "other"]


def test_with_two_checks_at_once_a_second_job_checks_beside_the_first_and_a_third_waits(tmp_path):
    import threading

    from tictacgo.proof.proof_leaves import one_check_at_a_time

    pytest.importorskip("fcntl", reason="the lock is an flock (POSIX)")
    inside, release = [], threading.Event()

    def job(name):
        with one_check_at_a_time(tmp_path, 2):
            inside.append(name)
            release.wait(5)

    first, second, third = (threading.Thread(target=job, args=(k,)) for k in "abc")
    first.start()
    second.start()
    second.join(0.3)
    third.start()
    third.join(0.3)
    assert sorted(inside) == ["a", "b"]  # two at once; the third waits
    release.set()
    for t in (first, second, third):
        t.join(5)
    assert sorted(inside) == ["a", "b", "c"]
    with pytest.raises(ValueError, match="at_once must be a positive int, got 0"):
        with one_check_at_a_time(tmp_path, 0):
            pass


# -- records kept without their certificates (check_records.recorded_checks, combine's kept) -----------

def keep_records(certs: Path, kept: Path) -> Path:
    """Copy the check records of ``certs`` to ``kept`` and delete the certificates, as a later job finds
    them when only the records were kept (in git, say)."""
    kept.mkdir()
    for record in certs.glob("*.json"):
        (kept / record.name).write_text(record.read_text())
    for cert in certs.glob("*.cert"):
        cert.unlink()
    return kept


def test_records_kept_without_their_certificates_give_the_value_as_recorded_not_checked(answer_runs,
                                                                                       tmp_path):
    leaves = proof_leaves(answer_runs, "", depth=2)
    (tmp_path / "certs").mkdir()
    certify(leaves, tmp_path / "certs", table_bits=16)
    kept = keep_records(tmp_path / "certs", tmp_path / "kept")
    result = combine([], "", depth=2, kept=kept, game=GAME)
    assert result.values == [-1] and result.checked == [RECORDED] and result.kept == 3
    assert sorted(result.sources) == sorted(p.name for p in kept.glob("*.json"))
    assert result.to_json()["kept_records"] == 3
    (kept / f"{leaves[0].name}.json").unlink()  # a leaf without a record: the value does not follow
    assert combine([], "", depth=2, kept=kept, game=GAME).values == [None]


def test_a_kept_record_is_named_for_its_position_and_must_agree_with_the_other_results(answer_runs, tmp_path):
    leaves = proof_leaves(answer_runs, "", depth=2)
    (tmp_path / "certs").mkdir()
    certify(leaves, tmp_path / "certs", table_bits=16)
    kept = keep_records(tmp_path / "certs", tmp_path / "kept")
    first = kept / f"{leaves[0].name}.json"
    record = json.loads(first.read_text())
    record["checked"]["claim"] = "black wins"  # a record is taken at its word: here it contradicts a run
    first.write_text(json.dumps(record))
    with pytest.raises(ValueError, match=rf"{first.name}: the position after '{' '.join(leaves[0].moves)}' "
                                         r"is a Black win there, but"):
        combine(answer_runs, "", depth=2, kept=kept)
    record["checked"]["claim"] = "maybe"
    first.write_text(json.dumps(record))
    with pytest.raises(ValueError, match=r"'checked' is .*expected the checker's claim"):
        combine([], "", depth=2, kept=kept, game=GAME)
    record["checked"]["claim"] = "white wins"
    del record["checked"]["rows"]
    first.write_text(json.dumps(record))
    with pytest.raises(ValueError, match=r"the certificate.s sha256, and its rows, positions and seconds"):
        combine([], "", depth=2, kept=kept, game=GAME)
    record["checked"]["rows"] = 31
    first.write_text(json.dumps(record))
    first.rename(kept / "0-0_0-1_1-1.json")  # moves that its record's make does not name
    with pytest.raises(ValueError, match=r"0-0_0-1_1-1\.json: the record was made for '.*', but its name "
                                         r"says '0,0 0,1 1,1'"):
        combine([], "", depth=2, kept=kept, game=GAME)


def test_the_job_takes_leaves_checked_by_earlier_jobs_from_their_records(answer_runs, tmp_path, capsys):
    args = {"depth": 2, "table_bits": 16, "results": [*map(str, answer_runs)]}
    assert leaf_job(dir=str(tmp_path / "first"), shard="0/2", **args) == 1
    kept = keep_records(tmp_path / "first", tmp_path / "kept")  # leaves 0 and 2 of 3, no certificates
    capsys.readouterr()
    later = {"dir": str(tmp_path / "later"), "records": str(kept), **args}
    assert leaf_job(**later, list=True) == 0
    out = capsys.readouterr().out
    assert "3 leaves, 2 actions below the empty board; 2 checked by earlier jobs" in out
    assert out.count("checked by an earlier job: ") == 2 and out.count(": to make") == 1
    assert "2 of 3 checked" in out
    out_json = tmp_path / "value.json"
    assert leaf_job(**later, json=str(out_json)) == 1  # makes the one leaf left
    out = capsys.readouterr().out
    assert "1 of 1 leaves certified and checked (1 made now, 1 checked now)" in out
    assert "the empty board: White wins, from records of earlier checks, not re-checked" in out
    assert "(2 of the leaves from records" in out
    written = json.loads(out_json.read_text())  # the value needs all three, two of them from records
    assert written["value_for_black"] == -1 and written["kept_records"] == 2
    assert [row["checked"] for row in written["positions"]] == [False]
    assert leaf_job(**later, trust_records=True) == 0
    assert len(list((tmp_path / "later").glob("*.cert"))) == 1
    with pytest.raises(UsageError, match="--recheck checks every certificate again"):
        leaf_job(**later, recheck=True)
    with pytest.raises(UsageError, match="--json"):  # refused before any work, not after it
        leaf_job(**later, json=str(tmp_path / "no such folder" / "value.json"))
    assert not (tmp_path / "no such folder").exists()
    fake = {"claim": "white wins", "sha256": "0", "rows": 1, "positions": 1, "seconds": 0.1}
    (kept / "2-2.json").write_text(json.dumps({"checked": fake}))
    assert leaf_job(**later) == 2  # a record of a position that is no leaf
    assert "2-2.json: a record of the position after '2,2', which is not one of the 3 leaves" in \
        capsys.readouterr().err


def test_the_records_table_has_a_row_per_checked_leaf_and_their_totals(answer_runs, tmp_path, capsys):
    leaves = proof_leaves(answer_runs, "", depth=2)
    done = certify(leaves, tmp_path, table_bits=16)
    record = read_record(done[0].path)
    full = json.dumps(record)
    record.pop("made")  # a record from before records held the make
    record_path(done[0].path).write_text(json.dumps(record))
    assert print_records_table(tmp_path) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| `")]
    assert len(rows) == 3 and sum(re.search(r"\| — \| [\d,]+ \| — \| — \|", r) is not None for r in rows) == 1
    assert sum("| known moves first |" in r for r in rows) == 2
    rows_total = sum(read_record(m.path)["checked"]["rows"] for m in done)
    assert f"3 checked: {rows_total:,} rows" in out and "claims: white wins" in out
    sizes = [m.path.stat().st_size for m in done[1:]]  # the first record's make was dropped above
    assert f"certificates: {sum(sizes) / 1e6:,.1f} MB in all (deflate-compressed zip)" in out
    assert "(2 of the 3 records say)" in out
    assert "process time" not in out  # one record does not say how long its make took
    record_path(done[0].path).write_text(full)
    assert print_records_table(tmp_path) == 0
    records = [read_record(m.path) for m in done]
    make, check = (sum(r[part]["seconds"] for r in records) / 3600 for part in ("made", "checked"))
    line = f"process time: {make:,.1f} h to make and {check:,.1f} h to check, {make + check:,.1f} h in all"
    assert line in capsys.readouterr().out
    assert print_records_table(tmp_path, parse_time("2999-01-01T00:00:00Z"), "2999-01-01T00:00:00Z") == 1
    assert "no checked records since 2999" in capsys.readouterr().out
    with pytest.raises(ValueError):  # scripts/leaf_records.py refuses it (tests/test_hardening_cli.py)
        parse_time("yesterday")


def test_the_work_left_is_estimated_from_an_earlier_runs_checks_of_the_same_leaves(tmp_path):
    from tictacgo.proof.check_records import estimate_left

    def record(folder: Path, name: str, positions: int, seconds: float | None) -> None:
        checked = {"sha256": "0" * 64, "claim": "black wins", "rows": 1, "positions": positions,
                   "seconds": 1800.0, "at": "2026-11-29T10:00:00Z"}
        made = {"moves": name.replace("_", " ").replace("-", ",")}
        if seconds is not None:
            made["seconds"] = seconds
        folder.mkdir(exist_ok=True)
        (folder / f"{name}.json").write_text(json.dumps({"made": made, "checked": checked}))

    now, then = tmp_path / "now", tmp_path / "then"
    record(now, "2-2_0-0", 10, 5400.0)  # 1.5 h to make and 0.5 h to check: 2 h for 10 positions then
    for name, positions in (("2-2_0-0", 10), ("2-2_0-1", 30), ("2-2_PASS", 20)):
        record(then, name, positions, None)
    line = estimate_left(now, then)
    assert line.startswith(f"left: 2 leaves that {then} holds and this folder does not")
    assert "about 10.0 h of process time more at this folder's rate (2.0 h so far)" in line
    record(now, "2-2_0-1", 30, None)  # a record that does not say how long its make took
    with pytest.raises(ValueError, match="no estimate"):
        estimate_left(now, then)
    zero, none = tmp_path / "zero", tmp_path / "none"
    record(zero, "2-2_0-0", 0, 60.0)
    record(none, "2-2_0-0", 0, None)
    record(none, "2-2_0-1", 5, None)
    with pytest.raises(ValueError, match="with positions checked there"):  # nothing to scale by
        estimate_left(zero, none)
