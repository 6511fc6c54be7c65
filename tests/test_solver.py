"""The exact solver (tictacgo.solver) against a plain minimax over the rules core.

The reference below searches every legal line with the rules core's own
``play``/``legal_actions``/``scores`` (no table, no pruning, no symmetry), so
it is slow but obviously right; the solver must give the same value and the
same exact margin, and its best move must keep them. Positions come from
seeded random games (passes and captures included) and from ASCII fixtures
for the rules' quirks: a ko point, a suicide point, a pending pass, the last
action, the pass on the first action.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="the solver needs numba (the fast extra)")

from positions import positions, random_position  # noqa: E402

from tictacgo.games import littlego as go  # noqa: E402
from tictacgo.protocol.coords import course_to_action  # noqa: E402
from tictacgo.solver import Solver, kernel_position, move_values, solve  # noqa: E402
from tictacgo.solver import kernels as K  # noqa: E402
from tictacgo.solver.resumable import (  # noqa: E402
    SEARCH_FIELDS,
    TABLE_FIELDS,
    ResumableSearch,
    restore_table,
    table_arrays,
)
from tictacgo.solver.search import SolveResult, board_tables, position_key, symmetries  # noqa: E402


def reference_margin(state: go.GoState) -> float:
    """The exact final margin for the player to move (their stones minus the opponent's, komi counted)."""
    best = None
    for a in go.legal_actions(state):
        child = go.play(state, a)
        if child.end is not None:
            b, w = go.scores(child)
            v = b - w if state.to_move == go.BLACK else w - b
        else:
            v = -reference_margin(child)
        if best is None or v > best:
            best = v
    return best


def sign(x: float) -> int:
    return 1 if x > 0 else -1 if x < 0 else 0


def check_against_reference(state: go.GoState, solver: Solver) -> None:
    expected = reference_margin(state)
    outcome = solver.solve(state)
    exact = solver.solve(state, margin=True)
    where = go.render_ascii(state)
    assert outcome.value == sign(expected), where
    assert exact.margin == expected and exact.value == sign(expected), where
    # The best moves keep the value (outcome search) and the margin (margin search).
    for result, keeps in ((outcome, lambda m: sign(m) == sign(expected)), (exact, lambda m: m == expected)):
        child = go.play(state, result.best_move)
        if child.end is not None:
            b, w = go.scores(child)
            m = b - w if state.to_move == go.BLACK else w - b
        else:
            m = -reference_margin(child)
        assert keeps(m), (where, result.best_move, m, expected)


SMALL = {3: positions(3, (1, 2, 3, 4, 5, 6), 40, seed=3), 4: positions(4, (1, 2, 3, 4, 5), 30, seed=4)}
FIVE = positions(5, (1, 2, 3, 4, 5, 6), 14, seed=5)


@pytest.mark.parametrize("n", [3, 4])
def test_solver_agrees_with_plain_minimax_on_random_small_boards(n):
    solver = Solver(table_bits=16)
    for s in SMALL[n]:
        check_against_reference(s, solver)


def test_solver_agrees_with_plain_minimax_on_5x5_positions_near_the_end():
    solver = Solver(table_bits=16)
    for s in FIVE:
        check_against_reference(s, solver)


def test_the_random_positions_include_kos_pending_passes_and_the_last_action():
    every = SMALL[3] + SMALL[4] + FIVE
    assert any(kernel_position(s).ko >= 0 for s in every)
    assert any(s.last_pass for s in every)
    assert any(s.game.max_actions - s.t == 1 for s in every)
    assert any(s.t > 0 and (s.prev_black | s.prev_white) & ~(s.black | s.white) for s in every)  # captures


KO_BOARD = """
. X O .
X O . O
. X O .
. . . .
"""
KO_PREVIOUS = """
. X O .
X . X O
. X O .
. . . .
"""


@pytest.mark.parametrize("t", [12, 14])
def test_the_ko_recapture_is_refused_and_the_value_counts_it(t):
    # White's last move captured the Black stone on (1, 2); retaking at once is ko.
    s = go.from_ascii(KO_BOARD, go.BLACK, KO_PREVIOUS, t=t)
    assert kernel_position(s).ko == 6
    assert 6 not in move_values(s)
    check_against_reference(s, Solver(16))
    # The same stones without the ko (no capture before them): Black retakes and does better.
    free = go.from_ascii(KO_BOARD, go.BLACK, t=t)
    assert (free.black, free.white, free.ko_armed) == (s.black, s.white, False)
    assert reference_margin(free) > reference_margin(s)
    assert solve(free, margin=True).margin == reference_margin(free)


def test_a_suicide_point_is_never_played():
    black_view = go.from_ascii("""
        . O .
        O O X
        X X .
    """, go.BLACK, t=6)
    assert go.illegal_reason(black_view, 0) == go.SUICIDE
    assert 0 not in move_values(black_view)
    check_against_reference(black_view, Solver(16))


def test_a_pass_after_a_pass_ends_the_game_and_the_solver_takes_it_when_ahead():
    board = """
        X X .
        X O .
        . . .
    """
    ahead = go.from_ascii(board, go.BLACK, board, t=4)  # the previous board unchanged: White passed
    assert ahead.last_pass
    values = move_values(ahead, margin=True)
    assert values[go.pass_action(ahead)].margin == 3 - 1 - 1.5  # the game ends at once
    assert values[go.pass_action(ahead)].best_move is None
    check_against_reference(ahead, Solver(16))


def test_the_table_tells_a_pending_pass_apart_from_the_same_stones_without_one():
    board = """
        . X .
        . X O
        . X O
    """
    moved = go.from_ascii(board, go.WHITE, ". X . \n . X O \n . . O", t=5)  # Black's last: (2, 1)
    passed = go.from_ascii(board, go.WHITE, board, t=5)  # Black's last action was a pass
    assert (moved.last_pass, passed.last_pass) == (False, True)
    assert solve(passed).value == 1 and solve(moved).value == -1  # White passes and wins 3 : 3.5
    for first, second in ((moved, passed), (passed, moved)):
        solver = Solver(16)  # one table for both
        for s in (first, second):
            assert solver.solve(s, margin=True).margin == reference_margin(s)


def test_a_pass_on_the_first_action_loses_at_once():
    s = go.LittleGo(2).initial_state()
    values = move_values(s, margin=True)
    assert values[go.pass_action(s)].margin == -1.0  # 0 : komi 1
    check_against_reference(s, Solver(16))


def test_with_one_action_left_every_move_ends_the_game():
    s = go.from_ascii(KO_BOARD, go.BLACK, KO_PREVIOUS, t=14)
    assert all(v.best_move is None for v in move_values(s).values())
    result = solve(s, margin=True)
    assert result.margin == reference_margin(s)


def transformed(state: go.GoState, sym: int) -> go.GoState:
    """The image of ``state`` under one of the 8 symmetries of the square."""
    n = state.game.size
    table = symmetries(n)[sym]

    def move(bits: int) -> int:
        return sum(1 << int(table[p]) for p in range(n * n) if bits >> p & 1)

    last = state.last_action if state.last_action < 0 else int(table[state.last_action])
    return state._replace(black=move(state.black), white=move(state.white), prev_black=move(state.prev_black),
                          prev_white=move(state.prev_white), last_action=last)


def test_a_position_and_its_8_symmetric_images_have_the_same_value():
    rnd = random.Random(8)
    with_ko = [s for s in SMALL[4] + FIVE if kernel_position(s).ko >= 0]
    samples = with_ko + [go.from_ascii(KO_BOARD, go.BLACK, KO_PREVIOUS, t=10)]
    samples += [random_position(5, 10, rnd) for _ in range(3)]
    for s in samples:
        base = solve(s, margin=True)
        for k in range(8):
            image = transformed(s, k)
            n = s.game.size
            assert go.legal_actions(image) == sorted(int(symmetries(n)[k][a]) for a in go.legal_actions(s))
            result = solve(image, margin=True)  # a fresh table: nothing shared with the original's search
            assert (result.value, result.margin) == (base.value, base.margin)
            child = go.play(image, result.best_move)
            if child.end is None:
                assert -solve(child, margin=True).margin == base.margin


def test_the_table_key_is_shared_by_the_8_images_and_tells_ko_pass_and_turn_apart():
    with_ko = [s for s in SMALL[4] + FIVE if kernel_position(s).ko >= 0]
    samples = with_ko + [go.from_ascii(KO_BOARD, go.BLACK, KO_PREVIOUS, t=10)] + FIVE[:4]
    for s in samples:
        key = position_key(s)
        assert {position_key(transformed(s, k)) for k in range(8)} == {key}
        if kernel_position(s).ko >= 0:
            assert position_key(s._replace(ko_armed=False)) != key
        assert position_key(s._replace(last_pass=not s.last_pass)) != key
        if s.t + 1 < s.game.max_actions:
            assert position_key(s._replace(t=s.t + 1, to_move=3 - s.to_move)) != key



def test_the_search_visits_the_same_positions_as_it_always_has():
    # The search's exact path, pinned: a change meant only to make it faster must visit the same
    # positions and find the same moves (the figures of main's search before the speed work,
    # after the first 11 moves of docs/solver.md's line: 13 actions to go, Black to move).
    s = line_position("2,2 3,3 2,3 1,3 2,4 2,1 3,1 1,1 1,2 3,0 3,2")
    r = Solver(20).solve(s)
    assert (r.value, r.best_move, r.nodes, r.tt_probes, r.tt_hits) == (1, 2, 135_475, 135_475, 35_996)
    r = Solver(20).solve(s, margin=True)
    assert (r.margin, r.best_move, r.nodes, r.tt_probes, r.tt_hits) == (0.5, 2, 162_654, 162_654, 55_408)



@pytest.mark.parametrize("entries", [2, 16, 1 << 20, 6, 1000])
def test_a_keys_bucket_is_the_key_modulo_the_number_of_buckets(entries):
    # A mask when the buckets are a power of 2, a division otherwise: the same slot either way.
    rng = np.random.default_rng(entries)
    for key in list(rng.integers(0, 2**64 - 1, 200, dtype=np.uint64, endpoint=True)) + [np.uint64(2**64 - 1)]:
        assert K.bucket(key, np.int64(entries)) == int(key) % (entries // 2) * 2



CHECKPOINT = Path(__file__).resolve().parent / "data" / "solver_checkpoint.npz"


def line_position(words: str) -> go.GoState:
    s = go.LittleGo(5).initial_state()
    for word in words.split():
        s = go.play(s, course_to_action(word, 5))
    return s


def paused_search(state: go.GoState, nodes: int) -> dict[str, np.ndarray]:
    """A search of ``state`` (a table of 2**12 entries) paused after ``nodes`` positions, as its
    stack and table arrays; tests/data/solver_checkpoint.npz was written from it by main's solver
    of commit f9cf9fe (``np.savez_compressed(path, **paused_search(state, 50_000))``)."""
    solver = Solver(12)
    search = ResumableSearch(solver, state)
    search.advance(nodes)
    return {**{f"search_{k}": v for k, v in search.arrays().items()},
            **{f"table_{k}": v.copy() for k, v in table_arrays(solver, state).items()}}


def resumed(state: go.GoState, saved) -> SolveResult:
    solver = Solver(12)
    restore_table(solver, state, {f: saved[f"table_{f}"] for f in TABLE_FIELDS})
    search = ResumableSearch(solver, state, {f: saved[f"search_{f}"] for f in SEARCH_FIELDS})
    while not search.advance(1_000_000):
        pass
    return search.result()


def test_a_search_paused_by_the_earlier_solver_resumes_to_the_same_result():
    # Proofs run for days resume from checkpoints: the stack and table a paused search leaves
    # keep their layout and meaning. A search paused by main's solver before the speed work
    # (13 actions to go, 50,000 positions in, 11 plies deep) ends here where one run in a go ends.
    s = line_position("2,2 3,3 2,3 1,3 2,4 2,1 3,1 1,1 1,2 3,0 3,2")
    with np.load(CHECKPOINT) as saved:
        r = resumed(s, saved)
        assert saved["search_control"][K.C_PLY] == 11
        # Today's pause leaves the same arrays, but for the hashes above the paused ply: they are
        # scratch (written again before a position is entered there) and are now written earlier.
        now = paused_search(s, 50_000)
        above = saved["search_control"][K.C_PLY] + 1
        for name in saved.files:
            ours, theirs = (now[name][:above], saved[name][:above]) if name == "search_hs" else (now[name],
                                                                                              saved[name])
            assert np.array_equal(ours, theirs), name
    whole = Solver(12).solve(s)
    assert (r.value, r.best_move, r.nodes, r.tt_probes, r.tt_hits) == (1, 2, 179_482, 179_482, 39_399)
    assert (whole.value, whole.best_move, whole.nodes) == (r.value, r.best_move, r.nodes)



@pytest.mark.parametrize("n", [4, 5, 7])
def test_placements_from_the_groups_in_atari_are_the_rules_placements(n):
    # The search lists its moves from each colour's groups in atari, worked out once a position;
    # at every empty point of positions from capture-seeking random games (captures, suicide
    # points, ko), that gives what the rules' placement gives.
    rnd = random.Random(n)
    tb = board_tables(n, go.LittleGo(n).max_actions)
    seen = {"illegal": 0, "capture": 0}
    for _ in range(60):
        pos = kernel_position(random_position(n, rnd.randint(1, 2 * n * n - 2), rnd))
        own, opp, ko = np.int64(pos.own), np.int64(pos.opp), np.int64(pos.ko)
        empty = np.int64(tb.geo[K.G_FULL] & ~(pos.own | pos.opp))
        own_atari, _ = K.groups_in_atari(own, empty, tb.geo)
        opp_atari, opp_last = K.groups_in_atari(opp, empty, tb.geo)
        for p in range(n * n):
            if empty >> p & 1:
                expected = K.place(own, opp, np.int64(p), ko, tb.geo, tb.nb)
                got = K.placement(own, opp, np.int64(p), ko, empty, own_atari, opp_atari, opp_last, tb.geo,
                                  tb.nb)
                assert got == expected, (pos, p)
                seen["illegal"] += not expected[0]
                seen["capture"] += expected[0] and expected[3] != 0
    assert seen["illegal"] > 0 and seen["capture"] > 0


def test_the_symmetries_are_the_8_distinct_maps_of_the_square():
    table = symmetries(5)
    assert len({tuple(row) for row in table}) == 8
    for row in table:
        assert sorted(row[:25]) == list(range(25)) and row[25] == 25
        # Neighbours stay neighbours.
        for p in range(25):
            i, j = divmod(p, 5)
            for q in (p + 1 if j < 4 else None, p + 5 if i < 4 else None):
                if q is not None:
                    (a, b), (c, d) = divmod(int(row[p]), 5), divmod(int(row[q]), 5)
                    assert abs(a - c) + abs(b - d) == 1


def test_the_answer_is_unknown_when_the_budget_runs_out():
    s = random_position(5, 14, random.Random(14))
    tiny = solve(s, budget_nodes=50)
    assert (tiny.value, tiny.margin, tiny.best_move) == (None, None, None)
    assert not tiny.known and tiny.nodes <= 50
    assert solve(s, time_limit=1e-4).value is None
    values = move_values(s, budget_nodes=50)
    assert any(v.value is None for v in values.values())


def test_a_solver_reuses_its_table_and_gives_the_same_answers():
    solver = Solver(table_bits=18)
    s = FIVE[0]
    first = solver.solve(s, margin=True)
    again = solver.solve(s, margin=True)
    assert (again.value, again.margin) == (first.value, first.margin)
    assert again.nodes <= first.nodes
    other = go.LittleGo(3).initial_state()  # another variant: the table starts afresh
    assert solver.solve(other, margin=True).margin == Solver(16).solve(other, margin=True).margin


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "10"])
def test_a_bad_node_budget_is_refused(bad):
    with pytest.raises(ValueError, match="budget_nodes"):
        solve(go.LittleGo(3).initial_state(), budget_nodes=bad)


