"""The course player for Little-Go backed by any registered agent (``tictacgo my-player``).

The course host runs its player once per move in a working directory:

    tictacgo my-player --agent alphabeta:depth=2 --dir .

reads ``input.txt`` there (colour to move, previous board, current board;
see ``tictacgo.protocol.course``), rebuilds the full rules state with the ko
point from the previous and current boards, asks the agent for a move and
writes ``output.txt``: one line, ``i,j`` or ``PASS``, nothing else.

Move count: ``input.txt`` does not carry it, so the state's ``t`` is
estimated from the stones on the board (``course.estimate_t``); agents that
look at the moves left see that estimate.

Time: the course allows 10 seconds of CPU time per move. ``--time-budget``
(default 9.0 s) is the CPU time this command may use from the moment it
starts its work (reading input.txt; loading the agent counts), which leaves
about a second for the interpreter's start-up and exit. An
agent whose factory takes a ``time`` parameter gets what is left of it (less
a safety margin) unless the spec sets ``time`` itself. As a guard, a CPU-time
timer (``ITIMER_PROF``, where the platform has it) interrupts an agent that
overruns the budget; a legal fallback move (a random legal placement, PASS
if there is none) is then written and a warning printed on stderr.

Cold start: agents built on numba kernels (``championship``, ``solver``,
``perfect``) compile them the first time they run on a machine and keep them
in numba's disk cache (``__pycache__`` beside the package's files, or, where
that folder is not writable, the user's cache folder, or ``$NUMBA_CACHE_DIR``);
a later process loads them in a fraction of a second. The first compile can
take longer than a move: ``tictacgo my-player --agent SPEC --warm-up`` does it
once ahead (see ``warm_up``). The agent's search time is what is left of the
budget after the agent is built (``_after_build``).

Errors: a malformed or inconsistent ``input.txt`` (wrong line count, bad
characters, colour not 1 or 2, boards that no single legal action connects),
an unknown agent or an agent failure gives a message on stderr and exit
status 1 (2 for bad arguments: those argparse refuses, an unknown agent or
parameter, ``--dir`` that is not a folder, a negative seed, a time budget
that is not a finite positive number), and leaves NO ``output.txt`` in the
directory: a stale one from an earlier move is removed, so the host sees
"no answer" rather than an answer to some other position. An ``output.txt``
that is not a file (a folder, a named pipe) is left alone and reported
(exit 1): the answer cannot be written there.

Move count, remembered: after each answer the command writes
``tictacgo_moves.json`` beside ``output.txt`` (the colour it played, the
actions played before its move and the board its move left). When the next
``input.txt`` of the same folder continues that game (the same colour to
move, and its previous board is the board that answer left), the count is
that one plus two (its own action and the opponent's), exact through passes
and captures, where the estimate can be off; otherwise (a new game, another
folder, a file that is not ours) the estimate is used. Positions the proof's
book holds are keyed by the count, so the ``perfect`` agent needs it exact.

Seeding: ``--seed S`` (a non-negative int); without it the ``TICTACGO_SEED``
environment variable is used if set (``tictacgo host --seed`` sets it), else
fresh entropy.
"""

from __future__ import annotations

import json
import math
import os
import signal
import stat
import sys
import time
from pathlib import Path

import numpy as np

from tictacgo.atomic import atomic_write_json
from tictacgo.games import littlego
from tictacgo.protocol import course

SEED_ENV = "TICTACGO_SEED"
# CPU seconds kept back from the budget for writing output.txt and exiting.
SAFETY_MARGIN = 0.5
# Names a factory may give its per-move time parameter, in order of preference.
TIME_PARAMS = ("time", "time_limit", "time_budget")


class _OutOfTime(BaseException):
    """Raised by the CPU-time guard; a BaseException so agents' ``except Exception`` lets it through."""


def _time_param(name: str) -> str | None:
    """The name of agent ``name``'s time parameter, if its factory has one by name."""
    # Imported here, not at the top: the registry is part of loading the agent, which the move's
    # CPU budget counts from the start of ``answer_move`` (``start_cpu``).
    from tictacgo.baselines import registry

    params = registry.agent_parameters(name)
    return next((p for p in TIME_PARAMS if p in params), None)


def build_agent(spec, rng: np.random.Generator, seconds: float, game: littlego.LittleGo | None = None):
    """The agent for ``spec``, given ``seconds`` per move if it takes a time parameter.

    Args:
        spec: registry spec such as ``"mcts:time=5"`` (text or an ``AgentSpec``).
        rng: the agent's generator.
        seconds: the time to pass when the spec sets none.
        game: the game the position is of (None: the course's Little-Go).
    Returns:
        An agent for Little-Go.
    Raises:
        ValueError: unknown agent or bad parameters.
    """
    from tictacgo.baselines.registry import make_agent, parse_agent_spec  # counted as loading: see above

    spec = parse_agent_spec(spec)
    key = _time_param(spec.name)
    if key is not None and not any(p in spec.kwargs() for p in TIME_PARAMS):
        spec = spec.replace(**{key: round(max(seconds, 0.05), 3)})
    return make_agent(spec, game if game is not None else "littlego", rng)


