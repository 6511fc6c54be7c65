"""A line of Little-Go play solved backward toward the empty board, as a job that can stop and go on.

``scripts/solve_frontier.py`` is the command line; this module is the work.
A line of play from the empty board (``line_from_agent``: an agent playing
both sides; ``line_from_moves``: moves given as ``row,col`` points and PASS,
read by ``parse_moves``) is solved backward by ``FrontierRun``: first its
position with ``start_left`` actions to go, then the position one action
earlier, and so on toward the empty board (or ``end_left`` actions to go).
One ``Solver`` keeps its table between the searches, so each search starts
from what the later ones proved. The backward pass stops at the first search
that runs out of time (each may use all of the budget left, less a reserve)
or at the end. The earliest position of the line whose value is proved is
the deepest proved position; with the reserve, the run then proves the value
of every legal move there.

The results are one JSON-ready dict (``FrontierRun.out``: a row a position
with the value for Black, the line's move and whether it keeps the value,
and what the search cost; ``print_summary`` prints it as a table). The whole
run, with the solver's table and the search in progress, fits one checkpoint
file (``FrontierRun.save`` / ``FrontierRun.load``, format
``CHECKPOINT_FORMAT``), so a run stopped at any slice goes on where it
stopped. ``Progress`` prints progress lines with ``estimate``'s guess of the
time the search in progress still needs.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from tictacgo.atomic import atomic_write
from tictacgo.evaluation.solver_hints import network_best_moves, policy_hints
from tictacgo.games import littlego
from tictacgo.proof.combine import fmt_value
from tictacgo.protocol.coords import action_to_course, course_to_action
from tictacgo.solver import Solver, SolveResult
from tictacgo.solver.resumable import ResumableSearch, restore_table, table_arrays

CHECKPOINT_FORMAT = "tictacgo-solve-frontier-1"
_SLICE = 50_000  # positions between two looks at the clock and at a stop request


def parse_moves(text: str, n: int) -> list[int]:
    """Actions from text such as ``"2,2 1,2 PASS"`` (row,column points, PASS).

    Raises:
        ValueError: a move that is not ``row,col`` on the board or PASS.
    """
    out = []
    for word in text.replace(";", " ").split():
        if word.upper() == "PASS":
            out.append(n * n)
            continue
        out.append(course_to_action(word, n))
    return out


def line_from_moves(game: littlego.LittleGo, actions: list[int]) -> list[littlego.GoState]:
    """The states of a line given as actions, from the empty board (the last may be finished).

    Raises:
        ValueError: an illegal move, or moves after the end of the game.
    """
    states = [game.initial_state()]
    for k, a in enumerate(actions):
        s = states[-1]
        if s.end is not None:
            raise ValueError(f"move {k + 1} ({action_to_course(a, game.size)}) comes after the game's end")
        if a not in littlego.legal_actions(s):
            raise ValueError(f"move {k + 1} ({action_to_course(a, game.size)}) is illegal in that position")
        states.append(littlego.play(s, a))
    return states


def line_from_agent(
    game: littlego.LittleGo, spec: str, seed: int, opening: list[int] | tuple[int, ...] = ()
) -> tuple[list[littlego.GoState], list[int]]:
    """The states and actions of one game: the ``opening`` actions from the empty board, then the agent
    ``spec`` playing against itself to the end.

    Raises:
        ValueError: an illegal opening move, or one after the end of the game.
    """
    from tictacgo.baselines import make_agent

    states = line_from_moves(game, list(opening))
    actions = [int(a) for a in opening]
    agent = make_agent(spec, game, rng=np.random.default_rng(seed))
    agent.reset()
    while states[-1].end is None:
        actions.append(int(agent.act(states[-1])))
        states.append(littlego.play(states[-1], actions[-1]))
    return states, actions


def row(state: littlego.GoState, r: SolveResult, next_action: int | None) -> dict:
    """One proved (or unknown) position of the line, Black's view."""
    black = state.to_move == littlego.BLACK
    value = None if r.value is None else (r.value if black else -r.value)
    n = state.game.size
    return {
        "taken": state.t,
        "left": state.game.max_actions - state.t,
        "mover": "Black" if black else "White",
        "value_for_black": value,
        "best_move": None if r.best_move is None else action_to_course(r.best_move, n),
        "line_move": None if next_action is None else action_to_course(next_action, n),
        "nodes": r.nodes,
        "seconds": round(r.seconds, 3),
        "nodes_per_second": round(r.nodes_per_second),
        "hit_rate": round(r.hit_rate, 4),
    }


