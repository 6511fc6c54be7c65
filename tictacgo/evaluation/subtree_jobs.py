"""A Little-Go position solved as one job for each of its moves, on every core or on Ray, for days.

``scripts/solve_subtrees.py`` is the command line; this module is the work.
The root is the position after an opening (moves from the empty board). Its
legal actions (PASS included) fall into classes of moves whose positions are
images of each other under the board's 8 symmetries (the solver's
canonical position code, ``tictacgo.proof.position_code.canonical``): after
the centre ``2,2`` on 5x5 the 24 placements make 5 classes, and PASS is a
sixth. Each class is a **job**: the value of one of its moves (the first in
row-major order), proved by a ``FrontierRun`` (``tictacgo.evaluation.frontier``)
whose line is the opening, that move and the line agent's play to the end,
solved backward from ``start_left`` actions to go up to the move's position.

The master (``SubtreeRun``) hands the jobs to a pool of workers
(``tictacgo.evaluation.subtree_workers``: processes here, or Ray actors),
the class of the line agent's own move first (where the mover's win is most
likely), then the others in row-major order of their moves, PASS last. It
combines the values as they come: the mover wins as soon as one move wins
(the jobs still running are stopped: they checkpoint and end), and
otherwise gets the best of the values once every job is proved.

What the jobs share: each finished job's value is in ``status.json`` and its
results file, and a run started again never searches a proved job again.
Each worker's solver has its own table; with ``share_tables`` a new job's
table starts as the table in the checkpoint of the latest proved job
(``seed_table``), so what that job proved deeper down (the same stones
played in another order) is found, not searched again. Jobs running at the
same time share nothing. Seeding a job with its siblings' root values alone
would gain nothing: every position of a job's tree has more actions taken
than its root, so no sibling's root is ever in it.

The files, in one folder:

* ``run.json``: the settings (opening, size, seed, line agent, start-left,
  hint depth, table bits), written at the start; a run with other settings
  in the same folder is refused.
* ``jobs/<name>.npz`` and ``jobs/<name>.json``: each job's checkpoint and
  results, exactly ``solve_frontier.py``'s (``<name>``: the move with ``-``
  for ``,``, such as ``2-3``, or ``pass``). ``solve_frontier.py --checkpoint
  jobs/2-3.npz --resume`` goes on with a job by hand, and a job begun by
  hand under the name of any move of its class (its line through that move
  or an image of it) is taken up as it is, under that name.
* ``status.json``: every job's moves, state (waiting, running, proved, or
  unknown: not needed once the root was decided), value, positions and
  seconds, and the root's value once decided.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from tictacgo.atomic import atomic_write_json
from tictacgo.evaluation.frontier import (
    FrontierRun,
    checkpoint_results,
    estimate,
    line_from_agent,
    line_from_moves,
    parse_moves,
)
from tictacgo.games import littlego
from tictacgo.proof.combine import fmt_value
from tictacgo.proof.position_code import Code, canonical, image
from tictacgo.protocol.coords import action_to_course
from tictacgo.solver.resumable import restore_table

RUN_FORMAT = "tictacgo-solve-subtrees-1"


@dataclass(frozen=True)
class Settings:
    """What a run proves and how: kept in ``run.json``; a folder holds the jobs of one set of settings."""

    opening: str = ""  # the root's moves from the empty board ("2,2 PASS"); "": the empty board
    size: int = 5
    seed: int = 0
    line: str = "az"
    start_left: int = 12
    hint_depth: int = 0
    table_bits: int = 24

    def root(self) -> littlego.GoState:
        """The root position.

        Raises:
            ValueError: a move that is not ``row,col`` or PASS, an illegal opening, or a finished root.
        """
        game = littlego.LittleGo(self.size)
        try:
            state = line_from_moves(game, parse_moves(self.opening, self.size))[-1]
        except ValueError as e:
            raise ValueError(f"opening {self.opening!r}: {e}") from None
        if state.end is not None:
            raise ValueError(f"the position after the opening {self.opening!r} is finished ({state.end}): "
                             "expected a position with moves left to solve")
        return state


def make_settings(opening: str = "", size: int = 5, seed: int = 0, line: str = "az", start_left: int = 12,
                  hint_depth: int = 0, table_bits: int = 24) -> Settings:
    """Settings with the opening written one way (``"2,2 PASS"``), each value checked.

    Raises:
        ValueError: a bad value, named.
    """
    if not 2 <= size <= 7:
        raise ValueError(f"size must be 2..7, got {size}")
    if start_left < 1 or hint_depth < 0 or not 8 <= table_bits <= 34:
        raise ValueError(f"expected start-left >= 1, hint depth >= 0 and table bits in 8..34, got "
                         f"{start_left}, {hint_depth} and {table_bits}")
    settings = Settings(normal_moves(opening, size), size, seed, line, start_left, hint_depth, table_bits)
    settings.root()  # an illegal opening or a finished root is refused here
    return settings


def normal_moves(text: str, size: int) -> str:
    """Moves written one way: ``"2,2 pass"`` -> ``"2,2 PASS"``.

    Raises:
        ValueError: a move that is not ``row,col`` on the board or PASS.
    """
    try:
        return " ".join(action_to_course(a, size) for a in parse_moves(text, size))
    except ValueError as e:
        raise ValueError(f"opening {text!r}: {e}") from None


def open_folder(folder: str | os.PathLike, settings: Settings | None) -> Settings:
    """The run's settings in ``folder``: those of ``run.json`` there, which ``settings`` must match, or
    ``settings`` written there for a new run (with the ``jobs`` folder).

    Args:
        folder: the run's folder.
        settings: the settings asked for (None: go on with the folder's run, whatever its settings).

    Raises:
        ValueError: settings other than the folder's run's (the differences named), nothing to go on
            with, or a ``run.json`` that is not a run's.
    """
    folder = Path(folder)
    path = folder / "run.json"
    if path.exists():
        saved = read_settings(path)
        if settings is not None and settings != saved:
            diff = "; ".join(f"{f.name} {getattr(saved, f.name)!r} there, {getattr(settings, f.name)!r} here"
                             for f in fields(Settings) if getattr(saved, f.name) != getattr(settings, f.name))
            raise ValueError(f"{path} holds a run with other settings ({diff}): use another folder, or "
                             "go on with that run as it is (--resume)")
        (folder / "jobs").mkdir(exist_ok=True)
        return saved
    if settings is None:
        raise ValueError(f"nothing to go on with in {os.fspath(folder)!r}: no run.json there")
    (folder / "jobs").mkdir(parents=True, exist_ok=True)
    atomic_write_json(path, {"format": RUN_FORMAT, **asdict(settings)}, indent=1)
    return settings


def read_settings(path: str | os.PathLike) -> Settings:
    """The settings in a run's ``run.json``.

    Raises:
        ValueError: not a run's ``run.json``.
    """
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read {os.fspath(path)!r}: {e}") from None
    if not isinstance(data, dict) or data.get("format") != RUN_FORMAT:
        got = data.get("format") if isinstance(data, dict) else None
        raise ValueError(f"{os.fspath(path)!r} is not the run.json of solve_subtrees.py (format {got!r}, "
                         f"expected {RUN_FORMAT!r})")
    try:
        return make_settings(**{f.name: data[f.name] for f in fields(Settings)})
    except (KeyError, TypeError) as e:
        raise ValueError(f"{os.fspath(path)!r}: missing or bad setting ({e})") from None


@dataclass(frozen=True)
class Job:
    """One class of the root's moves: their positions are images of each other, so one value for all."""

    name: str                 # the file name of its checkpoint and results: "2-3", "pass"
    action: int               # the move whose line the job solves: the class's first in row-major order
    members: tuple[int, ...]  # every move of the class
    key: tuple                # the class's position, as the smallest code of its images

    def moves(self, n: int) -> list[str]:
        return [action_to_course(a, n) for a in self.members]


def job_name(action: int, n: int) -> str:
    """A move as a file name: ``2-3`` for ``2,3``, ``pass`` for PASS."""
    return action_to_course(action, n).replace(",", "-").lower()


def position_key(state: littlego.GoState) -> tuple:
    """The same for two positions that are images of each other under the board's symmetries.

    A live position's is its canonical code; a finished game's (no code: it has no moves) the smallest
    image of its stones, which decide its score.
    """
    if state.end is None:
        return ("live", canonical(state)[0])
    code = Code(state.black, state.white, -1, state.t, bool(state.last_pass), state.to_move)
    return ("over", min(image(code, s, state.game.size)[:2] for s in range(8)))


def subtree_jobs(root: littlego.GoState, first: int | None = None) -> list[Job]:
    """The root's legal actions as jobs, one a class of symmetric moves, in the order they are run.

    Args:
        root: a live position.
        first: a move whose class goes first (the line agent's); the others follow in row-major order
            of their first moves, PASS last.
    """
    n = root.game.size
    classes: dict[tuple, list[int]] = {}
    for a in littlego.legal_actions(root):
        classes.setdefault(position_key(littlego.play(root, a)), []).append(int(a))
    jobs = [Job(job_name(m[0], n), m[0], tuple(m), key) for key, m in classes.items()]
    jobs.sort(key=lambda j: (first not in j.members, j.action))
    return jobs


def named_by_files(folder: str | os.PathLike, job: Job, n: int) -> Job:
    """The job under the name of the first of its moves that has files in ``folder`` (a job begun by hand
    under any move of its class), or as it is when none has."""
    for a in job.members:
        name = job_name(a, n)
        if any(p.exists() for p in job_files(folder, name)):
            return replace(job, name=name, action=a)
    return job


def line_agents_move(settings: Settings, root: littlego.GoState) -> int:
    """The move the line agent (seeded as the jobs' lines are) plays at the root."""
    from tictacgo.baselines import make_agent

    agent = make_agent(settings.line, root.game, rng=np.random.default_rng(settings.seed))
    agent.reset()
    return int(agent.act(root))


def job_files(folder: str | os.PathLike, name: str) -> tuple[Path, Path]:
    """(checkpoint, results) of the job ``name`` in a run's folder."""
    jobs = Path(folder) / "jobs"
    return jobs / f"{name}.npz", jobs / f"{name}.json"


def job_results(folder: str | os.PathLike, job: Job, root: littlego.GoState) -> dict | None:
    """The job's results so far (``FrontierRun.out``: from its results file, else its checkpoint), or
    None where it has neither; checked to be of the job's position.

    Raises:
        ValueError: files that are not solve_frontier's, or of a line that does not pass through the
            job's move (or an image of it), or that never reaches it.
    """
    npz, js = job_files(folder, job.name)
    if js.exists():
        try:
            out = json.loads(js.read_text())
        except ValueError as e:
            raise ValueError(f"{js} is not the results of solve_frontier.py: {e}") from None
        path = js
    elif npz.exists():
        out, path = checkpoint_results(npz), npz
    else:
        return None
    check_results(out, job, root, path)
    return out


def check_results(out: dict, job: Job, root: littlego.GoState, path) -> None:
    """Refuse a frontier run (its ``out``) that does not solve the job's position (see ``job_results``)."""
    game = root.game
    try:
        variant = (out["size"], out["komi"], out["max_actions"])
        line = out["line"]
        start_left = out["start_left"]
    except (KeyError, TypeError):
        raise ValueError(f"{path} is not the results of solve_frontier.py (no size, komi, max_actions, "
                         "line or start_left)") from None
    if variant != (game.size, game.komi, game.max_actions):
        raise ValueError(f"{path} is a run of size {variant[0]}, komi {variant[1]}, {variant[2]} actions; "
                         f"this run's game is size {game.size}, komi {game.komi}, {game.max_actions} actions")
    t = root.t + 1
    try:
        states = line_from_moves(game, parse_moves(" ".join(line), game.size))
    except ValueError as e:
        raise ValueError(f"{path}: its line is not a game here ({e})") from None
    if len(states) <= t or position_key(states[t]) != job.key:
        raise ValueError(f"{path} is a run of another line: its position after {t} actions is not the one "
                         f"after the opening and {', '.join(job.moves(game.size))} (or an image of it); "
                         "move it away")
    live = [k for k, s in enumerate(states) if s.end is None]
    first = min(max(game.max_actions - start_left, 0), live[-1]) if live else -1
    if first < t and states[t].end is None:
        raise ValueError(f"{path} starts {game.max_actions - first} actions from the end, before the job's "
                         f"position ({game.max_actions - t} to go): it never solves that position")


def proved_value(out: dict | None, t: int) -> int | None:
    """The value for Black that a frontier run's results prove at the position after ``t`` actions."""
    if out is None:
        return None
    for row in reversed(out.get("positions", [])):
        if row.get("taken") == t and row.get("value_for_black") is not None:
            return int(row["value_for_black"])
    return None


def finished_value(state: littlego.GoState) -> int:
    """A finished game's value for Black: its stones against White's and komi."""
    b, w = littlego.scores(state)
    return 1 if b > w else -1 if b < w else 0


@dataclass(frozen=True)
class JobTask:
    """Everything a worker needs for one job, as plain data (it goes to another process or node)."""

    name: str
    checkpoint: str
    results: str
    size: int
    moves: tuple[int, ...]  # the opening and the job's move
    line: str
    seed: int
    start_left: int
    hint_depth: int
    table_bits: int
    every: float      # seconds between two checkpoints
    progress: float   # seconds between two progress messages
    seed_table: str | None = None  # a proved sibling's checkpoint: a new job's table starts as its table


def run_job(task: JobTask, stop, tell) -> str:
    """Prove one job's value: its checkpoint taken up (or its line played) and solved backward to the job's
    position, checkpointed every ``task.every`` seconds and when stopped.

    Args:
        task: the job.
        stop: called between slices of the search; True asks the job to checkpoint and end.
        tell: takes the job's progress messages (dicts).

    Returns:
        ``"done"`` (the position is proved) or ``"stopped"``.
    """
    npz, js = Path(task.checkpoint), Path(task.results)
    game = littlego.LittleGo(task.size)
    t = len(task.moves)
    left = game.max_actions - t
    if npz.exists():
        run = FrontierRun.load(npz)
        aim_at(run, t)
    else:
        states, actions = line_from_agent(game, task.line, task.seed, list(task.moves))
        run = FrontierRun(states, actions, min(task.start_left, left), False, task.table_bits, end_left=left,
                          hint_depth=task.hint_depth)
        if task.seed_table:
            seed_table(run, task.seed_table)
    run.out["budget_seconds"] = None
    load = os.getloadavg()[0]
    last = [0.0]

    def write(out: dict) -> None:
        atomic_write_json(js, {**out, "load_average_at_start": load}, indent=1)

    def progress(r: FrontierRun) -> None:
        now = time.perf_counter()
        if now - last[0] >= task.progress and r.search is not None:
            last[0] = now
            tell(search_message(task.name, r))

    def report(out: dict) -> None:
        write(out)
        tell(search_message(task.name, run))

    how = run.run(math.inf, 0.0, report, stop=stop, checkpoint=lambda r: r.save(npz), every=task.every,
                  progress=progress)
    run.save(npz)
    write(run.out)
    tell(search_message(task.name, run))
    return "done" if how == "done" else "stopped"


def seed_table(run: FrontierRun, path: str) -> None:
    """Start a new run's table as the table kept in another run's checkpoint (of the same size).

    Every entry is a proved bound on a position's value (or a move to try first), true in any search of
    the same game, so the new run finds its positions that the other run proved without searching them.
    """
    with np.load(path, allow_pickle=False) as z:
        arrays = {f[6:]: z[f] for f in z.files if f.startswith("table_")}
    restore_table(run.solver, run.states[0], arrays)


def aim_at(run: FrontierRun, t: int) -> None:
    """Make a taken-up run end at the position after ``t`` actions, with no moves phase after it."""
    run.all_moves = False
    run.extend_to(run.out["max_actions"] - t)


def search_message(name: str, run: FrontierRun) -> dict:
    """What the master shows of a running job: the positions proved so far and the search in progress."""
    rows = run.out["positions"]
    proved = [e for e in rows if e["value_for_black"] is not None]
    msg: dict[str, Any] = {"name": name, "positions": sum(e["nodes"] for e in proved),
                           "seconds": sum(e["seconds"] for e in proved), "search": None}
    s = run.search
    if s is not None and run.phase == "line":
        rate = s.nodes / s.seconds if s.seconds > 0 else 0.0
        left = run.out["max_actions"] - run.k
        msg["search"] = {"to_go": left, "positions": s.nodes, "seconds": round(s.seconds, 1),
                         "rate": round(rate), "estimate": estimate(rows, s.nodes, rate, left)}
    return msg


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold the run's folder for one master at a time.

    Raises:
        ValueError: another master holds it.
    """
    import fcntl

    with (folder / "master.lock").open("a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ValueError(f"another solve_subtrees.py is running on {os.fspath(folder)!r}") from None
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def root_value(root: littlego.GoState, values: list[int | None]) -> int | None:
    """The root's value for Black from its moves' values for Black (None: not proved yet), or None while
    undecided: the mover wins once one move wins, else gets the best value once every move is proved."""
    sign = 1 if root.to_move == littlego.BLACK else -1
    mover = [None if v is None else sign * v for v in values]
    if 1 in mover:
        return sign
    if None in mover or not mover:
        return None
    return sign * max(mover)


class SubtreeRun:
    """The master of a run (see the module docstring): jobs out to workers, values in, ``status.json``.

    Args:
        folder: the run's folder (``open_folder`` has made it).
        settings: the run's settings.
        workers: jobs at once (None: the CPU count; with Ray, the cluster's CPUs).
        use_ray: run the jobs as Ray actors instead of processes here.
        every: seconds between two checkpoints of a job.
        progress: seconds between two progress lines.
        share_tables: start each new job's table as the latest proved job's (see ``seed_table``).
        out: where progress lines and results go.
    """

    def __init__(self, folder, settings: Settings, workers: int | None = None, use_ray: bool = False,
                 every: float = 600.0, progress: float = 60.0, share_tables: bool = True, out=sys.stdout):
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.folder, self.settings = Path(folder), settings
        self.workers, self.use_ray, self.out = workers, use_ray, out
        self.every, self.progress = every, progress
        self.root = settings.root()
        n = self.root.game.size
        self.jobs = [named_by_files(folder, j, n)
                     for j in subtree_jobs(self.root, line_agents_move(settings, self.root))]
        to_go = self.root.game.max_actions - self.root.t - 1
        self.info = {j.name: {"name": j.name, "moves": j.moves(n), "to_go": to_go, "state": "waiting",
                              "value_for_black": None, "positions": 0, "seconds": 0.0, "search": None}
                     for j in self.jobs}
        self.failure: str | None = None
        self.stopping: str | None = None  # set once the master stops the jobs itself
        self.share_tables = share_tables
        self.seed: str | None = None  # the checkpoint whose table new jobs start from

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    # --- what is known -------------------------------------------------------------------------
    def take_files(self) -> None:
        """Every job's value from its files (a finished game's from its score)."""
        for job in self.jobs:
            child = littlego.play(self.root, job.action)
            info = self.info[job.name]
            if child.end is not None:
                info.update(state="proved", value_for_black=finished_value(child))
                continue
            out = job_results(self.folder, job, self.root)
            self._take_results(info, out)
            if info["state"] == "proved":
                self._offer_table(job, out)

    def _take_results(self, info: dict, out: dict | None) -> None:
        if out is None:
            return
        rows = [e for e in out.get("positions", []) if e.get("value_for_black") is not None]
        # A stopped job's last progress message also counted its search in progress: keep the larger.
        info["positions"] = max(info["positions"], sum(e["nodes"] for e in rows))
        info["seconds"] = max(info["seconds"], round(sum(e["seconds"] for e in rows), 3))
        value = proved_value(out, self.root.t + 1)
        if value is not None:
            info.update(state="proved", value_for_black=value, search=None)

    def value(self) -> int | None:
        return root_value(self.root, [self.info[j.name]["value_for_black"] for j in self.jobs])

    def status(self) -> dict:
        value = self.value()
        sign = 1 if self.root.to_move == littlego.BLACK else -1
        deciding = [j.name for j in self.jobs if value is not None
                    and self.info[j.name]["value_for_black"] == value and sign * value == 1]
        s = self.settings
        return {"settings": asdict(s), "root": {
                    "opening": s.opening, "to_move": "Black" if sign == 1 else "White",
                    "to_go": self.root.game.max_actions - self.root.t, "value_for_black": value,
                    "decided_by": deciding or None},
                "jobs": list(self.info.values()),
                "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "load_average": round(os.getloadavg()[0], 2)}

    def write_status(self) -> None:
        atomic_write_json(self.folder / "status.json", self.status(), indent=1)

    # --- the run -------------------------------------------------------------------------------
    def task(self, job: Job) -> JobTask:
        npz, js = job_files(self.folder, job.name)
        s = self.settings
        return JobTask(job.name, os.fspath(npz), os.fspath(js), s.size, tuple(self._moves()) + (job.action,),
                       s.line, s.seed, s.start_left, s.hint_depth, s.table_bits, self.every,
                       max(0.2, min(self.progress, 5.0)), self.seed if self.share_tables else None)

    def _offer_table(self, job: Job, out: dict) -> None:
        """A proved job's checkpoint becomes the table later jobs start from (the latest proved of the
        run's table size)."""
        npz = job_files(self.folder, job.name)[0]
        if out.get("table_bits") == self.settings.table_bits and npz.exists():
            if self.seed is None or npz.stat().st_mtime >= Path(self.seed).stat().st_mtime:
                self.seed = os.fspath(npz)

    def _moves(self) -> list[int]:
        return parse_moves(self.settings.opening, self.settings.size)

    def pool(self):
        from tictacgo.evaluation.subtree_workers import ProcessWorkers, RayWorkers

        if self.use_ray:
            return RayWorkers(self.workers, run_job)
        return ProcessWorkers(self.workers or os.cpu_count() or 1, run_job)

    def run(self, stop=lambda: False) -> str:
        """Prove jobs until the root is decided or ``stop()`` says so; the jobs running then checkpoint.

        Returns:
            ``"decided"`` or ``"stopped"``.

        Raises:
            RuntimeError: a job failed (the others are stopped and kept first).
        """
        with folder_lock(self.folder):
            return self._run(stop)

    def _run(self, stop) -> str:
        self.take_files()
        todo = [j for j in self.jobs if self.info[j.name]["state"] != "proved"]
        how = "decided"
        if self.value() is None:
            pool = self.pool()
            self.say(f"{len(self.jobs)} jobs ({len(self.jobs) - len(todo)} proved already), "
                     f"{pool.slots} at once, {'on Ray' if self.use_ray else 'in worker processes'}")
            last_line = time.perf_counter()
            try:
                while self.failure is None and self.value() is None:
                    if stop():
                        how = self.stopping = "stopped"
                        break
                    while todo and len(pool.running()) < pool.slots:
                        job = todo.pop(0)
                        pool.start(job.name, self.task(job))
                        self.info[job.name]["state"] = "running"
                        self.say(f"started {job.name} ({' '.join(job.moves(self.root.game.size))})")
                        self.write_status()
                    if not pool.running():
                        break
                    if time.perf_counter() - last_line >= self.progress:
                        last_line = time.perf_counter()
                        self.say(self.progress_line())
                        self.write_status()
                    self._take(*pool.poll(0.2))
            finally:
                self._take(*pool.close())
        for info in self.info.values():
            if info["state"] != "proved":
                info["state"] = "unknown" if self.value() is not None else "waiting"
                info["search"] = None
        self.write_status()
        if self.failure:
            raise RuntimeError(self.failure)
        return how

    def _take(self, messages: list[dict], ended: list[tuple[str, str]]) -> None:
        for m in messages:
            info = self.info[m["name"]]
            if info["state"] == "running":
                info.update(positions=m["positions"] + (m["search"] or {}).get("positions", 0),
                            seconds=round(m["seconds"] + (m["search"] or {}).get("seconds", 0), 3),
                            search=m["search"])
        for name, how in ended:
            job = next(j for j in self.jobs if j.name == name)
            info = self.info[name]
            info["search"] = None
            try:
                out = job_results(self.folder, job, self.root)
                self._take_results(info, out)
            except ValueError as e:
                how = f"failed: {e}"
            if info["state"] == "proved":
                self._offer_table(job, out)
                self.say(f"proved {name}: {fmt_value(info['value_for_black'])} "
                         f"({info['positions']:,} positions, {info['seconds']:,.1f} s)")
            else:
                info["state"] = "waiting"
                if how == "done":
                    how = "ended unproved"
                elif how == "stopped" and not self.stopping and self.value() is None:
                    how = "was stopped by someone else (a signal to its worker?)"
                if how != "stopped":
                    self.failure = self.failure or f"job {name} {how}"
            self.write_status()

    def progress_line(self) -> str:
        states = [i["state"] for i in self.info.values()]
        parts = [f"[{time.strftime('%H:%M:%S')}] {states.count('proved')} of {len(states)} jobs proved, "
                 f"{states.count('running')} running"]
        for i in self.info.values():
            s = i["search"]
            if i["state"] == "running" and s:
                parts.append(f"  {i['name']}: {s['to_go']} to go, {s['positions']:,} positions in "
                             f"{s['seconds']:,.0f} s ({s['rate']:,}/s); {s['estimate']}")
        return "\n".join(parts)

    def summary(self) -> str:
        n = self.root.game.size
        lines = [f"{'job':>6} {'moves':<28} {'state':<8} {'value':<11} {'positions':>14} {'seconds':>9}"]
        for i in self.info.values():
            lines.append(f"{i['name']:>6} {' '.join(i['moves']):<28} {i['state']:<8} "
                         f"{fmt_value(i['value_for_black']):<11} {i['positions']:14,d} {i['seconds']:9.1f}")
        opening = self.settings.opening or "the empty board"
        mover = "Black" if self.root.to_move == littlego.BLACK else "White"
        lines.append(f"{n}x{n}, after {opening} ({mover} to move): {fmt_value(self.value())}")
        return "\n".join(lines)
