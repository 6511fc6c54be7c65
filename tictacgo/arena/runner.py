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
import threading
import warnings
from collections.abc import Callable, Iterable

from tictacgo.arena import ray_backend
from tictacgo.arena.jobs import AgentCache, Job, play_job
from tictacgo.arena.progress import Progress
from tictacgo.arena.results import MatchGame
from tictacgo.validate import check_int

# The agents of a pool worker process, made by _start_worker: one cache for the pool's life (one run).
_worker_agents: AgentCache | None = None


def _start_worker() -> None:
    global _worker_agents
    _worker_agents = AgentCache()
    # Ctrl-C and a closed terminal's SIGHUP go to the whole process group; the
    # parent alone handles them and stops the pool. SIGTERM keeps its default
    # (a quiet exit): the pool's terminate() sends it to stop a worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)


def _play_in_worker(job: Job) -> tuple[int, MatchGame]:
    return play_job(job, _worker_agents)


def available_cpus() -> int:
    """The CPU cores this process may run on (its affinity where the platform tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def cap_workers(workers: int | None) -> int:
    """``workers`` as a number of processes: None means one per core, and more than
    ``available_cpus()`` is capped there (each worker holds its own agents, a model
    agent some hundreds of MB, and more processes than cores only take turns).

    Raises:
        ValueError, TypeError: not a positive int or None.
    """
    workers = check_int("workers", workers, min=1, allow_none=True)
    cpus = available_cpus()
    return cpus if workers is None else min(workers, cpus)


def _resolve_workers(workers: int | None, n_jobs: int) -> int:
    wanted = check_int("workers", workers, min=1, allow_none=True)
    capped = cap_workers(wanted)
    if wanted is not None and capped < wanted:
        warnings.warn(f"workers={wanted} is more than the {capped} CPU cores available; using {capped}",
                      stacklevel=3)
    return max(1, min(capped, n_jobs))


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
                 backend: str = "local", address: str | None = "local", agents: AgentCache | None = None,
                 collect: Callable[[tuple[int, MatchGame]], None] | None = None
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
        collect: called with each ``(key, MatchGame)`` as it comes in, instead of
            keeping it (the returned list is then empty): a long run holds only
            what ``collect`` keeps. None: every result is kept and returned.

    Returns:
        The ``(key, MatchGame)`` results in the order they finished, and
        whether Ctrl-C stopped the run (the results then hold the games
        finished before it).
    """
    check_backend(backend)
    if backend == "ray":
        results, interrupted = ray_backend.execute_jobs(jobs, total, workers, progress, desc, address=address)
        if collect is None:
            return results, interrupted
        for r in results:
            collect(r)
        return [], interrupted
    results: list[tuple[int, MatchGame]] = []
    keep = collect if collect is not None else results.append
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
                keep(play_job(job, agents))
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
                    keep(r)
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