class FrontierRun:
    """The backward solve of a line (see the module docstring) as a job that can stop and go on.

    Everything it knows fits one checkpoint file (``save``/``load``): the
    results so far, the solver's table and the search in progress (its
    explicit stack), so a run stopped at any slice goes on with ``load``
    exactly where it stopped.
    """

    def __init__(self, states, actions, start_left, all_moves, table_bits, bounds=True, life=True,
                 end_left=None, hint_depth=0, line_first=False):
        game = states[0].game
        live = [k for k, s in enumerate(states) if s.end is None]
        self.states, self.actions = states, actions
        self.all_moves = all_moves
        self.solver = Solver(table_bits, bounds=bounds, life=life)
        self.k = min(max(game.max_actions - start_left, 0), live[-1])  # the next line position to solve
        self.phase = "line"  # then "moves" (every move at the deepest position), then "done"
        self.moves_todo: list[int] = []
        self.search: ResumableSearch | None = None
        self.elapsed = 0.0  # seconds spent by earlier sessions
        self._best_moves = None  # the network that gives the hints (made when first needed)
        self.out: dict = {
            "size": game.size,
            "komi": game.komi,
            "max_actions": game.max_actions,
            "line": [action_to_course(a, game.size) for a in actions],
            "start_left": start_left,
            "end_left": game.max_actions if end_left is None else end_left,
            "table_bits": table_bits,
            "bounds": bounds,
            "life": life,
            "hint_depth": hint_depth,
            "line_first": line_first,
            "positions": [],
            "deepest": None,
            "value_for_black": None,
            "moves_at_deepest": None,
        }

    def _hint(self, state) -> None:
        """The network's moves as the first tried within ``hint_depth`` actions of ``state``."""
        depth = self.out.get("hint_depth", 0)
        if depth:
            if self._best_moves is None:
                self._best_moves = network_best_moves()
            t0 = time.perf_counter()
            count = policy_hints(self.solver, state, depth, self._best_moves)
            print(f"  hints: the network's moves at {count:,} positions within {depth} actions "
                  f"({time.perf_counter() - t0:.1f} s)", flush=True)

    def _line_move_first(self, state) -> None:
        """With ``line_first``, try the line's own move first at a line position whose successor on
        the line is proved: the search then meets that proof at once (a table hit), where a hint that
        differs from the line's move would first search another move's whole subtree. It replaces
        the move of an entry the position already has (a hint, or an unfinished search's)."""
        proved = self.out["positions"] and self.out["positions"][-1]["value_for_black"] is not None
        if (self.out.get("line_first") and self.phase == "line" and proved
                and self.k < len(self.actions)):
            self.solver.hint(state, self.actions[self.k], replace=True)

    def extend_to(self, end_left: int) -> None:
        """Make the backward pass end at ``end_left`` actions to go; a run that had stopped (or was in
        its moves phase) short of that goes on along the line, and a search saved in the moves phase
        (about a move's position, not the line's) is dropped."""
        self.out["end_left"] = end_left
        if self.phase != "line" and self.k >= self.out["max_actions"] - end_left:
            self.phase, self.moves_todo, self.search = "line", [], None

    # The position the search in progress (or the next one) is about.
    def _target(self):
        if self.phase == "line":
            return self.states[self.k]
        return littlego.play(self.states[self.out["deepest"]], self.moves_todo[0])

    def run(self, budget, reserve=0.0, report=None, stop=None, checkpoint=None, every=600.0, progress=None):
        """Go on until done, the budget (seconds over all sessions) is spent, or ``stop()`` says so.

        Returns ``"done"``, ``"budget"`` or ``"stopped"``; ``checkpoint(self)``
        is called every ``every`` seconds and when stopped, ``progress(self)``
        after each slice (it decides itself how often to print).
        """
        start = time.perf_counter()
        last_save = start

        def spent():
            return self.elapsed + time.perf_counter() - start

        try:
            while self.phase != "done":
                if self.phase == "moves" and not self.moves_todo:
                    self.phase = "done"
                    break
                if self.phase == "line" and self.k < self.out["max_actions"] - self.out["end_left"]:
                    self._begin_moves()
                    continue
                state = self._target()
                if self.phase == "moves" and state.end is not None:
                    before = self.states[self.out["deepest"]]
                    self._record_move(self.moves_todo.pop(0), _finished(state, before))
                    if report:
                        report(self.out)
                    continue
                if self.search is None:
                    self._line_move_first(state)  # before the hints: a position keeps its first entry
                    self._hint(state)
                    self.search = ResumableSearch(self.solver, state)
                keep = reserve if self.phase == "line" and self.all_moves and self.k > 0 else 0.0
                t0 = time.perf_counter()
                finished = self.search.advance(_SLICE)
                self.search.seconds += time.perf_counter() - t0
                if progress:
                    progress(self)
                out_of_time = not finished and spent() >= budget - keep
                if finished or out_of_time:
                    self._record(self.search.result())
                    self.search = None
                    if report:
                        report(self.out)
                    if out_of_time and self.phase == "moves":
                        return "budget"
                    if out_of_time and not (self.all_moves and self.out["deepest"] is not None):
                        return "budget"
                if stop and stop():
                    return "stopped"
                if checkpoint and time.perf_counter() - last_save >= every:
                    checkpoint(self)
                    last_save = time.perf_counter()
            return "done"
        finally:
            self.elapsed = spent()

    def _record(self, r: SolveResult) -> None:
        if self.phase == "moves":
            self._record_move(self.moves_todo.pop(0), r)
            return
        state = self.states[self.k]
        entry = row(state, r, self.actions[self.k] if self.k < len(self.actions) else None)
        rows = self.out["positions"]
        later = rows[-1] if rows else None
        entry["line_move_keeps_value"] = (
            None if later is None or r.value is None else later["value_for_black"] == entry["value_for_black"]
        )
        rows.append(entry)
        if r.value is None:
            self._begin_moves()
            return
        self.out["deepest"] = self.k
        self.out["value_for_black"] = entry["value_for_black"]
        self.k -= 1

    def _begin_moves(self) -> None:
        d = self.out["deepest"]
        if not self.all_moves or d is None:
            self.phase = "done"
            return
        self.phase = "moves"
        self.moves_todo = list(littlego.legal_actions(self.states[d]))
        self.out["moves_at_deepest"] = {}

    def _record_move(self, a: int, r: SolveResult) -> None:
        d = self.states[self.out["deepest"]]
        black = d.to_move == littlego.BLACK
        # ``r`` is from the view of the player after the move: the opponent of the mover at ``d``.
        value = None if r.value is None else (-r.value if black else r.value)
        self.out["moves_at_deepest"][action_to_course(a, d.game.size)] = {
            "value_for_black": value,
            "nodes": r.nodes,
            "seconds": round(r.seconds, 3),
        }

    def save(self, path) -> None:
        """Write the whole run to ``path`` (an ``.npz`` of integer arrays and JSON text), atomically."""
        meta = {"out": self.out, "k": self.k, "phase": self.phase, "moves_todo": self.moves_todo,
                "elapsed": self.elapsed, "all_moves": self.all_moves,
                "search_seconds": None if self.search is None else self.search.seconds,
                "format": CHECKPOINT_FORMAT}
        arrays = {f"table_{f}": v for f, v in table_arrays(self.solver, self.states[0]).items()}
        if self.search is not None:
            arrays.update({f"search_{f}": v for f, v in self.search.arrays().items()})
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        atomic_write(path, lambda f: np.savez(f, **arrays), binary=True)

    @classmethod
    def load(cls, path) -> FrontierRun:
        """The run saved in ``path`` (see ``save``).

        Raises:
            ValueError: not a checkpoint of this script.
        """
        with np.load(path, allow_pickle=False) as z:
            meta = _meta(z, path)
            out = meta["out"]
            game = littlego.LittleGo(out["size"], out["komi"], out["max_actions"])
            actions = parse_moves(" ".join(out["line"]), out["size"])
            states = line_from_moves(game, actions)
            run = cls(states, actions, out["start_left"], meta["all_moves"], out["table_bits"], out["bounds"],
                      out["life"], out["end_left"], out.get("hint_depth", 0), out.get("line_first", False))
            run.out, run.k, run.phase, run.moves_todo = out, meta["k"], meta["phase"], meta["moves_todo"]
            run.elapsed = meta["elapsed"]
            restore_table(run.solver, states[0], {f[6:]: z[f] for f in z.files if f.startswith("table_")})
            if meta["search_seconds"] is not None:
                saved = {f[7:]: z[f] for f in z.files if f.startswith("search_")}
                run.search = ResumableSearch(run.solver, run._target(), saved, meta["search_seconds"])
        return run


