"""Little-Go afterstate Q-learning (key scheme 3): the tuples, the values, the update, the file, the run."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from tictacgo.baselines import qlearning_go_afterstate as aq
from tictacgo.baselines import qlearning_go_file as qfile
from tictacgo.baselines.qlearning_go import end_reward
from tictacgo.baselines.qlearning_go_keys import layout, transform_bits
from tictacgo.baselines.qlearning_go_train import RunConfig, run
from tictacgo.baselines.registry import make_agent
from tictacgo.game_loop import play_game, play_wdl
from tictacgo.games import littlego

GO = littlego.LittleGo()


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def random_positions(count: int, size: int = 5, seed: int = 0) -> list[littlego.GoState]:
    r = rng(seed)
    out: list[littlego.GoState] = []
    while len(out) < count:
        s = littlego.LittleGo(size).initial_state()
        while s.end is None and len(out) < count:
            acts = littlego.legal_actions(s)
            s = littlego.play(s, acts[int(r.integers(len(acts)))])
            if s.end is None:
                out.append(s)
    return out


def random_table(game: littlego.LittleGo = GO, seed: int = 0) -> aq.AfterstateTable:
    table = aq.AfterstateTable.empty(game)
    table.weights[:] = rng(seed).normal(0, 0.05, len(table.weights)).astype(np.float32)
    table.visits[:] = 1
    return table


def test_the_5x5_tuples_are_three_kinds_of_window_and_three_of_line_in_every_orientation():
    lay = aq.tuple_layout(5, 24)
    assert [len(c) for c in lay.classes] == [9, 9, 9, 5, 5, 5]
    assert lay.total == aq.PHASES * (3 * 3 ** 9 + 3 * 3 ** 5)
    # corner and edge windows 8 orientations each, the centre window 8, lines 8, 8 and 4
    assert lay.active == 8 + 8 + 8 + 8 + 8 + 4
    assert aq.tuple_layout(3, 8).classes == ((0, 1, 2, 3, 4, 5, 6, 7, 8), (0, 1, 2), (3, 4, 5))


@pytest.mark.parametrize("size", [3, 4, 5])
def test_a_position_and_its_eight_images_have_the_same_value(size):
    game = littlego.LittleGo(size)
    table, lay = random_table(game), layout(size)
    for s in random_positions(30, size, seed=size):
        images = [s._replace(black=transform_bits(lay, s.black, g), white=transform_bits(lay, s.white, g))
                  for g in range(8)]
        v = aq.values(table, images)
        assert np.allclose(v, v[0], atol=1e-5), littlego.render_ascii(s)


def test_the_phase_says_how_many_actions_are_left_and_who_moves():
    lay = aq.tuple_layout(5, 24)
    assert [lay.phase(t) for t in (0, 1, 11, 12, 17, 18, 21, 22, 23)] == [0, 1, 1, 2, 3, 4, 5, 6, 7]


def test_a_finished_game_is_worth_its_end_reward_and_a_live_one_the_margin_plus_the_tables():
    table = aq.AfterstateTable.empty(GO)
    s = littlego.from_ascii("""
        XX...
        .....
        .....
        .....
        ....O""", to_move=littlego.BLACK, t=2)
    assert aq.values(table, [s])[0] == pytest.approx(aq.black_potential(s)) == pytest.approx(-0.075)
    over = littlego.play(s, GO.pass_action)   # the opponent passed last (no previous board): it ends
    assert over.end is not None and aq.values(table, [over])[0] == end_reward(over, littlego.BLACK)


def test_black_takes_the_highest_value_and_white_the_lowest():
    table = aq.AfterstateTable.empty(GO)
    s = GO.initial_state()
    corner = aq.tuple_layout(5, 24).entries([littlego.play(s, 0)])[0]
    table.weights[np.unique(corner)] = 0.01     # the afterstates of a corner move (any of the 4) read these
    assert aq.choose(table, s, rng())[0] in (0, 4, 20, 24)
    w = littlego.play(s, 12)
    table.weights[:] = 0
    table.weights[np.unique(aq.tuple_layout(5, 24).entries([littlego.play(w, 0)])[0])] = 0.01
    assert aq.choose(table, w, rng())[0] not in (0, 4, 20, 24)   # good for Black: White avoids it


def test_an_untrained_table_plays_every_placement_and_passes_only_when_none_is_legal():
    table = aq.AfterstateTable.empty(GO)
    moves = {aq.choose(table, GO.initial_state(), rng(i))[0] for i in range(200)}
    assert moves == set(range(25))
    s = littlego.from_ascii("X.\n.X", to_move=littlego.WHITE)
    assert aq.choose(aq.AfterstateTable.empty(s.game), s, rng())[0] == s.game.pass_action


def _game(moves: list[int]) -> list[littlego.GoState]:
    s, out = GO.initial_state(), []
    for a in moves:
        s = littlego.play(s, a)
        out.append(s)
    return out


# Positions share entries (an empty window reads the same entry anywhere), so these tests look at
# the position updated last: the game's first, whose value the update leaves exactly at its target
# when alpha is 1.

@pytest.mark.parametrize("alpha,gamma", [(1.0, 1.0), (0.5, 1.0), (1.0, 0.5)])
def test_a_step_moves_the_value_by_alpha_toward_the_discounted_target(alpha, gamma):
    afters = _game([12, 0])
    table = aq.AfterstateTable.empty(GO)
    table.weights[aq.tuple_layout(5, 24).entries(afters[:1])[0]] = 0.01   # duplicates add up
    v0 = aq.values(table, afters[:1])[0]
    aq.update(table, afters[:1], [None], reward=1.0, alpha=alpha, gamma=gamma, lam=1.0)
    assert aq.values(table, afters[:1])[0] == pytest.approx(v0 + alpha * (gamma - v0), abs=1e-5)
    assert table.visits.max() == 1 and table.visits.sum() == len(np.unique(aq.tuple_layout(5, 24).entries(
        afters[:1])[0]))


@pytest.mark.parametrize("lam", [0.0, 0.5, 1.0])
def test_with_alpha_one_every_target_in_a_game_without_exploration_is_the_end_reward(lam):
    afters = _game([12, 0, 6, 24, 18])
    table = aq.AfterstateTable.empty(GO)
    aq.update(table, afters, [None] * 5, reward=-0.75, alpha=1.0, gamma=1.0, lam=lam)
    assert aq.values(table, afters[:1])[0] == pytest.approx(-0.75, abs=1e-5)


def test_a_move_the_learner_explored_cuts_the_trace_at_the_greedy_value():
    afters = _game([12, 0, 6, 24])
    table = aq.AfterstateTable.empty(GO)
    aq.update(table, afters, [None, None, 0.3, None], reward=-1.0, alpha=1.0, gamma=1.0, lam=1.0)
    assert aq.values(table, afters[:1])[0] == pytest.approx(0.3, abs=1e-5)
    table = aq.AfterstateTable.empty(GO)
    aq.update(table, afters, [None, 0.3, None, None], reward=-1.0, alpha=1.0, gamma=1.0, lam=1.0)
    assert aq.values(table, afters[:1])[0] == pytest.approx(0.3, abs=1e-5)
    table = aq.AfterstateTable.empty(GO)
    aq.update(table, afters, [0.3, None, None, None], reward=-1.0, alpha=1.0, gamma=1.0, lam=1.0)
    assert aq.values(table, afters[:1])[0] == pytest.approx(-1.0, abs=1e-5)  # its own exploration: no cut


def test_a_saved_table_loads_with_the_same_entries_and_plays_as_qlearning(tmp_path):
    table = aq.AfterstateTable.empty(GO)
    table.weights[[5, 700, 9000]] = [0.25, -0.5, 0.125]
    table.visits[[5, 700, 9000]] = [1, 2, 3]
    table.meta.update(games=3, train_seconds=1.0)
    path = qfile.save_table(table, tmp_path / "a.npz")
    loaded = qfile.load_table(path)
    assert isinstance(loaded, aq.AfterstateTable) and loaded.key_scheme == 3 and len(loaded) == 3
    assert np.array_equal(loaded.weights, table.weights) and np.array_equal(loaded.visits, table.visits)
    agent = make_agent(f"qlearning:path={path}", "littlego", rng=rng())
    assert isinstance(agent, aq.AfterstateQAgent)
    with pytest.raises(ValueError, match="trained for Little-Go"):
        make_agent(f"qlearning:path={path}", littlego.LittleGo(4))


def _afterstate_file(path, keys, variant=None) -> None:
    meta = {"format": qfile.FORMAT, "version": qfile.VERSION, "params": {"board_plies": 0, "keys": 3},
            "variant": variant or {"size": 5, "komi": 2.5, "max_actions": 24}}
    buf = io.BytesIO()
    np.savez(buf, keys=np.array(keys, dtype=np.uint64), q=np.full(len(keys), 0.1, dtype=np.float32),
             visits=np.ones(len(keys), dtype=np.uint32),
             meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    path.write_bytes(buf.getvalue())


@pytest.mark.parametrize("case,why", [("past the tables", "past the"),
                                      ("no flag", "not a Little-Go Q-table key"),
                                      ("too big a board", "size of 2")])
def test_a_bad_afterstate_file_is_one_value_error_naming_it(tmp_path, case, why):
    path = tmp_path / "bad.npz"
    total = aq.tuple_layout(5, 24).total
    if case == "past the tables":
        _afterstate_file(path, [aq.AFTERSTATE_FLAG | 3, aq.AFTERSTATE_FLAG | total])
    elif case == "no flag":
        _afterstate_file(path, [3, aq.AFTERSTATE_FLAG | 4])
    else:
        _afterstate_file(path, [aq.AFTERSTATE_FLAG | 3], {"size": 9, "komi": 4.5, "max_actions": 80})
    with pytest.raises(ValueError, match=f"bad.npz.*{why}"):
        qfile.load_table(path)


def test_the_agent_plays_only_legal_moves_and_counts_every_move_as_the_tables():
    agent = aq.AfterstateQAgent(GO, rng=rng(5), table=random_table())
    for i, name in enumerate(("random", "greedy", "aggressive", "alphabeta")):
        opponent = make_agent(name, GO, rng=rng(i))
        for first, second in ((agent, opponent), (opponent, agent)):
            assert play_game(GO, first, second).reason != "illegal"
    assert agent.table_moves > 0 and agent.fallback_moves == 0


def test_a_run_trains_an_afterstate_table_checkpoints_and_resumes_it_and_refuses_another_kind(tmp_path):
    out = tmp_path / "a.npz"
    config = RunConfig(out=str(out), episodes=40, eval_every=20, eval_games=1, mix="greedy=1,self=1", keys=3)
    table = run(config, log=lambda s: None)
    assert isinstance(table, aq.AfterstateTable) and table.meta["params"]["alpha"] == aq.DEFAULTS["alpha"]
    run(RunConfig(**{**vars(config), "keys": None, "episodes": 20, "resume": True}), log=lambda s: None)
    loaded = qfile.load_table(out)
    assert loaded.key_scheme == 3 and loaded.meta["games"] == 60
    assert [p["games"] for p in loaded.meta["curve"]] == [20, 40, 60]
    with pytest.raises(ValueError, match="key scheme 3"):
        run(RunConfig(**{**vars(config), "keys": 2, "resume": True}), log=lambda s: None)


def test_training_against_greedy_beats_the_untrained_table_as_black():
    """A few thousand games are enough to see learning: as Black against greedy, which an untrained
    (uniformly random) table rarely beats."""
    opponent = {"greedy": (make_agent("greedy", GO, rng=rng(1)), 1.0)}
    table = aq.train(aq.AfterstateTable.empty(GO), GO, opponent, rng(0), episodes=3000, black_share=1.0,
                     every=10_000, log=lambda s: None)
    wins = {}
    for name, t in (("trained", table), ("untrained", aq.AfterstateTable.empty(GO))):
        agent = aq.AfterstateQAgent(GO, rng=rng(2), table=t)
        wins[name] = play_wdl(GO, agent, make_agent("greedy", GO, rng=rng(3)), 40, colour=littlego.BLACK)[0]
    assert wins["trained"] >= 24 and wins["untrained"] <= 12, wins
