"""Where the subtree jobs run: worker processes on this machine, or Ray actors here or on a cluster.

``tictacgo.evaluation.subtree_jobs`` hands each job to a pool as plain data
(a ``JobTask``) and the pool runs the one job function (``run_job``) on it,
one job at a time in each of its ``slots``:

* ``ProcessWorkers``: a process a job (multiprocessing, spawn context). A
  worker is asked to stop with SIGTERM: it checkpoints its job and exits
  with status 130. Workers start with SIGINT ignored, so a Ctrl-C on the
  terminal reaches the master alone, which stops them in order.
* ``RayWorkers``: a Ray actor a job (one CPU each), in a Ray started for
  the run or at ``RAY_ADDRESS``; ``stop`` sets the actor's stop flag (the
  actor runs two calls at once: the job, and the stop or a progress look).
  Ray is imported only here, only when this pool is made.

Both pass the job's progress messages (plain dicts) back to the master and
say how each job ended: ``"done"``, ``"stopped"`` or ``"failed: ..."``.
"""

from __future__ import annotations

import multiprocessing
import os
import queue as queue_module
import signal
import sys
import time
import traceback
from collections.abc import Callable

STOPPED_EXIT = 130  # a worker's exit status when asked to stop (its job checkpointed)


def _process_main(work: Callable, task, messages) -> None:
    """A worker process: run one job; SIGTERM asks it to checkpoint and stop."""
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    try:
        how = work(task, lambda: bool(stopping), messages.put)
    except Exception:  # the master reports the job as failed; the traceback says why
        traceback.print_exc()
        sys.stderr.flush()
        messages.close()
        messages.join_thread()
        os._exit(1)
    messages.close()
    messages.join_thread()  # every message out before the process ends
    sys.exit(STOPPED_EXIT if how == "stopped" else 0)


class ProcessWorkers:
    """Jobs in worker processes on this machine, at most ``slots`` at once (see the module docstring)."""

    def __init__(self, slots: int, work: Callable):
        self.slots = slots
        self.work = work
        self.ctx = multiprocessing.get_context("spawn")
        self.messages = self.ctx.Queue()
        self.procs: dict[str, multiprocessing.Process] = {}

    def running(self) -> list[str]:
        return list(self.procs)

    def start(self, name: str, task) -> None:
        p = self.ctx.Process(target=_process_main, args=(self.work, task, self.messages), name=f"job {name}",
                             daemon=False)
        # Ignored signals survive exec: the worker starts deaf to the terminal's Ctrl-C.
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            p.start()
        finally:
            signal.signal(signal.SIGINT, old)
        self.procs[name] = p

    def poll(self, timeout: float) -> tuple[list[dict], list[tuple[str, str]]]:
        """(progress messages, (name, how it ended) of the jobs that ended), waiting up to ``timeout``."""
        got = self._drain(timeout)
        ended = []
        for name, p in list(self.procs.items()):
            if not p.is_alive():
                got += self._drain(0)  # its last messages came before it ended
                p.join()
                del self.procs[name]
                code = p.exitcode
                ended.append((name, "done" if code == 0 else "stopped" if code == STOPPED_EXIT
                              else f"failed: the worker process exited with status {code}"))
        return got, ended

    def _drain(self, timeout: float) -> list[dict]:
        got = []
        try:
            got.append(self.messages.get(timeout=timeout) if timeout > 0 else self.messages.get_nowait())
            while True:
                got.append(self.messages.get_nowait())
        except queue_module.Empty:
            pass
        return got

    def stop(self, names: list[str]) -> None:
        """Ask these jobs to checkpoint and end (SIGTERM); ``poll`` then reports them."""
        for name in names:
            p = self.procs.get(name)
            if p is not None and p.pid is not None and p.is_alive():
                os.kill(p.pid, signal.SIGTERM)

    def close(self) -> tuple[list[dict], list[tuple[str, str]]]:
        """Stop every job still running and wait until each has checkpointed and ended."""
        self.stop(self.running())
        got, ended = [], []
        while self.procs:
            g, e = self.poll(0.2)
            got += g
            ended += e
        return got, ended


def import_ray():
    """Ray, or an error that names the extra that installs it."""
    from tictacgo.validate import check_installed

    check_installed("ray", "--ray (the subtree jobs on Ray)", "ray")
    import ray

    return ray


class RayWorkers:
    """Jobs as Ray actors (one CPU each), at most ``slots`` at once, or as many as the cluster has CPUs.

    Args:
        slots: jobs at once (None: the Ray cluster's CPUs).
        work: the job function.
        address: where Ray is, when ``ray.init`` was not called yet (None: ``RAY_ADDRESS`` when set,
            else a Ray started for this run and shut down by ``close``).
    """

    def __init__(self, slots: int | None, work: Callable, address: str | None = None):
        ray = self.ray = import_ray()
        self.started_here = not ray.is_initialized()
        if self.started_here:
            address = address or os.environ.get("RAY_ADDRESS") or "local"
            extra = {"num_cpus": max(slots or 1, os.cpu_count() or 1)} if address == "local" else {}
            ray.init(address=address, include_dashboard=False, log_to_driver=True, logging_level="WARNING",
                     **extra)
        self.slots = slots or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.actor_class = ray.remote(num_cpus=1, max_concurrency=2)(JobActor)
        self.work = work
        self.jobs: dict[str, tuple] = {}  # name -> (actor, the job's result ref)

    def running(self) -> list[str]:
        return list(self.jobs)

    def start(self, name: str, task) -> None:
        actor = self.actor_class.remote()
        self.jobs[name] = (actor, actor.run.remote(self.work, task))

    def poll(self, timeout: float) -> tuple[list[dict], list[tuple[str, str]]]:
        ray = self.ray
        if not self.jobs:
            time.sleep(timeout)
            return [], []
        refs = {ref: name for name, (_, ref) in self.jobs.items()}
        ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=timeout)
        got = [m for inbox in ray.get([a.messages.remote() for a, _ in self.jobs.values()]) for m in inbox]
        ended = []
        for ref in ready:
            name = refs[ref]
            actor, _ = self.jobs.pop(name)
            try:
                how = ray.get(ref)
            except Exception as e:  # a RayTaskError carries the job's traceback
                how = f"failed: {e}"
            got += ray.get(actor.messages.remote())
            ray.kill(actor)
            ended.append((name, how))
        return got, ended

    def stop(self, names: list[str]) -> None:
        for name in names:
            if name in self.jobs:
                self.jobs[name][0].stop.remote()

    def close(self) -> tuple[list[dict], list[tuple[str, str]]]:
        """Stop every job still running, wait until each has checkpointed and ended, and shut down a Ray
        started for this run."""
        got, ended = [], []
        try:
            self.stop(self.running())
            while self.jobs:
                g, e = self.poll(0.5)
                got += g
                ended += e
        finally:
            if self.started_here:
                self.ray.shutdown()
        return got, ended


class JobActor:
    """A Ray actor that runs one job and takes a stop request and progress looks while it runs."""

    def __init__(self):
        self.stopping = False
        self.inbox: list[dict] = []

    def run(self, work: Callable, task) -> str:
        return work(task, lambda: self.stopping, self.inbox.append)

    def stop(self) -> None:
        self.stopping = True

    def messages(self) -> list[dict]:
        got, self.inbox = self.inbox, []
        return got
