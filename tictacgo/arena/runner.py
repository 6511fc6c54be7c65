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
games; Ctrl-C stops the run and returns the games finished so far (the
workers are stopped with SIGTERM, which ends them as an exit, so that their
agents clean up: a program agent's move is stopped and its folder removed;
one still there after ``STOP_GRACE`` seconds is killed). A worker that dies,
or cannot start, is seen at once (``concurrent.futures``' broken pool): the
run stops with ``WorkerFailed``, naming the worker's exit status, never
hangs; whatever the worker printed is on stderr above it. (A worker starts by
importing the main script, so a script that starts a run must do it under
``if __name__ == "__main__":``; one that does not gets that advice in the
error.) Jobs come from a lazy iterator, made only as the workers take them,
so a run of ``10**12`` games starts at once; only the results are kept in
memory.
``backend="ray"`` plays the same jobs as Ray tasks instead
(``tictacgo.arena.ray_backend``), with the same results.
"""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from tictacgo.arena import ray_backend
from tictacgo.arena.jobs import AgentCache, Job, play_job
from tictacgo.arena.progress import Progress
from tictacgo.arena.results import MatchGame
from tictacgo.validate import check_int

# The agents of a pool worker process, made by _start_worker: one cache for the pool's life (one run).
_worker_agents: AgentCache | None = None

STOP_GRACE = 5.0  # seconds workers have to stop (their agents' clean-up) before they are killed


class WorkerFailed(RuntimeError):
    """A worker process died or could not start; what it printed itself went to stderr."""


def _start_worker() -> None:
    global _worker_agents
    _worker_agents = AgentCache()
    # Ctrl-C and a closed terminal's SIGHUP go to the whole process group; the
    # parent alone handles them and stops the pool. SIGTERM (the parent
    # stopping the pool) ends the worker as an exit, so that its agents clean
    # up: a program agent's move is stopped and its folder removed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)


def _exit_on_sigterm(signum, frame) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SystemExit(128 + signum)


def _play_in_worker(jobs: list[Job]) -> list[tuple[int, MatchGame]]:
    global _worker_agents
    try:
        return [play_job(job, _worker_agents) for job in jobs]
    except SystemExit:
        pass
    # Stopped (SIGTERM) during a game, the game's own clean-up done (a program's move stopped). The
    # pool would report the exit and keep the worker, so it ends here, its agents dropped first, out
    # of the except clause whose traceback holds them: their finalizers remove their folders.
    _worker_agents = None
    gc.collect()
    os._exit(128 + signal.SIGTERM)


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


def _hold_sigint():
    """Ignore (and block) SIGINT while workers start; returns the function that restores it.

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
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        return lambda: None
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    old_handler = signal.signal(signal.SIGINT, signal.SIG_IGN)

    def release() -> None:
        signal.signal(signal.SIGINT, old_handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    return release


def _chunks(jobs: Iterable[Job], size: int) -> Iterator[list[Job]]:
    it = iter(jobs)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


def _describe_failure(workers: list[multiprocessing.process.BaseProcess], done: int, total: int) -> str:
    """What went wrong, in words: the dead workers' exit statuses, and the likely cause if none started."""
    codes = [p.exitcode for p in workers if p.exitcode not in (None, 0)]
    # The pool stops the other workers (SIGTERM) once one has died, which ends them as an exit with
    # 128 + SIGTERM (or by the signal, before they set that up): the first cause is the others.
    stopped = (-signal.SIGTERM, 128 + signal.SIGTERM)
    causes = [c for c in codes if c not in stopped] or codes
    statuses = sorted({f"killed by signal {-c}" if c < 0 else f"exit status {c}" for c in causes})
    how = f" ({', '.join(statuses)})" if statuses else ""
    text = (f"a worker process died or could not start{how} after {done} of {total} games; "
            f"its own error, if it printed one, is above")
    if done == 0 and _unguarded_main():
        text += ('. A worker starts by importing the main script, and this one starts a run when '
                 'imported: put that under if __name__ == "__main__":')
    return text


def _unguarded_main() -> bool:
    """Whether the main module is a script file that never tests ``__name__`` for ``"__main__"``."""
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if not path:
        return False
    try:
        with open(path, "rb") as f:
            return b"__main__" not in f.read(2**20)
    except OSError:
        return False


def _stop_workers(workers: list[multiprocessing.process.BaseProcess]) -> None:
    """SIGTERM (the workers' agents clean up and they exit), then SIGKILL after STOP_GRACE seconds."""
    for p in workers:
        if p.exitcode is None:
            p.terminate()
    deadline = time.monotonic() + STOP_GRACE
    for p in workers:
        p.join(max(0.0, deadline - time.monotonic()))
    for p in workers:
        if p.exitcode is None:
            p.kill()
            p.join()


def _play_in_pool(jobs: Iterable[Job], total: int, n_workers: int, keep: Callable, start_bar: Callable):
    """Play the jobs on ``n_workers`` worker processes, chunks of jobs in flight at a time.

    Jobs are drawn from ``jobs`` only as chunks are handed out (at most two
    per worker waiting), so a generator of jobs is never materialized. A
    worker that dies, or cannot start, breaks the pool (``BrokenProcessPool``,
    seen at once through the workers' sentinels): the run stops with
    ``WorkerFailed``. On any other way out (Ctrl-C, a game's error) the
    workers are stopped and the error passes on.
    """
    # Small chunks keep the bar lively; bigger ones cut overhead on tiny games.
    chunks = _chunks(jobs, max(1, min(16, total // (n_workers * 8))))
    context = multiprocessing.get_context("spawn")
    before = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(n_workers, mp_context=context, initializer=_start_worker)
    workers: list[multiprocessing.process.BaseProcess] = []
    pending: set = set()
    done = 0

    def hand_out(n: int) -> None:
        for chunk in itertools.islice(chunks, n):
            try:
                pending.add(pool.submit(_play_in_worker, chunk))
            except (BrokenPipeError, EOFError) as e:  # a worker died while it was being started
                raise BrokenProcessPool(str(e)) from e
        # The pool's own list holds a worker that has already died (active_children forgets a dead one,
        # and a forked worker can die before it is listed); the workers' exit statuses name the cause.
        started = [*(getattr(pool, "_processes", None) or {}).values(), *multiprocessing.active_children()]
        workers.extend(p for p in started if p not in before and p not in workers)

    try:
        try:
            # The first chunks start the workers; the bar comes after them, since it may
            # start a thread that must not take (and drop) a Ctrl-C meanwhile (_hold_sigint).
            release = _hold_sigint()
            try:
                hand_out(2 * n_workers)
            finally:
                release()  # a Ctrl-C during the start arrives here
            bar = start_bar()
            while pending:
                finished, _ = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
                for future in finished:
                    pending.discard(future)
                    for r in future.result():
                        keep(r)
                        done += 1
                        bar.update()
                    hand_out(1)
        except BrokenProcessPool:
            _stop_workers(workers)
            raise WorkerFailed(_describe_failure(workers, done, total)) from None
    except BaseException:
        _stop_workers(workers)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


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
            def start_bar() -> Progress:
                nonlocal bar
                bar = Progress(total, progress, desc)
                return bar
            _play_in_pool(jobs, total, n_workers, keep, start_bar)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    return results, interrupted
