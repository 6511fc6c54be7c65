"""The ``championship`` agent: legal, on time, tactically sound, exact near the end, reproducible."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="the championship player needs numba (the fast extra)")

from tictacgo.baselines import make_agent  # noqa: E402
from tictacgo.baselines.exact import championship_search as S  # noqa: E402
from tictacgo.baselines.exact.championship import ChampionshipAgent  # noqa: E402
from tictacgo.game_loop import play_game  # noqa: E402
from tictacgo.games import littlego as go  # noqa: E402
from tictacgo.games import make_game  # noqa: E402
from tictacgo.solver import Solver  # noqa: E402
from tictacgo.solver.endgames import load_endgames  # noqa: E402

GAME = make_game("littlego")
ENDGAMES = Path(__file__).resolve().parent / "data" / "littlego_endgames.npz"


def agent(**kw) -> ChampionshipAgent:
    return ChampionshipAgent(GAME, rng=np.random.default_rng(0), **kw)


@pytest.fixture(scope="module")
def endgames():
    return load_endgames(ENDGAMES)[0]


def test_every_move_is_legal_in_games_against_random_and_itself():
    champ = agent(nodes=3000)
    for opponent in (make_agent("random", "littlego", rng=np.random.default_rng(1)), champ):
        for first in (True, False):
            state = GAME.initial_state()
            while not GAME.is_terminal(state):
                mover = champ if first == (state.to_move == go.BLACK) else opponent
                action = mover.act(state)
                assert action in go.legal_actions(state), (go.render_ascii(state), action)
                state = go.play(state, action)
            assert state.end != go.END_ILLEGAL


def test_each_move_keeps_to_its_time_budget_within_a_margin():
    champ = agent(time_limit=0.3)
    rng = np.random.default_rng(3)
    state, worst = GAME.initial_state(), 0.0
    while not GAME.is_terminal(state):
        start = time.perf_counter()
        action = champ.act(state)
        worst = max(worst, time.perf_counter() - start)
        # The opponent plays at random, so the positions are not only the player's own lines.
        state = go.play(state, action)
        if not GAME.is_terminal(state):
            state = go.play(state, int(rng.choice(go.legal_actions(state))))
    # The budget is turned into positions at the measured rate; a loaded machine may stretch it a little.
    assert worst < 0.3 * 1.5 + 0.1, worst


def test_it_takes_a_two_stone_capture_in_one_move():
    state = go.from_ascii("""
        . . . . .
        . X X . .
        X O O . .
        . X X . .
        . . . . .""", go.BLACK, previous="""
        . . . . .
        . X X . .
        X O . . .
        . X X . .
        . . . . .""")  # White's last stone made the group; passing would end the game a winner
    assert state.t == 8
    champ = agent(nodes=20_000, max_left=0)
    assert champ.act(state) == 2 * 5 + 3  # (2, 3): the group's last liberty


def test_it_saves_its_own_group_in_atari():
    state = go.from_ascii("""
        . . . . .
        . O O . .
        O X X . .
        . O O . .
        . . . . .""", go.BLACK, previous="""
        . . . . .
        . O . . .
        O X X . .
        . O O . .
        . . . . .""")
    champ = agent(nodes=20_000, max_left=0)
    assert champ.act(state) == 2 * 5 + 3  # (2, 3): out of atari, three liberties


def test_it_finds_the_one_winning_move_with_alpha_beta_alone(endgames):
    """Decisive won positions close to the end: the search reaches the end and keeps the win."""
    chosen = [e for e in endgames if e.value == 1 and e.left <= 6
              and len(e.optimal) < len(go.legal_actions(e.state))][:25]
    assert len(chosen) == 25
    champ = agent(nodes=2_000_000, max_left=0)
    for e in chosen:
        action = champ.act(e.state)
        assert action in e.optimal, (go.render_ascii(e.state), action, sorted(e.optimal))
        assert champ.last_value >= S.WIN // 2  # proved: every line it rests on ends the game


def test_the_solver_switch_plays_the_solvers_move_in_a_late_endgame(endgames):
    chosen = [e for e in endgames if e.value == 1 and e.left == 10
              and len(e.optimal) < len(go.legal_actions(e.state))][:10]
    assert len(chosen) == 10
    for e in chosen:
        champ = agent(time_limit=5.0, max_left=12, solve_share=1.0)
        expected = Solver(20).solve(e.state)
        assert expected.value == 1
        assert champ.act(e.state) == expected.best_move
        assert champ.last_exact


def test_on_the_empty_board_it_opens_at_the_centre_unless_told_to_search():
    empty = GAME.initial_state()
    assert agent(nodes=2000).act(empty) == 12
    searcher = agent(nodes=2000, opening="none")
    searcher.act(empty)
    assert searcher.last_depth >= 1


def test_far_from_the_end_it_searches_instead_of_solving():
    champ = agent(nodes=5000, max_left=12)
    state = go.play(GAME.initial_state(), 12)
    champ.act(state)
    assert not champ.last_exact and champ.last_depth >= 1


def test_with_a_node_budget_the_same_seed_plays_the_same_game():
    def record(seed):
        a = agent(nodes=4000)
        b = make_agent("mcts:sims=30", "littlego", rng=np.random.default_rng(seed))
        return play_game(GAME, a, b, rng=np.random.default_rng(seed))

    first, second = record(5), record(5)
    assert first.moves == second.moves and len(first.moves) >= 20


def test_the_evaluation_counts_komi_and_the_quiescence_search_takes_a_group_in_atari():
    tb = agent(nodes=100).tables
    # weights under which a group in atari is worth less than its capture (the defaults, fitted to exact
    # margins, value an opponent's group in atari with the mover to play above its stones)
    w = np.array((80, 80, 15, 10, 0, 0, 100, 0), dtype=np.int64)
    komi100 = 250
    assert S.evaluate(0, 0, 1, 0, komi100, tb.geo, w) < 0 < S.evaluate(0, 0, 0, 1, komi100, tb.geo, w)
    state = go.from_ascii("""
        . . . . .
        . X X . .
        X O O . .
        . X X . .
        . . . . .""", go.BLACK)
    black, white = state.black, state.white
    stats = np.array([0, 10**9, 0], dtype=np.int64)
    static = S.evaluate(black, white, 1, 8, komi100, tb.geo, w)
    quiet = S.qsearch(black, white, 1, 8, 0, -1, -S.WIN, S.WIN, 4, komi100, tb.geo, tb.nb, w, stats)
    assert quiet >= static + 2 * S.SCALE  # the two stones come off the board
    assert S.qsearch(black, white, 1, 8, 0, -1, -S.WIN, S.WIN, 0, komi100, tb.geo, tb.nb, w, stats) == static


def test_reach_counts_each_empty_point_for_the_colour_whose_stones_reach_it_first():
    tb = agent(nodes=100).tables
    reach_only = np.zeros(len(S.DEFAULT_WEIGHTS), np.int64)
    reach_only[S.W_REACH] = 1
    nothing = np.zeros(len(S.DEFAULT_WEIGHTS), np.int64)

    def reach(picture: str, t: int) -> int:
        state = go.from_ascii(picture, go.BLACK)
        return int(S.evaluate(state.black, state.white, 1, t, 250, tb.geo, reach_only)
                   - S.evaluate(state.black, state.white, 1, t, 250, tb.geo, nothing))

    # one region bordered by both colours, so room calls all of it shared; reach gives Black the two
    # columns its wall reaches first (10 points: 8 to play, less two kept as eyes) and White one (5, so 3):
    # with many actions to go Black places 7 (its share of 14), White 3
    walls = """
        . X . . O
        . X . . O
        . X . . O
        . X . . O
        . X . . O"""
    assert reach(walls, 10) == min(14 // 2, 8) - min(14 // 2, 3) == 4
    # near the end what each side can still place bounds it: 2 actions to go, one each
    assert reach(walls, 22) == 0
    # walls on the edges: the middle column is reached by both at once and shared, the mover first
    edges = """
        X . . . O
        X . . . O
        X . . . O
        X . . . O
        X . . . O"""
    assert reach(edges, 10) == (max(5 - 2, 0) + 3) - (max(5 - 2, 0) + 2) == 1


def test_the_registry_builds_it_for_little_go_only():
    built = make_agent("championship:nodes=1000,max_left=10", "littlego", rng=np.random.default_rng(0))
    assert isinstance(built, ChampionshipAgent) and built.nodes == 1000 and built.max_left == 10
    with pytest.raises(ValueError, match="does not play tictactoe"):
        make_agent("championship", "tictactoe")


@pytest.mark.parametrize("kw, message", [
    ({"time_limit": 0}, "time"), ({"time_limit": 11}, "time"), ({"time_limit": float("nan")}, "time"),
    ({"nodes": 0}, "nodes"), ({"max_left": -1}, "max_left"), ({"solve_share": 1.5}, "solve_share"),
    ({"weights": (1, 2)}, "weights"), ({"opening": "corner"}, "opening"),
])
def test_bad_parameters_are_refused_with_the_value_named(kw, message):
    with pytest.raises(ValueError, match=message):
        agent(**kw)


def test_a_finished_game_is_refused():
    state = go.play(GAME.initial_state(), GAME.pass_action)  # Black's first-action pass ends the game
    with pytest.raises(ValueError, match="finished"):
        agent(nodes=100).act(state)


def test_the_spec_opening_none_searches_the_empty_board_too():
    """``championship:opening=none`` builds an agent without the centre opening.

    The spec parser reads "none" as None; the agent takes that as "none".
    """
    from tictacgo.baselines import make_agent

    agent = make_agent("championship:opening=none,nodes=50", "littlego")
    assert agent.opening == "none"


def test_through_my_player_it_answers_a_middle_game_within_its_budget_with_no_fallback(tmp_path):
    # The course runs a program once a move: the kernels are loaded from numba's disk cache inside the
    # move's time (this process's warm-up puts them there, as `my-player --warm-up` does after an
    # install), the search gets what is left of the budget after the build, and the CPU guard never
    # has to play a fallback. A position 6 actions in, where the search (not the solver) plays.
    import re
    import resource
    import subprocess
    import sys

    from tictacgo.protocol import course

    agent(nodes=100).warm_up()
    state = GAME.initial_state()
    for a in (12, 13, 7, 17, 11, 8):
        state = go.play(state, a)
    course.write_input(tmp_path / "input.txt", state.to_move, go.previous_board(state), go.to_board(state))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "tictacgo.cli", "my-player", "--agent", "championship",
                           "--dir", str(tmp_path)], capture_output=True, text=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, done.stderr
    assert "ran past" not in done.stderr and "fallback" not in done.stderr
    action, reason = course.judge_move(state, course.parse_output((tmp_path / "output.txt").read_text()))
    assert reason is None
    # its note: "2,3: alpha-beta to depth 9, value +1.50 stones, 7.61 s of its 7.9 s, 0.41 s of it ..."
    note = re.search(r"alpha-beta to depth (\d+), .*, ([\d.]+) s of its ([\d.]+) s", done.stderr)
    assert note, done.stderr
    depth, spent, budget = int(note[1]), float(note[2]), float(note[3])
    # the budget intact: the default 9 s less the build (well under a second once the kernels are
    # cached) and the 0.5 s kept back; the search stops inside it
    assert budget >= 6.0 and spent <= budget and depth >= 2, done.stderr
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu < 10.0, cpu  # the course's limit, interpreter start-up and exit included


def test_a_second_process_loads_the_search_from_numbas_disk_cache_instead_of_compiling_it():
    # This process compiles the kernels or loads them, and numba writes what it compiles to its
    # disk cache; a new process then finds every search kernel there (no compile: a course
    # player runs once a move). Counted by numba's dispatchers, not timed.
    import json
    import subprocess
    import sys

    agent(nodes=100).warm_up()
    script = """
import json
import sys
from numba.core.registry import CPUDispatcher
from tictacgo.baselines.exact.championship import ChampionshipAgent
from tictacgo.games import make_game
ChampionshipAgent(make_game("littlego"), nodes=100).warm_up()  # the search and the solver
print(json.dumps({f"{module.__name__}.{name}": [sum(f.stats.cache_hits.values()),
                                                sum(f.stats.cache_misses.values())]
                  for module in list(sys.modules.values()) if module.__name__.startswith("tictacgo")
                  for name, f in vars(module).items() if isinstance(f, CPUDispatcher) and f.signatures}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    # the search's entry point: the kernels it calls are compiled into it and come with it
    assert counts["tictacgo.baselines.exact.championship_search.search_root"][0] == 1, counts
    assert len(counts) >= 2, counts  # the solver's too
    assert all(misses == 0 for _, misses in counts.values()), counts  # nothing compiled
