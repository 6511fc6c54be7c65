"""The batched engines agree move for move with the single-game rules cores.

Seeded random games (uniform over the legal actions, so passes are frequent
and every kind of Little-Go end occurs) are played in a batch; after every
action each game's legal mask, board, ko memory, terminal flag and winner are
compared with the core's state reached by the same actions. In total several
hundred thousand positions over board sizes 3, 4, 5 (and 6) and Tic-Tac-Toe.
The recorded course-host games are replayed through the batched engine in
``tests/test_conformance.py`` (adapter in ``tests/engines.py``).

Every test that builds an engine runs on both backends, numpy and numba (the
``backend`` fixture; the numba half skips when numba cannot be imported), and
the two backends are also compared with each other array for array.
"""

import pickle

import numpy as np
import pytest
from engines import BACKEND_PARAMS

from tictacgo.games import batched_common
from tictacgo.games import littlego as go
from tictacgo.games import tictactoe as ttt
from tictacgo.games.batched_littlego import BatchedLittleGo
from tictacgo.games.batched_tictactoe import BatchedTicTacToe
from tictacgo.games.errors import IllegalActionError
from tictacgo.games.greedy import most_captures


@pytest.fixture(params=BACKEND_PARAMS)
def backend(request):
    return request.param


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
def test_batched_littlego_agrees_with_the_core_move_for_move(n, seeds, backend):
    total = 0
    for seed in range(seeds):
        rng = np.random.default_rng(1000 * n + seed)
        engine = BatchedLittleGo(2048, go.LittleGo(n), backend=backend)
        states = [go.LittleGo(n).initial_state()] * engine.batch_size
        total += play_and_compare(engine, go.LittleGo(), states, rng)
    # Random games with frequent passes still last about (n*n - 1) / 1.25 actions on average.
    assert total >= seeds * 2048 * (n * n - 1) * 0.6


def test_batched_littlego_agrees_with_the_core_in_placement_heavy_games(backend):
    # Passing rarely: long games with many captures and kos.
    rng = np.random.default_rng(7)
    engine = BatchedLittleGo(2048, backend=backend)
    states = [go.LittleGo().initial_state()] * engine.batch_size
    kos = 0
    while not engine.done.all():
        mask = engine.legal_mask()
        weights = rng.random(mask.shape)
        weights[:, -1] *= 0.02
        actions = np.argmax(mask * weights, axis=1)
        live = np.nonzero(~engine.done)[0]
        for i in live:
            assert (mask[i] == core_mask(go.LittleGo(), states[i])).all()
            kos += go.ko_bits(states[i]) != 0
            states[i] = go.play(states[i], int(actions[i]))
        engine.play(actions)
        for i in live:
            assert engine.state(i) == states[i]
    assert kos > 0
    assert (engine.end == 1).mean() > 0.5  # most games run to the action limit


def test_batched_tictactoe_agrees_with_the_core_move_for_move(backend):
    total = 0
    for seed in range(4):
        engine = BatchedTicTacToe(4096, backend=backend)
        states = [ttt.TicTacToe().initial_state()] * engine.batch_size
        total += play_and_compare(engine, ttt.TicTacToe(), states, np.random.default_rng(seed))
    assert total > 100_000


def test_black_passing_first_ends_the_game_and_white_wins(backend):
    engine = BatchedLittleGo(3, backend=backend)
    engine.play(np.array([25, 12, 25]))
    assert engine.done.tolist() == [True, False, True]
    assert engine.winner.tolist() == [2, -1, 2]
    assert [engine.END_NAMES[e] for e in engine.end] == [go.END_PASS_ON_EMPTY_START, None,
                                                         go.END_PASS_ON_EMPTY_START]


