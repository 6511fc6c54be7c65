"""One rules conformance suite: every engine that claims the Little-Go rules replays
every game recorded from the course's game host.

tests/data/littlego_host_games.jsonl.gz: 300 games with, at every action,
the legal set, the ko-forbidden points, the captures, the board after it and
the host's verdict; then the end, the scores and the winner. The illegal-move
file holds positions where a player submitted a refused move. The engines are
listed in ``tests/engines.py`` (the rules core, the fast MCTS rollout, the seeded
random playout and the batched engine each on its numpy and its numba backend, the
exact solver's move rules; an engine
that cannot run here, numba missing, is skipped with the reason);
a new engine joins by one adapter there.
"""

import numpy as np
import pytest
from engines import ENGINES, CoreEngine

from tictacgo.games import littlego as go

REASONS = {"max_moves": go.END_MAX_ACTIONS, "double_pass": go.END_DOUBLE_PASS,
           "pass_on_empty_start": go.END_PASS_ON_EMPTY_START}


def grid(rows):
    return np.array([[int(c) for c in r] for r in rows], dtype=np.int8)


def bits_of(rows, colour):
    flat = grid(rows).ravel()
    return sum(1 << p for p in range(25) if flat[p] == colour)


def action_of(move):
    return 25 if move == "PASS" else move[0] * 5 + move[1]


def test_there_are_300_recorded_games(host_games):
    assert len(host_games) == 300


def test_every_recorded_game_is_reproduced_move_by_move(host_games):
    for g in host_games:
        s = go.LittleGo().initial_state()
        for pos in g["positions"]:
            where = f"game {g['game']} action {pos['t']}"
            assert (s.t, s.to_move) == (pos["t"], pos["to_move"]), where
            assert (go.to_board(s) == grid(pos["board"])).all(), where
            assert (go.previous_board(s) == grid(pos["prev"])).all(), where
            legal = {divmod(a, 5) for a in go.legal_actions(s) if a != 25}
            assert legal == set(map(tuple, pos["legal"])), where
            assert 25 in go.legal_actions(s), where
            for i, j in pos["ko_forbidden"]:
                assert go.illegal_reason(s, i * 5 + j) == go.KO, where
            s = go.play(s, action_of(pos["action"]))
            assert s.captured == pos["captured"], where
            assert (go.to_board(s) == grid(pos["next_board"])).all(), where
            assert (go.winner(s) or 0) == pos["exit"], where
        end = g["end"]
        assert s.end == REASONS[end["reason"]], g["game"]
        assert s.t == end["n_actions"]
        assert go.scores(s) == (end["black_score"], end["white_score"])
        assert go.winner(s) == end["winner"] == end["host_exit"]


def test_the_recorded_games_include_kos_and_every_kind_of_end(host_games):
    kos = sum(bool(p["ko_forbidden"]) for g in host_games for p in g["positions"])
    ends = {g["end"]["reason"] for g in host_games}
    assert kos > 0
    assert ends == set(REASONS)


def test_a_state_rebuilt_from_the_course_boards_has_the_same_legal_moves(host_games):
    for g in host_games[:100]:
        s = go.LittleGo().initial_state()
        for pos in g["positions"]:
            rebuilt = go.from_boards(grid(pos["board"]), pos["to_move"], grid(pos["prev"]), t=pos["t"])
            assert go.legal_actions(rebuilt) == go.legal_actions(s), (g["game"], pos["t"])
            s = go.play(s, action_of(pos["action"]))


def test_every_recorded_illegal_placement_is_refused_for_the_hosts_reason(host_illegal):
    records = host_illegal
    assert {r['kind'] for r in records} >= {'occupied', 'suicide', 'ko', 'ko_replay', 'out_of_bounds'}
    expected = {"occupied": go.OCCUPIED, "suicide": go.SUICIDE, "ko": go.KO, "ko_replay": go.KO}
    checked = 0
    for r in records:
        s = go.from_boards(grid(r["board"]), r["to_move"], grid(r["prev"]), t=r["t"])
        if r["kind"] in expected:
            i, j = (int(x) for x in r["output_txt"].split(","))
            assert go.illegal_reason(s, i * 5 + j) == expected[r["kind"]], r["game"]
            assert r["exit"] == 3 - r["to_move"]
            checked += 1
        elif r["kind"] == "out_of_bounds":
            i, j = (int(x) for x in r["output_txt"].split(","))
            assert not (0 <= i < 5 and 0 <= j < 5)
            checked += 1
    assert checked >= 60


ENGINE_PARAMS = [pytest.param(e, id=e.name, marks=pytest.mark.skipif(getattr(e, "skip", None) is not None,
                                                                     reason=str(getattr(e, "skip", None))))
                 for e in ENGINES]


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_every_engine_reproduces_every_recorded_game(engine, host_games):
    for g in host_games:
        actions = [action_of(p["action"]) for p in g["positions"]]
        replay = engine.replay(actions)
        assert len(replay.steps) == len(actions), g["game"]
        for k, (pos, step) in enumerate(zip(g["positions"], replay.steps, strict=True)):
            where = f"{engine.name}: game {g['game']} action {pos['t']}"
            if k + 1 < len(g["positions"]):
                following = g["positions"][k + 1]
                assert step.legal == {i * 5 + j for i, j in following["legal"]}, where
            assert step.captured == pos["captured"], where
            assert (step.black, step.white) == (bits_of(pos["next_board"], 1),
                                                bits_of(pos["next_board"], 2)), where
        end = g["end"]
        assert replay.t == end["n_actions"], g["game"]
        assert replay.winner == end["winner"] == end["host_exit"], g["game"]
        if replay.end is not None:
            assert replay.end == REASONS[end["reason"]], g["game"]
        if replay.scores is not None:
            assert replay.scores == (end["black_score"], end["white_score"]), g["game"]


def test_the_placement_primitive_gives_every_recorded_legal_set(host_games):
    # The primitive that the core and the fast rollout share, asked point by point.
    for g in host_games:
        actions = [action_of(p["action"]) for p in g["positions"]]
        for pos, s in zip(g["positions"], CoreEngine().states(actions), strict=False):
            own, opp = (s.black, s.white) if s.to_move == 1 else (s.white, s.black)
            ko_own, ko_opp = go.ko_board(s)
            legal = {divmod(p, 5) for p in range(25)
                     if not isinstance(go.place_bits(s.game, own, opp, p, ko_own, ko_opp), str)}
            assert legal == set(map(tuple, pos["legal"])), (g["game"], pos["t"])
