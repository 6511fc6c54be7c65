"""Alpha-beta minimax on both games, and the random player."""

import numpy as np
import pytest

from tictacgo.baselines import MinimaxAgent, make_agent
from tictacgo.baselines.evaluation import stone_difference
from tictacgo.games import littlego as go
from tictacgo.games import tictactoe as ttt

# White (1,1) has one liberty left, at (1,2); Black to move.
ATARI = """
    .X...
    XO...
    .X...
    .....
    ....."""


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_go_minimax_captures_in_one(depth):
    agent = make_agent(f"minimax:depth={depth}", "littlego", rng=np.random.default_rng(depth))
    assert agent.act(go.from_ascii(ATARI, to_move=go.BLACK)) == 1 * 5 + 2


def test_go_minimax_saves_its_stone_in_atari():
    # Black's stone at (1,1) has one liberty, (1,2); extending there gives it three.
    s = go.from_ascii("""
        .O...
        OX...
        .O...
        .....
        .....""", to_move=go.BLACK)
    agent = make_agent("minimax:depth=2", "littlego", rng=np.random.default_rng(0))
    assert agent.act(s) == 1 * 5 + 2


def test_go_minimax_with_a_time_budget_returns_a_legal_action_in_time():
    import time

    agent = MinimaxAgent(go.LittleGo(), depth=6, evaluate=stone_difference, time_limit=0.2,
                         rng=np.random.default_rng(0))
    s = go.play(go.LittleGo().initial_state(), 12)
    t0 = time.perf_counter()
    a = agent.act(s)
    assert time.perf_counter() - t0 < 1.0
    assert a in go.legal_actions(s)


def test_exact_minimax_prefers_the_quickest_win():
    # X can win now at 2, or later; the immediate win scores highest.
    agent = MinimaxAgent(ttt.TicTacToe(), rng=np.random.default_rng(0))
    values = agent.action_values(ttt.from_board("XX. / OO. / ..."))
    assert max(values, key=values.get) == 2
    assert values[2] == pytest.approx(1.0 * 0.99)


def test_minimax_refuses_bad_parameters():
    with pytest.raises(ValueError, match="depth"):
        MinimaxAgent(ttt.TicTacToe(), depth=0)
    with pytest.raises(ValueError, match="evaluate"):
        MinimaxAgent(go.LittleGo(), depth=2)
    with pytest.raises(ValueError, match="time_limit"):
        MinimaxAgent(ttt.TicTacToe(), time_limit=-1)
    with pytest.raises(ValueError, match="no parameter"):
        make_agent("minimax:dpth=2", "littlego")


def test_random_agent_passes_only_when_no_placement_is_legal():
    agent = make_agent("random", "littlego", rng=np.random.default_rng(0))
    rng_moves = {agent.act(go.LittleGo().initial_state()) for _ in range(200)}
    assert go.pass_action(go.LittleGo().initial_state()) not in rng_moves
    assert len(rng_moves) > 15
    # 2x2 board: Black on the diagonal; White has no legal placement (both are suicide).
    s = go.from_boards([[1, 0], [0, 1]], go.WHITE)
    assert agent.act(s) == 4


def test_unknown_agents_list_what_exists():
    with pytest.raises(ValueError, match="available for littlego: .*greedy.*random"):
        make_agent("nosuch", "littlego")
    with pytest.raises(ValueError, match="does not play tictactoe"):
        make_agent("greedy", "tictactoe")


def test_exact_minimax_with_a_tiny_time_budget_still_plays_a_legal_move():
    agent = make_agent("minimax:time=0.0001", "tictactoe", rng=np.random.default_rng(0))
    for _ in range(3):
        agent._table.clear()  # a cold table: the exact search cannot finish in time
        assert agent.act(ttt.TicTacToe().initial_state()) in range(9)


@pytest.mark.parametrize("spec,game", [
    ("minimax:depth=0", "littlego"), ("minimax:depth=true", "littlego"), ("minimax:time=nan", "tictactoe"),
    ("minimax:time=0", "tictactoe"), ("mcts:time=inf", "littlego"), ("mcts:reuse=maybe", "tictactoe"),
    ("mcts:capture_prob=2", "tictactoe"), ("mcts:sims=10,sims=20", "tictactoe"),
])
def test_bad_agent_parameters_are_refused(spec, game):
    with pytest.raises(ValueError):
        make_agent(spec, game)


def test_go_states_hash_by_value_and_the_geometry_by_its_rules_only():
    import pickle

    s = go.play(go.LittleGo().initial_state(), 12)
    assert pickle.loads(pickle.dumps(s)) == s
    assert hash(pickle.loads(pickle.dumps(s))) == hash(s)
    assert go.LittleGo(5).initial_state().game != go.LittleGo(5, komi=3).initial_state().game
    # The geometry's lookup tables are not hashed with every state (search
    # hashes states in its transposition table): only size, komi and limit.
    assert hash(s.game) == hash((5, 2.5, 24))


def test_the_alpha_beta_search_gives_the_same_best_moves_with_or_without_its_table_and_shrink():
    from tictacgo.baselines.minimax import AlphaBeta

    game = ttt.TicTacToe()
    r = np.random.default_rng(0)
    for _ in range(40):
        s = game.initial_state()
        for _ in range(int(r.integers(0, 6))):
            s = game.play(s, int(r.choice(game.legal_actions(s))))
        if game.is_terminal(s):
            continue
        shrunk = AlphaBeta(game).action_values(s, float("inf"))
        plain = AlphaBeta(game, shrink=1.0, table=False).action_values(s, float("inf"))
        assert list(shrunk) == list(plain) == game.legal_actions(s)
        assert all(np.sign(shrunk[a]) == plain[a] for a in plain)  # results in {-1, 0, 1}, shrunk by depth


def test_depth_limited_minimax_works_for_a_game_small_enough_to_solve():
    # Tic-Tac-Toe is solvable: without depth= it is searched to the end; with depth= it is searched
    # that deep on the game's heuristic (0 for Tic-Tac-Toe: no guess), never refused
    game = ttt.TicTacToe()
    agent = make_agent("minimax:depth=2", game, rng=np.random.default_rng(0))
    assert agent.depth == 2 and agent.evaluate == game.heuristic_value
    state = game.initial_state()
    for a in (0, 3, 1, 4):  # X threatens 0-1-2; O threatens 3-4-5; X to move wins at 2
        state = game.play(state, a)
    assert agent.act(state) == 2
    assert make_agent("minimax", game).depth is None  # exact by default