@pytest.mark.parametrize("bad", [0, -1.0, float("inf"), float("nan"), "1"])
def test_a_bad_time_limit_is_refused(bad):
    with pytest.raises(ValueError, match="time_limit"):
        solve(go.LittleGo(3).initial_state(), time_limit=bad)


def test_a_finished_game_or_a_large_board_is_refused():
    over = go.play(go.LittleGo(3).initial_state(), 9)
    with pytest.raises(ValueError, match="over"):
        solve(over)
    with pytest.raises(ValueError, match="7x7"):
        solve(go.LittleGo(9).initial_state())
    with pytest.raises(TypeError, match="Little-Go state"):
        solve("board")


# -- the solver agent ------------------------------------------------------------------------------
def solver_agent(spec: str = "solver:fallback=random", seed: int = 0):
    from tictacgo.baselines import make_agent

    return make_agent(spec, "littlego", rng=np.random.default_rng(seed))


def margin_after(state: go.GoState, action: int) -> float:
    """The exact margin, for the player to move in ``state``, after ``action`` and perfect play."""
    child = go.play(state, action)
    if child.end is not None:
        b, w = go.scores(child)
        return b - w if state.to_move == go.BLACK else w - b
    return -reference_margin(child)


def test_the_solver_agent_keeps_a_proved_win_and_with_margin_the_largest():
    won = [s for s in FIVE if reference_margin(s) > 0][:4]
    assert won
    plain, widest = solver_agent(), solver_agent("solver:fallback=random,margin=true")
    for s in won:
        assert margin_after(s, plain.act(s)) > 0 and plain.last_exact
        assert margin_after(s, widest.act(s)) == reference_margin(s)


