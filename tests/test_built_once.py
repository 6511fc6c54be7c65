"""Built once: a command reads each agent spec once, builds its game once and each agent once.

The counts come from patched constructors: the registry's spec reader
(``split_spec_text``, which every reading of text goes through), Little-Go's
constructor (``LittleGo.__new__``, which every ``LittleGo(...)`` and
``make_game("littlego")`` calls) and the arena's ``make_agent``.
"""

from __future__ import annotations

import functools
import io
import sys
from collections import Counter

import numpy as np
import pytest

from tictacgo import demo
from tictacgo.arena import jobs
from tictacgo.baselines import AgentSpec, make_agent, parse_agent_spec, registry
from tictacgo.cli import main
from tictacgo.games import littlego
from tictacgo.protocol.gtp import GtpEngine


@pytest.fixture
def spec_reads(monkeypatch) -> Counter:
    """How many times each spec text was read."""
    reads: Counter = Counter()
    real = registry.split_spec_text

    def counting(text):
        reads[text] += 1
        return real(text)

    monkeypatch.setattr(registry, "split_spec_text", counting)
    return reads


@pytest.fixture
def go_builds(monkeypatch) -> list:
    """The arguments of every ``LittleGo(...)`` call."""
    builds: list = []
    real = littlego.LittleGo.__new__

    @functools.wraps(real)
    def counting(cls, *args, **kwargs):
        builds.append((args, kwargs))
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(littlego.LittleGo, "__new__", staticmethod(counting))
    return builds


_QUIET = ["--workers", "1", "--no-progress"]


# -- each spec is read once -----------------------------------------------------------------------


def test_an_arena_match_reads_each_spec_once(spec_reads, capsys):
    assert main(["arena", "littlego", "az:sims=4,search=puct", "mcts:sims=8,c=1.4", "--games", "2",
                 *_QUIET]) == 0
    assert spec_reads == {"az:sims=4,search=puct": 1, "mcts:sims=8,c=1.4": 1}
    # The results still name the agents as they were typed (not the sorted canonical text).
    assert "mcts:sims=8,c=1.4" in capsys.readouterr().out


def test_a_round_robin_and_a_course_report_read_each_spec_once(spec_reads, capsys):
    assert main(["arena", "tictactoe", "--round-robin", "random", "minimax", "mcts:sims=4", "--games", "1",
                 *_QUIET]) == 0
    assert spec_reads == {"random": 1, "minimax": 1, "mcts:sims=4": 1}
    spec_reads.clear()
    assert main(["arena", "littlego", "--course-report", "greedy", "--games", "1", *_QUIET]) == 0
    # The agent's text once, and each course opponent's name once (greedy is both).
    assert spec_reads == {"greedy": 2, "random": 1, "aggressive": 1, "alphabeta": 1}


@pytest.mark.parametrize("argv, stdin", [
    (["play", "littlego", "--agent", "mcts:sims=4,c=2", "--as", "second", "--seed", "1"], "quit\n"),
    (["gtp", "--agent", "mcts:sims=4,c=2", "--seed", "1"], "genmove b\nkomi 3.5\ngenmove w\nquit\n"),
], ids=["play", "gtp"])
def test_a_play_or_gtp_session_reads_its_spec_once(spec_reads, monkeypatch, capsys, argv, stdin):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert main(argv) == 0
    assert spec_reads == {"mcts:sims=4,c=2": 1}


def test_a_spec_given_as_agentspec_is_not_read_again(spec_reads):
    spec = parse_agent_spec("mcts:sims=4")
    make_agent(spec, "tictactoe", rng=np.random.default_rng(0))
    assert spec_reads == {"mcts:sims=4": 1}


# -- each command builds its game once ------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["arena", "littlego", "greedy", "mcts:sims=4", "--games", "3", *_QUIET],
    ["arena", "littlego", "--board-size", "4", "--round-robin", "random", "greedy", "aggressive",
     "--games", "1", *_QUIET],
    ["arena", "littlego", "--course-report", "random", "--games", "1", *_QUIET],
], ids=["match", "round robin", "course report"])
def test_an_arena_command_builds_its_game_once(go_builds, argv, capsys):
    assert main(argv) == 0
    assert len(go_builds) == 1, go_builds


def test_a_play_session_builds_its_game_once(go_builds, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("pass\n" * 30))
    assert main(["play", "littlego", "--agent", "random", "--seed", "2"]) == 0
    assert len(go_builds) == 1, go_builds


def test_the_host_builds_its_game_once_for_every_game(go_builds, capsys):
    # Programs that write no move forfeit at once: the games are short.
    assert main(["host", "true", "true", "--games", "2", "--board-size", "4"]) == 0
    assert "forfeits" in capsys.readouterr().out
    assert go_builds == [((4,), {})]


def test_the_gtp_engine_builds_a_game_only_when_boardsize_or_komi_changes_it(go_builds):
    built: list = []

    def factory(game):
        built.append(game)
        return make_agent("random", game, np.random.default_rng(0))

    engine = GtpEngine(factory, log=io.StringIO())
    for command in ["genmove b", "play w C3", "genmove b", "undo", "clear_board", "genmove b", "showboard"]:
        assert engine.handle(command).startswith("="), command
    assert len(go_builds) == 1 and len(built) == 1
    assert engine.handle("komi 3.5").startswith("=")
    assert len(go_builds) == 2 and len(built) == 2 and engine.game.komi == 3.5


# -- each agent is built once ---------------------------------------------------------------------


def test_the_demo_table_builds_each_agent_once_per_game(monkeypatch, capsys):
    builds: Counter = Counter()
    real = jobs.make_agent

    def counting(spec, game, rng=None):
        builds[(str(spec), game.spec.name)] += 1
        return real(spec, game, rng=rng)

    monkeypatch.setattr(jobs, "make_agent", counting)
    demo._table(1, 0)
    rows = [line for line in capsys.readouterr().out.splitlines()[1:] if "skipped" not in line]
    assert len(rows) == 12
    # minimax plays itself in one pairing: a second one, only for that.
    assert builds.pop(("minimax", "tictactoe")) == 2
    assert set(builds.values()) == {1}
    assert sorted(builds) == sorted([(s, "tictactoe") for s in ("random", "think3", "ppo", "az")]
                                    + [(s, "littlego") for s in ("greedy", "random", "mcts:sims=300", "ppo",
                                                                 "aggressive", "az")])


def test_an_agentspec_keeps_the_text_it_was_read_from_as_its_label():
    spec = parse_agent_spec("mcts:sims=8,c=1.4")
    assert spec.label == spec.text == "mcts:sims=8,c=1.4" and str(spec) == "mcts:c=1.4,sims=8"
    assert spec == AgentSpec("mcts", {"c": 1.4, "sims": 8})  # the text is not part of its value
    assert AgentSpec("mcts", {"sims": 8}).label == "mcts:sims=8"
    assert parse_agent_spec(spec).text == spec.text  # checking an AgentSpec keeps its text
    with pytest.raises(TypeError, match="text is a string or None"):
        AgentSpec("mcts", text=3)
