"""Matches between agents named by registry specs: ``run_match``.

``run_match(game, spec_a, spec_b, games, seed)`` plays a match between two
agents named by registry specs (``"random"``, ``"minimax"``,
``"alphabeta:depth=2"``), read once into ``AgentSpec`` values. Colours
alternate: A moves first in the even games (0, 2, ...) and second in the
odd ones. The games run through ``tictacgo.arena.runner`` (seeded per game,
in parallel, with progress); Ctrl-C stops the match and returns the games finished so far, flagged
``interrupted``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tictacgo.arena.jobs import AgentCache, Job, as_agent_spec
from tictacgo.arena.records import GameSpool, RunRecords
from tictacgo.arena.results import MatchGame, MatchResult
from tictacgo.arena.runner import check_backend, execute_jobs
from tictacgo.baselines.agent_spec import AgentSpec
from tictacgo.games import make_game
from tictacgo.games.base import Game
from tictacgo.validate import check_int


def validate_specs(game: Any, specs: Sequence[str | AgentSpec], agents: AgentCache | None = None) -> Game:
    """Check a game and agent specs by building each agent once, here.

    Args:
        game: a game object, or a game name (its default variant).
        specs: registry specs (text or ``AgentSpec``).
        agents: where to keep the agents built (an ``AgentCache``), so that games
            played in this process (``workers=1``) reuse them; None: a new cache.

    Returns:
        The game object.

    Raises:
        ValueError: an unknown game or agent, or a bad agent parameter (the
            registry's message, which lists what exists).
        TypeError: a spec that is neither text nor an ``AgentSpec``.
    """
    game = make_game(game)
    agents = agents if agents is not None else AgentCache()
    for spec in specs:
        agents.check(as_agent_spec(spec), game)
    return game


def check_match_args(game: Any, specs: Sequence[str | AgentSpec], games: int, seed: int,
                     agents: AgentCache) -> tuple[Game, list[AgentSpec]]:
    """Validate up front (in this process) so mistakes surface as a clear ValueError.

    Text specs are read here, once; ``AgentSpec`` s (read at the edge, by the
    command) pass as they are.

    Returns:
        The game object and the specs as ``AgentSpec`` s, the agents built in ``agents``.
    """
    specs = [as_agent_spec(s) for s in specs]
    game = validate_specs(game, specs, agents)
    check_int("games", games, min=1)
    check_int("seed", seed, min=0)
    return game, specs


def run_match(game: Any, spec_a: str | AgentSpec, spec_b: str | AgentSpec, games: int, seed: int,
              workers: int | None = None, progress: bool = True, backend: str = "local",
              address: str | None = "local", agents: AgentCache | None = None,
              keep_games: bool | GameSpool = True,
              on_game: Callable[[int, MatchGame], None] | None = None) -> MatchResult:
    """Play ``games`` games between two registered agents, colours alternating.

    Args:
        game: a game object (``make_game("littlego", size=4)``), or a game name
            (its default variant).
        spec_a: the registry spec of agent A (A moves first in the even games), text
            or an ``AgentSpec``; the result names A by this text (an ``AgentSpec`` by its
            ``label``, the text it was read from).
        spec_b: the registry spec of agent B.
        games: how many games.
        seed: a non-negative int; game ``i`` uses ``SeedSequence(seed, spawn_key=(i,))``.
        workers: worker processes (None: one per CPU core; 1: in this process).
        progress: show a progress bar on stderr.
        backend: ``"local"`` (worker processes here) or ``"ray"`` (Ray tasks, here or
            on a cluster; the same games for the same seed).
        address: the Ray address for ``backend="ray"``: ``"local"`` (a Ray instance
            for this run), ``"auto"`` (the running cluster); ignored if Ray is initialized.
        agents: agents already built in this process (``validate_specs(game, specs,
            agents)``), reused when the games run here; None: built here.
        keep_games: keep every game's record (``result.games``, for JSON and SGF);
            False keeps only the counts (``result.tally``, about nothing per game),
            for a long match whose records nobody reads; a ``GameSpool`` keeps the
            counts and puts each record in that file on disk as the game finishes
            (``result.iter_games()`` reads them; ``tictacgo.arena.records``).
        on_game: called with ``(0, MatchGame)`` as each game finishes (in this
            process, whichever the backend), e.g. to write it out at once.

    Returns:
        The ``MatchResult``; on Ctrl-C, the games finished so far with
        ``interrupted=True``.

    Raises:
        ValueError: an unknown game or agent, a bad agent parameter, a bad count or backend.
        ImportError: ``backend="ray"`` without ray installed.
    """
    agents = agents if agents is not None else AgentCache()
    game, (a, b) = check_match_args(game, (spec_a, spec_b), games, seed, agents)
    check_backend(backend)
    label_a, label_b = a.label, b.label
    jobs = (Job(0, game, a, b, int(seed), i) for i in range(games))  # lazy: one per game as played
    records = RunRecords(keep_games, on_game)
    _, interrupted = execute_jobs(jobs, games, workers, progress, f"{label_a} vs {label_b}",
                                  backend=backend, address=address, agents=agents, collect=records)
    return MatchResult(game.spec.name, label_a, label_b, int(seed), games, interrupted=interrupted,
                       variant=dict(game.params), played=game, **records.match_fields(0))
