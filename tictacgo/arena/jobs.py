"""One game of a match as plain data, and how any backend plays it.

A ``Job`` holds what a worker needs (the game, the two agent specs, the
match's seed and the game's index), so it pickles under ``spawn`` and travels
to Ray tasks. ``play_job`` builds fresh agents from the specs with the
game's own generators, ``SeedSequence(seed, spawn_key=(index,)).spawn(2)``,
so a game's moves depend only on its job, never on which worker played it
or in what order (the local pool and the Ray backend both call it).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from tictacgo.arena.results import MatchGame
from tictacgo.baselines.registry import make_agent
from tictacgo.game_loop import play_game
from tictacgo.games import make_game


class Job(NamedTuple):
    """What a worker needs to play one game: plain data, so it pickles under ``spawn``."""

    key: int          # which match (0 for run_match; the pair's number in a round robin)
    game: Any         # the game object (it pickles as its variant)
    spec_a: str
    spec_b: str
    seed: int
    index: int


def game_rngs(seed: int, index: int) -> tuple[np.random.Generator, np.random.Generator]:
    """A's and B's generators for game ``index`` of a match seeded ``seed``."""
    ss_a, ss_b = np.random.SeedSequence(seed, spawn_key=(index,)).spawn(2)
    return np.random.default_rng(ss_a), np.random.default_rng(ss_b)


def play_job(job: Job) -> tuple[int, MatchGame]:
    """Play one job with fresh agents built from its specs; ``(job.key, the game)``.

    Agent A moves first in the even-numbered games, B in the odd ones.
    """
    module = make_game(job.game)
    rng_a, rng_b = game_rngs(job.seed, job.index)
    a = make_agent(job.spec_a, module, rng=rng_a)
    b = make_agent(job.spec_b, module, rng=rng_b)
    a_first = job.index % 2 == 0
    record = play_game(module, a, b) if a_first else play_game(module, b, a)
    return job.key, MatchGame(job.index, a_first, record)
