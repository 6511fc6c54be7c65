"""A match nobody asks the records of keeps counts, not games, and reports the same table."""

from __future__ import annotations

from tictacgo.arena import run_match
from tictacgo.cli import main


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
    assert len(seen[-1].games) == 4
    capsys.readouterr()
