"""The learning-curve plot of several AlphaZero runs (scripts/plot_alphazero_seeds.py).

The checkpoints of every run are rated in one Bradley-Terry fit with the
anchors, whose own round robin is played once and read back afterwards.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "plot_alphazero_seeds.py"
_spec = importlib.util.spec_from_file_location("plot_alphazero_seeds", SCRIPT)
seeds = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seeds)


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


def test_runs_share_one_rating_scale_and_better_checkpoints_rate_higher(tmp_path, capsys):
    a = fake_run(tmp_path / "seed0", [(2, 8), (8, 2)])
    b = fake_run(tmp_path / "seed1", [(5, 5)])
    out = tmp_path / "curves.json"
    assert seeds.main(["--runs", str(a), str(b), "--sims", "16", "--anchor-games", "4",
                       "--json", str(out)]) == 0
    table = json.loads(out.read_text())["checkpoints"]
    elo = {(r["run"], r["positions"]): r["elo"] for r in table}
    assert elo[("seed0", 1000)] < elo[("seed1", 1000)] < elo[("seed0", 2000)]
    agents = {r["name"]: r for r in json.loads(out.read_text())["ratings"]["agents"]}
    assert agents["random"]["elo"] == 0  # the first anchor is the zero of the scale
    assert agents["minimax"]["games"] == 10 * 3 + 4  # the checkpoints' games and its round robin
    assert "score vs minimax" in capsys.readouterr().out


def test_runs_take_the_labels_given_one_each(tmp_path, capsys):
    a = fake_run(tmp_path / "run_a", [(5, 5)])
    b = fake_run(tmp_path / "run_b", [(5, 5)])
    out = tmp_path / "curves.json"
    seeds.main(["--runs", str(a), str(b), "--labels", "seed 0", "seed 1", "--sims", "16",
                "--anchor-games", "0", "--json", str(out)])
    assert {r["run"] for r in json.loads(out.read_text())["checkpoints"]} == {"seed 0", "seed 1"}
    with pytest.raises(SystemExit):
        seeds.main(["--runs", str(a), str(b), "--labels", "seed 0", "--sims", "16"])
    assert "one distinct name per run" in capsys.readouterr().err


def test_the_anchors_round_robin_is_played_once_and_read_back(tmp_path, monkeypatch):
    a = fake_run(tmp_path / "seed0", [(5, 5)])
    seeds.main(["--runs", str(a), "--sims", "16", "--anchor-games", "2"])
    cache = json.loads((a / "anchors.json").read_text())
    assert cache["anchors"] == ["random", "minimax"] and sum(cache["pairs"][0][2:]) == 2

    import tictacgo.arena.round_robin as rr

    def refuse(*args, **kwargs):
        raise AssertionError("the round robin was played again")

    monkeypatch.setattr(rr, "run_round_robin", refuse)
    seeds.main(["--runs", str(a), "--sims", "16", "--anchor-games", "2"])  # from the cache
    with pytest.raises(AssertionError, match="played again"):  # other settings: played anew
        seeds.main(["--runs", str(a), "--sims", "16", "--anchor-games", "4"])


def test_a_run_without_ratings_is_refused_with_its_path(tmp_path, capsys):
    (tmp_path / "bare").mkdir()
    with pytest.raises(SystemExit):
        seeds.main(["--runs", str(tmp_path / "bare")])
    assert "rate the run first" in capsys.readouterr().err
