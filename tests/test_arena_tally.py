"""A run nobody asks the records of keeps counts, not games, and reports the same table; a run that
writes records keeps them on disk as the games finish, and its files are the same."""

from __future__ import annotations

import dataclasses
import gc
import json
import os

import numpy as np
import pytest

from tictacgo.arena import GameSpool, run_match, run_round_robin, write_results_json
from tictacgo.atomic import atomic_write_json
from tictacgo.baselines import registry
from tictacgo.baselines.random_agent import RandomAgent
from tictacgo.cli import main
from tictacgo.game_loop import GameRecord
from tictacgo.protocol.grading import run_course_report


def test_a_match_without_records_keeps_no_games_and_the_same_numbers():
    kept = run_match("tictactoe", "random", "think1", 12, 3, workers=1, progress=False)
    counted = run_match("tictactoe", "random", "think1", 12, 3, workers=1, progress=False,
                        keep_games=False)
    assert counted.games == [] and len(kept.games) == 12
    assert counted.n == 12
    for colour in (None, 1, 2):
        assert counted.wdl(colour) == kept.wdl(colour)
    assert counted.forfeits("a") == kept.forfeits("a") and counted.forfeits("b") == kept.forfeits("b")
    for agent in ("a", "b"):
        assert counted.time_stats(agent)["moves"] == kept.time_stats(agent)["moves"]
    table = counted.table()
    assert table.splitlines()[:7] == kept.table().splitlines()[:7]  # everything above the move times


def test_the_arena_keeps_records_only_for_out(tmp_path, monkeypatch, capsys):
    from tictacgo.arena import match

    seen = []
    real = match.run_match

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        seen.append(result)
        return result

    monkeypatch.setattr(match, "run_match", spy)
    monkeypatch.setattr("tictacgo.arena.run_match", spy)
    assert main(["arena", "tictactoe", "random", "random", "--games", "4", "--workers", "1",
                 "--no-progress"]) == 0
    assert seen[-1].games == [] and seen[-1].n == 4
    out = tmp_path / "r.json"
    assert main(["arena", "tictactoe", "random", "random", "--games", "4", "--workers", "1",
                 "--no-progress", "--out", str(out)]) == 0
    assert seen[-1].games == [] and seen[-1].spool is not None  # the records waited on disk
    assert len(json.loads(out.read_text())["games"]) == 4
    assert sorted(os.listdir(tmp_path)) == ["r.json"]  # and the spool is gone
    capsys.readouterr()


def _records_alive() -> int:
    gc.collect()
    return sum(isinstance(o, GameRecord) for o in gc.get_objects())


def test_a_long_match_without_records_retains_no_game_record():
    before = _records_alive()
    counted = run_match("tictactoe", "random", "random", 400, 0, workers=1, progress=False, keep_games=False)
    assert counted.n == 400 and _records_alive() == before  # nothing per game is kept
    kept = run_match("tictactoe", "random", "random", 400, 0, workers=1, progress=False)
    assert _records_alive() == before + 400
    assert counted.wdl() == kept.wdl()


def test_a_round_robin_and_a_course_report_without_records_keep_counts_and_the_same_tables():
    before = _records_alive()
    specs = ["random", "think1", "minimax"]
    counted = run_round_robin("tictactoe", specs, 20, 2, workers=1, progress=False, keep_games=False)
    assert _records_alive() == before
    kept = run_round_robin("tictactoe", specs, 20, 2, workers=1, progress=False)
    assert all(m.games == [] and m.n == 20 for m in counted.matches.values())
    np.testing.assert_array_equal(counted.cross_table(), kept.cross_table())
    assert counted.table() == kept.table()
    del kept
    before = _records_alive()
    report = run_course_report("random", 0, games=2, workers=1, progress=False, keep_games=False)
    assert _records_alive() == before
    full = run_course_report("random", 0, games=2, workers=1, progress=False)
    def untimed(table: str) -> list[str]:  # the move-time lines differ from run to run
        return [line for line in table.splitlines() if not line.startswith("time, stage")]

    assert report.rows() == full.rows() and untimed(report.table()) == untimed(full.table())
    assert "time, stage 1: " in report.table()


def _same_file_as_in_memory(tmp_path, result, in_memory) -> None:
    """The results file streamed from the spool has the bytes the records in memory give."""
    streamed, reference = tmp_path / "streamed.json", tmp_path / "reference.json"
    write_results_json(streamed, result)
    atomic_write_json(reference, in_memory.to_json(), indent=1)
    assert streamed.read_bytes() == reference.read_bytes()


