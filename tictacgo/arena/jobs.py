"""One game of a match as plain data, and how any backend plays it.

A ``Job`` holds what a worker needs (the game, the two agent specs, the
match's seed and the game's index), so it pickles under ``spawn`` and travels
to Ray tasks. ``play_job`` plays it with the agents of an ``AgentCache``:
each agent is built once per worker and re-seeded per game with the game's
own generators, ``SeedSequence(seed, spawn_key=(index,)).spawn(2)``, so a
game's moves depend only on its job, never on which worker played it or in
what order (the local pool and the Ray backend both call it).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from tictacgo.agent import Agent
from tictacgo.arena.results import MatchGame
from tictacgo.baselines.agent_spec import AgentSpec
from tictacgo.baselines.registry import make_agent, parse_agent_spec
from tictacgo.game_loop import play_game


class Job(NamedTuple):
    """What a worker needs to play one game: plain data, so it pickles under ``spawn``."""

    key: int          # which match (0 for run_match; the pair's number in a round robin)
    game: Any         # the game object (it pickles as its variant)
    spec_a: AgentSpec
    spec_b: AgentSpec
    seed: int
    index: int


def game_rngs(seed: int, index: int) -> tuple[np.random.Generator, np.random.Generator]:
    """A's and B's generators for game ``index`` of a match seeded ``seed``."""
    ss_a, ss_b = np.random.SeedSequence(seed, spawn_key=(index,)).spawn(2)
    return np.random.default_rng(ss_a), np.random.default_rng(ss_b)


def as_agent_spec(spec: str | AgentSpec) -> AgentSpec:
    """A spec given to the arena as an ``AgentSpec``: text is read (``parse_agent_spec``), an
    ``AgentSpec`` is returned as it is (it was read once already, at the edge).

    Raises:
        TypeError: neither text nor an ``AgentSpec``.
        ValueError: text that is not a spec.
    """
    if isinstance(spec, AgentSpec):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"the arena takes agents as registry specs (strings or AgentSpec), got {spec!r}")
    return parse_agent_spec(spec)


class AgentCache:
    """The agents one worker has built, reused for every game: an agent per spec and game.

    ``agent(spec, game, rng)`` builds the agent the first time (with ``rng``)
    and afterwards re-seeds the one it built (``agent.seed(rng)``);
    ``play_game`` resets it at the start of the game. A second agent of the
    same spec is built only for a game where the first is already playing (a
    spec against itself). ``check(spec, game)`` builds one to see that the
    spec is good, so checking and then playing in one process builds it once.
    """

    def __init__(self) -> None:
        self._agents: dict[tuple[AgentSpec, Any], list[Agent]] = {}

    def check(self, spec: AgentSpec, game) -> None:
        """Build ``spec`` for ``game`` (unless this cache holds one) so that a bad spec raises now.

        Raises:
            ValueError: an unknown agent or a bad parameter (the registry's message).
        """
        if not self._agents.get((spec, game)):
            self._agents[(spec, game)] = [make_agent(spec, game, rng=np.random.default_rng(0))]

    def agent(self, spec: AgentSpec, game, rng: np.random.Generator,
              playing: tuple[Agent, ...] = ()) -> Agent:
        """An agent for ``spec`` other than those ``playing`` this game, seeded with ``rng`` for it."""
        built = self._agents.setdefault((spec, game), [])
        for agent in built:
            if not any(agent is other for other in playing):
                agent.seed(rng)
                return agent
        agent = make_agent(spec, game, rng=rng)
        built.append(agent)
        return agent


def play_job(job: Job, agents: AgentCache) -> tuple[int, MatchGame]:
    """Play one game with the agents of ``agents``; ``(job.key, MatchGame)``."""
    rng_a, rng_b = game_rngs(job.seed, job.index)
    a = agents.agent(job.spec_a, job.game, rng_a)
    b = agents.agent(job.spec_b, job.game, rng_b, playing=(a,))
    a_first = job.index % 2 == 0
    record = play_game(job.game, a, b) if a_first else play_game(job.game, b, a)  # resets both agents
    return job.key, MatchGame(job.index, a_first, record)
