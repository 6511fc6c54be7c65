"""MaskablePPO's time split (``benchmarks.ppo_split``) through its script, on tiny runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "bench_ppo_split.py"


def run(tmp_path, *args: str) -> tuple[dict, subprocess.CompletedProcess]:
    out = tmp_path / "split.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json", str(out), *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text()), proc


def test_each_vecenv_and_game_gets_a_rate_and_a_split_of_its_wall_time(tmp_path):
    result, proc = run(tmp_path, "--n-envs", "4", "--n-steps", "8", "--batch-sizes", "16", "--n-epochs", "1",
                       "--min-steps", "32", "--repeats", "2")
    rows = result["rows"]
    assert {(r["game"], r["env"]) for r in rows} == {(g, e) for g in ("ttt", "go5")
                                                   for e in ("dummy_vec_env", "tictacgo_vecenv")}
    for r in rows:
        assert len(r["runs"]) == 2 and r["env_steps_per_s"] > 0
        share = r["share"]
        # the env's calls happen inside the rollout, and rollout and update are disjoint parts of the run
        assert 0 < share["env_in_rollout"] < share["rollout"] < 1
        assert 0 < share["update"] < 1 and share["rollout"] + share["update"] <= 1 + 1e-9
        # 32 samples a rollout in minibatches of 16, one epoch: 2 gradient steps, 62.5 per 1,000 samples
        assert r["grad_steps_per_1k_samples"] == pytest.approx(62.5)
    assert result["machine"]["loadavg_before"] and "| go5 | tictacgo_vecenv | 4 | 8 | 16 |" in proc.stdout


def test_sweep_measures_every_combination_of_the_settings(tmp_path):
    result, _ = run(tmp_path, "--sweep", "--games", "ttt", "--envs", "tictacgo_vecenv", "--n-envs", "2,4",
                    "--n-steps", "8", "--batch-sizes", "8,16", "--n-epochs", "1", "--min-steps", "16",
                    "--repeats", "1")
    settings = sorted((r["n_envs"], r["batch_size"]) for r in result["rows"])
    assert settings == [(2, 8), (2, 16), (4, 8), (4, 16)]


def test_bad_lists_are_refused_with_a_message():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--envs", "subproc"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "expected a comma list of dummy_vec_env, tictacgo_vecenv" in proc.stderr
