"""The ``perfect`` agent: the book's proved move, else a move proved live, else the fallback's, and it
says which; every move it calls proved is checked here by the independent checker."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="the perfect agent's solver needs numba (the fast extra)")

from tictacgo.baselines import make_agent  # noqa: E402
from tictacgo.baselines.exact.perfect import PerfectAgent  # noqa: E402
from tictacgo.games import littlego  # noqa: E402
from tictacgo.proof import prove, verify  # noqa: E402
from tictacgo.proof.position_code import move_action  # noqa: E402
from tictacgo.protocol import course  # noqa: E402
from tictacgo.protocol.player import answer_move  # noqa: E402
from tictacgo.solver import Solver  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: A line of the `az` agent against itself after Black's centre and White's `2,3`; every position of it
#: from 12 to 22 actions to go is a proved Black win (docs/data/after_centre/2-3.json).
LINE = json.loads((ROOT / "docs" / "data" / "after_centre" / "2-3.json").read_text())["line"]


def after(moves: list[str], n: int = 5) -> littlego.GoState:
    state = littlego.LittleGo(n).initial_state()
    for m in moves:
        state = littlego.play(state, move_action(m, n))
    return state


def checked_black_win(state: littlego.GoState, tmp_path: Path) -> bool:
    """Whether the checker accepts a certificate that Black wins ``state``."""
    if state.end is not None:
        return littlego.returns(state)[0] > 0
    cert = prove(state, Solver(20)).write(tmp_path / "after.cert")
    return verify(cert).claim == "black wins"


@pytest.mark.parametrize("colour", [littlego.BLACK, littlego.WHITE])
def test_on_4x4_every_move_comes_from_the_book_and_the_draw_is_never_lost(colour):
    game = littlego.LittleGo(4)
    for seed in range(3):
        agent = make_agent("perfect:fallback=random", game, rng=np.random.default_rng(seed))
        other = make_agent("random", game, rng=np.random.default_rng(100 + seed))
        state, sources = game.initial_state(), []
        while state.end is None:
            mover = agent if state.to_move == colour else other
            state = littlego.play(state, mover.act(state))
            if mover is agent:
                sources.append(agent.last_source)
        assert sources and set(sources) == {"book"}
        assert littlego.returns(state)[colour - 1] >= 0  # 4x4 is a draw with perfect play


def test_below_the_book_it_plays_a_move_it_proves_and_the_checker_agrees(tmp_path):
    state = after(LINE[:12])  # 12 actions to go, Black to move, a proved Black win
    agent = make_agent("perfect:fallback=random,book=none", state.game, rng=np.random.default_rng(0))
    action = agent.act(state)
    assert agent.last_source == "solved" and agent.note().startswith(f"{course.format_move(action, 5)}: "
                                                                      "keeps a proved win (solved now")
    assert checked_black_win(littlego.play(state, action), tmp_path)


def test_where_no_proof_is_at_hand_it_plays_the_fallbacks_move_and_says_why():
    game = littlego.LittleGo(5)
    agent = make_agent("perfect:fallback=random,book=none", game, rng=np.random.default_rng(0))
    state = after(["2,2", "2,3"])  # 22 actions to go: no live proof is tried
    assert littlego.illegal_reason(state, agent.act(state)) is None
    assert agent.last_source == "fallback"
    assert "the fallback's move (22 actions to go, more than the 16 a live proof can take)" in agent.note()
    lost = after(LINE[:13])  # White to move, 11 actions to go: every White move loses
    agent.act(lost)
    assert agent.last_source == "fallback" and "every move loses against perfect play" in agent.note()


def test_the_time_the_first_live_move_spends_building_the_solver_comes_out_of_its_budget(monkeypatch):
    import tictacgo.baselines.exact.perfect as perfect

    clock = [100.0]
    monkeypatch.setattr(perfect, "_time", type("Clock", (), {"perf_counter": staticmethod(lambda: clock[0])}))
    budgets = []

    class Solver:
        def solve(self, state, time_limit):
            budgets.append(time_limit)
            return type("Result", (), {"value": None, "nodes": 0})()

    def build(agent):
        clock[0] += 2.5  # the import and the table
        agent._solver = Solver()
        return agent._solver
    monkeypatch.setattr(perfect.PerfectAgent, "solver", property(lambda agent: agent._solver or build(agent)))
    agent = make_agent("perfect:fallback=random,book=none,time=8", "littlego", rng=np.random.default_rng(0))
    agent.act(after(LINE[:12]))
    agent.act(after(LINE[:14]))  # built: the whole budget
    assert budgets == [8 - perfect.FALLBACK_RESERVE - 2.5, 8 - perfect.FALLBACK_RESERVE]
    assert agent.last_source == "fallback" and "no proof within 7.0 s" in agent.note()


def test_the_book_gives_the_proofs_first_moves_as_black():
    game = littlego.LittleGo(5)
    agent = make_agent("perfect:fallback=random", game, rng=np.random.default_rng(0))
    state = game.initial_state()
    assert agent.act(state) == move_action("2,2", 5) and agent.last_source == "book"
    for reply in littlego.legal_actions(littlego.play(state, move_action("2,2", 5))):
        position = littlego.play(littlego.play(state, move_action("2,2", 5)), reply)
        if position.end is None:
            agent.act(position)
            assert agent.last_source == "book", course.format_move(reply, 5)


def test_the_spec_is_checked_naming_the_bad_value():
    game = littlego.LittleGo(5)
    with pytest.raises(ValueError, match="fallback 'nosuchagent'"):
        make_agent("perfect:fallback=nosuchagent", game)
    with pytest.raises(ValueError, match="time_limit"):
        make_agent("perfect:fallback=random,time=0", game)
    with pytest.raises(ValueError, match="max_left must be a non-negative int, got -1"):
        make_agent("perfect:fallback=random,max_left=-1", game)
    with pytest.raises(ValueError, match="boards up to 7x7"):
        PerfectAgent(littlego.LittleGo(9), make_agent("random", littlego.LittleGo(9)))


def test_through_the_course_protocol_it_answers_and_says_where_the_move_came_from(tmp_path, capsys):
    state = after(LINE[:12])
    board = littlego.to_board(state).tolist()
    previous = littlego.previous_board(state).tolist()
    course.write_input(tmp_path / "input.txt", state.to_move, previous, board)
    assert answer_move(str(tmp_path), "perfect:fallback=random,book=none", seed=0) == 0
    move = (tmp_path / "output.txt").read_text().strip()
    err = capsys.readouterr().err
    assert f"my-player: {move}: keeps a proved win (solved now" in err


def test_the_shipped_proof_book_holds_black_moves_near_the_root_that_keep_a_win():
    from tictacgo.proof.book import default_book, load_book, proof_book_path
    from tictacgo.proof.proof_file import unpack_meta

    game = littlego.LittleGo(5)
    book = load_book(proof_book_path(game))
    assert "the proof of the empty board" in book.sources[-1] and len(book) > 100
    for (_, _, meta), (_, value) in book.entries.items():
        t, _, _, mover = unpack_meta(meta)
        assert value == 1 and mover == littlego.BLACK and t <= 10 and t % 2 == 0
    merged = default_book(5, 2.5, 24)  # the proof's book is part of the book every 5x5 agent reads
    # and where the other shipped book also has a winning move, the proof's is the one kept: a player
    # that took the other book's would leave the positions the proof's leaves cover
    assert all(merged.entries[key] == entry for key, entry in book.entries.items())
    other = load_book(ROOT / "tictacgo" / "proof" / "books" / "littlego_5x5_komi2.5_24.book")
    assert any(key in other.entries and other.entries[key] != entry for key, entry in book.entries.items())


def test_the_evaluation_records_each_black_move_and_the_checker_confirms_the_live_ones():
    from tictacgo.evaluation.perfect_play import play_as_black, summary

    rows = play_as_black("random", 2, seed=0, agent="perfect:fallback=random", check=True)
    assert len(rows) == 2 and all(r.moves and r.winner in (1, 2) for r in rows)
    for row in rows:
        assert all(m.t % 2 == 0 for m in row.moves)  # Black's moves: an even number of actions played
        assert [row.actions[m.t] for m in row.moves] == [m.action for m in row.moves]
        state = littlego.LittleGo(5).initial_state()
        for a in row.actions:  # the whole game is recorded: replayed, it ends with its winner
            state = littlego.play(state, a)
        assert state.end is not None and (littlego.returns(state)[0] > 0) == (row.winner == 1)
        assert row.moves[0].source == "book" and row.moves[0].action == move_action("2,2", 5)
        for m in row.moves:  # every move the agent proved live is one the checker confirms
            assert (m.checked is True) if m.source == "solved" else (m.checked is None)
    s = summary(rows)
    assert s["games"] == 2 and s["moves"] == s["book"] + s["solved"] + s["fallback"]
    assert s["checked"] == s["check_tried"] == s["solved"] > 0
    assert s["proved_games"] == sum(r.proved for r in rows) and s["worst_seconds"] >= s["median_seconds"]


def test_games_split_over_worker_processes_come_back_in_order_each_seeded_as_in_one_process():
    from tictacgo.evaluation.perfect_play import play_as_black, play_as_black_on_workers

    spec = "perfect:fallback=random"
    rows = play_as_black_on_workers("random", 3, 2, seed=5, agent=spec)  # games 0 | 1, 2
    assert [r.index for r in rows] == [0, 1, 2]
    alone = play_as_black("random", 1, seed=5, agent=spec, first=1)  # game 1 with a fresh agent, as there
    assert [(m.t, m.action, m.source) for m in rows[1].moves] == \
        [(m.t, m.action, m.source) for m in alone[0].moves]
    assert rows[1].winner == alone[0].winner
    with pytest.raises(ValueError, match="workers must be a positive int, got 0"):
        play_as_black_on_workers("random", 3, 0)
    assert play_as_black_on_workers("random", 0, 2) == []

def test_through_the_course_files_it_plays_the_proof_as_black_and_its_notes_say_so():
    # my-player run once a move, as the course's host runs it; where each move came from is read from
    # the note it writes on stderr. White's first move is a reply whose leaves are all checked.
    from tictacgo.evaluation.perfect_play import play_as_black, source_of

    program = f"program:cmd={sys.executable} -m tictacgo.cli my-player --agent perfect --dir ."
    [row] = play_as_black("random", 1, seed=3, agent=program, white_first=move_action("0,0", 5))
    assert row.winner == 1 and row.proved and len(row.moves) >= 10
    assert row.moves[0].source == "book" and {m.source for m in row.moves} <= {"book", "solved"}
    assert all(m.seconds < 10 for m in row.moves)

    class Quiet:
        last_stderr = "my-player: warning: cannot write tictacgo_moves.json\n"
    assert source_of(Quiet()) == "?"

def test_live_proof_times_are_measured_on_positions_of_the_proofs_strategy():
    from tictacgo.evaluation.perfect_play import live_proof_times

    rows = live_proof_times(12, 2, seed=0)
    assert len(rows) == 2 and all(seconds >= 0 and nodes > 0 for seconds, nodes in rows)
    with pytest.raises(ValueError, match="only 0 positions with 13 actions to go"):
        live_proof_times(13, 1, seed=0, tries=50)  # 13 to go: White to move, never a sample


def test_the_published_measurement_meets_every_little_go_agent_that_plays_with_its_defaults():
    from tictacgo.baselines.registry import available_agents, parse_agent_spec
    from tictacgo.evaluation.perfect_play import WHITE_PLAYERS

    listed = {parse_agent_spec(spec).name for spec in WHITE_PLAYERS}
    assert len(listed) == len(WHITE_PLAYERS)
    for name in WHITE_PLAYERS:  # each one builds as written
        make_agent(name, "littlego", rng=np.random.default_rng(0))
    left_out = set(available_agents("littlego")) - listed
    assert left_out == {"program", "a2c"}
    for name in left_out:  # and those left out cannot play without more from the user
        with pytest.raises(ValueError, match=f"cannot build agent '{name}'"):
            make_agent(name, "littlego", rng=np.random.default_rng(0))


WHITE_PLAYERS = ["random", "greedy", "az", "championship", "mcts", "aggressive"]
#: White's first move in each game: one of each kind of reply (corner, the points next to it and
#: between, the diagonal, the one beside the centre, and the pass); the others are their images.
REPLIES = ["0,0", "0,1", "0,2", "1,1", "1,2", "PASS"]


@pytest.mark.parametrize("index, opponent", list(enumerate(WHITE_PLAYERS)))
def test_as_black_every_move_keeps_a_checked_win(index, opponent):
    """Black against seeded White players, each White first move one kind of reply: every Black move
    comes from the proof's book or a live proof, and the position after each one from 8 actions played
    on (15 to go) is proved again from a fresh table and accepted by the checker; nearer the root the
    moves are the leaves' own, whose certificates were checked when they were made (their records,
    taken on trust here). Every one of White's 25 replies has all its leaves checked."""
    from tictacgo.evaluation.perfect_play import covered_replies, play_as_black

    covered = covered_replies(ROOT / "docs" / "data" / "proof_5x5_leaves")
    assert len(covered) == 25 and set(REPLIES) <= set(covered)
    rows = play_as_black(opponent, 1, seed=index, check=True, white_first=move_action(REPLIES[index], 5),
                         check_book_from=8)
    (row,) = rows
    assert row.winner == 1
    assert [m.source for m in row.moves if m.source not in ("book", "solved")] == []
    late = [m for m in row.moves if m.t >= 8]
    assert late and all(m.checked is True for m in late)


