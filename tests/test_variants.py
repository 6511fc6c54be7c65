"""A game object carries its variant from the command line to the rules: Little-Go on other
board sizes trains, evaluates, saves, reloads and plays in the arena on that size."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tictacgo.games import LittleGo, TicTacToe, make_game


def tictacgo(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tictacgo.cli", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_make_game_builds_the_variant_and_refuses_what_the_game_does_not_take():
    assert make_game("littlego", size=7) is LittleGo(7)
    assert make_game("go", size=7).spec.board_shape == (7, 7)
    assert make_game("littlego").params == {"size": 5, "komi": 2.5, "max_actions": 24}
    assert make_game("ttt") is TicTacToe()
    with pytest.raises(ValueError, match="tictactoe takes no parameters.*size"):
        make_game("tictactoe", size=4)
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        make_game("chess")


def test_a_game_object_pickles_as_its_variant():
    import pickle

    game = LittleGo(4, komi=0.5, max_actions=30)
    assert pickle.loads(pickle.dumps(game)) is game
    state = game.play(game.initial_state(), 5)
    assert pickle.loads(pickle.dumps(state)).game is game


def test_the_arena_plays_little_go_on_the_board_size_it_is_given(tmp_path):
    out = tmp_path / "results.json"
    done = tictacgo("arena", "littlego", "random", "greedy", "--board-size", "4", "--games", "10",
                    "--seed", "0", "--workers", "1", "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("littlego (size 4, komi 2, max_actions 15): A = random  vs  B = greedy")
    data = json.loads(out.read_text())
    assert data["variant"] == {"size": 4, "komi": 2.0, "max_actions": 15}
    assert len(data["games"]) == 10
    for g in data["games"]:
        assert len(g["moves"]) <= 15 and all(0 <= a <= 16 for a in g["moves"])  # 16 is PASS on 4x4


def test_the_arena_refuses_a_board_size_for_tic_tac_toe():
    done = tictacgo("arena", "tictactoe", "random", "random", "--board-size", "4", "--games", "2")
    assert done.returncode == 2 and "size" in done.stderr


def test_training_on_7x7_evaluates_saves_and_plays_on_7x7(tmp_path):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    done = tictacgo("train", "littlego", "--board-size", "7", "--steps", "2048", "--eval-every", "1024",
                    "--eval-games", "4", "--n-envs", "4", "--out", str(out), "--no-progress", timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    history = json.loads((out / "progress.json").read_text())["history"]
    assert [row["steps"] for row in history][-1] >= 2048 and len(history) >= 2
    assert json.loads((out / "best_model.json").read_text())["variant"]["size"] == 7
    results = tmp_path / "arena.json"
    model = f"ppo:path={out / 'best_model.zip'}"
    played = tictacgo("arena", "littlego", model, "random", "--board-size", "7", "--games", "2",
                      "--seed", "0", "--workers", "1", "--out", str(results), "--no-progress")
    assert played.returncode == 0, played.stderr
    assert json.loads(results.read_text())["variant"]["size"] == 7
    # The same model on the course's 5x5 board is refused with both variants named.
    wrong = tictacgo("arena", "littlego", model, "random", "--games", "2")
    assert wrong.returncode == 2 and "size 7" in wrong.stderr and "size 5" in wrong.stderr
