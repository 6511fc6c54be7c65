"""The results file of the perfect player's measurement: a run goes on from it only with the very settings
and proof book that made it, and says which White players it did not play again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tictacgo.evaluation.perfect_results import books_sha256, load_results, run_settings

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


def test_a_file_from_the_same_settings_gives_back_its_players(tmp_path):
    entry = {"summary": {"games": 100}, "games": []}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"settings": settings(), "opponents": {"random": entry}}))
    assert load_results(path, settings())["opponents"] == {"random": entry}


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


def test_an_unfinished_players_entry_is_refused(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"settings": settings(), "opponents": {"random": {"summary": {"games": 7}}}}))
    with pytest.raises(ValueError, match="the entry of 'random' is not 100 finished games"):
        load_results(path, settings())


def run_eval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "eval_perfect.py"), *args],
                          capture_output=True, text=True, cwd=ROOT)


def test_the_measurement_goes_on_from_its_file_and_says_which_players_it_kept(tmp_path):
    out = tmp_path / "r.json"
    common = ["--agent", "random", "--games", "2", "--json", str(out)]
    first = run_eval(*common, "--opponents", "random")
    assert first.returncode == 0, first.stderr
    random_entry = json.loads(out.read_text())["opponents"]["random"]
    second = run_eval(*common, "--opponents", "random,greedy", "--resume")
    assert second.returncode == 0, second.stderr
    assert "not played again): random\n" in second.stdout
    data = json.loads(out.read_text())
    assert data["opponents"]["random"] == random_entry
    assert data["opponents"]["greedy"]["summary"]["games"] == 2
    assert second.stdout.count("| `random` | 2 |") == 1 and "| `greedy` | 2 |" in second.stdout
    other = run_eval(*common[:-2], "--json", str(out), "--opponents", "random", "--resume", "--seed", "3")
    assert other.returncode == 2 and "written with seed = 0, this run has 3" in other.stderr
    assert json.loads(out.read_text()) == data  # the refused run left the file as it was
    again = run_eval(*common, "--opponents", "random")  # without --resume hours of games are not overwritten
    assert again.returncode == 2 and "exists: --resume to go on from it" in again.stderr
    assert json.loads(out.read_text()) == data
    bare = run_eval("--agent", "random", "--resume")
    assert bare.returncode == 2 and "--resume needs --json" in bare.stderr
