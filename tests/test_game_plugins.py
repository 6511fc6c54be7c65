"""Games from outside the package on the command line: a file given with ``--game-module`` (or
``$TICTACGO_GAME_MODULES``) and a distribution's entry point in the group ``tictacgo.games``, through
``arena`` (two worker processes), ``view``, ``play`` (with passes), ``train`` and ``agents``.
The game is Othello on 4x4 (tests/games/othello4.py), defined nowhere in the package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tictacgo.games import registry
from tictacgo.protocol.viewer import read_page_data

ROOT = Path(__file__).resolve().parent.parent
OTHELLO = ROOT / "tests" / "games" / "othello4.py"


def tictacgo(*args, env=None, stdin=None, cwd=None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != registry.MODULES_ENV}
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "tictacgo.cli", *args], capture_output=True, text=True,
                          env=full, input=stdin, cwd=cwd, timeout=600)


def test_a_game_module_plays_in_the_arena_on_two_workers_and_its_games_view(tmp_path):
    out = tmp_path / "results.json"
    proc = tictacgo("--game-module", str(OTHELLO), "arena", "othello4", "random", "mcts:sims=10",
                    "--games", "4", "--workers", "2", "--seed", "0", "--out", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert "othello4: A = random  vs  B = mcts:sims=10; 4 games" in proc.stdout
    assert len(json.loads(out.read_text())["games"]) == 4
    page = tmp_path / "games.html"
    proc = tictacgo("view", str(out), "--html", str(page), "--game-module", str(OTHELLO))
    assert proc.returncode == 0, proc.stderr
    data = read_page_data(page.read_text())
    assert len(data["games"]) == 4 and "random vs mcts:sims=10" in data["games"][0]["label"]


def test_the_environment_variable_names_the_game_module_too(tmp_path):
    proc = tictacgo("agents", "othello4", env={registry.MODULES_ENV: str(OTHELLO)})
    assert proc.returncode == 0, proc.stderr
    assert "random" in proc.stdout and "mcts" in proc.stdout


def test_play_takes_a_pass_in_a_plugin_game():
    # the scripted player tries "pass" first, then each cell: it passes exactly when it must
    lines = "\n".join(["pass", *map(str, range(16))] * 40) + "\n"
    proc = tictacgo("--game-module", str(OTHELLO), "play", "othello4", "--agent", "random", "--seed", "3",
                    stdin=lines)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    tried = [k for k, line in enumerate(out) if line.endswith("Your move as Black: pass")]
    refused = [k for k in tried if "pass is illegal: a placement is possible" in out[k + 1]]
    assert refused and len(refused) < len(tried)  # refused while a placement exists, taken when none does
    assert "Game over" in proc.stdout


def test_train_sees_a_plugin_game(tmp_path):
    pytest.importorskip("sb3_contrib", reason="training needs the train extra")
    proc = tictacgo("--game-module", str(OTHELLO), "train", "othello4", "--steps", "64", "--n-envs", "1",
                    "--n-steps", "32", "--batch-size", "16", "--eval-games", "1", "--no-progress",
                    "--out", str(tmp_path / "run"))
    assert proc.returncode == 0, proc.stderr
    assert any((tmp_path / "run").iterdir())


def test_an_entry_point_of_an_installed_distribution_brings_its_game(tmp_path):
    # a tiny distribution on the path: its module and its dist-info with the entry point
    site = tmp_path / "site"
    site.mkdir()
    source = OTHELLO.read_text().replace("register_game(Othello4, replace=True)\n", "")
    (site / "othello4_plugin.py").write_text(source)  # registered by the entry point, not at import
    info = site / "othello4_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: othello4-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tictacgo.games]\nothello4 = othello4_plugin:Othello4\n")
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    proc = tictacgo("arena", "othello4", "random", "random", "--games", "4", "--workers", "2",
                    "--no-progress", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "othello4: A = random  vs  B = random; 4 games" in proc.stdout


def test_a_module_that_cannot_be_imported_or_an_unknown_game_is_one_line_and_exit_2(tmp_path):
    proc = tictacgo("--game-module", str(tmp_path / "missing.py"), "agents")
    assert proc.returncode == 2 and "the game module" in proc.stderr and "cannot be imported" in proc.stderr
    assert "Traceback" not in proc.stderr
    broken = tmp_path / "broken_game.py"
    broken.write_text("raise RuntimeError('no such luck')\n")
    proc = tictacgo("--game-module", str(broken), "agents")
    assert proc.returncode == 2 and "RuntimeError: no such luck" in proc.stderr
    proc = tictacgo("arena", "othello5", "random", "random", "--games", "1")
    assert proc.returncode == 2 and "--game-module" in proc.stderr


def test_load_plugins_imports_a_module_once_and_the_registry_finds_its_game(monkeypatch, tmp_path):
    copy = tmp_path / "othello4_copy.py"
    shutil.copy(OTHELLO, copy)
    monkeypatch.setenv(registry.MODULES_ENV, str(copy))
    try:
        assert registry.game_class("othello4").name == "othello4"  # an unknown name loads the plugins
        assert registry.load_plugins() == []  # each once
    finally:
        registry.GAMES.pop("othello4", None)
        registry._ALIASES.pop("othello4", None)
        registry._loaded.discard(str(copy))
