"""SGF records of Little-Go: written and read with sgfmill, replayed by `tictacgo replay`."""

import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("sgfmill")

from sgfmill import sgf as sgfmill_sgf  # noqa: E402

from tictacgo.arena import run_match  # noqa: E402
from tictacgo.envs import littlego_v0  # noqa: E402
from tictacgo.games import littlego as go  # noqa: E402
from tictacgo.protocol import sgf  # noqa: E402

# B C1, W D1, B B2, W A2, B A1, W B1 (captures A1): Black's A1 now is a ko recapture.
KO_MOVES = [22, 23, 16, 15, 20, 21]
KO_RECAPTURE = 20


def random_game(seed: int) -> tuple[list[int], go.GoState]:
    rng = np.random.default_rng(seed)
    s, moves = go.LittleGo().initial_state(), []
    while not go.is_terminal(s):
        a = int(rng.choice(go.legal_actions(s)))
        moves.append(a)
        s = go.play(s, a)
    return moves, s


def replay_cli(path, *extra):
    return subprocess.run([sys.executable, "-m", "tictacgo.cli", "replay", str(path), *extra],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("seed", range(5))
def test_a_written_record_reads_back_as_the_same_moves_and_result(seed):
    moves, final = random_game(seed)
    data = sgf.record_to_sgf(moves, black="mcts", white="greedy")
    rec = sgf.sgf_to_record(data)
    assert list(rec.actions) == moves
    assert (rec.black, rec.white) == ("mcts", "greedy")
    assert rec.result == sgf.result_string(final)
    assert sgf.check_result(rec.result, final)[0]


def test_the_record_carries_size_komi_result_and_the_variants_rules():
    moves, final = random_game(0)
    game = sgfmill_sgf.Sgf_game.from_bytes(sgf.record_to_sgf(moves))
    root = game.get_root()
    assert root.get("GM") == 1 and root.get("FF") == 4
    assert game.get_size() == 5 and game.get_komi() == 2.5
    assert root.get_raw("ACTIONLIMIT") == b"24"
    rules = root.get("RU")
    assert "stone scoring" in rules and "24 actions" in rules and "simple ko" in rules
    assert "Black passes on the first action" in rules
    b, w = go.scores(final)
    assert root.get("RE") == f"{'B' if b > w else 'W'}+{abs(b - w):g}"


def test_top_left_is_aa_and_bottom_right_is_ee_and_a_pass_is_empty():
    data = sgf.record_to_sgf([0, 24, 25, 25])
    assert b";B[aa];W[ee];B[];W[])" in data
    assert b"[tt]" not in data


def test_black_passing_first_is_recorded_as_a_white_win_by_komi():
    data = sgf.record_to_sgf([25])
    assert b"RE[W+2.5]" in data


def test_a_forfeit_is_recorded_as_a_win_by_forfeit_for_the_other_colour():
    data = sgf.record_to_sgf(KO_MOVES, forfeit_by=go.BLACK, comment="Black tried the ko recapture")
    rec = sgf.sgf_to_record(data)
    assert rec.result == "W+F"
    state = go.LittleGo().initial_state()
    for a in rec.actions:
        state = go.play(state, a)
    assert sgf.check_result("W+F", state)[0]
    assert not sgf.check_result("B+F", state)[0]  # Black was to move, so Black forfeited
    with pytest.raises(ValueError, match="forfeit_by=2"):
        sgf.record_to_sgf(KO_MOVES, forfeit_by=go.WHITE)


def test_illegal_moves_are_never_written():
    with pytest.raises(ValueError, match="move 7 cannot be recorded.*ko"):
        sgf.record_to_sgf(KO_MOVES + [KO_RECAPTURE])
    with pytest.raises(ValueError, match="after the end of the game"):
        sgf.record_to_sgf([25, 12])


def test_a_recorded_position_starts_the_aec_env(tmp_path):
    moves, _ = random_game(1)
    path = sgf.write_sgf(tmp_path / "g.sgf", moves)
    s = sgf.state_from_sgf(path, upto=6)
    expected = go.LittleGo().initial_state()
    for a in moves[:6]:
        expected = go.play(expected, a)
    assert s == expected
    env = littlego_v0.raw_env()
    env.reset(options={"state": s})
    assert env.game_state == s
    assert env.agent_selection == "black_0"
    env.step(moves[6])
    assert env.game_state == go.play(s, moves[6])


def test_state_from_sgf_checks_upto_and_names_an_illegal_move(tmp_path):
    path = tmp_path / "ko.sgf"
    path.write_bytes(b"(;GM[1]FF[4]SZ[5]KM[2.5];B[cc];W[cc])")
    assert sgf.state_from_sgf(path, upto=1).t == 1
    with pytest.raises(ValueError, match=r"move 2 \(W C3\) is illegal: occupied"):
        sgf.state_from_sgf(path)
    with pytest.raises(ValueError, match=r"upto must be an int in \[0, 2\]"):
        sgf.state_from_sgf(path, upto=3)


def test_a_record_from_another_program_gets_the_default_action_limit():
    initial, actions = sgf.sgf_to_moves("(;GM[1]FF[4]SZ[5]KM[2.5];B[cc];W[dc])")
    assert initial.game.max_actions == 24 and actions == [12, 13]
    initial, _ = sgf.sgf_to_moves("(;GM[1]FF[4]SZ[5]KM[0.5]ACTIONLIMIT[10])")
    assert (initial.game.komi, initial.game.max_actions) == (0.5, 10)


@pytest.mark.parametrize("text, message", [
    ("(;GM[1]SZ[5];B[cc];B[dd])", "move 2 is B's"),
    ("(;GM[1]SZ[5]AB[cc];W[dd])", "setup stones"),
    ("(;GM[2]SZ[5])", "not Go"),
    ("not sgf at all", "not a readable SGF record"),
    ("(;GM[1]SZ[5]ACTIONLIMIT[x])", "ACTIONLIMIT"),
])
def test_records_that_are_not_little_go_games_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        sgf.sgf_to_record(text)


def test_check_result_compares_re_with_stone_scoring():
    moves, final = random_game(2)
    ours = sgf.result_string(final)
    wrong = ("W" if ours.startswith("B") else "B") + ours[1:]
    assert sgf.check_result(ours, final)[0]
    assert not sgf.check_result(wrong, final)[0]
    assert not sgf.check_result(ours[:2] + "100", final)[0]
    assert sgf.check_result(None, final)[0]
    assert not sgf.check_result("B+R", final)[0]  # the rules ended this game


def test_match_records_are_written_one_file_per_game_with_names_by_colour(tmp_path):
    result = run_match("littlego", "random", "greedy", games=2, seed=0, workers=1)
    paths = sgf.write_match_sgf(result, tmp_path / "sgf")
    assert [p.name for p in paths] == ["game-0000.sgf", "game-0001.sgf"]
    for g, path in zip(result.games, paths, strict=True):
        rec = sgf.load_record(path)
        assert list(rec.actions) == g.record.moves
        assert (rec.black, rec.white) == (("random", "greedy") if g.a_first else ("greedy", "random"))
        assert replay_cli(path).returncode == 0


def test_match_sgf_refuses_tic_tac_toe(tmp_path):
    result = run_match("tictactoe", "random", "random", games=1, seed=0, workers=1)
    with pytest.raises(ValueError, match="Little-Go"):
        sgf.write_match_sgf(result, tmp_path)


def test_replay_prints_the_final_board_and_agrees_with_the_result(tmp_path):
    moves, final = random_game(3)
    path = sgf.write_sgf(tmp_path / "g.sgf", moves)
    proc = replay_cli(path)
    assert proc.returncode == 0, proc.stderr
    assert f"{len(moves)} moves, all legal" in proc.stdout
    assert go.render_ascii(final) in proc.stdout
    assert f"agrees with the rules: {sgf.result_string(final)}" in proc.stdout


def test_replay_reports_the_first_illegal_move_with_its_reason(tmp_path):
    path = tmp_path / "ko.sgf"
    path.write_bytes(sgf.record_to_sgf(KO_MOVES).rstrip()[:-1] + b";B[ae])")
    proc = replay_cli(path)
    assert proc.returncode == 1
    assert "move 7 (B A1, course 4,0) is illegal: ko" in proc.stderr


def test_replay_reports_moves_after_the_end_and_a_wrong_result(tmp_path):
    after = tmp_path / "after.sgf"
    after.write_bytes(b"(;GM[1]FF[4]SZ[5]KM[2.5];B[];W[cc])")
    proc = replay_cli(after)
    assert proc.returncode == 1 and "comes after the end of the game" in proc.stderr
    assert "pass_on_empty_start" in proc.stderr
    wrong = tmp_path / "wrong.sgf"
    wrong.write_bytes(b"(;GM[1]FF[4]SZ[5]KM[2.5]RE[B+1];B[])")
    proc = replay_cli(wrong)
    assert proc.returncode == 1 and "RE[B+1] but by the rules: W+2.5" in proc.stderr


def test_replay_of_an_unreadable_file_exits_2(tmp_path):
    bad = tmp_path / "bad.sgf"
    bad.write_text("hello")
    proc = replay_cli(bad)
    assert proc.returncode == 2 and "not a readable SGF record" in proc.stderr
    assert replay_cli(tmp_path / "missing.sgf").returncode == 2


def test_an_sgf_file_over_the_size_cap_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "huge.sgf"
    path.write_bytes(b"(;GM[1]SZ[5]C[" + b"x" * (2 << 20) + b"];B[cc])")  # 2 MiB: one long comment
    with pytest.raises(ValueError, match="larger than"):
        sgf.load_record(path)
    result = replay_cli(path)
    assert result.returncode == 2 and "larger than" in result.stderr


def test_a_named_pipe_or_a_folder_is_refused_as_an_sgf_file_without_blocking(tmp_path):
    import os
    import threading

    os.mkfifo(tmp_path / "pipe.sgf")
    (tmp_path / "dir.sgf").mkdir()
    for name in ("pipe.sgf", "dir.sgf"):
        outcome = []

        def load(path=tmp_path / name, outcome=outcome):
            try:
                sgf.load_record(path)
                outcome.append("read")
            except (ValueError, OSError) as e:
                outcome.append(e)

        reader = threading.Thread(target=load, daemon=True)  # a regression blocks here, not the suite
        reader.start()
        reader.join(10)
        assert outcome and isinstance(outcome[0], ValueError), (name, outcome)
        assert "not a regular file" in str(outcome[0]) or "folder" in str(outcome[0])


def test_match_records_keep_the_variant_a_game_was_played_in(tmp_path):
    from tictacgo.arena import play_game
    from tictacgo.baselines import RandomAgent

    game = go.LittleGo()
    record = play_game(game, RandomAgent(game), RandomAgent(game), rng=np.random.default_rng(0),
                       state=go.LittleGo(size=4, komi=1.5, max_actions=10).initial_state())
    (path,) = sgf.write_match_sgf([record], tmp_path)
    rec = sgf.load_record(path)
    assert (rec.initial.game.size, rec.initial.game.komi, rec.initial.game.max_actions) == (4, 1.5, 10)
    assert list(rec.actions) == record.moves


def test_a_forfeit_is_recorded_as_a_win_by_forfeit_with_the_reason(tmp_path):
    from tictacgo.arena import Forfeit, play_game
    from tictacgo.baselines import RandomAgent

    def slow(state):
        raise Forfeit("timeout", "no move within 10 s")

    record = play_game(go.LittleGo(), RandomAgent(go.LittleGo()), slow, rng=np.random.default_rng(0))
    (path,) = sgf.write_match_sgf([record], tmp_path)
    root = sgfmill_sgf.Sgf_game.from_bytes(path.read_bytes()).get_root()
    assert root.get("RE") == "B+F"
    assert "White forfeited (timeout): no move within 10 s" in root.get("GC")


# --------------------------------------------------------------------------- tictacgo arena --sgf


def test_arena_sgf_writes_every_game_of_a_match(tmp_path, capsys):
    from tictacgo.cli import main

    out_dir, results = tmp_path / "records", tmp_path / "results.json"
    rc = main(["arena", "littlego", "random", "greedy", "--games", "3", "--seed", "4", "--workers", "1",
               "--no-progress", "--out", str(results), "--sgf", str(out_dir)])
    assert rc == 0
    assert f"wrote 3 SGF files in {out_dir}" in capsys.readouterr().out
    games = json.loads(results.read_text())["games"]
    assert sorted(p.name for p in out_dir.iterdir()) == ["game-0000.sgf", "game-0001.sgf", "game-0002.sgf"]
    for g in games:
        path = out_dir / f"game-{g['index']:04d}.sgf"
        rec = sgf.load_record(path)
        assert list(rec.actions) == g["moves"]
        assert (rec.black, rec.white) == (g["first"], g["second"])
        final = sgf.state_from_sgf(path)
        assert go.winner(final) == g["winner"] and sgf.check_result(rec.result, final)[0]


def test_arena_sgf_writes_one_folder_per_pair_of_a_round_robin(tmp_path, capsys):
    from tictacgo.cli import main

    rc = main(["arena", "littlego", "--round-robin", "random", "greedy", "mcts:sims=8", "--games", "2",
               "--workers", "1", "--no-progress", "--sgf", str(tmp_path)])
    assert rc == 0
    assert "wrote 6 SGF files" in capsys.readouterr().out
    folders = sorted(p.name for p in tmp_path.iterdir())
    assert folders == ["00-01_random-vs-greedy", "00-02_random-vs-mcts_sims=8", "01-02_greedy-vs-mcts_sims=8"]
    for folder in folders:
        paths = sorted((tmp_path / folder).iterdir())
        assert [p.name for p in paths] == ["game-0000.sgf", "game-0001.sgf"]
        assert all(replay_cli(p, "--quiet").returncode == 0 for p in paths[:1])


@pytest.mark.parametrize("game", ["tictactoe", "ttt"])
def test_arena_sgf_refuses_tic_tac_toe_before_playing(game, tmp_path, capsys):
    from tictacgo.cli import main

    target = tmp_path / "records"
    rc = main(["arena", game, "random", "random", "--games", "2", "--no-progress", "--sgf", str(target)])
    err = capsys.readouterr().err
    assert rc == 2 and "--sgf" in err and "Little-Go" in err and "Traceback" not in err
    assert not target.exists()


def test_arena_sgf_refuses_a_file_as_the_folder(tmp_path, capsys):
    from tictacgo.cli import main

    target = tmp_path / "file.sgf"
    target.write_text("")
    rc = main(["arena", "littlego", "random", "random", "--games", "2", "--no-progress",
               "--sgf", str(target)])
    assert rc == 2 and "not a folder" in capsys.readouterr().err


def test_every_replay_error_carries_the_command_prefix(tmp_path):
    bad = tmp_path / "bad.sgf"
    bad.write_text("hello")
    ko = tmp_path / "ko.sgf"
    ko.write_bytes(sgf.record_to_sgf(KO_MOVES).rstrip()[:-1] + b";B[ae])")
    after = tmp_path / "after.sgf"
    after.write_bytes(b"(;GM[1]FF[4]SZ[5]KM[2.5];B[];W[cc])")
    wrong = tmp_path / "wrong.sgf"
    wrong.write_bytes(b"(;GM[1]FF[4]SZ[5]KM[2.5]RE[B+1];B[])")
    for path in (bad, ko, after, wrong, tmp_path / "missing.sgf"):
        proc = replay_cli(path, "--quiet")
        assert proc.returncode in (1, 2)
        lines = proc.stderr.strip().splitlines()
        assert lines and all(line.startswith("tictacgo replay: ") for line in lines), proc.stderr


@pytest.mark.parametrize("text, message", [
    ("(;GM[1]SZ[5]KM[inf];B[cc])", r"KM\[inf\] is not a komi: expected a finite number such as 2.5"),
    ("(;GM[1]SZ[5]KM[-inf])", r"KM\[-inf\] is not a komi: expected a finite number"),
    ("(;GM[1]SZ[5]KM[nan])", r"KM\[nan\] is not a komi: expected a finite number"),
    ("(;GM[1]SZ[5]KM[1e400])", r"KM\[1e400\] is not a komi: expected a finite number"),
    ("(;GM[1]SZ[5]KM[" + "9" * 5000 + "])", r"KM\[9{40}\.\.\. \(5000 bytes\)\] is not a komi"),
    ("(;GM[1]SZ[5]KM[٢.٥])", r"KM\[٢.٥\] is not a komi"),
    ("(;GM[1]SZ[x])", r"SZ\[x\] is not a board size: expected a whole number"),
    ("(;GM[1]SZ[5:7])", r"SZ\[5:7\] is not a board size"),
    ("(;GM[1]SZ[٥])", r"SZ\[٥\] is not a board size"),
    ("(;GM[1]SZ[" + "9" * 5000 + "])", r"SZ\[9{40}\.\.\. \(5000 bytes\)\] is not a board size"),
    ("(;GM[1]SZ[1])", r"SZ\[1\] is not a board size Little-Go is played on here: expected 2..19"),
    ("(;GM[1]SZ[0])", r"SZ\[0\] is not a board size Little-Go is played on here"),
    ("(;GM[1]SZ[26])", r"SZ\[26\] is not a board size Little-Go is played on here"),
    ("(;GM[x]SZ[5])", r"GM\[x\] is not a game type: expected a whole number, 1 for Go"),
    ("(;GM[" + "1" * 5000 + "]SZ[5])", r"GM\[1{40}\.\.\. \(5000 bytes\)\] is not a game type"),
    ("(;GM[1]SZ[5]ACTIONLIMIT[" + "9" * 5000 + "])", r"ACTIONLIMIT\[9{40}\.\.\. \(5000 bytes\)\] is not"),
    ("(;GM[1]SZ[5]ACTIONLIMIT[1000000000000])", r"ACTIONLIMIT\[1000000000000\] is not an action limit: "
                                                r"expected a whole number in 1..20000"),
    ("(;GM[1]SZ[5]ACTIONLIMIT[²])", r"ACTIONLIMIT\[²\] is not an action limit"),
    ("(;GM[1]SZ[5\n6])", r"SZ\[5\?6\] is not a board size"),  # one line, whatever the value holds
])
def test_a_root_number_that_is_not_one_names_the_property_value_and_what_is_expected(text, message):
    with pytest.raises(ValueError, match=message) as info:
        sgf.sgf_to_record(text)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200


def test_root_numbers_are_read_with_spaces_and_signs_and_sz_defaults_to_19():
    record = sgf.sgf_to_record("(;GM[1]SZ[ 7 ]KM[ -0.5 ]ACTIONLIMIT[+30])")
    assert record.initial.game == go.LittleGo(7, -0.5, 30)
    assert sgf.sgf_to_record("(;GM[1]KM[.5])").initial.game == go.LittleGo(19, 0.5)


@pytest.mark.parametrize("shape, message", [
    (b"(" * 300_000 + b";" + b")" * 300_000, "300000 nested variations; at most 1000 are read"),
    (b"(;GM[1]SZ[5]" + b";" * 500_000 + b")", "500001 nodes; at most 20000 are read"),
    (b"(;GM[1]SZ[5]" + b"(;)" * 300_000 + b")", "300001 nodes; at most 20000 are read"),
    (b"(;GM[1]SZ[5]" + b"C[]" * 300_000 + b")", "300002 property values; at most 100000 are read"),
])
def test_a_record_of_too_many_nodes_values_or_nested_variations_is_refused_before_parsing(shape, message,
                                                                                          monkeypatch):
    def never(data):  # sgfmill alone: 4 to 8 s and 300 MB a MiB of nodes
        raise AssertionError("sgfmill was asked to parse it")

    monkeypatch.setattr(sgf.sgf_grammar, "parse_sgf_game", never)
    with pytest.raises(ValueError, match=message):
        sgf.sgf_to_record(shape)


def test_brackets_and_semicolons_inside_values_are_not_counted_as_structure():
    comment = "C[" + "(;" * 30_000 + r"\]" + "]"  # 60,000 characters of text, escaped ] included
    record = sgf.sgf_to_record("(;GM[1]SZ[5]" + comment + ";B[cc])")
    assert record.actions == (12,)


def test_text_longer_than_the_cap_is_refused_without_a_file_too():
    with pytest.raises(ValueError, match="larger than 1048576 bytes"):
        sgf.sgf_to_record(b"(;GM[1]SZ[5]C[" + b"x" * (1 << 20) + b"])")


def test_replay_of_a_record_with_an_infinite_komi_exits_2_in_one_line(tmp_path):
    path = tmp_path / "inf.sgf"
    path.write_text("(;GM[1]SZ[5]KM[inf];B[cc])")
    proc = replay_cli(path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "KM[inf] is not a komi: expected a finite number such as 2.5" in proc.stderr


def test_player_names_that_are_not_text_of_the_records_encoding_are_read_as_far_as_they_can_be():
    record = sgf.sgf_to_record(b"(;GM[1]SZ[5]CA[UTF-8]PB[a\x98b]PW[x][y]RE[B+2];B[cc])")
    assert (record.black, record.white, record.result, record.actions) == ("a\ufffdb", "x", "B+2", (12,))