def checkpoint_results(path) -> dict:
    """The results (``FrontierRun.out``) kept in the checkpoint ``path``, without loading its table.

    Raises:
        ValueError: not a checkpoint of this script.
    """
    with np.load(path, allow_pickle=False) as z:
        return _meta(z, path)["out"]


def _meta(z, path) -> dict:
    """The JSON part of an opened checkpoint, its format checked."""
    if "meta" not in z.files:
        raise ValueError(f"{path} is not a checkpoint of solve_frontier.py (no 'meta' entry)")
    meta = json.loads(z["meta"].tobytes().decode())
    if meta.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path}: checkpoint format {meta.get('format')!r}, expected {CHECKPOINT_FORMAT!r}")
    return meta


def solve_line(
    states: list[littlego.GoState],
    actions: list[int],
    start_left: int,
    budget: float,
    reserve: float,
    all_moves: bool,
    table_bits: int,
    report=None,
) -> dict:
    """Solve the line backward from ``start_left`` actions to go in one go (see the module docstring)."""
    run = FrontierRun(states, actions, start_left, all_moves, table_bits)
    run.out["budget_seconds"] = budget
    run.run(budget, reserve, report)
    return run.out


def _finished(state: littlego.GoState, before: littlego.GoState) -> SolveResult:
    """A finished game's result from the view of the player to move after it (the mover at ``before``'s
    opponent)."""
    b, w = littlego.scores(state)
    m = w - b if before.to_move == littlego.BLACK else b - w
    return SolveResult(1 if m > 0 else -1 if m < 0 else 0, None, None, 0, 0.0, 0, 0)


