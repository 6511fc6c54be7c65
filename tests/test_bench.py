"""The one benchmark against the peers (``benchmarks.peers``, run as scripts/bench.py) with tiny budgets
(``--quick``).

The runs check the JSON schema (case, impl, batch, median of the runs,
positive rates), that the rows asked for are measured or left out with a
reason, and that a peer row appears exactly when its library is installed.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.peers import cases as bench
from benchmarks.peers.ours import one_game_policy
from benchmarks.peers.report import fmt_ratio, ratios

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "bench.py"


def run_bench(tmp_path, *args: str, timeout: float = 300) -> tuple[dict, str]:
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json", str(out), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text()), proc.stdout


def check_schema(result: dict) -> None:
    assert set(result) == {"rows", "skipped", "machine"}
    for row in result["rows"]:
        assert row["case"] in bench.CASES and row["impl"] in bench.IMPLS
        assert isinstance(row["batch"], int) and row["batch"] >= 1
        assert len(row["runs"]) == 3 and all(r > 0 for r in row["runs"])
        assert row["per_s"] == statistics.median(row["runs"]) > 0
        assert ("position" in row) == (row["case"] == "go5_mcts")
        if row["case"] == "go5_mcts":
            assert row["position"] in ("empty", "midgame")
    for s in result["skipped"]:
        assert s["reason"]
    machine = result["machine"]
    assert machine["python"] and machine["cpu_count"] >= 1 and machine["repeats"] == 3


def measured(result: dict) -> set[tuple]:
    return {(r["case"], r["impl"], r["batch"], r.get("position")) for r in result["rows"]}


def test_tictacgo_rows_are_measured_with_the_json_schema_and_positive_rates(tmp_path):
    impls = "tictacgo_core,tictacgo_aec,tictacgo_gym,tictacgo_vector,tictacgo_mcts"
    result, stdout = run_bench(tmp_path, "--cases", "ttt_random_play,go5_random_play,go5_mcts,ttt_mcts",
                               "--impls", impls, "--batches", "1,64")
    check_schema(result)
    rows = measured(result)
    for case in ("ttt_random_play", "go5_random_play"):
        for impl in ("tictacgo_core", "tictacgo_aec", "tictacgo_gym"):
            assert (case, impl, 1, None) in rows
    assert {("go5_mcts", "tictacgo_mcts", 1, "empty"), ("go5_mcts", "tictacgo_mcts", 1, "midgame"),
            ("ttt_mcts", "tictacgo_mcts", 1, None)} <= rows
    # The batched rows (batched engine, vector env) are measured when their modules are in this
    # checkout and otherwise left out with the reason, never silently dropped.
    skipped = {(s["case"], s["impl"], s["batch"]) for s in result["skipped"]}
    for case in ("ttt_random_play", "go5_random_play"):
        for key in ((case, "tictacgo_core", 64), (case, "tictacgo_vector", 1), (case, "tictacgo_vector", 64)):
            assert (key + (None,) in rows) != (key in skipped)
    assert not any(r["impl"] in bench.PEERS for r in result["rows"])
    assert "| go5_mcts (midgame) | tictacgo_mcts | 1 |" in stdout


def test_random_play_counts_plies_of_whole_games(tmp_path):
    result, _ = run_bench(tmp_path, "--cases", "ttt_random_play", "--impls", "tictacgo_core,tictacgo_aec",
                          "--batches", "1")
    for row in result["rows"]:
        # a random Tic-Tac-Toe game has 5 to 9 plies: the mean lies in between
        assert 5 <= row["plies_per_game"] <= 9


def test_maskable_ppo_rows_measure_env_steps_at_the_same_n_envs(tmp_path):
    pytest.importorskip("sb3_contrib")
    result, _ = run_bench(tmp_path, "--cases", "ttt_maskable_ppo", "--impls", "dummy_vec_env,tictacgo_vecenv")
    check_schema(result)
    rows = {r["impl"]: r for r in result["rows"]}
    assert rows["dummy_vec_env"]["batch"] == 2 and rows["dummy_vec_env"]["unit"] == "env steps/s"
    if "tictacgo_vecenv" in rows:
        assert rows["tictacgo_vecenv"]["batch"] == 2
    else:
        assert [s["impl"] for s in result["skipped"]] == ["tictacgo_vecenv"]


PEER_MODULES = {"pettingzoo": "pettingzoo.classic", "openspiel": "pyspiel", "pgx": "pgx"}


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def test_peer_rows_appear_when_the_peer_is_installed_with_ratios_in_the_table(tmp_path):
    peers = [p for p, m in PEER_MODULES.items() if installed(m)]
    result, stdout = run_bench(tmp_path, "--cases", "ttt_random_play", "--batches", "1",
                               "--impls", ",".join(["tictacgo_core", *PEER_MODULES]))
    check_schema(result)
    got = {r["impl"] for r in result["rows"]}
    assert got == {"tictacgo_core", *peers}
    assert {s["impl"] for s in result["skipped"]} == set(PEER_MODULES) - set(peers)
    core = next(r for r in result["rows"] if r["impl"] == "tictacgo_core")
    for peer in peers:
        rate = next(r["per_s"] for r in result["rows"] if r["impl"] == peer)
        assert f"{fmt_ratio(core['per_s'] / rate)} {peer}" in stdout


def test_envpool_rows_are_measured_or_left_out_with_the_reason(tmp_path):
    result, stdout = run_bench(tmp_path, "--cases", "ttt_random_play,go5_random_play", "--batches", "1,64",
                               "--impls", "tictacgo_core,envpool")
    check_schema(result)
    envpool_rows = {(r["case"], r["batch"]) for r in result["rows"] if r["impl"] == "envpool"}
    left_out = {(s["case"], s["batch"]): s["reason"] for s in result["skipped"] if s["impl"] == "envpool"}
    assert envpool_rows | set(left_out) == {(c, b) for c in ("ttt_random_play", "go5_random_play")
                                            for b in (1, 64)}
    if sys.version_info < (3, 12):
        assert not envpool_rows
        assert all("need Python 3.12 or newer" in reason for reason in left_out.values())
        assert "left out: go5_random_play envpool B=64: EnvPool's TicTacToe-v1 and Go9x9-v1 need" in stdout
    elif not installed("envpool"):
        assert all("envpool is not importable" in reason for reason in left_out.values())
    else:
        assert not left_out and "x envpool" in stdout


def test_alphazero_selfplay_rows_count_positions_and_network_evaluations(tmp_path):
    pytest.importorskip("torch")
    result, stdout = run_bench(tmp_path, "--cases", "go5_alphazero_selfplay",
                               "--impls", "tictacgo_az,pgx_mctx")
    check_schema(result)
    rows = {r["impl"]: r for r in result["rows"]}
    ours = rows["tictacgo_az"]
    assert ours["batch"] == 4 and ours["unit"] == "positions/s"
    # --quick searches with 4 simulations: a position costs its root and at most 4 leaves (a finished
    # game's leaf is not evaluated), and the evaluations outnumber the positions
    assert 1 < ours["evals_per_position"] <= 5
    assert len(ours["eval_runs"]) == 3 and ours["evals_per_s"] > ours["per_s"]
    assert "network evaluations/s" in stdout
    if installed("pgx") and installed("mctx"):
        # mctx evaluates the root and every simulation's leaf
        assert rows["pgx_mctx"]["evals_per_position"] == 5
        assert rows["pgx_mctx"]["compile_s"] > 0
        assert "x pgx_mctx" in stdout
    else:
        assert [s["impl"] for s in result["skipped"]] == ["pgx_mctx"]


def test_openspiel_mctsbot_searches_the_same_midgame_position(tmp_path):
    pytest.importorskip("pyspiel")
    result, stdout = run_bench(tmp_path, "--cases", "go5_mcts", "--impls", "tictacgo_mcts,openspiel_mctsbot")
    check_schema(result)
    assert not result["skipped"]
    assert len(result["rows"]) == 4
    assert "x openspiel_mctsbot" in stdout


def test_ratio_compares_a_tictacgo_row_with_the_peers_of_the_same_case_batch_and_position():
    rows = [{"case": "go5_random_play", "impl": "tictacgo_vector", "batch": 1024, "per_s": 300.0},
            {"case": "go5_random_play", "impl": "pgx", "batch": 1024, "per_s": 100.0},
            {"case": "go5_random_play", "impl": "pgx", "batch": 64, "per_s": 10.0},
            {"case": "go5_mcts", "impl": "tictacgo_mcts", "batch": 1, "position": "empty", "per_s": 50.0},
            {"case": "go5_mcts", "impl": "openspiel_mctsbot", "batch": 1, "position": "empty", "per_s": 10.0},
            {"case": "go5_mcts", "impl": "openspiel_mctsbot", "batch": 1, "position": "midgame",
             "per_s": 1.0}]
    assert ratios(rows[0], rows) == "3.00x pgx"
    assert ratios(rows[3], rows) == "5.00x openspiel_mctsbot"
    assert ratios(rows[1], rows) == ""   # peers get no ratio
    one_game = [{"case": "ttt_random_play", "impl": "tictacgo_gym", "batch": 1, "per_s": 100.0},
                {"case": "ttt_random_play", "impl": "pgx", "batch": 1, "per_s": 10.0},
                {"case": "ttt_random_play", "impl": "tictacgo_vector", "batch": 1, "per_s": 120.0},
                {"case": "ttt_random_play", "impl": "tictacgo_vector", "batch": 64, "per_s": 900.0},
                {"case": "go5_random_play", "impl": "tictacgo_gym", "batch": 1, "per_s": 50.0}]
    # the vector env at B = 1 over the Gymnasium env first, then the peers; at B = 64 there is no gym row
    assert ratios(one_game[2], one_game) == "1.20x tictacgo_gym, 12.00x pgx"
    assert ratios(one_game[3], one_game) == ""
    assert ratios(one_game[0], one_game) == "10.00x pgx"
    assert fmt_ratio(0.0042) == "0.004x" and fmt_ratio(12.345) == "12.35x"


def test_the_one_game_policy_of_the_gym_and_vector_rows_draws_every_legal_action_and_0_without_one():
    import numpy as np

    pick = one_game_policy()
    mask = np.array([0, 1, 0, 1, 0, 0, 0, 0, 1], np.int8)
    assert {pick(mask) for _ in range(200)} == {1, 3, 8}
    assert pick(np.zeros(9, np.int8)) == 0  # a vector env's reset step: the action is ignored
    first, second = one_game_policy(), one_game_policy()
    assert [first(mask) for _ in range(20)] == [second(mask) for _ in range(20)]  # seeded alike


@pytest.mark.parametrize("args, message", [
    (["--cases", "go9_random_play"], "--cases must be a comma list of"),
    (["--impls", "tictacgo"], "--impls must be a comma list of"),
    (["--batches", "3"], "--batches must be a comma list of"),
    (["--budget", "0"], "expected a positive number of seconds"),
    (["--repeats", "zero"], "expected a positive integer"),
])
def test_bad_arguments_are_refused_with_a_message_naming_them(args, message):
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_the_alphazero_search_bench_gives_a_row_per_batch_and_splits_self_play(capsys):
    pytest.importorskip("torch")
    from benchmarks import alphazero_search

    assert alphazero_search.main(["--batches", "2,3", "--sims", "2", "--channels", "4", "--blocks", "1",
                                  "--repeats", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith(("| 2 |", "| 3 |"))]
    assert len(rows) == 2
    assert alphazero_search.main(["--selfplay", "--batches", "2", "--sims", "2", "--channels", "4",
                                  "--blocks", "1", "--moves", "1"]) == 0
    out = capsys.readouterr().out
    assert all(f"| {part} |" in out for part in alphazero_search.PARTS)
    assert alphazero_search.main(["--batches", "2", "--sims", "2", "--channels", "4", "--blocks", "1",
                                  "--repeats", "1", "--precision", "auto"]) == 0
    out = capsys.readouterr().out  # auto says what it picked on this CPU, then runs it
    picked = [line for line in out.splitlines() if line.startswith("inference precision auto: ")]
    assert len(picked) == 1 and picked[0].split(": ")[1].split(",")[0] in ("bfloat16", "float32")
    assert picked[0].split(": ")[1].split(",")[0] in out.splitlines()[1]
