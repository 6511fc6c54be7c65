"""The results file of the perfect player's measurement: a run goes on from it only with the very settings
and proof book that made it, and says which White players it did not play again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tictacgo.evaluation.perfect_results import books_sha256, load_results, rows_of, run_settings

ROOT = Path(__file__).resolve().parents[1]


def settings(**changed):
    s = run_settings("perfect", 100, 0, True, 8, [])
    s.update(changed)
    return s


def test_a_missing_file_starts_a_fresh_record_with_the_settings(tmp_path):
    s = settings()
    assert load_results(tmp_path / "none.json", s) == {"settings": s, "opponents": {}}
    assert s["books_sha256"] == books_sha256()
    assert set(s["books_sha256"]) == {"littlego_5x5_komi2.5_24_proof.book", "littlego_5x5_komi2.5_24.book"}
    assert all(len(sha) == 64 for sha in s["books_sha256"].values())


def game(index: int, winner: int = 1) -> dict:
    return {"index": index, "winner": winner, "actions": [12, 13],
            "moves": [{"t": 0, "action": 12, "source": "book", "seconds": 0.01, "checked": None}]}


def test_a_file_from_the_same_settings_gives_back_its_games(tmp_path):
    runs = [{"first": 0, "games": 2, "workers": 1, "seconds": 3.0}]
    entry = {"summary": {"games": 2}, "seconds": 3.0, "runs": runs, "games": [game(0), game(1, 2)]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"settings": settings(), "opponents": {"random": entry}}))
    assert load_results(path, settings())["opponents"] == {"random": entry}
    rows = rows_of(entry, "random", 100)
    assert [(r.opponent, r.index, r.winner) for r in rows] == [("random", 0, 1), ("random", 1, 2)]
    assert rows[0].moves[0].action == 12 and rows[0].proved and rows[0].actions == [12, 13]


@pytest.mark.parametrize("key, value", [("games", 10), ("seed", 1), ("check", False), ("agent", "az"),
                                        ("white_first", ["0,0"]), ("books_sha256", {"a.book": "0" * 64})])
def test_a_file_from_other_settings_or_another_book_is_refused_naming_the_setting(tmp_path, key, value):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"settings": settings(**{key: value}), "opponents": {}}))
    with pytest.raises(ValueError, match=f"written with {key} = .*this run has"):
        load_results(path, settings())


@pytest.mark.parametrize("text, match", [
    ("not json", "cannot be read as a results file: not JSON"),
    ("[1, 2]", "not a results file of eval_perfect.py"),
    ('{"settings": {}}', "not a results file of eval_perfect.py"),
])
def test_a_file_that_is_not_a_results_file_is_refused(tmp_path, text, match):
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_results(path, settings())


@pytest.mark.parametrize("games, match", [
    ([game(0), game(0)], "game 1 is .*expected its index 1"),
    ([game(0, winner=3)], "game 0 is .*the winner \\(1 or 2\\)"),
    ([{"index": 0, "winner": 1, "actions": [], "moves": [{"t": 0}]}], "game 0 is"),
    ([{"index": 0, "winner": 1, "moves": []}], "game 0 is .*the game's actions"),
    ([dict(game(0), actions=[12, "13"])], "game 0 is .*the game's actions"),
    ([game(i) for i in range(101)], "is not a list of at most 100 games"),
    ("none", "is not a list of at most 100 games"),
])
def test_an_entry_that_is_not_games_in_order_is_refused_naming_the_player(tmp_path, games, match):
    path = tmp_path / "r.json"
    runs = [{"first": 0, "games": len(games), "workers": 1, "seconds": 1.0}]
    entry = {"games": games, "runs": runs}
    path.write_text(json.dumps({"settings": settings(), "opponents": {"random": entry}}))
    with pytest.raises(ValueError, match=f"the entry of 'random'.*{match}"):
        load_results(path, settings())


@pytest.mark.parametrize("runs", [None, [], [{"first": 0, "games": 1, "workers": 1, "seconds": "1"}],
                                  [{"first": 0, "games": 2, "workers": 1, "seconds": 1.0}]])
def test_an_entry_whose_runs_do_not_account_for_its_games_is_refused(tmp_path, runs):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"settings": settings(), "opponents": {"random": {"games": [game(0)],
                                                                                 "runs": runs}}}))
    with pytest.raises(ValueError, match="the entry of 'random': its runs are .*1 games in all"):
        load_results(path, settings())


def run_eval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "eval_perfect.py"), *args],
                          capture_output=True, text=True, cwd=ROOT)


def test_the_measurement_goes_on_from_its_file_and_says_which_games_it_kept(tmp_path):
    out = tmp_path / "r.json"
    common = ["--agent", "random", "--json", str(out), "--save-every", "2"]
    first = run_eval(*common, "--games", "3", "--opponents", "random")
    assert first.returncode == 0, first.stderr
    data = json.loads(out.read_text())
    assert [g["index"] for g in data["opponents"]["random"]["games"]] == [0, 1, 2]
    # a run stopped after saving two games of greedy: what a stop between two saves leaves
    stopped = run_eval(*common[:-2], "--json", str(tmp_path / "part.json"), "--games", "2", "--opponents",
                       "greedy")
    assert stopped.returncode == 0, stopped.stderr
    part = json.loads((tmp_path / "part.json").read_text())["opponents"]["greedy"]
    data["opponents"]["greedy"] = part
    out.write_text(json.dumps(data))
    second = run_eval(*common, "--games", "3", "--opponents", "random,greedy", "--resume")
    assert second.returncode == 0, second.stderr
    assert "(not played again): random (3 of 3 games), greedy (2 of 3 games)\n" in second.stdout
    again = json.loads(out.read_text())
    assert again["opponents"]["random"] == data["opponents"]["random"]
    assert [(r["first"], r["games"]) for r in data["opponents"]["random"]["runs"]] == [(0, 2), (2, 1)]
    assert [(r["first"], r["games"]) for r in again["opponents"]["greedy"]["runs"]] == [(0, 2), (2, 1)]
    assert again["opponents"]["greedy"]["games"][:2] == part["games"]
    alone = run_eval("--agent", "random", "--games", "3", "--opponents", "greedy", "--json",
                     str(tmp_path / "alone.json"))
    assert alone.returncode == 0, alone.stderr  # game 2 is seeded as in one run of all three
    def played(games):  # the moves, not their times
        return [(g["index"], g["winner"], [(m["t"], m["action"]) for m in g["moves"]]) for g in games]
    assert played(again["opponents"]["greedy"]["games"]) == \
        played(json.loads((tmp_path / "alone.json").read_text())["opponents"]["greedy"]["games"])
    assert "| `greedy` | 3 |" in second.stdout and "| `random` | 3 |" in second.stdout
    other = run_eval(*common, "--games", "3", "--opponents", "random", "--resume", "--seed", "3")
    assert other.returncode == 2 and "written with seed = 0, this run has 3" in other.stderr
    assert json.loads(out.read_text()) == again  # the refused run left the file as it was
    overwrite = run_eval(*common, "--games", "3", "--opponents", "random")  # hours of games are kept
    assert overwrite.returncode == 2 and "exists: --resume to go on from it" in overwrite.stderr
    assert json.loads(out.read_text()) == again
    bare = run_eval("--agent", "random", "--resume")
    assert bare.returncode == 2 and "--resume needs --json" in bare.stderr
    bad = run_eval("--agent", "random", "--save-every", "0")
    assert bad.returncode == 2 and "--save-every must be >= 1, got 0" in bad.stderr


def test_the_totals_count_distinct_games_so_a_white_that_repeats_itself_is_seen():
    from tictacgo.evaluation.perfect_play import BlackMove, GameRow, summary

    def row(i, actions):
        return GameRow("az", i, 1, [BlackMove(0, actions[0], "book", 0.0)], list(actions))
    rows = [row(0, [12, 0, 6]), row(1, [12, 0, 6]), row(2, [12, 4, 6])]
    s = summary(rows)
    assert s["games"] == 3 and s["distinct_games"] == 2 and s["black_wins"] == 3