def test_two_passes_in_a_row_end_the_game_and_a_single_pass_does_not(backend):
    engine = BatchedLittleGo(2, backend=backend)
    engine.play(np.array([12, 12]))
    engine.play(np.array([25, 6]))
    assert not engine.done.any()
    engine.play(np.array([25, 25]))
    assert engine.done.tolist() == [True, False]
    assert engine.END_NAMES[engine.end[0]] == go.END_DOUBLE_PASS
    assert engine.winner[0] == 2  # komi 2.5 outweighs Black's one stone


def test_every_action_counts_toward_the_limit_passes_included(backend):
    engine = BatchedLittleGo(1, go.LittleGo(3), backend=backend)  # limit 8 actions
    for a in (4, 9, 0, 9, 8, 9, 2):  # PASS is 9 on 3x3
        engine.play(np.array([a]))
        assert not engine.done[0]
    engine.play(np.array([9]))
    assert engine.done[0] and engine.END_NAMES[engine.end[0]] == go.END_MAX_ACTIONS
    assert engine.t[0] == 8


@pytest.mark.parametrize("limit", [32_767, 32_768, 40_000])
def test_the_action_limit_ends_the_game_beyond_the_int16_range(backend, limit):
    game = go.LittleGo(3, max_actions=limit)
    s = game.from_boards(np.zeros((3, 3), int), 1 + limit % 2, t=limit - 2)  # Black moves at even t
    engine = BatchedLittleGo(2, game, backend=backend)
    engine.set_state(0, s)
    for a in (4, 0):
        engine.play(np.array([a, 4]), where=np.array([True, False]))
        s = game.play(s, a)
        assert engine.state(0) == s
    assert engine.done[0] and s.end == go.END_MAX_ACTIONS and int(engine.t[0]) == limit


def test_an_action_limit_beyond_the_engines_counter_is_refused(backend):
    with pytest.raises(ValueError, match="max_actions"):
        BatchedLittleGo(1, go.LittleGo(3, max_actions=2**63), backend=backend)


def test_an_illegal_placement_raises_and_changes_no_game(backend):
    engine = BatchedLittleGo(2, backend=backend)
    engine.play(np.array([12, 0]))
    before = [engine.state(i) for i in range(2)]
    with pytest.raises(IllegalActionError, match="game 0 is illegal: occupied"):
        engine.play(np.array([12, 1]))
    assert [engine.state(i) for i in range(2)] == before


def test_bad_action_arrays_are_refused_with_clear_errors(backend):
    engine = BatchedLittleGo(2, backend=backend)
    with pytest.raises(ValueError, match="shape"):
        engine.play(np.array([1, 2, 3]))
    with pytest.raises(TypeError, match="integers"):
        engine.play(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"\[0, 25\]"):
        engine.play(np.array([1, 26]))
    one = BatchedLittleGo(1, backend=backend)  # one game's actions are checked without array calls
    for bad in (26, -1, 2**63):
        dtype = np.uint64 if bad > 0 else np.int64
        with pytest.raises(ValueError, match=rf"actions must be in \[0, 25\]; game 0 got {bad}"):
            one.play(np.array([bad], dtype))
    one.play(np.array([25], np.uint8))  # a pass, of another integer type
    assert one.last_pass[0]
    with pytest.raises(ValueError, match="batch_size"):
        BatchedLittleGo(0, backend=backend)
    with pytest.raises(ValueError, match="up to 7x7"):
        BatchedLittleGo(4, go.LittleGo(9), backend=backend)


def test_step_reports_finished_games_and_resets_them(backend):
    engine = BatchedLittleGo(2, backend=backend)
    done, ret = engine.step(np.array([25, 12]))
    assert done.tolist() == [True, False]
    assert ret.tolist() == [[-1.0, 1.0], [0.0, 0.0]]
    assert engine.state(0) == go.LittleGo().initial_state()
    assert engine.black[1] == 1 << 12


def test_forfeit_makes_the_player_to_move_lose(backend):
    engine = BatchedTicTacToe(2, backend=backend)
    engine.play(np.array([0, 0]))
    engine.forfeit(np.array([True, False]))
    assert engine.winner.tolist() == [1, -1]
    assert engine.END_NAMES[engine.end[0]] == ttt.END_ILLEGAL
    assert engine.state(0) == ttt.forfeit(ttt.play(ttt.TicTacToe().initial_state(), 0))


