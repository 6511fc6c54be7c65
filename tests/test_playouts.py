"""The seeded random playouts (``tictacgo.games.playouts``) obey the rules core and both backends agree.

Positions come from seeded random games that prefer captures, so ko
positions, captures, passes and every kind of end occur. For each position
and seed the playout's record (every action, the boards after it, the stones
it captured) is replayed in the rules core: every action must be legal there,
a pass only played when no placement is legal, the boards equal, the game
over exactly where the playout stopped, with the same winner. The compiled
kernel (numba) and the pure-Python twin must play the same moves for the
same seed. The recorded course-host games go through both in
``tests/test_conformance.py``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from engines import BACKEND_PARAMS, NUMBA_MISSING

from tictacgo.baselines.mcts import MCTSAgent
from tictacgo.baselines.mcts_evaluators import RandomRollout
from tictacgo.games import LittleGo, TicTacToe, playouts
from tictacgo.games import littlego as go
from tictacgo.games import tictactoe as ttt
from tictacgo.games.errors import IllegalActionError

needs_numba = pytest.mark.skipif(NUMBA_MISSING is not None, reason=str(NUMBA_MISSING))


@pytest.fixture(params=BACKEND_PARAMS)
def backend(request):
    return request.param


def go_positions(size: int, count: int, seed: int) -> list[go.GoState]:
    """Live positions at every stage of seeded random games that prefer captures (kos included)."""
    rnd = random.Random(seed)
    game = LittleGo(size)
    out = []
    while len(out) < count:
        s = game.initial_state()
        stop = rnd.randrange(game.max_actions)
        while s.end is None and s.t < stop:
            legal = [a for a in go.legal_actions(s) if a != game.pass_action]
            if not legal or (s.t > 0 and rnd.random() < 0.05):
                a = game.pass_action
            else:
                own, opp = (s.black, s.white) if s.to_move == go.BLACK else (s.white, s.black)
                captures = [a for a in legal if go.place_bits(game, own, opp, a)[2]]
                a = rnd.choice(captures if captures and rnd.random() < 0.8 else legal)
            s = go.play(s, a)
        if s.end is None:
            out.append(s)
    return out


def replay_in_core(state: go.GoState, record: list, winner: int, pass_prob: float) -> None:
    """Replay a playout's record in the rules core and check that it agrees at every action."""
    game = state.game
    for k, (a, black, white, captured, ko) in enumerate(record):
        assert state.end is None, f"the playout went on after the game ended (action {k})"
        legal = go.legal_actions(state)
        assert a in legal, (k, a, legal)
        if a == game.pass_action and pass_prob == 0:
            assert legal == [game.pass_action], f"a pass with legal placements left: {legal}"
        state = go.play(state, a)
        assert (state.black, state.white, state.captured) == (black, white, captured), k
        expected_ko = go.ko_board(state) if state.end is None and state.ko_armed else (go.NO_KO, go.NO_KO)
        if state.end is None:
            assert ko == expected_ko, k
    assert state.end is not None, "the playout stopped before the game ended"
    assert go.winner(state) == winner


@pytest.mark.parametrize("size,pass_prob", [(5, 0.0), (5, 0.2), (4, 0.0), (3, 0.1), (7, 0.0)])
def test_every_playout_action_is_legal_in_the_rules_core_and_the_winner_agrees(backend, size, pass_prob):
    count = 60 if backend == "numba" else 25
    for i, state in enumerate(go_positions(size, count, seed=size)):
        for seed in (i, 2**62 + i):
            record: list = []
            winner = go.LittleGo(size).random_playout(state, seed, pass_prob, backend, record=record)
            replay_in_core(state, record, winner, pass_prob)


@needs_numba
@pytest.mark.parametrize("size,pass_prob", [(5, 0.0), (5, 0.3), (4, 0.0), (6, 0.05)])
def test_the_compiled_and_the_python_playout_play_the_same_moves(size, pass_prob):
    for i, state in enumerate(go_positions(size, 40, seed=100 + size)):
        for seed in (3 * i, 3 * i + 1, 2**63 - 1 - i):
            fast: list = []
            slow: list = []
            w_fast = playouts.go_playout(state, seed, pass_prob, "numba", record=fast)
            w_slow = playouts.go_playout(state, seed, pass_prob, "numpy", record=slow)
            assert (w_fast, fast) == (w_slow, slow), (i, seed)
            assert playouts.go_playout(state, seed, pass_prob, "numba") == w_fast  # without a record too


def test_the_first_playout_move_covers_exactly_the_legal_placements(backend):
    # Uniform among the legal placements: over enough seeds every one of them is drawn, nothing else.
    seeds = 600 if backend == "numba" else 250
    for state in go_positions(5, 12 if backend == "numba" else 4, seed=7):
        first = set()
        for seed in range(seeds):
            record: list = []
            go.LittleGo().random_playout(state, seed, 0.0, backend, record=record)
            first.add(record[0][0])
        legal = {a for a in go.legal_actions(state) if a != go.pass_action(state)}
        assert first == (legal or {go.pass_action(state)})