def _after_build(player, spec, seconds: float) -> None:
    """The search's time runs from after the build: an agent given ``seconds`` before its build (the
    spec set no time) keeps only what is left of the budget now, however long loading it took."""
    from tictacgo.baselines.registry import parse_agent_spec

    if any(p in parse_agent_spec(spec).kwargs() for p in TIME_PARAMS):
        return  # the spec's own time: the user's choice
    limit = getattr(player, "time_limit", None)
    if isinstance(limit, (int, float)) and not isinstance(limit, bool) and limit > seconds:
        player.time_limit = round(max(seconds, 0.05), 3)


def warm_up(agent: str, seed: int | None = None) -> int:
    """Build ``agent`` and compile its kernels, or load them from numba's disk cache (``--warm-up``).

    Run once after installing, so that the course's first moves find the compiled kernels in
    numba's cache instead of compiling them inside a move's 10 s: an agent with a ``warm_up``
    method (``championship``) runs it; any other plays one move, with 1 s, after Black's centre
    on the course's 5x5 board. Reads no ``input.txt`` and writes no ``output.txt``; says on stderr
    how long it took.

    Returns:
        The exit status: 0, 1 (the agent failed) or 2 (an unknown agent or parameter).
    """
    start_cpu, start_wall = time.process_time(), time.monotonic()
    seed, problem = resolve_seed(seed)
    if problem:
        return _fail(problem, None, 2)
    game = littlego.LittleGo(5)
    try:
        player = build_agent(agent, np.random.default_rng(seed), 1.0, game=game)
    except ValueError as e:
        return _fail(str(e), None, 2)
    try:
        hook = getattr(player, "warm_up", None)
        if callable(hook):
            hook()
        else:
            player.act(littlego.play(game.initial_state(), (game.size // 2) * (game.size + 1)))
    except Exception as e:  # noqa: BLE001 - say what failed, as a move would
        return _fail(f"agent {agent!r} failed: {type(e).__name__}: {e}", None)
    print(f"my-player: {agent!r} is ready: {time.process_time() - start_cpu:.2f} s of CPU "
          f"({time.monotonic() - start_wall:.2f} s of wall time) to build it and compile or load its kernels",
          file=sys.stderr)
    return 0


def remove_output(path: Path) -> str | None:
    """Remove a stale ``output.txt`` (a file or a symlink); what stands in the way, if anything.

    Returns:
        None when nothing is left at ``path``; else why the answer cannot be
        written there (a folder, a named pipe, ...: left as it is, not ours to delete).
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"cannot use {path}: {e.strerror or e}"
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        return f"{path} is {kind}, so the answer cannot be written there; remove it"
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as e:
        return f"cannot remove the old {path}: {e.strerror or e}"
    return None


def _fail(message: str, output: Path | None, status: int = 1) -> int:
    if output is not None:
        remove_output(output)
    print(f"my-player: error: {message}", file=sys.stderr)
    return status


def resolve_seed(seed: int | None) -> tuple[int | None, str | None]:
    """The seed given (``--seed``), else ``$TICTACGO_SEED`` (None: fresh entropy); or why it is refused."""
    if seed is not None:
        if seed < 0:
            return None, f"--seed must be a non-negative int, got {seed}"
        return seed, None
    text = os.environ.get(SEED_ENV, "").strip()
    if not text:
        return None, None
    try:
        seed = int(text)
    except ValueError:
        return None, f"${SEED_ENV} must be a non-negative integer, got {os.environ[SEED_ENV]!r}"
    if seed < 0:
        return None, f"${SEED_ENV} must be a non-negative integer, got {seed}"
    return seed, None


def _choose(agent, state, budget_left: float, fallback: int) -> tuple[int, bool]:
    """The agent's action, or ``fallback`` if the CPU-time guard fires first."""
    timer = getattr(signal, "ITIMER_PROF", None)
    if timer is None or budget_left <= 0:
        if budget_left <= 0:
            return fallback, True
        return agent.act(state), False

    def on_alarm(signum, frame):
        raise _OutOfTime

    old = signal.signal(signal.SIGPROF, on_alarm)
    try:
        signal.setitimer(timer, budget_left)
        try:
            return agent.act(state), False
        finally:
            signal.setitimer(timer, 0)
    except _OutOfTime:
        return fallback, True
    finally:
        signal.signal(signal.SIGPROF, old)


def answer_move(directory: str, agent: str, time_budget: float = 9.0, seed: int | None = None,
                start_cpu: float | None = None) -> int:
    """Answer one move of the course protocol: read ``input.txt`` in ``directory``, write ``output.txt``.

    See the module docstring for the time budget, the errors and the seeding;
    messages go to stderr.

    Args:
        directory: the working folder holding ``input.txt`` (``--dir``).
        agent: the agent's registry spec (``--agent``).
        time_budget: CPU seconds for the move, counted from ``start_cpu``.
        seed: the agent's seed (None: ``$TICTACGO_SEED`` if set, else fresh entropy).
        start_cpu: ``time.process_time()`` when the command started its work (None: now).

    Returns:
        The exit status: 0 with ``output.txt`` written; 1 or 2 (bad arguments) with none.
    """
    start_cpu = time.process_time() if start_cpu is None else start_cpu
    workdir = Path(directory)
    if not workdir.is_dir():
        what = "does not exist" if not os.path.lexists(workdir) else "is not a folder"
        return _fail(f"--dir {directory!r} {what}; give the folder that holds input.txt", None, 2)
    output = workdir / "output.txt"
    # An answer left from an earlier move must not survive this one, even if
    # this process is killed before it writes (host timeout, out of memory).
    problem = remove_output(output)
    if problem:
        return _fail(problem, None)
    if not (math.isfinite(time_budget) and time_budget > 0):
        return _fail(f"--time-budget must be a finite positive number of seconds, got {time_budget}",
                     output, 2)
    seed, problem = resolve_seed(seed)
    if problem:
        return _fail(problem, output, 2)
    rng = np.random.default_rng(seed)

    try:
        colour, previous, board = course.read_input(workdir / "input.txt")
        state = course.state_from_input(colour, previous, board,
                                        t=remembered_count(workdir, colour, previous, board))
    except OSError as e:
        return _fail(f"cannot read {workdir / 'input.txt'}: {e}", output)
    except ValueError as e:
        return _fail(f"bad input.txt: {e}", output)

    n = state.game.size
    moves = [a for a in littlego.legal_actions(state) if a != n * n]
    fallback = moves[int(rng.integers(len(moves)))] if moves else n * n

    budget_left = time_budget - (time.process_time() - start_cpu)
    try:
        player = build_agent(agent, rng, budget_left - SAFETY_MARGIN, game=state.game)
    except ValueError as e:
        return _fail(str(e), output, 2)
    budget_left = time_budget - (time.process_time() - start_cpu)
    _after_build(player, agent, budget_left - SAFETY_MARGIN)
    try:
        action, timed_out = _choose(player, state, budget_left, fallback)
    except Exception as e:  # noqa: BLE001 - an agent bug: no answer rather than a wrong one
        return _fail(f"agent {agent!r} failed: {type(e).__name__}: {e}", output)
    if timed_out:
        print(f"my-player: warning: agent {agent!r} ran past the {time_budget:g} s CPU budget; "
              f"playing the fallback {course.format_move(fallback, n)}", file=sys.stderr)
    elif callable(getattr(player, "note", None)):  # an agent that says where its move came from
        print(f"my-player: {player.note()}", file=sys.stderr)
    try:
        reason = littlego.illegal_reason(state, action)
    except (TypeError, ValueError) as e:
        return _fail(f"agent {agent!r} returned a bad action {action!r}: {e}", output)
    if reason:
        return _fail(f"agent {agent!r} chose the illegal action "
                     f"{course.format_move(action, n)} ({reason})", output)
    try:
        course.write_output(output, action, n)
    except (OSError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        return _fail(f"cannot write {output}: {reason}", output)
    remember_count(workdir, state, action)
    return 0


#: The file in the working folder that carries the move count from one answer to the next.
MOVES_FILE = "tictacgo_moves.json"


def remembered_count(workdir: Path, colour: int, previous, board) -> int | None:
    """The actions played before this ``input.txt``, when the folder's ``MOVES_FILE`` shows that it
    continues the game of the last answer written there (see the module docstring); else None."""
    path = workdir / MOVES_FILE
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode) or os.path.getsize(path) > 4096:
            return None
        record = json.loads(path.read_text())
        t, size = record["t"], len(record["board"])
        if record["colour"] != colour or record["board"] != np.asarray(previous).tolist():
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if isinstance(t, bool) or not isinstance(t, int) or t < 0 or t % 2 != colour - 1 \
            or t + 2 >= size * size - 1:
        return None
    t += 2  # our action, then the opponent's
    return t if t >= course.minimum_actions(colour, previous, board) else None


def remember_count(workdir: Path, state: littlego.GoState, action: int) -> None:
    """Write ``MOVES_FILE``: the count before this answer and the board it leaves (a failure to write
    it only costs the next answer the exact count)."""
    after = littlego.play(state, action)
    record = {"colour": state.to_move, "t": state.t, "board": littlego.to_board(after).tolist()}
    try:
        atomic_write_json(workdir / MOVES_FILE, record)
    except OSError as e:
        print(f"my-player: warning: cannot write {workdir / MOVES_FILE} ({e.strerror or e}); the next "
              "move's count will be estimated", file=sys.stderr)
