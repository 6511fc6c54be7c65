"""Where the subtree jobs run: worker processes on this machine, or Ray actors here or on a cluster.

``tictacgo.evaluation.subtree_jobs`` hands each job to a pool as plain data
(a ``JobTask``) and the pool runs the one job function (``run_job``) on it.
A pool has ``slots`` workers, started as they are first needed, each running
one job at a time and then the next, so a worker pays for its start (Python,
the package, the compiled solver) once:

* ``ProcessWorkers``: worker processes (multiprocessing, spawn context).
  ``stop`` asks one job to stop through a number the worker shares with the
  master (the job's: a request can never reach the worker's next job); the
  job checkpoints and ends. Workers start with SIGINT ignored, so a Ctrl-C
  on the terminal reaches the master alone, which stops them in order;
  SIGTERM to a worker stops its job and then the worker.
* ``RayWorkers``: Ray actors (one CPU each), in a Ray started for the run
  or at ``RAY_ADDRESS``; an actor runs two calls at once, the job and a
  stop request or a look at its progress messages. Ray is imported only
  here, only when this pool is made.

Both pass the jobs' progress messages (plain dicts) back to the master and
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


def _worker_main(work: Callable, inbox, messages, stop_seq) -> None:
    """A worker process: jobs from ``inbox`` one at a time until None comes.

    The job numbered ``stop_seq.value`` is asked to stop; SIGTERM to the process stops its job and then
    the process.
    """
    terminated: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: terminated.append(signum))
    while not terminated:
        item = inbox.get()
        if item is None:
            break
        seq, name, task = item
        try:
            how = work(task, lambda seq=seq: bool(terminated) or stop_seq.value == seq, messages.put)
        except Exception:  # the master reports the job as failed, with the traceback's last line
            traceback.print_exc()
            sys.stderr.flush()
            how = f"failed: {traceback.format_exc(limit=0).strip().splitlines()[-1]}"
        messages.put({"ended": name, "how": how})
    messages.close()
    messages.join_thread()  # every message out before the process ends


class ProcessWorkers:
    """Jobs in ``slots`` worker processes on this machine, each one job at a time (see the module
    docstring)."""

    def __init__(self, slots: int, work: Callable):
        self.slots = slots
        self.work = work
        self.ctx = multiprocessing.get_context("spawn")
        self.messages = self.ctx.Queue()
        self.procs: list[tuple] = []       # (process, inbox, stop_seq)
        self.busy: dict[str, tuple] = {}   # name -> (its worker, the job's number)
        self.seq = 0

    def running(self) -> list[str]:
        return list(self.busy)

    def _idle_worker(self) -> tuple:
        taken = {id(w) for w, _ in self.busy.values()}
        self.procs = [w for w in self.procs if id(w) in taken or w[0].is_alive()]  # a worker ended by SIGTERM
        for w in self.procs:
            if id(w) not in taken:
                return w
        inbox, stop_seq = self.ctx.Queue(), self.ctx.Value("q", 0)
        p = self.ctx.Process(target=_worker_main, args=(self.work, inbox, self.messages, stop_seq),
                             name=f"subtree worker {len(self.procs) + 1}")
        # Ignored signals survive exec: the worker starts deaf to the terminal's Ctrl-C.
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            p.start()
        finally:
            signal.signal(signal.SIGINT, old)
        w = (p, inbox, stop_seq)
        self.procs.append(w)
        return w

    def start(self, name: str, task) -> None:
        w = self._idle_worker()
        self.seq += 1
        self.busy[name] = (w, self.seq)
        w[1].put((self.seq, name, task))

    def poll(self, timeout: float) -> tuple[list[dict], list[tuple[str, str]]]:
        """(progress messages, (name, how it ended) of the jobs that ended), waiting up to ``timeout``."""
        got, ended = [], []
        for m in self._drain(timeout):
            if "ended" in m:
                if self.busy.pop(m["ended"], None) is not None:
                    ended.append((m["ended"], m["how"]))
            else:
                got.append(m)
        for name, (w, _) in list(self.busy.items()):
            if not w[0].is_alive():  # killed from outside without a word (out of memory, SIGKILL)
                del self.busy[name]
                self.procs.remove(w)
                ended.append((name, f"failed: its worker process died (exit status {w[0].exitcode})"))
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
        """Ask these jobs to checkpoint and end; ``poll`` then reports them."""
        for name in names:
            if name in self.busy:
                (_, _, stop_seq), seq = self.busy[name]
                stop_seq.value = seq

    def close(self) -> tuple[list[dict], list[tuple[str, str]]]:
        """Stop every job still running, wait until each has checkpointed and ended, end the workers."""
        self.stop(self.running())
        got, ended = [], []
        while self.busy:
            g, e = self.poll(0.2)
            got += g
            ended += e
        for p, inbox, _ in self.procs:
            if p.is_alive():
                inbox.put(None)
        for p, _, _ in self.procs:
            while p.is_alive():
                got += [m for m in self._drain(0.1) if "ended" not in m]  # a full pipe would hold it up
            p.join()
        self.procs = []
        return got, ended


def import_ray():
    """Ray, or an error that names the extra that installs it."""
    from tictacgo.validate import check_installed

    check_installed("ray", "--ray (the subtree jobs on Ray)", "ray")
    import ray

    return ray


class RayWorkers:
    """Jobs in ``slots`` Ray actors (one CPU each), or as many as the cluster has CPUs.

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
        self.actors: list = []
        self.busy: dict[str, tuple] = {}  # name -> (actor, the job's number, its result)
        self.seq = 0

    def running(self) -> list[str]:
        return list(self.busy)

    def start(self, name: str, task) -> None:
        taken = {id(a) for a, _, _ in self.busy.values()}
        actor = next((a for a in self.actors if id(a) not in taken), None)
        if actor is None:
            actor = self.actor_class.remote()
            self.actors.append(actor)
        self.seq += 1
        self.busy[name] = (actor, self.seq, actor.run.remote(self.work, task, self.seq))

    def poll(self, timeout: float) -> tuple[list[dict], list[tuple[str, str]]]:
        ray = self.ray
        if not self.busy:
            time.sleep(timeout)
            return [], []
        refs = {ref: name for name, (_, _, ref) in self.busy.items()}
        ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=timeout)
        got = [m for inbox in ray.get([a.messages.remote() for a in self.actors]) for m in inbox]
        ended = []
        for ref in ready:
            name = refs[ref]
            del self.busy[name]
            try:
                how = ray.get(ref)
            except Exception as e:  # a RayTaskError carries the job's traceback
                how = f"failed: {e}"
            ended.append((name, how))
        if ended:
            got += [m for inbox in ray.get([a.messages.remote() for a in self.actors]) for m in inbox]
        return got, ended

    def stop(self, names: list[str]) -> None:
        for name in names:
            if name in self.busy:
                actor, seq, _ = self.busy[name]
                actor.stop.remote(seq)

    def close(self) -> tuple[list[dict], list[tuple[str, str]]]:
        """Stop every job still running, wait until each has checkpointed and ended, and shut down a Ray
        started for this run."""
        got, ended = [], []
        try:
            self.stop(self.running())
            while self.busy:
                g, e = self.poll(0.5)
                got += g
                ended += e
            for actor in self.actors:
                self.ray.kill(actor)
            self.actors = []
        finally:
            if self.started_here:
                self.ray.shutdown()
        return got, ended


class JobActor:
    """A Ray actor that runs jobs one at a time and takes stop requests and progress looks meanwhile."""

    def __init__(self):
        self.stop_seq = 0
        self.inbox: list[dict] = []

    def run(self, work: Callable, task, seq: int) -> str:
        return work(task, lambda: self.stop_seq == seq, self.inbox.append)

    def stop(self, seq: int) -> None:
        self.stop_seq = seq

    def messages(self) -> list[dict]:
        got, self.inbox = self.inbox, []
        return got
