"""``tictacgo my-player``: a course player for Little-Go backed by any registered agent.

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

Seeding: ``--seed S`` (a non-negative int); without it the ``TICTACGO_SEED``
environment variable is used if set (``tictacgo host --seed`` sets it), else
fresh entropy.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import stat
import sys
import time
from pathlib import Path

import numpy as np

from tictacgo.protocol import course

SEED_ENV = "TICTACGO_SEED"
# CPU seconds kept back from the budget for writing output.txt and exiting.
SAFETY_MARGIN = 0.5
# Names a factory may give its per-move time parameter, in order of preference.
TIME_PARAMS = ("time", "time_limit", "time_budget")


class _OutOfTime(BaseException):
    """Raised by the CPU-time guard; a BaseException so agents' ``except Exception`` lets it through."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agent", required=True,
                        help="agent spec, e.g. random, greedy, alphabeta:depth=2, mcts:time=5 "
                             "(see `tictacgo agents littlego`)")
    parser.add_argument("--dir", default=".", help="working directory holding input.txt (default: .)")
    parser.add_argument("--time-budget", type=float, default=9.0,
                        help="CPU seconds for the move, loading the agent included (default 9.0, "
                             "which leaves ~1 s of the course's 10 for interpreter start-up)")
    parser.add_argument("--seed", type=int, default=None,
                        help=f"seed for the agent (default: ${SEED_ENV} if set, else random)")


def _time_param(name: str) -> str | None:
    """The name of agent ``name``'s time parameter, if its factory has one by name."""
    from tictacgo.baselines import registry

    params = registry.agent_parameters(name)
    return next((p for p in TIME_PARAMS if p in params), None)


def build_agent(spec, rng: np.random.Generator, seconds: float):
    """The agent for ``spec``, given ``seconds`` per move if it takes a time parameter.

    Args:
        spec: registry spec such as ``"mcts:time=5"`` (text or an ``AgentSpec``).
        rng: the agent's generator.
        seconds: the time to pass when the spec sets none.
    Returns:
        An agent for Little-Go.
    Raises:
        ValueError: unknown agent or bad parameters.
    """
    from tictacgo.baselines.registry import make_agent, parse_agent_spec

    spec = parse_agent_spec(spec)
    key = _time_param(spec.name)
    if key is not None and not any(p in spec.kwargs() for p in TIME_PARAMS):
        spec = spec.replace(**{key: round(max(seconds, 0.05), 3)})
    return make_agent(spec, "littlego", rng)


def _remove(path: Path) -> str | None:
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
        _remove(output)
    print(f"my-player: error: {message}", file=sys.stderr)
    return status


def on_argument_error(argv: list[str]) -> None:
    """Called by ``tictacgo.cli`` when the arguments do not parse (exit 2).

    Every error leaves no ``output.txt``: a stale one in ``--dir`` (found
    leniently in ``argv``) is removed here too, so the host sees no answer
    rather than the answer to an earlier position.
    """
    lenient = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    lenient.add_argument("--dir", default=".")
    try:
        known, _ = lenient.parse_known_args(argv)
    except (argparse.ArgumentError, SystemExit):
        return
    if os.path.isdir(known.dir):
        _remove(Path(known.dir) / "output.txt")


def _seed(args: argparse.Namespace) -> tuple[int | None, str | None]:
    """The seed from ``--seed`` or ``$TICTACGO_SEED`` (None: fresh entropy), or why it is refused."""
    if args.seed is not None:
        if args.seed < 0:
            return None, f"--seed must be a non-negative int, got {args.seed}"
        return args.seed, None
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


def run(args: argparse.Namespace) -> int:
    from tictacgo.games import littlego

    start_cpu = time.process_time()
    workdir = Path(args.dir)
    if not workdir.is_dir():
        what = "does not exist" if not os.path.lexists(workdir) else "is not a folder"
        return _fail(f"--dir {args.dir!r} {what}; give the folder that holds input.txt", None, 2)
    output = workdir / "output.txt"
    # An answer left from an earlier move must not survive this one, even if
    # this process is killed before it writes (host timeout, out of memory).
    problem = _remove(output)
    if problem:
        return _fail(problem, None)
    if not (math.isfinite(args.time_budget) and args.time_budget > 0):
        return _fail(f"--time-budget must be a finite positive number of seconds, got {args.time_budget}",
                     output, 2)
    seed, problem = _seed(args)
    if problem:
        return _fail(problem, output, 2)
    rng = np.random.default_rng(seed)

    try:
        colour, previous, board = course.read_input(workdir / "input.txt")
        state = course.state_from_input(colour, previous, board)
    except OSError as e:
        return _fail(f"cannot read {workdir / 'input.txt'}: {e}", output)
    except ValueError as e:
        return _fail(f"bad input.txt: {e}", output)

    n = state.game.size
    moves = [a for a in littlego.legal_actions(state) if a != n * n]
    fallback = moves[int(rng.integers(len(moves)))] if moves else n * n

    budget_left = args.time_budget - (time.process_time() - start_cpu)
    try:
        agent = build_agent(args.agent, rng, budget_left - SAFETY_MARGIN)
    except ValueError as e:
        return _fail(str(e), output, 2)
    budget_left = args.time_budget - (time.process_time() - start_cpu)
    try:
        action, timed_out = _choose(agent, state, budget_left, fallback)
    except Exception as e:  # noqa: BLE001 - an agent bug: no answer rather than a wrong one
        return _fail(f"agent {args.agent!r} failed: {type(e).__name__}: {e}", output)
    if timed_out:
        print(f"my-player: warning: agent {args.agent!r} ran past the {args.time_budget:g} s CPU budget; "
              f"playing the fallback {course.format_move(fallback, n)}", file=sys.stderr)
    try:
        reason = littlego.illegal_reason(state, action)
    except (TypeError, ValueError) as e:
        return _fail(f"agent {args.agent!r} returned a bad action {action!r}: {e}", output)
    if reason:
        return _fail(f"agent {args.agent!r} chose the illegal action "
                     f"{course.format_move(action, n)} ({reason})", output)
    try:
        course.write_output(output, action, n)
    except (OSError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        return _fail(f"cannot write {output}: {reason}", output)
    return 0
