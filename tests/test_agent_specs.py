"""Agent specs are data read once (``AgentSpec``), and the arena builds each agent once per worker."""

from __future__ import annotations

import multiprocessing
import pickle
from collections import Counter

import pytest

from tictacgo import arena
from tictacgo.arena import jobs, runner
from tictacgo.baselines import AgentSpec, make_agent, parse_agent_spec, registry
from tictacgo.baselines.random_agent import RandomAgent
from tictacgo.game_loop import play_game
from tictacgo.games import make_game

# -- reading specs --------------------------------------------------------------------------------


def test_a_spec_reads_its_values_as_numbers_bools_none_or_text():
    spec = parse_agent_spec("MCTS: sims=400, c=1.4, reuse=false, rollout=capture, time=none")
    assert spec == AgentSpec("mcts", {"sims": 400, "c": 1.4, "reuse": False, "rollout": "capture",
                                      "time": None})
    assert spec.kwargs() == {"c": 1.4, "reuse": False, "rollout": "capture", "sims": 400, "time": None}


def test_the_order_of_the_parameters_does_not_make_another_spec():
    a, b = parse_agent_spec("mcts:sims=10,c=2"), parse_agent_spec("mcts:c=2,sims=10")
    assert a == b and hash(a) == hash(b) and str(a) == str(b) == "mcts:c=2,sims=10"


@pytest.mark.parametrize("text", ["random", "alphabeta:branching=5,depth=2", "mcts:c=1.0,sims=3",
                                  "ppo:path=runs/a b/best_model.zip,sample=true", "minimax:time=1e-05",
                                  "policy_mcts:policy=ppo:path=m.zip;sample=true,sims=50"])
def test_the_canonical_text_reads_back_as_the_same_spec(text):
    spec = parse_agent_spec(text)
    assert str(spec) == text
    assert parse_agent_spec(str(spec)) == spec
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_a_policy_parameter_is_a_nested_spec_with_its_own_parameters_after_semicolons():
    spec = parse_agent_spec("policy_mcts:policy=ppo:path=m.zip;sample=true,sims=50")
    assert spec.kwargs()["policy"] == AgentSpec("ppo", {"path": "m.zip", "sample": True})
    assert parse_agent_spec("mix_mcts:policy=random").kwargs()["policy"] == AgentSpec("random")
    # An AgentSpec given with its nested spec as text is read the same way.
    assert parse_agent_spec(AgentSpec("policy_mcts", {"policy": "ppo:path=m.zip;sample=true", "sims": 50})) \
        == spec


@pytest.mark.parametrize("text, message", [
    ("", "non-empty string"),
    ("mcts:sims", "not of the form key=value"),
    ("mcts:sims=1,sims=2", "given twice"),
    ("mix_mcts:policy=3", "policy must be an agent spec"),
    ("mix_mcts:policy=ppo:sample", "not of the form key=value"),
])
def test_text_that_is_not_a_spec_is_a_clear_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        parse_agent_spec(text)


def test_an_agent_spec_refuses_values_that_are_not_plain_data():
    with pytest.raises(TypeError, match="must be a number"):
        AgentSpec("mcts", {"sims": [1, 2]})
    with pytest.raises(ValueError, match="non-empty string"):
        AgentSpec("")


def test_make_agent_takes_the_spec_as_text_or_as_data():
    game = make_game("tictactoe")
    spec = parse_agent_spec("mcts:sims=7")
    assert make_agent(spec, game).sims == make_agent("mcts:sims=7", game).sims == 7
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        make_agent(AgentSpec("nope"), game)


def test_check_agent_spec_refuses_what_make_agent_refuses_without_building_anything():
    game = make_game("littlego")
    spec = registry.check_agent_spec("mcts:sims=-1", game)  # a value only the factory refuses
    assert (spec.name, spec.kwargs()) == ("mcts", {"sims": -1})
    with pytest.raises(ValueError, match="cannot build agent 'mcts'"):
        make_agent(spec, game)
    for text, message in [("nope", "unknown agent 'nope'; available for littlego: "),
                          ("mcts:simz=3", "agent 'mcts' has no parameter 'simz'; its parameters are: "),
                          ("think1", "does not play littlego")]:
        with pytest.raises(ValueError, match=message):
            registry.check_agent_spec(text, game)
        with pytest.raises(ValueError, match=message):
            make_agent(text, game)