def test_greedy_capture_counts_match_the_core(backend):
    rng = np.random.default_rng(3)
    engine = BatchedLittleGo(256, backend=backend)
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


def test_the_greedy_rule_keeps_the_legal_placements_capturing_the_most():
    counts = np.array([[0, 2, -1, 2, 1], [-1, -1, -1, -1, -1], [0, 0, -1, 0, 0]])
    assert most_captures(counts).tolist() == [[False, True, False, True, False], [False] * 5,
                                              [True, True, False, True, True]]
    assert most_captures(counts[0]).tolist() == [False, True, False, True, False]


def test_the_compiled_greedy_rule_chooses_what_the_rule_chooses():
    kernels = pytest.importorskip("tictacgo.games.batched_kernels")
    rng = np.random.default_rng(5)
    engine = BatchedLittleGo(128, backend="numpy")
    game = engine.game
    geometry = (np.array(game.neighbour_bits, np.int64), game.size, np.int64(game.full),
                np.int64(game.not_first_col), np.int64(game.not_last_col))
    scratch = np.zeros(25, np.int64)
    checked = captures = 0
    for _ in range(14):
        kept = most_captures(engine.capture_counts())
        for i in range(engine.batch_size):
            s = engine.state(i)
            if s.end is not None:
                continue
            own, opp = (s.black, s.white) if s.to_move == go.BLACK else (s.white, s.black)
            ko_own, ko_opp = go.ko_board(s)
            legal = go.legal_bits(s) & ~(1 << game.pass_action)
            bits = kernels.go_most_captures(np.int64(legal), np.int64(own), np.int64(opp), np.int64(ko_own),
                                            np.int64(ko_opp), *geometry, scratch)
            assert [bool((bits >> p) & 1) for p in range(25)] == kept[i].tolist()
            checked += 1
            captures += int(kept[i].sum()) < legal.bit_count()  # a capture narrows the choice
        mask = engine.legal_mask()
        mask[:, -1] = False
        mask[~mask.any(axis=1), -1] = True
        engine.play(random_legal(rng, mask | engine.done[:, None]))
    assert checked > 1000 and captures > 10


def test_play_where_leaves_the_other_games_untouched(backend):
    for engine in (BatchedLittleGo(3, backend=backend), BatchedTicTacToe(3, backend=backend)):
        engine.play(np.array([4, 4, 4]), np.array([True, False, True]))
        assert engine.t.tolist() == [1, 0, 1]
        assert engine.boards()[1].sum() == 0


def test_engines_are_made_by_game_name_with_clear_errors(backend):
    from tictacgo.games.batched_engines import make_batched_engine

    assert make_batched_engine(go.LittleGo(3), 4, backend=backend).num_actions == 10
    assert make_batched_engine("go", 4, backend=backend).num_actions == 26
    assert make_batched_engine("ttt", 4, backend=backend).num_actions == 9
    with pytest.raises(ValueError, match="unknown game"):
        make_batched_engine("chess", 4)
    with pytest.raises(TypeError, match="LittleGo"):
        BatchedLittleGo(4, ttt.TicTacToe())


def test_an_illegal_tictactoe_action_raises_and_changes_no_game(backend):
    engine = BatchedTicTacToe(3, backend=backend)
    engine.play(np.array([4, 0, 8]))
    before = [engine.state(i) for i in range(3)]
    with pytest.raises(IllegalActionError, match=r"action 0 of game 1 is illegal: cell taken \(2 illegal"):
        engine.play(np.array([5, 0, 8]))
    assert [engine.state(i) for i in range(3)] == before


