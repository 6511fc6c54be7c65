"""``tictacgo prove``: the whole proof of a solved game made and checked from nothing, resumable, on
worker processes or Ray; "checked" only for what was checked in the run, and records that say what
their certificates do not are refused. Played out on 3x3 (a White win) and 4x4 (a draw)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("numba", reason="the proof's solver needs numba (the fast extra)")

from tictacgo.cli import main as cli_main  # noqa: E402
from tictacgo.games import littlego  # noqa: E402
from tictacgo.proof.book import default_book, load_book  # noqa: E402
from tictacgo.proof.check_records import read_record, record_path  # noqa: E402
from tictacgo.proof.position_code import canonical  # noqa: E402
from tictacgo.proof.proof_job import JobSettings, plan_proof, run_leaves, standing  # noqa: E402

SMALL = ["--table-bits", "16", "--workers", "1"]


def prove(capsys, *args) -> tuple[int, str]:
    code = cli_main(["prove", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_the_3x3_proof_is_made_and_checked_from_nothing_and_its_value_is_a_white_win(tmp_path, capsys):
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path), *SMALL, "--json",
                      str(tmp_path / "v.json"))
    assert code == 0
    assert "3 leaves 2 actions below the empty board" in out and "3 to make or check" in out
    assert out.count("white wins; made in ") == 3 and "3/3 " in out
    assert "the empty board: White wins, checked (3 leaves: 3 checked in this run" in out
    written = json.loads((tmp_path / "v.json").read_text())
    assert written["value_for_black"] == -1 and written["how"] == "checked"
    assert all(leaf["claim"] == "white wins" and leaf["source"] == "made and checked now"
               for leaf in written["leaves"])


def test_a_second_run_takes_the_leaves_from_the_folders_records_and_says_so(tmp_path, capsys):
    assert prove(capsys, "--size", "3", "--dir", str(tmp_path), *SMALL)[0] == 0
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path), *SMALL)
    assert code == 1  # nothing was checked in this run
    assert "White wins, from records of earlier checks, not re-checked (3 leaves: 0 checked in this run, " \
           "3 from this folder's records of earlier runs" in out and "wins, checked" not in out
    assert prove(capsys, "--size", "3", "--dir", str(tmp_path), *SMALL, "--trust-records")[0] == 0
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path), *SMALL, "--recheck")
    assert code == 0 and "White wins, checked (3 leaves: 3 checked in this run" in out
    assert "made in" not in out  # checked again, not made again


def test_an_edited_record_is_never_reported_as_checked(tmp_path, capsys):
    assert prove(capsys, "--size", "3", "--dir", str(tmp_path), *SMALL)[0] == 0
    cert = sorted(tmp_path.glob("*.cert"))[0]
    record = read_record(cert)
    record["checked"]["claim"] = "black wins"  # the record now says more than the checker did
    record_path(cert).write_text(json.dumps(record))
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path), *SMALL)
    assert code == 2 and f"the record says the checker accepted 'black wins' for {cert.name}, whose own " \
                         "claim is 'white wins'" in out
    # kept without its certificate, the same lie is a record's word: never "checked"
    kept = tmp_path / "kept"
    kept.mkdir()
    for r in tmp_path.glob("*.json"):
        shutil.copy(r, kept / r.name)
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "empty"), *SMALL, "--records", str(kept))
    assert code == 1 and "wins, checked" not in out and "3 from kept records" in out


def test_a_leaf_made_again_has_the_bytes_its_record_names_and_a_record_that_names_others_is_refused(
        tmp_path, capsys):
    first, second, kept = tmp_path / "first", tmp_path / "second", tmp_path / "kept"
    assert prove(capsys, "--size", "3", "--dir", str(first), *SMALL)[0] == 0
    assert prove(capsys, "--size", "3", "--dir", str(second), *SMALL)[0] == 0
    for cert in first.glob("*.cert"):
        assert cert.read_bytes() == (second / cert.name).read_bytes()
    kept.mkdir()
    for r in first.glob("*.json"):
        shutil.copy(r, kept / r.name)
    # the records kept from the first run agree with the certificates the second made
    assert prove(capsys, "--size", "3", "--dir", str(second), *SMALL, "--records", str(kept),
                 "--trust-records")[0] == 0
    name = sorted(kept.glob("*.json"))[0]
    record = json.loads(name.read_text())
    record["made"]["sha256"] = "0" * 64  # a record of other bytes than the leaf's certificate
    name.write_text(json.dumps(record))
    code, out = prove(capsys, "--size", "3", "--dir", str(second), *SMALL, "--records", str(kept))
    assert code == 2 and f"{name.name}: the record names a certificate with SHA-256 {'0' * 64}" in out


def test_a_kept_record_of_a_position_that_is_no_leaf_or_of_another_root_is_refused(tmp_path, capsys):
    assert prove(capsys, "--size", "3", "--dir", str(tmp_path / "a"), *SMALL)[0] == 0
    kept = tmp_path / "kept"
    kept.mkdir()
    record = sorted((tmp_path / "a").glob("*.json"))[0]
    data = json.loads(record.read_text())
    del data["made"]["moves"]
    (kept / "1-1.json").write_text(json.dumps(data))
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "b"), *SMALL, "--records", str(kept))
    assert code == 2
    assert "1-1.json: a record of the position after '1,1', which is not one of the 3 leaves" in out
    (kept / "1-1.json").unlink()
    data = json.loads(record.read_text())
    data["made"]["root"]["board"][0] = "111"
    (kept / record.name).write_text(json.dumps(data))
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "b"), *SMALL, "--records", str(kept))
    assert code == 2 and "the record's root is not the position after" in out


def test_a_stopped_job_goes_on_with_the_leaves_left(tmp_path):
    plan = plan_proof(default_book(3, 1.5, 8), 2)
    settings = JobSettings(tmp_path, workers=1, table_bits=16)
    done = []

    def stop_after_one(leaf, result):
        done.append(leaf)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_leaves(plan, plan.leaves, settings, stop_after_one)
    results = standing(plan, tmp_path)
    assert [r.leaf for r in results.values() if r.claim] == done
    todo = [r.leaf for r in results.values() if r.claim is None]
    assert len(todo) == 2 and len(run_leaves(plan, todo, settings)) == 2
    assert all(r.claim == "white wins" for r in standing(plan, tmp_path).values())


def test_two_worker_processes_prove_4x4_a_draw_and_list_shows_each_leaf(tmp_path, capsys):
    code, out = prove(capsys, "--size", "4", "--dir", str(tmp_path), "--table-bits", "18", "--workers", "2",
                      "--book", str(tmp_path / "4x4.book"))
    assert code == 0 and "making and checking 12 leaves, 2 at a time (local)" in out
    assert "the empty board: a draw, checked (12 leaves: 12 checked in this run" in out
    code, out = prove(capsys, "--size", "4", "--dir", str(tmp_path), "--list")
    assert code == 0 and out.count(", this folder's record") == 12
    book = load_book(tmp_path / "4x4.book")
    assert book.lookup(littlego.LittleGo(4).initial_state()) is None  # a draw: no winning first move
    assert len(book) > 12
    assert "the proof of the empty board (checked in the run that wrote it)" in book.sources[-1]


def test_the_book_of_the_3x3_proof_wins_every_game_as_white(tmp_path, capsys):
    import numpy as np

    from tictacgo.baselines import make_agent
    from tictacgo.game_loop import play_game

    book = tmp_path / "p.book"
    assert prove(capsys, "--size", "3", "--dir", str(tmp_path), *SMALL, "--book", str(book))[0] == 0
    game = littlego.LittleGo(3)
    for seed in range(4):
        agent = make_agent(f"perfect:book={tmp_path / 'p.book'},fallback=random,max_left=0", game,
                           rng=np.random.default_rng(seed))
        result = play_game(game, make_agent("random", game, rng=np.random.default_rng(seed)), agent)
        assert result.winner == littlego.WHITE


@pytest.mark.parametrize("args, message", [
    (["--depth", "0"], "--depth must be at least 1, got 0"),
    (["--workers", "0"], "--workers must be at least 1, got 0"),
    (["--max-mb", "inf"], "--max-mb must be a finite positive number, got inf"),
    (["--max-mb", "nan"], "--max-mb must be a finite positive number, got nan"),
    (["--table-bits", "40"], "--table-bits must be in [16, 32], got 40"),
    (["--size", "9"], "no book of 9x9"),
    (["--leaf-rules", "magic"], "leaf rules 'magic'"),
    (["--remake", "1,1 0,0"], "--remake '1,1 0,0': not one of the 3 leaves (such as '0,0 0,1')"),
    (["--remake", "1,1 1,1"], "--remake '1,1 1,1': move 2 (1,1) after '1,1' is illegal"),
    (["--sample", "1"], "--sample must be between 0 and the 0 leaves that --records holds"),
    (["--sample", "1", "--list"], "--remake and --sample make leaves, and --list makes none"),
    (["--sample", "1", "--seed", "-3"], "--seed must be a non-negative integer (the draw of --sample), "
                                        "got -3"),
])
def test_bad_arguments_are_one_line_naming_the_value_and_exit_2(tmp_path, capsys, args, message):
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path), *args)
    assert code == 2 and message in out and "Traceback" not in out


def test_the_ray_backend_makes_the_same_certificates(tmp_path, capsys):
    pytest.importorskip("ray", reason="needs ray: pip install 'tictacgo[ray]'")
    assert prove(capsys, "--size", "3", "--dir", str(tmp_path / "local"), *SMALL)[0] == 0
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "ray"), "--table-bits", "16",
                      "--backend", "ray", "--workers", "2")
    assert code == 0 and "(ray)" in out and "White wins, checked" in out
    for cert in (tmp_path / "local").glob("*.cert"):
        assert cert.read_bytes() == (tmp_path / "ray" / cert.name).read_bytes()


def test_the_5x5_plan_has_the_109_leaves_of_the_published_proof():
    from tictacgo.proof.proof_leaves import proof_leaves

    data = Path(__file__).resolve().parents[1] / "docs" / "data"
    runs = [data / "frontier_22_to_go.json", *sorted((data / "after_centre").glob("*.json"))]
    plan = plan_proof(default_book(5, 2.5, 24), 4)
    assert len(plan.leaves) == 109
    assert {canonical(leaf.state)[0] for leaf in plan.leaves} == \
        {canonical(leaf.state)[0] for leaf in proof_leaves(runs, "2,2", depth=3)}
    # and by the same moves as the leaves' records (a mirror image's moves would make another file): where
    # the book's move has images that lead to the same position, the plan takes the smallest action
    recorded = sorted(p.stem for p in (data / "empty_board_leaves").glob("*.json") if p.stem != "README")
    assert sorted(leaf.name for leaf in plan.leaves) == recorded
    after_corner = littlego.play(littlego.play(plan.root, 12), 0)  # 2,2 0,0: 1,2 and 2,1 are one move
    assert plan.book_move(after_corner) == 7  # 1,2


def test_the_proofs_top_is_an_sgf_solution_tree_whose_lines_the_viewer_steps_through(tmp_path, capsys):
    pytest.importorskip("sgfmill", reason="SGF needs sgfmill (the sgf extra)")
    from tictacgo.protocol import sgf
    from tictacgo.protocol.viewer import load_games

    out = tmp_path / "proof.sgf"
    assert prove(capsys, "--size", "3", "--dir", str(tmp_path), *SMALL, "--sgf", str(out))[0] == 0
    lines = sgf.sgf_lines(out.read_bytes())
    game = littlego.LittleGo(3)
    # Black's 9 placements, White's one answer to each, and the pass (it ends the game at once)
    assert len(lines) == 10
    assert all(len(moves) == 2 for moves, _ in lines if moves != [9])
    book = default_book(3, 1.5, 8)
    for moves, comment in lines:
        state = game.initial_state()
        for a in moves:
            state = littlego.play(state, a)
        if state.end is None:  # White's move is the book's, and the leaf says what proves it
            before = littlego.play(game.initial_state(), moves[0])  # the book's move, or the image of it
            assert canonical(littlego.play(before, moves[1]))[0] == \
                canonical(littlego.play(before, book.lookup(before)[0]))[0]
            assert comment.startswith("a leaf of the proof, 6 actions to go: white wins; its certificate "
                                      "has ")
            assert comment.endswith("(checked: made and checked now)")
    root = sgf.sgf_to_record(out.read_bytes())
    assert root.initial.game.komi == 1.5 and "White wins, checked" in out.read_text()
    games = load_games(out)  # the viewer: one game a line of the tree
    assert len(games) == 10 and games[0].label.startswith("line 1: ")
    assert all(g.frames for g in games)


def test_an_sgf_tree_is_written_only_with_legal_moves():
    pytest.importorskip("sgfmill", reason="SGF needs sgfmill (the sgf extra)")
    from tictacgo.protocol import sgf

    tree = {"children": [{"action": 4, "children": [{"action": 4}]}]}  # the centre twice
    with pytest.raises(ValueError, match=r"the tree plays 4 after \[4\]: "):
        sgf.tree_to_sgf(tree, n=3)


def test_a_plan_from_the_book_of_another_komi_proves_what_its_leaves_decide(tmp_path, capsys):
    # 4x4 is a draw at komi 2 (its book's komi) and a Black win at 1.5: the plan's leaves show it
    code, out = prove(capsys, "--size", "4", "--komi", "1.5", "--plan-komi", "2",
                      "--dir", str(tmp_path / "a"), "--table-bits", "18", "--workers", "1")
    assert code == 0 and "the empty board: Black wins, checked (12 leaves" in out
    # 3x3 is a White win at komi 1.5 and a Black win at 0.5: White's winning moves at 1.5 do not hold
    code, out = prove(capsys, "--size", "3", "--komi", "0.5", "--plan-komi", "1.5",
                      "--dir", str(tmp_path / "b"), *SMALL)
    assert code == 1 and "not proved by this plan: every leaf is known" in out
    code, out = prove(capsys, "--size", "3", "--komi", "0.5", "--dir", str(tmp_path / "c"), *SMALL)
    assert code == 2 and "no book of 3x3, komi 0.5" in out and "--plan-komi" in out


def test_the_checked_leaves_records_are_kept_and_a_kept_record_of_another_check_is_never_overwritten(
        tmp_path, capsys):
    from tictacgo.proof.check_records import keep_records

    run, kept = tmp_path / "run", tmp_path / "kept"
    assert prove(capsys, "--size", "3", "--dir", str(run), *SMALL)[0] == 0
    kept.mkdir()
    certs = sorted(run.glob("*.cert"))
    (run / "unchecked.cert").write_bytes(b"not checked")  # a certificate without a record of its check
    edited = read_record(certs[0])
    edited["checked"]["sha256"] = "0" * 64  # a record of other bytes than the certificate beside it
    record_path(certs[0]).write_text(json.dumps(edited))
    copied = keep_records(run, kept)
    assert [p.name for p in copied] == [record_path(c).name for c in certs[1:]]
    assert all(read_record(kept / c.name) == read_record(c) for c in certs[1:])
    assert keep_records(run, kept) == []  # the same checks again: nothing to copy, nothing refused
    other = read_record(certs[1])
    other["checked"]["claim"] = "black wins"
    (kept / record_path(certs[1]).name).write_text(json.dumps(other))
    (kept / record_path(certs[2]).name).unlink()
    with pytest.raises(ValueError, match=f"{record_path(certs[1]).name} records another check"):
        keep_records(run, kept)
    assert not (kept / record_path(certs[2]).name).exists()  # nothing copied
    with pytest.raises(ValueError, match="not a folder of check records"):
        keep_records(run, tmp_path / "missing")
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    wrong = read_record(certs[2])
    wrong["made"]["moves"] = "1,1 1,1"  # a record whose moves are not its name's: never kept
    record_path(certs[2]).write_text(json.dumps(wrong))
    with pytest.raises(ValueError, match="the record was made for '1,1 1,1', but its name says"):
        keep_records(run, fresh)
    assert list(fresh.iterdir()) == []


def test_a_rebuilt_book_keeps_every_row_it_had_or_says_which_it_loses():
    from tictacgo.proof.book import Book, grown_book, rows_not_kept

    game = littlego.LittleGo(3)
    s0 = game.initial_state()
    s1 = littlego.play(s0, 4)
    old = Book(game)
    old.add(s0, 4, 1)
    old.add(s1, 0, 0)
    grown = Book(game, entries=dict(old.entries))
    grown.add(littlego.play(s1, 0), 8, 1)
    assert rows_not_kept(old, grown) == []
    moved = Book(game, entries=dict(old.entries))
    moved.entries[next(iter(old.entries))] = (2, 1)  # another winning move: both proved
    assert rows_not_kept(old, moved) == []
    worse = Book(game, entries=dict(old.entries))
    key = next(iter(old.entries))
    worse.entries[key] = (4, 0)  # a win held as a draw
    assert rows_not_kept(old, worse) == [key]
    smaller = Book(game, entries={key: old.entries[key]})
    assert rows_not_kept(old, smaller) == [k for k in old.entries if k != key]
    # what may replace a shipped book: the same game, every row kept
    assert grown_book(old, grown) == 0 and grown_book(old, moved) == 1
    with pytest.raises(ValueError, match="the new book loses 1 of the old book's 2 rows"):
        grown_book(old, worse)
    other_komi = Book(littlego.LittleGo(3, komi=0.5), entries=dict(grown.entries))
    with pytest.raises(ValueError, match=r"the new book is of \(3, 0.5, 8\) .*the old one of \(3, 1.5, 8\)"):
        grown_book(old, other_komi)


def test_a_sample_of_the_kept_records_is_remade_and_each_certificate_compared_with_its_record(
        tmp_path, capsys):
    first, kept = tmp_path / "first", tmp_path / "kept"
    assert prove(capsys, "--size", "3", "--dir", str(first), *SMALL)[0] == 0
    kept.mkdir()
    for r in first.glob("*.json"):
        shutil.copy(r, kept / r.name)
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "a"), *SMALL, "--records", str(kept),
                      "--sample", "2", "--seed", "1")
    assert code == 0  # both leaves asked for are their records' certificates (the third rests on its record)
    assert "2 of the 2 leaves asked for: checked in this run and the certificate its kept record names" in out
    assert "making and checking 2 leaves" in out and out.count("made and checked now; the same certificate "
                                                               "as its kept record") == 2
    assert "(3 leaves: 2 checked in this run, 0 from this folder's records of earlier runs, 1 from kept " \
           "records)" in out
    assert len(list((tmp_path / "a").glob("*.cert"))) == 2  # nothing else made
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "a"), *SMALL, "--records", str(kept),
                      "--sample", "2", "--seed", "1")  # again in the same folder: checked again, not trusted
    assert code == 0 and out.count("checked now; the same certificate as its kept record") == 2
    assert "2 of the 2 leaves asked for: checked in this run" in out
    # --remake names a leaf by its moves or a mirror image's; an edited record's certificate is named
    name = "0-1_1-0.json"
    record = json.loads((kept / name).read_text())
    record["made"]["sha256"] = "0" * 64
    (kept / name).write_text(json.dumps(record))
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "b"), *SMALL, "--records", str(kept),
                      "--remake", "1,0 0,1")
    assert code == 1 and f"NOT the certificate its kept record {name} names" in out
    assert "0000000000000000 there" in out


def test_a_leaf_recorded_under_a_mirror_images_moves_is_remade_from_those_moves_to_the_same_bytes(
        tmp_path, capsys):
    from tictacgo.proof.combine import states_along
    from tictacgo.proof.proof_leaves import Leaf, certify

    game = littlego.LittleGo(3)
    moves = ("1,0", "0,1")  # the plan names this leaf '0,1 1,0', its mirror image
    (tmp_path / "src").mkdir()
    made = certify([Leaf(moves, states_along("test", game, list(moves))[-1])], tmp_path / "src", 16,
                   ("pass_bound",), fresh_table=True)
    kept = tmp_path / "kept"
    kept.mkdir()
    shutil.copy(record_path(made[0].path), kept / "1-0_0-1.json")
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "again"), *SMALL, "--records", str(kept),
                      "--remake", "0,1 1,0")
    assert "1,0 0,1: white wins, made and checked now; the same certificate as its kept record " \
           "1-0_0-1.json" in out
    assert (tmp_path / "again" / "1-0_0-1.cert").read_bytes() == made[0].path.read_bytes()
    # made from the plan's own moves, the same position is another file: not compared, not refused
    assert prove(capsys, "--size", "3", "--dir", str(tmp_path / "plan"), *SMALL)[0] == 0
    assert (tmp_path / "plan" / "0-1_1-0.cert").read_bytes() != made[0].path.read_bytes()
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "plan"), *SMALL, "--records", str(kept),
                      "--list")
    assert code == 0 and "0,1 1,0: white wins, this folder's record" in out
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "plan"), *SMALL, "--records", str(kept),
                      "--remake", "0,1 1,0")
    assert "was made from other moves to the same position than its kept record 1-0_0-1.json ('1,0 0,1'), " \
           "so it is another file: not compared" in out and "NOT the certificate" not in out
    assert code == 1 and "0 of the 1 leaves asked for" in out  # nothing compared is not a confirmation
    code, out = prove(capsys, "--size", "3", "--dir", str(tmp_path / "plan"), *SMALL, "--records", str(kept),
                      "--remake", "0,1 1,0", "--trust-records")
    assert code == 1  # not even when the value may rest on records