def test_a_ko_recapture_is_never_played(backend):
    # Black takes the ko at point 6 (capturing White's stone at 7): White may not retake at once.
    board = [[0, 2, 1, 0, 0],
             [2, 0, 2, 1, 0],
             [0, 2, 1, 0, 0],
             [0, 0, 0, 0, 0],
             [0, 0, 0, 0, 0]]
    before = LittleGo().from_boards(board, to_move=1)
    after = go.play(before, 6)
    assert after.captured == 1 and go.illegal_reason(after, 7) == go.KO
    for seed in range(300):
        record: list = []
        go.LittleGo().random_playout(after, seed, 0.0, backend, record=record)
        assert record[0][0] != 7


def test_a_scripted_illegal_action_raises_and_names_the_rule(backend):
    s = go.play(LittleGo().initial_state(), 12)
    with pytest.raises(IllegalActionError, match="occupied"):
        playouts.go_playout(s, 1, backend=backend, script=[12])
    with pytest.raises(IllegalActionError, match="cell 4 is already taken") as refused:
        playouts.ttt_playout(ttt.play(TicTacToe().initial_state(), 4), 1, backend=backend, script=[4])
    assert refused.value.reason == ttt.OCCUPIED


def test_a_finished_position_returns_its_winner_at_once(backend):
    over = go.play(LittleGo().initial_state(), 25)  # Black's opening pass ends the game: White wins
    assert playouts.go_playout(over, 5, backend=backend) == 2
    won = ttt.from_board("XXX / OO. / ...")
    assert playouts.ttt_playout(won, 5, backend=backend) == 1


def test_boards_too_large_for_the_kernel_play_on_the_python_twin():
    state = go_positions(9, 1, seed=1)[0]
    record: list = []
    winner = playouts.go_playout(state, 11, 0.0, "auto", record=record)
    replay_in_core(state, record, winner, 0.0)
    assert playouts.go_playout(state, 11, 0.0, "numpy") == winner


def test_tictactoe_playouts_follow_the_rules_and_both_backends_agree(backend):
    rnd = random.Random(3)
    for i in range(300):
        s = TicTacToe().initial_state()
        for _ in range(rnd.randrange(8)):
            if s.end is None:
                s = ttt.play(s, rnd.choice(ttt.legal_actions(s)))
        moves: list = []
        winner = TicTacToe().random_playout(s, i, 0.0, backend, record=moves)
        for a in moves:
            s = ttt.play(s, a)  # raises if a move were illegal
        assert s.end is not None and ttt.winner(s) == winner
        if NUMBA_MISSING is None:
            assert playouts.ttt_playout(s, i, 0.0, "numba" if backend == "numpy" else "numpy") == winner


def test_the_same_seed_gives_the_same_playout_and_seeds_differ(backend):
    state = go_positions(5, 1, seed=4)[0]
    runs = [[] for _ in range(3)]
    for record, seed in zip(runs, (42, 42, 43), strict=True):
        playouts.go_playout(state, seed, 0.0, backend, record=record)
    assert runs[0] == runs[1]
    assert [r[0] for r in runs[0]] != [r[0] for r in runs[2]]


@pytest.mark.parametrize("seed,error", [(-1, ValueError), (2**63, ValueError), (1.0, TypeError),
                                        (True, TypeError), ("3", TypeError)])
def test_a_bad_seed_is_refused(seed, error):
    with pytest.raises(error, match="seed"):
        playouts.go_playout(LittleGo().initial_state(), seed)


@pytest.mark.parametrize("pass_prob", [-0.1, 1.5, float("nan")])
def test_a_pass_probability_outside_0_1_is_refused(pass_prob):
    with pytest.raises(ValueError, match="pass_prob"):
        playouts.go_playout(LittleGo().initial_state(), 1, pass_prob)


def test_a_bad_backend_is_refused():
    with pytest.raises(ValueError, match="cuda"):
        playouts.go_playout(LittleGo().initial_state(), 1, backend="cuda")
    with pytest.raises(ValueError, match="cuda"):
        RandomRollout(LittleGo(), backend="cuda")


def test_tictactoe_playouts_and_rollouts_refuse_a_pass_probability():
    with pytest.raises(ValueError, match="pass"):
        playouts.ttt_playout(TicTacToe().initial_state(), 1, pass_prob=0.1)
    with pytest.raises(ValueError, match="Tic-Tac-Toe has no pass"):
        RandomRollout(TicTacToe(), pass_prob=0.1)


def test_the_environment_variable_forces_the_python_twin(monkeypatch):
    monkeypatch.setenv("TICTACGO_BATCHED_BACKEND", "numpy")
    assert playouts.playout_backend() == "numpy"
    assert RandomRollout(LittleGo())._resolved == "numpy"


@needs_numba
@pytest.mark.parametrize("game", [LittleGo(), TicTacToe()], ids=["littlego", "tictactoe"])
def test_a_seeded_search_is_the_same_with_and_without_numba(game):
    # Forcing the fallback changes only the speed: the same root statistics and moves.
    stats = []
    for backend in ("numba", "numpy"):
        agent = MCTSAgent(game, sims=150, evaluator=RandomRollout(game, backend=backend),
                          rng=np.random.default_rng(9))
        state, moves = game.initial_state(), []
        for _ in range(4):
            a = agent.act(state)
            moves.append(a)
            state = game.play(state, a)
        stats.append((moves, sorted(agent.action_stats(state).items())))
    assert stats[0] == stats[1]