def test_a_suicide_is_refused_with_its_reason_and_changes_no_game(backend):
    # 3x3: White at 1 and 3 leaves Black's point 0 without liberties (and nothing to capture).
    engine = BatchedLittleGo(2, go.LittleGo(3), backend=backend)
    for a in ((8, 8), (1, 1), (7, 7), (3, 3)):
        engine.play(np.array(a))
    before = [engine.state(i) for i in range(2)]
    assert not engine.legal_mask()[:, 0].any()
    with pytest.raises(IllegalActionError, match="game 0 is illegal: suicide") as info:
        engine.play(np.array([0, 6]))
    assert info.value.reason == go.SUICIDE
    assert [engine.state(i) for i in range(2)] == before


@pytest.mark.parametrize("make", [lambda b: BatchedTicTacToe(333, backend=b),
                                  lambda b: BatchedLittleGo(333, go.LittleGo(4), backend=b),
                                  lambda b: BatchedLittleGo(333, go.LittleGo(5, 0.5, 40), backend=b)],
                         ids=["tictactoe", "littlego4", "littlego5_long"])
def test_the_numba_and_numpy_backends_give_identical_arrays_step_by_step(make):
    pytest.importorskip("numba", reason="the fast extra (numba) is not installed: pip install -e '.[fast]'")
    a, b = make("numpy"), make("numba")
    assert (a.backend, b.backend) == ("numpy", "numba")
    rng = np.random.default_rng(11)
    ended_games = 0
    for _ in range(150):
        mask = a.legal_mask()
        assert (mask == b.legal_mask()).all()
        if isinstance(a, BatchedLittleGo):
            assert (a.capture_counts() == b.capture_counts()).all()
        weights = rng.random(mask.shape)
        weights[:, -1] *= 0.1
        actions = np.argmax(mask * weights, axis=1)
        done_a, ret_a = a.step(actions)
        done_b, ret_b = b.step(actions)
        ended_games += int(done_a.sum())
        assert (done_a == done_b).all() and (ret_a == ret_b).all() and ret_a.dtype == ret_b.dtype
        for name, value in vars(a).items():
            if isinstance(value, np.ndarray):
                other = getattr(b, name)
                assert value.dtype == other.dtype and (value == other).all(), name
    assert ended_games > 333


def test_backend_auto_picks_numba_when_it_imports_and_the_env_var_overrides(monkeypatch):
    monkeypatch.delenv(batched_common.BACKEND_ENV, raising=False)
    expected = "numba" if batched_common.load_kernels() is not None else "numpy"
    assert BatchedTicTacToe(2).backend == expected
    assert BatchedLittleGo(2, backend="auto").backend == expected
    monkeypatch.setenv(batched_common.BACKEND_ENV, "numpy")
    assert BatchedLittleGo(2).backend == "numpy"
    assert BatchedTicTacToe(2, backend="auto").backend == expected  # an argument beats the variable
    monkeypatch.setenv(batched_common.BACKEND_ENV, "cuda")
    with pytest.raises(ValueError, match="TICTACGO_BATCHED_BACKEND must be one of"):
        BatchedTicTacToe(2)


def test_an_unknown_backend_is_refused_and_numba_without_numba_names_the_extra(monkeypatch):
    with pytest.raises(ValueError, match=r"backend must be one of \('auto', 'numpy', 'numba'\), got 'jax'"):
        BatchedLittleGo(2, backend="jax")
    monkeypatch.setattr(batched_common, "_kernels", False)  # as if numba failed to import
    with pytest.raises(ImportError, match=r"tictacgo\[fast\]"):
        BatchedTicTacToe(2, backend="numba")
    assert BatchedTicTacToe(2, backend="auto").backend == "numpy"


def test_an_engine_pickles_with_its_backend_and_games(backend):
    engine = BatchedLittleGo(3, backend=backend)
    engine.play(np.array([12, 25, 0]))
    copy = pickle.loads(pickle.dumps(engine))
    assert copy.backend == engine.backend
    assert [copy.state(i) for i in range(3)] == [engine.state(i) for i in range(3)]
    assert (copy.legal_mask() == engine.legal_mask()).all()
