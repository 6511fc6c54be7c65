"""Agents refuse what they cannot play when they are built, and ``az``'s time budget bounds a move.

A model trained for another variant, a search setting out of range or an
empty path is a ValueError at construction, so the arena (and GTP) refuse it
in one line before the first game; a huge ``sims`` with ``time=`` stops on
time without allocating for the simulations it never runs.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import tracemalloc

import numpy as np
import pytest

from tictacgo.baselines import make_agent
from tictacgo.baselines.learning.alphazero import search as S
from tictacgo.baselines.learning.alphazero.agent import MAX_CONSIDERED, MAX_SIMS, shipped_model
from tictacgo.baselines.learning.alphazero.numpy_net import load_numpy
from tictacgo.baselines.search import tree as search_tree
from tictacgo.cli import main
from tictacgo.games import make_game
from tictacgo.games.batched_engines import make_batched_engine

GO5 = make_game("littlego")


def _agent(spec: str, game=GO5):
    return make_agent(spec, game, rng=np.random.default_rng(0))


def _one_line_exit_2(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


# -- the time budget --------------------------------------------------------------------------------

def test_a_huge_sims_with_a_time_budget_stops_on_time_and_allocates_little():
    # The budget, not the simulations, ends the move: fewer than MAX_SIMS (tens of seconds of search),
    # however loaded the machine; and the tree is not allocated for MAX_SIMS up front.
    agent = _agent(f"az:sims={MAX_SIMS},time=0.05")
    state = GO5.initial_state()
    agent.act(state)
    assert agent.last.simulations < MAX_SIMS
    tracemalloc.start()
    try:
        agent.act(state)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 << 20, f"a 0.05 s move allocated {peak / 2**20:.0f} MiB"


def test_growing_the_tree_arrays_changes_no_search_result(monkeypatch):
    evaluator, variant, _ = load_numpy(shipped_model("littlego"))
    state = GO5.play(GO5.initial_state(), 12)

    def run(search):
        engine = make_batched_engine(variant, 1)
        engine.set_state(0, state)
        if search == "gumbel":
            return S.gumbel_search(engine, evaluator, 40, np.random.default_rng(3), max_considered=8)
        return S.puct_search(engine, evaluator, 40, np.random.default_rng(3))

    for search in ("gumbel", "puct"):
        whole = run(search)
        monkeypatch.setattr(search_tree, "INITIAL_NODES", 3)  # grow from 3 nodes (and schedule columns)
        grown = run(search)
        monkeypatch.undo()
        for field in ("action", "visits", "policy", "root_value", "q"):
            np.testing.assert_array_equal(getattr(whole, field), getattr(grown, field), err_msg=field)


def test_a_sequential_halving_schedule_prefix_is_the_whole_schedules_start():
    whole = S.considered_visits(16, 1000)
    assert S.considered_visits(16, 1000, length=77) == whole[:77]
    assert S.considered_visits(1, 10, length=4) == [0, 1, 2, 3]


# -- search settings checked when the agent is built ------------------------------------------------

def test_sims_above_the_maximum_is_refused_naming_sims():
    with pytest.raises(ValueError, match=rf"sims must be an int in \[0, {MAX_SIMS}\], got {MAX_SIMS + 1}"):
        _agent(f"az:sims={MAX_SIMS + 1}")


@pytest.mark.parametrize("considered", [0, -3, MAX_CONSIDERED + 1, 2.5])
def test_az_considered_out_of_range_is_refused_when_built(considered):
    with pytest.raises(ValueError, match="considered must be an int in"):
        _agent(f"az:considered={considered}")


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_az_time_that_is_not_a_finite_positive_number_is_refused(value):
    with pytest.raises(ValueError, match="time must be a finite positive number of seconds"):
        _agent(f"az:time={value}")


# -- models for another variant --------------------------------------------------------------------

def test_the_shipped_az_model_refuses_a_7x7_board_when_built():
    with pytest.raises(ValueError, match=r"plays littlego 5x5, komi 2.5, 24 actions, not littlego 7x7"):
        _agent("az", make_game("littlego", size=7))


def test_an_az_model_trained_with_another_komi_is_refused_on_5x5(tmp_path):
    folder = tmp_path / "komi"
    shutil.copytree(shipped_model("littlego"), folder)
    meta = json.loads((folder / "model.json").read_text())
    meta["variant"]["komi"] = 7.5
    (folder / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=r"komi 7.5.*not littlego 5x5, komi 2.5"):
        _agent(f"az:path={folder}")
    komi = make_game("littlego", komi=7.5)
    assert _agent(f"az:path={folder},sims=2", komi).act(komi.initial_state()) >= 0


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="the solver needs numba")
def test_the_solver_refuses_a_board_larger_than_it_handles_when_built():
    with pytest.raises(ValueError, match="solver.*up to 7x7, got 9x9"):
        _agent("solver", make_game("littlego", size=9))


# -- paths ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["ppo", "a2c", "az"])
def test_an_empty_path_is_called_empty(name):
    with pytest.raises(ValueError, match="path is empty"):
        _agent(f"{name}:path=")


@pytest.mark.parametrize("spec", ["az:path={}", "ppo:path={}.npz", "ppo:path={}.zip"])
def test_a_model_path_the_system_refuses_is_a_value_error(spec):
    with pytest.raises(ValueError, match="cannot build agent .*File name too long"):
        _agent(spec.format("a" * 5000), make_game("tictactoe"))


# -- the command line: one line, exit 2, before the first game ------------------------------------

@pytest.mark.parametrize("argv,says", [
    (["az", "random", "--board-size", "7"], "not littlego 7x7"),
    (["az:considered=0", "random"], "considered must be"),
    ([f"az:sims={MAX_SIMS + 1}", "random"], "sims must be"),
    (["ppo:path=", "random"], "path is empty"),
], ids=["az-7x7", "considered-0", "sims-cap", "empty-path"])
def test_the_arena_refuses_an_agent_it_cannot_build_in_one_line(argv, says, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    err = _one_line_exit_2(["arena", "littlego", *argv, "--games", "1", "--no-progress"], capsys)
    assert says in err


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="the solver needs numba")
def test_the_arena_refuses_the_solver_on_9x9_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    err = _one_line_exit_2(["arena", "littlego", "solver", "random", "--board-size", "9", "--games", "1",
                            "--no-progress"], capsys)
    assert "up to 7x7" in err


@pytest.mark.parametrize("spec, name", [("mcts:sims=10000000000000000000000", "sims"),
                                        ("minimax:depth=10000000000000000000000", "depth"),
                                        ("alphabeta:depth=10000000000000000000000", "depth")])
def test_a_search_budget_past_any_sane_cap_is_refused_when_built(spec, name):
    """Such a number never finishes a move: it is refused by name, not searched."""
    with pytest.raises(ValueError, match=rf"{name} must be an int in \[1, "):
        make_agent(spec, "littlego")