def print_summary(out: dict) -> None:
    n = out["size"]
    print(f"{n}x{n} (limit {out['max_actions']} actions, komi {out['komi']}), line: {' '.join(out['line'])}")
    print(
        f"{'taken':>5} {'left':>4} {'mover':>5}  {'value':<11} {'line move':>9} {'keeps':>5} "
        f"{'positions':>14} {'seconds':>9} {'per second':>11} {'hit rate':>8}"
    )
    for e in out["positions"]:
        keeps = {True: "yes", False: "no", None: "-"}[e["line_move_keeps_value"]]
        print(
            f"{e['taken']:5d} {e['left']:4d} {e['mover']:>5}  {fmt_value(e['value_for_black']):<11} "
            f"{e['line_move'] or '-':>9} {keeps:>5} {e['nodes']:14,d} {e['seconds']:9.2f} "
            f"{e['nodes_per_second']:11,d} {e['hit_rate']:8.2f}"
        )
    d = out["deepest"]
    if d is None:
        print("no position of the line was proved within the budget")
        return
    print(
        f"deepest proved: after {d} actions ({out['max_actions'] - d} to go): "
        f"{fmt_value(out['value_for_black'])}"
    )
    moves = out["moves_at_deepest"]
    if moves:
        known = {m: v for m, v in moves.items() if v["value_for_black"] is not None}
        print(f"every legal move there ({len(known)} of {len(moves)} proved):")
        for m, v in moves.items():
            print(
                f"  {m:>5}: {fmt_value(v['value_for_black']):<11} {v['nodes']:14,d} positions "
                f"{v['seconds']:9.2f} s"
            )


class Progress:
    """Progress lines on stderr every ``every`` seconds: the search in progress, its rate, an estimate."""

    def __init__(self, every: float):
        self.every = every
        self.last = time.perf_counter()

    def __call__(self, run: FrontierRun) -> None:
        now = time.perf_counter()
        if now - self.last < self.every or run.search is None:
            return
        self.last = now
        s = run.search
        rate = s.nodes / s.seconds if s.seconds > 0 else 0.0
        where = (f"after {run.k} actions ({run.out['max_actions'] - run.k} to go)" if run.phase == "line"
                 else f"move {action_to_course(run.moves_todo[0], run.out['size'])} at the deepest position")
        guess = (estimate(run.out["positions"], s.nodes, rate, run.out["max_actions"] - run.k)
                 if run.phase == "line" else "")
        print(f"[{time.strftime('%H:%M:%S')}] {where}: {s.nodes:,} positions in {s.seconds:,.0f} s "
              f"({rate:,.0f}/s); {guess}", file=sys.stderr, flush=True)


def estimate(rows: list[dict], nodes: int, rate: float, left: int | None = None) -> str:
    """A guess of the time the search in progress (``left`` actions to go) still needs: the last two
    searched positions' growth per action, carried on to ``left``.

    Positions the table all but answered (under ``MIN_SEARCHED`` positions, as when the line's next
    move is the winning one already proved) say nothing of the growth and are left out.
    """
    proved = [(e["left"], e["nodes"]) for e in rows
              if e["value_for_black"] is not None and e["nodes"] >= MIN_SEARCHED]
    if len(proved) < 2 or rate <= 0:
        return "no estimate yet (fewer than two positions searched)"
    (left1, n1), (left2, n2) = proved[-2], proved[-1]
    steps = max(left2 - left1, 1)
    growth = max((n2 / n1) ** (1 / steps), 1.0)
    ahead = max((left if left is not None else left2 + 1) - left2, 1)
    expected = n2 * growth ** ahead
    if nodes >= expected:
        return f"past the estimate ({expected:,.0f} positions at a growth of {growth:.1f}x per action)"
    return (f"estimate {(expected - nodes) / rate:,.0f} s more ({expected:,.0f} positions at a growth of "
            f"{growth:.1f}x per action)")


#: Fewer positions than this: a search the table all but answered (no measure of growth).
MIN_SEARCHED = 1000