# -- reused agents play the games of fresh ones ---------------------------------------------------

CHEAP = {"mcts": "mcts:sims=20", "alphabeta": "alphabeta:depth=1", "minimax": "minimax:depth=1",
         "policy_mcts": "policy_mcts:policy=random,sims=20", "mix_mcts": "mix_mcts:policy=random,sims=20",
         "championship": "championship:nodes=3000"}
NOT_SHIPPED = {("littlego", "a2c"),  # needs path= on Little-Go
               ("littlego", "program")}  # an outside program (tests/test_program_agent.py)
CASES = [(g, CHEAP.get(name, name) if (g, name) != ("tictactoe", "minimax") else "minimax")
         for g in ("tictactoe", "littlego") for name in registry.available_agents(g)
         if (g, name) not in NOT_SHIPPED]
CASES += [("tictactoe", "ppo:sample=true"), ("littlego", "ppo:sample=true"),
          ("littlego", "mcts:sims=20,reuse=true")]


@pytest.mark.parametrize("game_name, spec", CASES)
def test_an_agent_built_once_and_seeded_per_game_plays_the_games_of_fresh_agents(game_name, spec):
    """The arena's reuse (seed, then reset) must replay what agents built per game with those
    generators play, for every registered agent (seeds, trees, tables and caches included)."""
    if spec.startswith("a2c"):
        pytest.importorskip("sb3_contrib")  # no numpy export is shipped for a2c
    game = make_game(game_name)
    fresh = []
    for i in range(3):
        rng_a, rng_b = jobs.game_rngs(5, i)
        a, b = make_agent(spec, game, rng=rng_a), RandomAgent(game, rng_b)
        fresh.append(play_game(game, a, b) if i % 2 == 0 else play_game(game, b, a))
    match = arena.run_match(game, spec, "random", games=3, seed=5, workers=1, progress=False)
    assert [g.record.moves for g in match.games] == [r.moves for r in fresh]


# -- each agent is built once per worker ----------------------------------------------------------

@pytest.fixture
def counting_agents(monkeypatch, tmp_path):
    """Two registered agents that log every construction (process id, name) to a file."""
    log = tmp_path / "built.txt"

    def counting(label):
        def factory(game, rng):
            with open(log, "a") as f:
                f.write(f"{multiprocessing.current_process().pid} {label}\n")
            return RandomAgent(game, rng)
        return factory

    registry._load_builtins()
    for label in ("count_a", "count_b"):
        monkeypatch.setitem(registry._REGISTRY, label,
                            registry.AgentEntry(label, counting(label), ("tictactoe",), "test"))

    def builds() -> Counter:
        return Counter(tuple(line.split()) for line in log.read_text().splitlines())
    return builds


def test_a_match_in_one_process_builds_each_agent_once(counting_agents):
    from tictacgo.cli import main

    assert main(["arena", "tictactoe", "count_a", "count_b", "--games", "10", "--workers", "1",
                 "--no-progress"]) == 0
    assert sorted(counting_agents().values()) == [1, 1]  # one build each, the check's, for all 10 games


def test_a_round_robin_builds_each_agent_once_and_a_second_only_to_play_itself(counting_agents):
    rr = arena.run_round_robin("tictactoe", ["count_a", "count_b", "random"], games_per_pair=4, seed=0,
                               workers=1, progress=False)
    assert sum(m.n for m in rr.matches.values()) == 12
    assert sorted(counting_agents().values()) == [1, 1]
    arena.run_match("tictactoe", "count_a", "count_a", games=4, seed=0, workers=1, progress=False)
    assert sorted(counting_agents().values()) == [1, 3]  # the check's, then a second to play the first


def test_a_match_on_two_workers_builds_each_agent_once_per_worker(counting_agents, monkeypatch):
    # Forked workers see the agents registered here (spawned ones would not).
    fork = multiprocessing.get_context("fork")
    monkeypatch.setattr(runner.multiprocessing, "get_context", lambda method: fork)
    m = arena.run_match("tictactoe", "count_a", "count_b", games=40, seed=0, workers=2, progress=False)
    assert m.n == 40
    builds = counting_agents()
    assert max(builds.values()) == 1  # no process built an agent twice
    assert len({pid for pid, _ in builds}) <= 3 and len(builds) <= 6  # the check here, then each worker
