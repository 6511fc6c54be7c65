"""The batched engines agree move for move with the single-game rules cores.

Seeded random games (uniform over the legal actions, so passes are frequent
and every kind of Little-Go end occurs) are played in a batch; after every
action each game's legal mask, board, ko memory, terminal flag and winner are
compared with the core's state reached by the same actions. In total several
hundred thousand positions over board sizes 3, 4, 5 (and 6) and Tic-Tac-Toe.
The recorded course-host games are replayed through the batched engine in
``tests/test_conformance.py`` (adapter in ``tests/engines.py``).
"""

import numpy as np
import pytest

from tictacgo.games import littlego as go
from tictacgo.games import tictactoe as ttt
from tictacgo.games.batched_littlego import BatchedLittleGo
from tictacgo.games.batched_tictactoe import BatchedTicTacToe
from tictacgo.games.errors import IllegalActionError


def random_legal(rng, mask):
    """One uniformly random legal action per row of a (B, A) mask (0 for rows without one)."""
    return np.argmax(mask * rng.random(mask.shape), axis=1)


def core_mask(game, s):
    return game.legal_mask(s).astype(bool)


def play_and_compare(engine, game, states, rng):
    """Play random games to the end in ``engine`` and in the core; returns positions compared."""
    compared = 0
    while not engine.done.all():
        mask = engine.legal_mask()
        live = np.nonzero(~engine.done)[0]
        for i in live:
            assert (mask[i] == core_mask(game, states[i])).all(), (i, states[i])
        compared += len(live)
        actions = random_legal(rng, mask)
        engine.play(actions)
        for i in live:
            states[i] = game.play(states[i], int(actions[i]))
            assert engine.state(i) == states[i], (i, engine.state(i), states[i])
        assert (engine.done[live] == [game.is_terminal(states[i]) for i in live]).all()
    boards = engine.boards()
    for i in range(engine.batch_size):
        assert (boards[i] == game.to_board(states[i])).all()
        assert engine.winner[i] == game.winner(states[i])
        assert tuple(engine.returns()[i]) == game.returns(states[i])
    return compared


@pytest.mark.parametrize(("n", "seeds"), [(3, 2), (4, 2), (5, 4), (6, 1)])
def test_batched_littlego_agrees_with_the_core_move_for_move(n, seeds):
    total = 0
    for seed in range(seeds):
        rng = np.random.default_rng(1000 * n + seed)
        engine = BatchedLittleGo(2048, n=n)
        states = [go.initial_state(n)] * engine.batch_size
        total += play_and_compare(engine, go, states, rng)
    # Random games with frequent passes still last about (n*n - 1) / 1.25 actions on average.
    assert total >= seeds * 2048 * (n * n - 1) * 0.6


def test_batched_littlego_agrees_with_the_core_in_placement_heavy_games():
    # Passing rarely: long games with many captures and kos.
    rng = np.random.default_rng(7)
    engine = BatchedLittleGo(2048)
    states = [go.initial_state()] * engine.batch_size
    kos = 0
    while not engine.done.all():
        mask = engine.legal_mask()
        weights = rng.random(mask.shape)
        weights[:, -1] *= 0.02
        actions = np.argmax(mask * weights, axis=1)
        live = np.nonzero(~engine.done)[0]
        for i in live:
            assert (mask[i] == core_mask(go, states[i])).all()
            kos += go.ko_bits(states[i]) != 0
            states[i] = go.play(states[i], int(actions[i]))
        engine.play(actions)
        for i in live:
            assert engine.state(i) == states[i]
    assert kos > 0
    assert (engine.end == 1).mean() > 0.5  # most games run to the action limit


def test_batched_tictactoe_agrees_with_the_core_move_for_move():
    total = 0
    for seed in range(4):
        engine = BatchedTicTacToe(4096)
        states = [ttt.initial_state()] * engine.batch_size
        total += play_and_compare(engine, ttt, states, np.random.default_rng(seed))
    assert total > 100_000


def test_black_passing_first_ends_the_game_and_white_wins():
    engine = BatchedLittleGo(3)
    engine.play(np.array([25, 12, 25]))
    assert engine.done.tolist() == [True, False, True]
    assert engine.winner.tolist() == [2, -1, 2]
    assert [engine.END_NAMES[e] for e in engine.end] == [go.END_PASS_ON_EMPTY_START, None,
                                                         go.END_PASS_ON_EMPTY_START]