def test_the_solver_agent_loses_by_the_least_when_every_move_loses():
    lost = [s for s in FIVE if reference_margin(s) < 0][:4]
    assert lost
    agent = solver_agent()
    for s in lost:
        move = agent.act(s)
        assert agent.last_exact and agent.last_result.margin == reference_margin(s)
        assert margin_after(s, move) == reference_margin(s)


def test_the_solver_agent_falls_back_far_from_the_end_or_without_a_proof():
    rnd = random.Random(2)
    far = random_position(5, 20, rnd)
    agent = solver_agent("solver:fallback=random,max_left=12", seed=3)
    twin = solver_agent("random", seed=3)  # the fallback gets the first generator the agent spawns
    twin.seed(np.random.default_rng(3).spawn(1)[0])
    assert agent.act(far) == twin.act(far) and not agent.last_exact and agent.last_result is None
    hard = random_position(5, 14, rnd)
    rushed = solver_agent("solver:fallback=random,max_left=24,time=0.00001")
    assert rushed.act(hard) in go.legal_actions(hard)
    assert not rushed.last_exact and rushed.last_result.value is None


def test_the_solver_agent_refuses_bad_parameters_and_other_games():
    from tictacgo.baselines import make_agent

    for spec in ("solver:max_left=-1", "solver:margin=2", "solver:time=0", "solver:fallback=nosuch",
                 "solver:depth=3"):
        with pytest.raises(ValueError):
            make_agent(spec, "littlego")
    with pytest.raises(ValueError, match="does not play"):
        make_agent("solver", "tictactoe")


def test_the_registry_names_the_solver_without_importing_it():
    import subprocess
    import sys

    code = ("import sys; from tictacgo.baselines.registry import available_agents; "
            "names = available_agents('littlego'); "
            "print('solver' in names, 'tictacgo.solver' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]
