"""Round robins: every pair of agents plays a match; cross table and ratings.

``run_round_robin(game, specs, games_per_pair, seed)`` plays every pair (all
games of all pairs share one pool of workers) and returns a cross table
(score of the row agent against the column agent) and Bradley-Terry ratings
on the Elo scale (``tictacgo.arena.ratings``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tictacgo.arena.jobs import AgentCache, Job
from tictacgo.arena.match import check_match_args
from tictacgo.arena.ratings import fit_bradley_terry
from tictacgo.arena.records import GameSpool, RunRecords
from tictacgo.arena.results import MatchGame, MatchResult
from tictacgo.arena.runner import check_backend, execute_jobs
from tictacgo.baselines.agent_spec import AgentSpec

#: The longest agent label that heads a cross-table column; longer ones are numbered.
MAX_COLUMN_LABEL = 12


def pair_seed(seed: int, i: int, j: int) -> int:
    """The match seed of agents ``i`` and ``j`` in a round robin seeded ``seed``.

    ``run_match(game, specs[i], specs[j], n, pair_seed(seed, i, j))`` replays that pair.
    """
    state = np.random.SeedSequence(int(seed), spawn_key=(i, j)).generate_state(2, dtype=np.uint32)
    return int(state[0]) << 32 | int(state[1])


def unique_labels(specs: Sequence[str]) -> list[str]:
    """The specs as table labels, with ``#2``, ``#3`` added to repeats."""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return out


@dataclass
class RoundRobinResult:
    """Every pair's match, the cross table and the ratings of a round robin."""

    game: str
    specs: list[str]
    games_per_pair: int
    seed: int
    matches: dict[tuple[int, int], MatchResult]
    ratings: Any  # tictacgo.arena.ratings.Ratings
    interrupted: bool = False

    @property
    def labels(self) -> list[str]:
        return unique_labels(self.specs)

    def points_and_games(self) -> tuple[np.ndarray, np.ndarray]:
        """``(points, games)``: points[i, j] scored by i against j, games[i, j] between them."""
        k = len(self.specs)
        points, games = np.zeros((k, k)), np.zeros((k, k))
        for (i, j), m in self.matches.items():
            w, d, lo = m.wdl()
            points[i, j] += w + 0.5 * d
            points[j, i] += lo + 0.5 * d
            games[i, j] += m.n
            games[j, i] += m.n
        return points, games

    def cross_table(self) -> np.ndarray:
        """Score of the row agent against the column agent (NaN on the diagonal or without games)."""
        points, games = self.points_and_games()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(games > 0, points / np.where(games > 0, games, 1), np.nan)

    def table(self) -> str:
        """The cross table, then the ratings.

        Columns are headed by the agents' specs when they are short; with a long
        spec, by numbers (``#1``, ``#2``, ...) that the rows spell out, so the
        table keeps its columns whatever the specs.
        """
        labels = self.labels
        cross = self.cross_table()
        points, games = self.points_and_games()
        head = (f"{self.game} round robin: {len(labels)} agents, {self.games_per_pair} games per pair, "
                f"seed {self.seed}" + (" (INTERRUPTED)" if self.interrupted else ""))
        rows = [head, "", "score of row vs column"]
        if max(len(s) for s in labels) <= MAX_COLUMN_LABEL:
            columns, names = labels, labels
        else:
            columns = [f"#{i + 1}" for i in range(len(labels))]
            names = [f"#{i + 1} {s}" for i, s in enumerate(labels)]
        cell = max(8, *(len(c) for c in columns)) + 2
        first = max(cell, max(len(n) for n in names) + 2)
        rows.append(" " * first + "".join(f"{c:>{cell}s}" for c in columns) + f"{'total':>{cell}s}")
        for i, name in enumerate(names):
            cells = "".join(f"{'-':>{cell}s}" if np.isnan(cross[i, j]) else f"{cross[i, j]:>{cell}.3f}"
                            for j in range(len(labels)))
            total = points[i].sum() / games[i].sum() if games[i].sum() else float("nan")
            rows.append(f"{name:<{first}s}{cells}{total:>{cell}.3f}")
        rows += ["", self.ratings.table()]
        return "\n".join(rows)

    def to_json(self, lazy: bool = False) -> dict[str, Any]:
        """Everything, every game of every pair included, as a JSON-ready dict (``lazy``: as
        ``MatchResult.to_json``)."""
        cross = self.cross_table()
        return {
            "format": "tictacgo-arena-round-robin/1",
            "game": self.game, "agents": self.specs, "labels": self.labels,
            "games_per_pair": self.games_per_pair, "seed": self.seed, "interrupted": self.interrupted,
            "cross_table": [[None if np.isnan(v) else float(v) for v in row] for row in cross],
            "ratings": self.ratings.to_json(),
            "matches": [{"i": i, "j": j, **m.to_json(lazy)} for (i, j), m in sorted(self.matches.items())],
        }


