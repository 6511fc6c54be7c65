"""The arena's Ray backend: the games of a match or round robin as Ray tasks, here or on a cluster.

``tictacgo arena ... --backend ray [--address auto]`` and ``run_match(...,
backend="ray")`` come here; the local process pool stays the default. Jobs
(plain data: game, specs, seed, game index) go out in chunks, one Ray task a
chunk; each task plays its games exactly as a local worker does
(``jobs.play_job``: game ``i`` seeded by ``SeedSequence(seed,
spawn_key=(i,))``, each agent built once for the chunk), so the games,
winners and moves are those of the local backend for the same seed,
whichever node plays which chunk. Only a bounded number of chunks is in
flight, taken from the lazy job iterator as tasks finish. Ctrl-C cancels
the tasks in flight and returns the games finished.

Ray is imported only here, only when this backend is asked for. On a cluster
every node needs tictacgo installed (the cluster's image, or
``ray.init(runtime_env=...)`` before the run); agents are built on the
nodes from their registry specs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator

from tictacgo.arena.jobs import AgentCache, Job, play_job
from tictacgo.arena.progress import Progress
from tictacgo.arena.results import MatchGame
from tictacgo.validate import check_int

INSTALL_HINT = "pip install 'tictacgo[ray]' (or 'tictacgo[rllib]', which includes ray)"


def import_ray():
    """Ray, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(f"the arena's ray backend needs ray, which is not installed: {INSTALL_HINT}") from e
    return ray


def _play_chunk(jobs: list[Job]) -> list[tuple[int, MatchGame]]:
    """A Ray task's body: play some jobs in order, as a local worker would, building each agent once."""
    agents = AgentCache()
    return [play_job(job, agents) for job in jobs]


def _chunks(jobs: Iterable[Job], size: int) -> Iterator[list[Job]]:
    it = iter(jobs)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


def execute_jobs(jobs: Iterable[Job], total: int, workers: int | None, progress: bool, desc: str,
                 address: str | None = "local", chunk_size: int | None = None
                 ) -> tuple[list[tuple[int, MatchGame]], bool]:
    """Play the jobs as Ray tasks; returns (results, interrupted) like ``runner.execute_jobs``.

    Args:
        jobs: the games to play (best a lazy iterable).
        total: how many jobs ``jobs`` yields.
        workers: how many tasks run at once (None: the cluster's CPUs).
        progress: show a progress bar on stderr.
        desc: the progress bar's label.
        address: where to find Ray when it is not initialized yet: ``"local"``
            starts a Ray instance for this run (shut down after it), ``"auto"``
            joins the running cluster, ``"ray://HOST:PORT"`` goes through Ray
            Client. Ignored when ``ray.init`` was already called.
        chunk_size: games per task (None: about four chunks per task slot, at most 64 games).

    Returns:
        The ``(key, MatchGame)`` results in the order they finished, and
        whether Ctrl-C stopped the run.

    Raises:
        ImportError: ray is not installed (the message says how to install it).
        ValueError: a bad ``workers`` or ``chunk_size``.
    """
    check_int("workers", workers, min=1, allow_none=True)
    check_int("chunk_size", chunk_size, min=1, allow_none=True)
    results: list[tuple[int, MatchGame]] = []
    if total < 1:
        return results, False
    ray = import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    bar = None
    interrupted = False
    pending: dict = {}
    try:
        slots = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = chunk_size or max(1, min(64, math.ceil(total / (slots * 4))))
        play = ray.remote(num_cpus=1)(_play_chunk)
        bar = Progress(total, progress, desc)
        chunks = _chunks(jobs, size)
        try:
            for chunk in itertools.islice(chunks, slots):
                pending[play.remote(chunk)] = len(chunk)
            while pending:
                (done,), _ = ray.wait(list(pending), num_returns=1)
                del pending[done]
                for r in ray.get(done):
                    results.append(r)
                    bar.update()
                chunk = next(chunks, None)
                if chunk:
                    pending[play.remote(chunk)] = len(chunk)
        except KeyboardInterrupt:
            interrupted = True
            for ref in pending:
                ray.cancel(ref, force=True)
    finally:
        if bar is not None:
            bar.close()
        if started_here:
            ray.shutdown()
    return results, interrupted
