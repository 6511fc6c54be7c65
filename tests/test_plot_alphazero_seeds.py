"""The learning curves of several AlphaZero runs on one scale (``tictacgo.evaluation.seed_curves``, drawn
by scripts/plot_alphazero_seeds.py).

The checkpoints of every run are rated in one Bradley-Terry fit with the
anchors, whose own round robin is played once and read back afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tictacgo.evaluation import seed_curves

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "plot_alphazero_seeds.py"


def fake_run(folder: Path, scores: list[tuple[int, int]]) -> Path:
    """A rated Tic-Tac-Toe run: checkpoint k won ``scores[k]`` = (wins, losses) of 10 against minimax."""
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"game": "tictactoe"}))
    ratings = {}
    for k, (w, lost) in enumerate(scores):
        half = [w // 2, 0, lost // 2], [w - w // 2, 0, lost - lost // 2]
        ratings[f"{k:09d}@sims=16"] = {
            "seconds": 60.0 * (k + 1), "positions": 1000 * (k + 1), "sims": 16,
            "anchors": {"random": {"score": 1.0, "as_first": [5, 0, 0], "as_second": [5, 0, 0]},
                        "minimax": {"score": w / 10, "as_first": half[0], "as_second": half[1]}}}
    (folder / "ratings.json").write_text(json.dumps(ratings))
    return folder


def curves(folders: list[Path], sims: int = 16, anchor_games: int = 4, labels: list[str] | None = None):
    """The runs' rated checkpoints, one fit with the anchors' round robin, and the checkpoints' table."""
    runs = seed_curves.load_runs([str(f) for f in folders], labels, sims)
    among = []
    if anchor_games:
        pairs = seed_curves.run_anchors(seed_curves.anchors_of(runs), "tictactoe", anchor_games,
                                        folders[0] / "anchors.json")
        among = seed_curves.anchor_games(pairs)
    ratings, anchors, names = seed_curves.fit(runs, among)
    return ratings, seed_curves.checkpoint_table(runs, ratings, anchors, names)


def test_runs_share_one_rating_scale_and_better_checkpoints_rate_higher(tmp_path):
    a = fake_run(tmp_path / "seed0", [(2, 8), (8, 2)])
    b = fake_run(tmp_path / "seed1", [(5, 5)])
    ratings, table = curves([a, b])
    elo = {(r["run"], r["positions"]): r["elo"] for r in table}
    assert elo[("seed0", 1000)] < elo[("seed1", 1000)] < elo[("seed0", 2000)]
    agents = {r["name"]: r for r in ratings.to_json()["agents"]}
    assert agents["random"]["elo"] == 0  # the first anchor is the zero of the scale
    assert agents["minimax"]["games"] == 10 * 3 + 4  # the checkpoints' games and its round robin
    assert [r["score_vs_minimax"] for r in table] == [0.2, 0.8, 0.5]  # against the strongest anchor


def test_runs_take_the_labels_given_one_each(tmp_path):
    a = fake_run(tmp_path / "run_a", [(5, 5)])
    b = fake_run(tmp_path / "run_b", [(5, 5)])
    _, table = curves([a, b], anchor_games=0, labels=["seed 0", "seed 1"])
    assert {r["run"] for r in table} == {"seed 0", "seed 1"}
    with pytest.raises(ValueError, match="one distinct name per run"):
        seed_curves.load_runs([str(a), str(b)], ["seed 0"], 16)


def test_the_anchors_round_robin_is_played_once_and_read_back(tmp_path, monkeypatch):
    a = fake_run(tmp_path / "seed0", [(5, 5)])
    curves([a], anchor_games=2)
    cache = json.loads((a / "anchors.json").read_text())
    assert cache["anchors"] == ["random", "minimax"] and sum(cache["pairs"][0][2:]) == 2

    def refuse(*args, **kwargs):
        raise AssertionError("the round robin was played again")

    monkeypatch.setattr(seed_curves, "run_round_robin", refuse)
    curves([a], anchor_games=2)  # from the cache
    with pytest.raises(AssertionError, match="played again"):  # other settings: played anew
        curves([a], anchor_games=4)


def test_a_run_without_ratings_is_refused_with_its_path(tmp_path):
    (tmp_path / "bare").mkdir()
    with pytest.raises(ValueError, match="rate the run first"):
        seed_curves.load_runs([str(tmp_path / "bare")], None, 32)


def test_the_script_prints_the_table_and_refuses_a_bad_run_in_one_line(tmp_path):
    a = fake_run(tmp_path / "seed0", [(2, 8), (8, 2)])
    out = tmp_path / "curves.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--runs", str(a), "--sims", "16",
                           "--anchor-games", "2", "--json", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "score vs minimax" in done.stdout and len(json.loads(out.read_text())["checkpoints"]) == 2
    (tmp_path / "bare").mkdir()
    done = subprocess.run([sys.executable, str(SCRIPT), "--runs", str(tmp_path / "bare")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "rate the run first" in done.stderr