def test_a_book_move_imports_no_solver_and_a_missing_numba_is_named_when_the_agent_is_built(monkeypatch):
    # through my-player (one process a move) the solver's import is a third of a book move's time
    code = ("import sys\n"
            "from tictacgo.baselines import make_agent\n"
            "from tictacgo.games import littlego\n"
            "game = littlego.LittleGo(5)\n"
            "agent = make_agent('perfect', game)\n"
            "print(agent.act(game.initial_state()), agent.last_source, 'numba' in sys.modules, "
            "any(m.startswith('tictacgo.solver') for m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == [str(move_action("2,2", 5)), "book", "False", "False"]
    from tictacgo.baselines.exact import perfect
    from tictacgo.solver.search import MAX_SIZE

    assert perfect.MAX_SIZE == MAX_SIZE
    monkeypatch.setitem(sys.modules, "numba", None)  # as if numba were not installed
    missing = r"cannot build agent 'perfect': the perfect agent's live solver needs numba, which is not " \
              r"installed: pip install 'tictacgo\[fast\]'"
    with pytest.raises(ValueError, match=missing):
        make_agent("perfect", "littlego")


def test_the_fallback_is_built_only_when_a_move_needs_it_and_a_bad_one_is_named_at_once():
    game = littlego.LittleGo(5)
    agent = make_agent("perfect", game, rng=np.random.default_rng(0))
    assert not agent.fallback_built and "not built yet" in repr(agent)
    agent.act(game.initial_state())  # the book's 2,2: no fallback built, so nothing compiled for it
    assert agent.last_source == "book" and not agent.fallback_built
    with pytest.raises(ValueError, match="fallback 'mcts:simz=3': agent 'mcts' has no parameter 'simz'"):
        make_agent("perfect:fallback=mcts:simz=3", game)
    late = make_agent("perfect:fallback=mcts:sims=-1,book=none,max_left=0", game)
    with pytest.raises(ValueError, match="fallback 'mcts:sims=-1'"):
        late.act(game.initial_state())  # a value the fallback's factory refuses: named when it is built


def test_a_lazily_built_fallback_plays_the_seeded_games_of_one_built_at_once():
    game = littlego.LittleGo(5)
    lazy = make_agent("perfect:fallback=mcts:sims=20,book=none,max_left=0", game,
                      rng=np.random.default_rng(1))
    eager = PerfectAgent(game, make_agent("mcts:sims=20", game, rng=np.random.default_rng(2)), book=None,
                         max_left=0)
    for agent in (lazy, eager):
        agent.seed(np.random.default_rng([7, 0]))
    state, moves = game.initial_state(), []
    for _ in range(6):
        a, b = lazy.act(state), eager.act(state)
        moves.append((a, b))
        state = littlego.play(state, a)
    assert all(a == b for a, b in moves) and lazy.fallback_built