def run_round_robin(game: Any, specs: Sequence[str | AgentSpec], games_per_pair: int, seed: int,
                    workers: int | None = None, progress: bool = True,
                    prior: float = 1.0, backend: str = "local", address: str | None = "local",
                    agents: AgentCache | None = None, keep_games: bool | GameSpool = True,
                    on_game: Callable[[int, MatchGame], None] | None = None) -> RoundRobinResult:
    """Play every pair of agents and rate them.

    Pair ``(i, j)`` (``i < j``) plays a match with agent ``i`` as A, seeded
    ``pair_seed(seed, i, j)``; all games go through one pool of workers.

    Args:
        game: a game object, or a game name (its default variant).
        specs: at least two registry specs (text or ``AgentSpec``).
        games_per_pair: games in each pair's match.
        seed: a non-negative int.
        workers: worker processes (None: one per CPU core; 1: in this process).
        progress: show a progress bar on stderr.
        prior: the Bradley-Terry prior strength (``ratings.fit_bradley_terry``).
        backend: ``"local"`` worker processes or ``"ray"`` tasks, as in ``run_match``.
        address: the Ray address for ``backend="ray"``, as in ``run_match``.
        agents: agents already built in this process, as in ``run_match``.
        keep_games: the records in memory (True), only counts (False) or counts and
            the records in a ``GameSpool``, as in ``run_match``; the key of pair number
            ``p`` (``(0, 1)``, ``(0, 2)``, ... in order) is ``p``.
        on_game: called with ``(p, MatchGame)`` as each game finishes, as in ``run_match``.

    Returns:
        The ``RoundRobinResult`` (partial, ``interrupted=True``, after Ctrl-C).
    """
    specs = list(specs)
    if len(specs) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {specs!r}")
    agents = agents if agents is not None else AgentCache()
    game, parsed = check_match_args(game, specs, games_per_pair, seed, agents)
    specs = [s.label for s in parsed]
    name = game.spec.name
    check_backend(backend)
    pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    seeds = [pair_seed(seed, i, j) for i, j in pairs]
    jobs = (Job(p, game, parsed[i], parsed[j], seeds[p], g)  # lazy: one per game as played
            for p, (i, j) in enumerate(pairs) for g in range(games_per_pair))
    records = RunRecords(keep_games, on_game)
    _, interrupted = execute_jobs(jobs, len(pairs) * games_per_pair, workers, progress,
                                  f"round robin ({len(pairs)} pairs)", backend=backend, address=address,
                                  agents=agents, collect=records)
    matches = {}
    for p, (i, j) in enumerate(pairs):
        m = MatchResult(name, specs[i], specs[j], pair_seed(seed, i, j), games_per_pair,
                        variant=dict(game.params), played=game, **records.match_fields(p))
        m.interrupted = interrupted and m.n < games_per_pair
        matches[(i, j)] = m
    rr = RoundRobinResult(name, specs, games_per_pair, int(seed), matches, None, interrupted)
    points, games = rr.points_and_games()
    rr.ratings = fit_bradley_terry(points, games, names=rr.labels, prior=prior)
    return rr
