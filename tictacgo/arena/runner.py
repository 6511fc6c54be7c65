"""Running many games: seeded jobs, a pool of worker processes, a progress bar.

Game ``i`` of a match gets its own generators, ``SeedSequence(seed,
spawn_key=(i,)).spawn(2)`` (A's, B's): each agent is seeded with its
generator (``agent.seed``) and reset (``play_game``) before the game, so a
match is reproducible for a given seed whatever the number of workers and
whichever games ran first, and a game is the one that agents built afresh
with those generators would play. A worker builds each agent once
(``AgentCache``: one per spec and game, two when a spec plays itself) and
reuses it for every game it plays. Games run in parallel in worker processes (the ``spawn`` start
method everywhere: workers receive only agent specs (``AgentSpec``) and seeds and build
their agents themselves, so the agents must be registered by the built-in
modules; ``workers=1`` runs in-process, reuses the agents built to check the
specs, and accepts any registered agent). A progress
bar (tqdm if installed, else a line on stderr every few seconds) follows the
games; Ctrl-C stops the run and returns the games finished so far. Jobs come
from a lazy iterator, made only as the workers take them, so a run of
``10**12`` games starts at once; only the results are kept in memory.
``backend="ray"`` plays the same jobs as Ray tasks instead
(``tictacgo.arena.ray_backend``), with the same results.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from tictacgo.arena.game_loop import play_game
from tictacgo.arena.results import MatchGame
from tictacgo.baselines.agent_spec import AgentSpec
from tictacgo.baselines.base import Agent
from tictacgo.baselines.registry import make_agent, parse_agent_spec


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
    """A spec given to the arena, read once (``parse_agent_spec``).

    Raises:
        TypeError: neither text nor an ``AgentSpec``.
        ValueError: text that is not a spec.
    """
    if not isinstance(spec, (str, AgentSpec)):
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


# The agents of a pool worker process, made by _start_worker: one cache for the pool's life (one run).
_worker_agents: AgentCache | None = None


def _start_worker() -> None:
    global _worker_agents
    _worker_agents = AgentCache()
    # Ctrl-C goes to the whole process group; the parent alone handles it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play_in_worker(job: Job) -> tuple[int, MatchGame]:
    return play_job(job, _worker_agents)


class Progress:
    """tqdm if importable, else a line on stderr every ``every`` seconds; nothing if disabled."""

    def __init__(self, total: int, enabled: bool, desc: str, every: float = 5.0):
        self.total, self.enabled, self.desc, self.every = total, enabled, desc, every
        self.done = 0
        self.bar = None
        self.start = self.last = time.monotonic()
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self.bar = tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)

    def update(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(1)
            return
        now = time.monotonic()
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            pct = 100 * self.done / max(1, self.total)
            print(f"{self.desc}: {self.done}/{self.total} games ({pct:.0f}%), "
                  f"{now - self.start:.0f} s", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _resolve_workers(workers: int | None, n_jobs: int) -> int:
    if workers is None:
        workers = os.cpu_count() or 1
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers must be a positive int or None, got {workers!r}")
    return max(1, min(workers, n_jobs))


def _start_pool(n_workers: int):
    """A ``spawn`` pool whose workers never see SIGINT, and a function to call once it is held.

    Ctrl-C goes to the whole process group. The workers' initializer ignores
    it, but a worker still importing when it arrives would print a
    KeyboardInterrupt traceback. An ignored signal stays ignored across
    ``exec`` (and Python then installs no handler of its own), so SIGINT is
    ignored while the workers are started. So that a Ctrl-C in that moment
    is not lost here, SIGINT is also blocked meanwhile (a blocked signal is
    kept pending even while ignored): the returned function restores the
    handler, then unblocks it, and a pending Ctrl-C arrives there (call it
    where an interrupt can clean up the pool). Blocking covers this thread
    and the pool's own threads; a Ctrl-C that the kernel hands to another
    thread started earlier (a progress bar's, say) in that moment is lost,
    so start the pool before such threads.

    Returns:
        ``(pool, release)``.
    """
    context = multiprocessing.get_context("spawn")
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        return context.Pool(n_workers, initializer=_start_worker), lambda: None
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    old_handler = signal.signal(signal.SIGINT, signal.SIG_IGN)

    def release() -> None:
        signal.signal(signal.SIGINT, old_handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)

    try:
        pool = context.Pool(n_workers, initializer=_start_worker)
    except BaseException:
        release()
        raise
    return pool, release


BACKENDS = ("local", "ray")


def check_backend(backend: str) -> None:
    """Raise ValueError unless ``backend`` is one of ``BACKENDS``."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")


def execute_jobs(jobs: Iterable[Job], total: int, workers: int | None, progress: bool, desc: str,
                 backend: str = "local", address: str | None = "local", agents: AgentCache | None = None
                 ) -> tuple[list[tuple[int, MatchGame]], bool]:
    """Play the jobs, in-process, in a pool or as Ray tasks; returns (results, interrupted).

    Args:
        jobs: the games to play, best a lazy iterable (a generator): a job is
            made only when a worker is ready for it, so a run of 10**12 games
            starts at once and holds only the results in memory.
        total: how many jobs ``jobs`` yields (for the progress bar and the pool size).
        workers: worker processes (None: one per CPU core; 1: in this process).
        progress: show a progress bar on stderr.
        desc: the progress bar's label.
        backend: ``"local"`` (this machine's processes) or ``"ray"`` (Ray tasks,
            ``tictacgo.arena.ray_backend``; ``workers`` then caps the tasks at once).
        address: the Ray address for the ``"ray"`` backend (``"local"``, ``"auto"``, ...).
        agents: the agents to play with in this process (``workers=1``), e.g. those
            built to check the specs; None: a new ``AgentCache``. Worker processes
            and Ray tasks build their own.

    Returns:
        The ``(key, MatchGame)`` results in the order they finished, and
        whether Ctrl-C stopped the run (the results then hold the games
        finished before it).
    """
    check_backend(backend)
    if backend == "ray":
        from tictacgo.arena import ray_backend

        return ray_backend.execute_jobs(jobs, total, workers, progress, desc, address=address)
    results: list[tuple[int, MatchGame]] = []
    if total < 1:
        return results, False
    n_workers = _resolve_workers(workers, total)
    interrupted = False
    bar = None
    try:
        if n_workers == 1:
            bar = Progress(total, progress, desc)
            agents = agents if agents is not None else AgentCache()
            for job in jobs:
                results.append(play_job(job, agents))
                bar.update()
        else:
            # Small chunks keep the bar lively; bigger ones cut overhead on tiny games.
            chunksize = max(1, min(16, total // (n_workers * 8)))
            # The pool first: the progress bar may start a thread, which must not
            # take (and drop) a Ctrl-C while the workers start (see _start_pool).
            pool, release = _start_pool(n_workers)
            try:
                release()  # a Ctrl-C during the start arrives here
                bar = Progress(total, progress, desc)
                # imap_unordered draws from the iterator only as the workers'
                # queue takes tasks, so a generator of jobs is never materialized.
                for r in pool.imap_unordered(_play_in_worker, jobs, chunksize=chunksize):
                    results.append(r)
                    bar.update()
                pool.close()
            except BaseException:
                pool.terminate()
                raise
            finally:
                pool.join()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    return results, interrupted