def _in_memory(match, games):
    return dataclasses.replace(match, games=sorted(games, key=lambda g: g.index), tally=None, spool=None)


def test_out_streamed_from_the_spool_is_the_file_the_records_in_memory_give(tmp_path):
    seen = {}
    with GameSpool(tmp_path) as spool:
        m = run_match("tictactoe", "random", "think2", 7, 5, workers=1, progress=False, keep_games=spool,
                      on_game=lambda key, g: seen.setdefault(key, []).append(g))
        assert m.games == [] and m.n == 7 and spool.count(0) == 7
        assert [g.index for g in m.iter_games()] == list(range(7))
        _same_file_as_in_memory(tmp_path, m, _in_memory(m, seen[0]))
        with pytest.raises(ValueError, match="one run|another run"):
            run_match("tictactoe", "random", "random", 2, 0, workers=1, progress=False, keep_games=spool)
    seen.clear()
    with GameSpool(tmp_path) as spool:
        rr = run_round_robin("tictactoe", ["random", "think1", "random"], 3, 1, workers=1, progress=False,
                             keep_games=spool, on_game=lambda key, g: seen.setdefault(key, []).append(g))
        memory = dataclasses.replace(rr, matches={
            ij: _in_memory(match, seen[p]) for p, (ij, match) in enumerate(sorted(rr.matches.items()))})
        _same_file_as_in_memory(tmp_path, rr, memory)
        streamed = json.loads((tmp_path / "streamed.json").read_text())
        assert streamed == json.loads(json.dumps(memory.to_json()))
    assert sorted(os.listdir(tmp_path)) == ["reference.json", "streamed.json"]  # the spools are gone


def test_an_interrupted_cli_match_writes_a_whole_results_file_and_each_finished_game_at_once(
        tmp_path, monkeypatch, capsys):
    pytest.importorskip("sgfmill")

    class StopsInTheFourthGame(RandomAgent):
        started = 0

        def reset(self):
            self.started += 1
            if self.started == 4:
                raise KeyboardInterrupt

    registry._load_builtins()
    monkeypatch.setitem(registry._REGISTRY, "interrupting",
                        registry.AgentEntry("interrupting", StopsInTheFourthGame, ("littlego",), "test"))
    out, sgf_dir = tmp_path / "r.json", tmp_path / "sgf"
    rc = main(["arena", "littlego", "interrupting", "random", "--games", "10", "--workers", "1",
               "--no-progress", "--out", str(out), "--sgf", str(sgf_dir)])
    capsys.readouterr()
    assert rc == 130
    data = json.loads(out.read_text())
    assert data["interrupted"] is True and [g["index"] for g in data["games"]] == [0, 1, 2]
    assert sorted(os.listdir(sgf_dir)) == ["game-0000.sgf", "game-0001.sgf", "game-0002.sgf"]
    assert sorted(os.listdir(tmp_path)) == ["r.json", "sgf"]  # no spool or temporary file left


def _games(games) -> list[tuple]:
    """What a spool keeps of each game exactly (the times it rounds, as the results file does)."""
    return [(g.index, g.a_first, g.record.moves, g.record.winner, g.record.reason) for g in games]


def test_a_spool_whose_disk_fills_holds_the_later_games_in_memory_and_reads_them_all_back_in_order(
        tmp_path, monkeypatch):
    import errno

    real_write, writes = GameSpool._write, []

    def write(self, data):
        writes.append(len(data))
        if len(writes) >= 4:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, data)

    monkeypatch.setattr(GameSpool, "_write", write)
    played = run_match("tictactoe", "random", "think1", 9, 2, workers=1, progress=False)
    with GameSpool(tmp_path) as spool:
        for g in reversed(played.games):  # as workers finish them: in any order
            spool.add(0, g)
        assert spool.failure.startswith("the disk would not take more game records (No space left on "
                                        "device) after 3 games")
        assert spool.count(0) == spool.count() == 9
        assert _games(spool.games(0)) == _games(played.games)
        assert list(spool.games(1)) == []


@pytest.mark.skipif(os.name != "posix", reason="only POSIX systems let an open file lose its name")
def test_an_open_spool_has_no_name_in_its_folder(tmp_path):
    played = run_match("tictactoe", "random", "random", 2, 0, workers=1, progress=False)
    with GameSpool(tmp_path) as spool:
        for g in played.games:
            spool.add(0, g)
        assert os.listdir(tmp_path) == []
        assert _games(spool.games(0)) == _games(played.games)