def test_two_passes_in_a_row_end_the_game_and_a_single_pass_does_not():
    engine = BatchedLittleGo(2)
    engine.play(np.array([12, 12]))
    engine.play(np.array([25, 6]))
    assert not engine.done.any()
    engine.play(np.array([25, 25]))
    assert engine.done.tolist() == [True, False]
    assert engine.END_NAMES[engine.end[0]] == go.END_DOUBLE_PASS
    assert engine.winner[0] == 2  # komi 2.5 outweighs Black's one stone


def test_every_action_counts_toward_the_limit_passes_included():
    engine = BatchedLittleGo(1, n=3)  # limit 8 actions
    for a in (4, 9, 0, 9, 8, 9, 2):  # PASS is 9 on 3x3
        engine.play(np.array([a]))
        assert not engine.done[0]
    engine.play(np.array([9]))
    assert engine.done[0] and engine.END_NAMES[engine.end[0]] == go.END_MAX_ACTIONS
    assert engine.t[0] == 8


def test_an_illegal_placement_raises_and_changes_no_game():
    engine = BatchedLittleGo(2)
    engine.play(np.array([12, 0]))
    before = [engine.state(i) for i in range(2)]
    with pytest.raises(IllegalActionError, match="game 0 is illegal: occupied"):
        engine.play(np.array([12, 1]))
    assert [engine.state(i) for i in range(2)] == before


def test_bad_action_arrays_are_refused_with_clear_errors():
    engine = BatchedLittleGo(2)
    with pytest.raises(ValueError, match="shape"):
        engine.play(np.array([1, 2, 3]))
    with pytest.raises(TypeError, match="integers"):
        engine.play(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"\[0, 25\]"):
        engine.play(np.array([1, 26]))
    with pytest.raises(ValueError, match="batch_size"):
        BatchedLittleGo(0)
    with pytest.raises(ValueError, match="up to 7x7"):
        BatchedLittleGo(4, n=9)


def test_step_reports_finished_games_and_resets_them():
    engine = BatchedLittleGo(2)
    done, ret = engine.step(np.array([25, 12]))
    assert done.tolist() == [True, False]
    assert ret.tolist() == [[-1.0, 1.0], [0.0, 0.0]]
    assert engine.state(0) == go.initial_state()
    assert engine.black[1] == 1 << 12


def test_forfeit_makes_the_player_to_move_lose():
    engine = BatchedTicTacToe(2)
    engine.play(np.array([0, 0]))
    engine.forfeit(np.array([True, False]))
    assert engine.winner.tolist() == [1, -1]
    assert engine.END_NAMES[engine.end[0]] == ttt.END_ILLEGAL
    assert engine.state(0) == ttt.forfeit(ttt.play(ttt.initial_state(), 0))


def test_greedy_capture_counts_match_the_core():
    rng = np.random.default_rng(3)
    engine = BatchedLittleGo(256)
    for _ in range(14):
        counts = engine.capture_counts()
        for i in range(engine.batch_size):
            s = engine.state(i)
            if s.end is not None:
                assert (counts[i] == -1).all()
                continue
            expected = [go.play(s, p).captured if go.illegal_reason(s, p) is None else -1 for p in range(25)]
            assert counts[i].tolist() == expected
        mask = engine.legal_mask()
        mask[:, -1] = False
        mask[~mask.any(axis=1), -1] = True
        engine.play(random_legal(rng, mask | engine.done[:, None]))
    assert engine.captured.max() > 0


def test_play_where_leaves_the_other_games_untouched():
    for engine in (BatchedLittleGo(3), BatchedTicTacToe(3)):
        engine.play(np.array([4, 4, 4]), np.array([True, False, True]))
        assert engine.t.tolist() == [1, 0, 1]
        assert engine.boards()[1].sum() == 0


def test_engines_are_made_by_game_name_with_clear_errors():
    from tictacgo.games.batched_engines import make_batched_engine

    assert make_batched_engine("go", 4, board_size=3).num_actions == 10
    assert make_batched_engine("ttt", 4).num_actions == 9
    with pytest.raises(ValueError, match="unknown game"):
        make_batched_engine("chess", 4)
    with pytest.raises(TypeError, match="variant"):
        make_batched_engine("tictactoe", 4, board_size=5)
