"""Matches between agents named by registry specs: ``run_match``.

``run_match(game, spec_a, spec_b, games, seed)`` plays a match between two
agents named by registry specs (``"random"``, ``"minimax"``,
``"alphabeta:depth=2"``). Colours alternate: A moves first in the even games
(0, 2, ...) and second in the odd ones. The games run through
``tictacgo.arena.runner`` (seeded per game, in parallel, with progress);
Ctrl-C stops the match and returns the games finished so far, flagged
``interrupted``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tictacgo.arena.jobs import Job
from tictacgo.arena.results import MatchResult
from tictacgo.arena.runner import check_backend, execute_jobs
from tictacgo.baselines.registry import make_agent
from tictacgo.games import make_game
from tictacgo.validate import check_int


def validate_specs(game: str, specs: Sequence[str]) -> str:
    """Check a game name and agent specs by building each agent once, here.

    Args:
        game: a game object, or a game name (its default variant).
        specs: registry specs.

    Returns:
        The game object.

    Raises:
        ValueError: an unknown game or agent, or a bad agent parameter (the
            registry's message, which lists what exists).
        TypeError: a spec that is not a string.
    """
    module = make_game(game)
    for spec in specs:
        if not isinstance(spec, str):
            raise TypeError(f"the arena takes agents as registry specs (strings), got {spec!r}")
        make_agent(spec, module, rng=np.random.default_rng(0))
    return module


def check_match_args(game: Any, specs: Sequence[str], games: int, seed: int) -> str:
    """Validate up front (in this process) so mistakes surface as a clear ValueError."""
    game = validate_specs(game, specs)
    check_int("games", games, min=1)
    check_int("seed", seed, min=0)
    return game


def run_match(game: Any, spec_a: str, spec_b: str, games: int, seed: int,
              workers: int | None = None, progress: bool = True, backend: str = "local",
              address: str | None = "local") -> MatchResult:
    """Play ``games`` games between two registered agents, colours alternating.

    Args:
        game: a game object (``make_game("littlego", size=4)``), or a game name
            (its default variant).
        spec_a: the registry spec of agent A (A moves first in the even games).
        spec_b: the registry spec of agent B.
        games: how many games.
        seed: a non-negative int; game ``i`` uses ``SeedSequence(seed, spawn_key=(i,))``.
        workers: worker processes (None: one per CPU core; 1: in this process).
        progress: show a progress bar on stderr.
        backend: ``"local"`` (worker processes here) or ``"ray"`` (Ray tasks, here or
            on a cluster; the same games for the same seed).
        address: the Ray address for ``backend="ray"``: ``"local"`` (a Ray instance
            for this run), ``"auto"`` (the running cluster); ignored if Ray is initialized.

    Returns:
        The ``MatchResult``; on Ctrl-C, the games finished so far with
        ``interrupted=True``.

    Raises:
        ValueError: an unknown game or agent, a bad agent parameter, a bad count or backend.
        ImportError: ``backend="ray"`` without ray installed.
    """
    game = check_match_args(game, (spec_a, spec_b), games, seed)
    check_backend(backend)
    jobs = (Job(0, game, spec_a, spec_b, int(seed), i) for i in range(games))  # lazy: one per game as played
    results, interrupted = execute_jobs(jobs, games, workers, progress, f"{spec_a} vs {spec_b}",
                                        backend=backend, address=address)
    played = sorted((g for _, g in results), key=lambda g: g.index)
    return MatchResult(game.spec.name, spec_a, spec_b, int(seed), games, played, interrupted,
                       variant=dict(game.params))
