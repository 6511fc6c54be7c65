"""Tabular Q-learning: symmetry canonicalisation, training, the saved file format."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tictacgo import atomic
from tictacgo.baselines.qlearning import (
    QLearningAgent,
    canonical,
    canonical_action,
    load_table,
    train,
    transform_action,
    transform_state,
    worst_result,
)
from tictacgo.baselines.registry import make_agent
from tictacgo.games import tictactoe as ttt

TTT = ttt.TicTacToe()


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.fixture(scope="module")
def trained() -> QLearningAgent:
    """A short seeded self-play run (a second or two)."""
    return train(6000, rng(0), progress=False)


BOARDS = ["X../.../...", "XO./.../...", "X.O/.X./...", "XO./.O./.X.", "O../X../XO.", ".../.../..."]


@pytest.mark.parametrize("board", BOARDS)
def test_all_eight_transforms_of_a_board_share_one_key_and_map_actions_alike(board):
    state = ttt.from_board(board)
    key, syms = canonical(state)
    for g in range(8):
        moved = transform_state(state, g)
        k2, syms2 = canonical(moved)
        assert k2 == key
        for a in ttt.legal_actions(state):
            assert canonical_action(syms2, transform_action(a, g)) == canonical_action(syms, a)


def test_the_eight_transforms_are_distinct_and_keep_lines():
    state = ttt.from_board("XO./.../...")
    images = {(transform_state(state, g).x, transform_state(state, g).o) for g in range(8)}
    assert len(images) == 8
    for g in range(8):
        for line in ttt.LINES:
            cells = [c for c in range(9) if (line >> c) & 1]
            moved = sum(1 << transform_action(c, g) for c in cells)
            assert moved in ttt.LINES


def test_equivalent_moves_on_a_symmetric_board_share_an_entry():
    _, syms = canonical(TTT.initial_state())
    assert len(syms) == 8
    assert len({canonical_action(syms, a) for a in (0, 2, 6, 8)}) == 1
    assert len({canonical_action(syms, a) for a in (1, 3, 5, 7)}) == 1
    assert len({canonical_action(syms, a) for a in range(9)}) == 3


def test_short_training_beats_random_clearly(trained, play_ttt_game):
    rand = make_agent("random", "tictactoe", rng=rng(5))
    trained.seed(rng(6))
    first = [play_ttt_game(trained, rand) for _ in range(100)]
    second = [play_ttt_game(rand, trained) for _ in range(100)]
    assert first.count(ttt.X) >= 85 and first.count(ttt.O) <= 2
    assert second.count(ttt.O) >= 60 and second.count(ttt.X) <= 5


def test_training_is_reproducible_with_a_seed():
    a = train(300, rng(3), progress=False)
    b = train(300, rng(3), progress=False)
    assert a.table == b.table


def test_training_prints_progress_lines():
    lines = []
    train(200, rng(1), every=100, log=lines.append)
    assert len(lines) == 2 and "games" in lines[0]


def test_agent_takes_a_win_and_blocks_after_training(trained):
    assert trained.act(ttt.from_board("XX./OO./...")) == 2
    assert trained.act(ttt.from_board("X../OO./X..")) == 5


def test_worst_result_finds_losses_of_an_untrained_agent():
    untrained = QLearningAgent(TTT, rng=rng())
    assert worst_result(untrained, ttt.X) == -1
    assert worst_result(untrained, ttt.O, "minimax") == -1


def test_six_thousand_games_of_self_play_reach_perfect_play(trained):
    # Exhaustive: whichever tied greedy move it picks and whatever the opponent plays.
    assert worst_result(trained, ttt.X) == 0
    assert worst_result(trained, ttt.O) == 0


def test_save_load_round_trip_gives_identical_actions(trained, tmp_path):
    path = tmp_path / "q.json"
    trained.save(path)
    loaded = QLearningAgent.load(path, rng=rng(9))
    assert loaded.table == trained.table
    assert loaded.games == trained.games and loaded.params == trained.params
    data = json.loads(path.read_text())
    assert data["format"] == "tictacgo-qtable" and data["version"] == 1
    # Every reachable state: the same greedy moves, so the same actions with the same seed.
    trained.seed(rng(11))
    loaded.seed(rng(11))
    stack, seen = [TTT.initial_state()], set()
    while stack:
        s = stack.pop()
        if ttt.is_terminal(s) or (s.x, s.o) in seen:
            continue
        seen.add((s.x, s.o))
        assert loaded.best_actions(s) == trained.best_actions(s)
        assert loaded.act(s) == trained.act(s)
        stack.extend(ttt.play(s, a) for a in ttt.legal_actions(s))


def test_registry_loads_a_table_and_reports_a_missing_file(trained, tmp_path):
    path = tmp_path / "ttt_q.json"
    trained.save(path)
    agent = make_agent(f"qlearning:path={path}", "tictactoe", rng=rng())
    assert agent.table == trained.table
    with pytest.raises(ValueError, match="no Q-table file"):
        make_agent(f"qlearning:path={tmp_path / 'missing.json'}", "tictactoe")
    with pytest.raises(ValueError, match="no Q-table file"):
        make_agent(f"qlearning:path={tmp_path / 'missing.npz'}", "littlego")


def test_save_is_atomic_when_the_write_fails(trained, tmp_path, monkeypatch):
    path = tmp_path / "q.json"
    small = train(20, rng(2), progress=False)
    small.save(path)
    before = path.read_bytes()

    def broken_dump(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.json, "dump", broken_dump)
    with pytest.raises(OSError, match="disk full"):
        trained.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["q.json"]  # no temporary file left


@pytest.mark.parametrize("content", [
    "not json at all",
    json.dumps([1, 2, 3]),
    json.dumps({"format": "something-else", "version": 1, "table": {}}),
    json.dumps({"format": "tictacgo-qtable", "version": 99, "table": {}}),
    json.dumps({"format": "tictacgo-qtable", "version": 1, "table": []}),
    json.dumps({"format": "tictacgo-qtable", "version": 1, "table": {"XXX......": [0.0] * 9}}),
    json.dumps({"format": "tictacgo-qtable", "version": 1, "table": {"..X......": [0.0] * 9}}),
    json.dumps({"format": "tictacgo-qtable", "version": 1, "table": {".........": [0.0, 0.0]}}),
    json.dumps({"format": "tictacgo-qtable", "version": 1,
                "table": {".........": [0.0, 0.0, None, None, "a", None, None, None, None]}}),
    json.dumps({"format": "tictacgo-qtable", "version": 1, "games": -3, "table": {}}),
    "[" * 100_000 + "]" * 100_000,
    '{"format": "tictacgo-qtable", "version": 1, "table": ' + "[" * 100_000 + "]" * 100_000 + "}",
    '{"format": "tictacgo-qtable", "version": 1, "games": ' + "9" * 10_000 + ', "table": {}}',
])
def test_bad_files_raise_a_value_error_naming_the_file(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match="bad.json"):
        load_table(path)


def test_a_deeply_nested_file_is_a_clean_error_through_the_registry_and_the_cli(tmp_path, capsys):
    from tictacgo.cli import main

    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nests too deeply"):
        make_agent(f"qlearning:path={path}", "tictactoe")
    rc = main(["arena", "tictactoe", f"qlearning:path={path}", "random", "--games", "1", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "nests too deeply" in err and "RecursionError" not in err and "Traceback" not in err


def test_a_valid_hand_written_file_loads(tmp_path, trained):
    path = tmp_path / "ok.json"
    path.write_text(json.dumps({"format": "tictacgo-qtable", "version": 1, "params": {}, "games": 0,
                                "table": {".........": [0.2, 0.1, None, None, 0.5, None, None, None, None]}}))
    agent = QLearningAgent.load(path, rng=rng())
    assert agent.act(TTT.initial_state()) == 4
    assert agent.act(ttt.play(TTT.initial_state(), 4)) in ttt.legal_actions(ttt.play(TTT.initial_state(), 4))


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no Q-table file"):
        QLearningAgent.load(tmp_path / "nope.json")


def test_the_registrys_qlearning_plays_the_shipped_table_which_never_loses():
    from tictacgo.baselines import make_agent
    from tictacgo.baselines.qlearning import SHIPPED_TABLE, worst_result

    shipped = make_agent("qlearning", "tictactoe", rng=np.random.default_rng(0))
    assert SHIPPED_TABLE.stat().st_size < 100_000 and len(shipped.table) > 500
    assert worst_result(shipped, ttt.X) >= 0 and worst_result(shipped, ttt.O) >= 0  # every line of play
    assert make_agent("qlearning:path=none", "tictactoe").table == {}
