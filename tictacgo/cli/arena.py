"""``tictacgo arena``: play agents against each other and report the results.

Three modes: a match (on this machine's processes, or as Ray tasks), a round
robin and the course report:

    tictacgo arena GAME AGENT_A AGENT_B --games N --seed S [--workers W] [--out results.json]
    tictacgo arena GAME AGENT_A AGENT_B --games N --seed S --backend ray [--address auto]
    tictacgo arena GAME --round-robin AGENT AGENT ... --games N [--plot ratings.png]
    tictacgo arena littlego --course-report AGENT --seed S [--stage 1|2|all]

* A match prints A's wins, draws and losses split by the colour A played
  (colours alternate, A first in the even games), A's score ``(W + D/2)/N``
  with a 95% confidence interval, and each agent's mean and worst time per
  move.
* A round robin plays every pair (``--games`` per pair) and prints the cross
  table (score of the row agent against the column agent) and Bradley-Terry
  ratings on the Elo scale with standard errors; ``--plot`` draws them
  (needs matplotlib: ``pip install 'tictacgo[plot]'``).
* A course report plays 20 games (10 as Black, 10 as White) against each of
  the course's first-stage opponents that is registered (random, greedy,
  aggressive, alphabeta; ``--stage 2``: the second stage's qlearning and
  championship; ``--stage all``: all six) and prints the points the
  assignment's rubric gives, and whether the agent kept to the course's time
  limits (10 s a move, 90 s a game on average).

Agents are registry specs (``tictacgo agents GAME`` lists them), e.g.
``random``, ``minimax``, ``alphabeta:depth=2``. ``--out`` writes every game
(moves included) as JSON, atomically: while the games are played their
records wait in a temporary file beside it (memory holds only counts; on
POSIX systems the file has no name, so even a killed run leaves none), and
the results file is written from it at the end, complete or not at all.
``--sgf DIR`` writes every game as an SGF record as soon as it is over
(Little-Go only; needs sgfmill: ``pip install 'tictacgo[sgf]'``):
``DIR/game-0000.sgf``, ... for a match, one subfolder per pair for a round
robin (``DIR/00-01_A-vs-B/``) and per opponent for a course report
(``DIR/vs-greedy/``); ``tictacgo replay FILE`` checks one, Go programs open
them. Without ``--out`` and ``--sgf`` no game record is kept at all.
``--backend ray`` plays the games as Ray tasks (a Ray instance started
for the run, or a running cluster with ``--address auto``; needs ray:
``pip install 'tictacgo[ray]'``, and tictacgo on every node): the same games
and results as the default local process pool for the same seed. Ctrl-C
stops early: what was played is still printed and saved (exit status 130).

Every mistake that can be seen before playing is reported in one line with
exit status 2 before the first game: an unknown game, agent or parameter, a
bad number (``--prior -1``, ``--prior nan``), an output path that cannot be
written (``--out ""``, a folder, a named pipe or device, a missing or
read-only folder, a ``--plot`` format matplotlib does not know, an ``--out``
or ``--plot`` that is one of the SGF files ``--sgf`` writes). Existing
files that are not regular files are never replaced. If the disk fills
during the games, the later records are held in memory. If writing still
fails after the games, the table is printed, the results are kept in a
temporary file whose name is printed, and the exit status is 1. A closed
stdout (``| head -1``) does not stop the files from being written.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import re
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tictacgo import arena
from tictacgo.arena import ratings
from tictacgo.arena.records import write_results_json
from tictacgo.arena.round_robin import unique_labels
from tictacgo.arena.runner import WorkerFailed, cap_workers
from tictacgo.atomic import check_writable, same_file
from tictacgo.baselines.agent_spec import AgentSpec
from tictacgo.baselines.registry import parse_agent_spec
from tictacgo.cli.games import add_board_size, game_from_options
from tictacgo.games.base import Game
from tictacgo.interrupt import TERMINATION_SIGNALS
from tictacgo.protocol import grading
from tictacgo.protocol.grading import COURSE_OPPONENTS

DEFAULT_GAMES = {"match": 100, "round_robin": 20, "course": 20}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = __doc__
    parser.add_argument("game", help="tictactoe or littlego")
    parser.add_argument("agents", nargs="*", metavar="AGENT",
                        help="agent specs: two for a match (A and B), or more with --round-robin")
    add_board_size(parser)
    parser.add_argument("--round-robin", nargs="*", metavar="AGENT", default=None,
                        help="play every pair of these agents (and any given before) and rate them")
    parser.add_argument("--course-report", metavar="AGENT", default=None,
                        help="littlego: play AGENT against the course's opponents and print the "
                             "grading table")
    parser.add_argument("--stage", choices=("1", "2", "all"), default="1",
                        help="with --course-report: the course's 1st stage (random, greedy, aggressive, "
                             "alphabeta; 90 points), its 2nd (qlearning, championship; 10 points) or "
                             "both (100 points); default 1")
    parser.add_argument("--games", type=int, default=None,
                        help=f"games per match or per pair (default {DEFAULT_GAMES['match']} for a match, "
                             f"{DEFAULT_GAMES['round_robin']} per pair, {DEFAULT_GAMES['course']} per "
                             "course opponent)")
    parser.add_argument("--seed", type=int, default=0, help="non-negative seed (default 0)")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes (default and most: one per CPU core; 1: no subprocesses)")
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="local: worker processes on this machine (default); ray: Ray tasks, here or on "
                             "a cluster (needs tictacgo[ray])")
    parser.add_argument("--address", default=None,
                        help="--backend ray: the Ray address (default 'local': a Ray instance for this run; "
                             "'auto': the running cluster; 'ray://HOST:10001': Ray Client)")
    parser.add_argument("--out", metavar="RESULTS.json", default=None,
                        help="write every game and the summary to this JSON file (atomically)")
    parser.add_argument("--sgf", metavar="DIR", default=None,
                        help="littlego: write every game as an SGF file in DIR (created if missing; "
                             "needs tictacgo[sgf])")
    parser.add_argument("--plot", metavar="RATINGS.png", default=None,
                        help="round robin: draw the ratings with error bars (needs tictacgo[plot])")
    parser.add_argument("--prior", type=float, default=1.0,
                        help="round robin: virtual drawn games per agent in the rating fit (default 1)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _error(message: str) -> int:
    print(f"tictacgo arena: error: {message}", file=sys.stderr)
    return 2


def _folder_name(text: str) -> str:
    """An agent spec as part of a folder name (``mcts:sims=200`` -> ``mcts_sims=200``)."""
    return re.sub(r"[^A-Za-z0-9._=+-]+", "_", text).strip("._") or "agent"


class _Refused(Exception):
    """A mistake seen before the first game: its message is printed and the exit status is 2."""


def run(args: argparse.Namespace) -> int:
    try:
        _check_counts(args)
        _cap_local_workers(args)
        _check_backend_and_outputs(args)
        texts = _agent_texts(args)
        game, specs, agents = _game_and_agents(args, texts)
        sgf = _prepare_sgf(args, specs, game)
        spool = _make_spool(args)
    except _Refused as e:
        return _error(str(e))
    writer = SgfWriter(sgf, args.sgf, game, _sgf_matches(args, specs)) if sgf is not None else None
    records = {"keep_games": spool if spool is not None else False, "on_game": writer}
    try:
        try:
            result = _play(args, game, specs, agents, records)
        except ConnectionError as e:  # --backend ray and no Ray cluster at --address
            print(f"tictacgo arena: error: --backend ray could not reach Ray at "
                  f"{args.address or 'local'!r}: {e}", file=sys.stderr)
            return 1
        except WorkerFailed as e:  # a worker process died or could not start (its error is above)
            print(f"tictacgo arena: error: {e}", file=sys.stderr)
            return 1
        return _report(args, result, game, writer, spool)
    finally:
        if spool is not None:
            spool.close()
        _settle_stderr()


def _check_counts(args: argparse.Namespace) -> None:
    """The mode's flags go together, and ``--games``, ``--seed`` and ``--workers`` are in range."""
    if args.round_robin is not None and args.course_report:
        raise _Refused("choose one of --round-robin and --course-report")
    if args.plot and args.round_robin is None:
        raise _Refused("--plot draws round-robin ratings; use it with --round-robin")
    if args.games is not None and args.games < 1:
        raise _Refused(f"--games must be at least 1, got {args.games}")
    if args.seed < 0:
        raise _Refused(f"--seed must be non-negative, got {args.seed}")
    if args.workers is not None and args.workers < 1:
        raise _Refused(f"--workers must be at least 1, got {args.workers}")


def _cap_local_workers(args: argparse.Namespace) -> None:
    """More local ``--workers`` than CPU cores: say so and use the cores."""
    if args.workers is None or args.backend != "local":
        return
    capped = cap_workers(args.workers)
    if capped < args.workers:
        print(f"tictacgo arena: --workers {args.workers} is more than the {capped} CPU cores "
              f"available; using {capped}", file=sys.stderr)
        args.workers = capped


def _check_backend_and_outputs(args: argparse.Namespace) -> None:
    """``--prior``, the backend and its address, the output paths and ``--stage``."""
    if not (math.isfinite(args.prior) and args.prior >= 0):
        raise _Refused(f"--prior must be a finite number >= 0, got {args.prior!r}")
    if args.address is not None and args.backend != "ray":
        raise _Refused(f"--address {args.address!r} is for --backend ray")
    if args.backend == "ray":
        if args.course_report:
            raise _Refused("--course-report plays on the local backend only; drop --backend ray")
        if importlib.util.find_spec("ray") is None:
            raise _Refused("--backend ray needs ray, which is not installed: "
                           "pip install 'tictacgo[ray]' (or 'tictacgo[rllib]', which includes ray)")
    problem = _check_output_paths(args)
    if problem:
        raise _Refused(problem)
    if args.stage != "1" and not args.course_report:
        raise _Refused(f"--stage {args.stage} goes with --course-report")


def _agent_texts(args: argparse.Namespace) -> list[str]:
    """The agent specs as typed, as many as the mode takes."""
    if args.course_report:
        if args.agents:
            raise _Refused(f"--course-report takes one agent; unexpected {' '.join(args.agents)!r}")
        texts = [args.course_report]
    elif args.round_robin is not None:
        texts = list(args.agents) + list(args.round_robin)
        if len(texts) < 2:
            raise _Refused("a round robin needs at least two agents")
    else:
        texts = list(args.agents)
        if len(texts) != 2:
            raise _Refused(f"a match needs two agents, AGENT_A and AGENT_B; got {len(texts)} "
                           "(use --round-robin for more)")
    if args.board_size is not None and args.course_report:
        raise _Refused("--course-report plays the course's own 5x5 board; drop --board-size")
    return texts


def _game_and_agents(args: argparse.Namespace, texts: list[str]
                     ) -> tuple[Game, list[AgentSpec], arena.AgentCache]:
    """The game, built once; the specs, read once; each agent built once here to check its spec
    (the games played in this process reuse them)."""
    try:
        game = game_from_options(args.game, args.board_size)
    except ValueError as e:
        raise _Refused(str(e)) from None
    agents = arena.AgentCache()
    try:
        specs = [parse_agent_spec(text) for text in texts]
        game = arena.validate_specs(game, specs, agents)
    except (TypeError, ValueError) as e:  # unknown game, size or agent, bad parameter
        raise _Refused(str(e)) from None
    if args.course_report and not grading.plays_course_ladder(game):
        raise _Refused(f"--course-report needs the course ladder ({', '.join(grading.COURSE_LADDER)}), "
                       f"which does not play {game.spec.name}; the course plays littlego")
    return game, specs, agents


def _import_sgf():
    """``tictacgo.protocol.sgf``, imported only for ``--sgf``: it needs sgfmill, an optional extra."""
    try:
        from tictacgo.protocol import sgf
    except ImportError as e:
        raise _Refused(f"--sgf needs sgfmill, which is not installed: pip install 'tictacgo[sgf]' ({e})") \
            from None
    return sgf


def _prepare_sgf(args: argparse.Namespace, specs: list[AgentSpec], game: Game):
    """For ``--sgf``: the SGF module, once the game, the paths and the folder are checked; else None."""
    if not args.sgf:
        return None
    sgf = _import_sgf()
    try:
        sgf.check_game(game)
    except ValueError as e:
        raise _Refused(f"--sgf: {e}") from None
    problem = _sgf_collision(args, _sgf_matches(args, specs))
    if problem:
        raise _Refused(problem)
    try:
        os.makedirs(args.sgf, exist_ok=True)
        check_writable(Path(args.sgf) / "game-0000.sgf")
    except OSError as e:
        raise _Refused(f"--sgf {args.sgf!r}: {e.strerror or e}") from None
    except ValueError as e:
        raise _Refused(f"--sgf: {e}") from None
    return sgf


def _make_spool(args: argparse.Namespace) -> arena.GameSpool | None:
    """With ``--out``: the temporary file beside it that holds the records while the games run."""
    if not args.out:
        return None
    try:
        return arena.GameSpool(Path(os.path.abspath(args.out)).parent)
    except OSError as e:
        raise _Refused(f"--out {args.out!r}: cannot keep the games beside it: {_reason(e)}") from None


def _play(args: argparse.Namespace, game: Game, specs: list[AgentSpec], agents: arena.AgentCache,
          records: dict):
    """Play the mode's games: the course report, the round robin or the match."""
    progress = not args.no_progress
    if args.course_report:
        return grading.run_course_report(specs[0], args.seed, games=args.games or DEFAULT_GAMES["course"],
                                         workers=args.workers, progress=progress, agents=agents,
                                         stage=args.stage, game=game, **records)
    ray_args = {"backend": args.backend, "address": args.address or "local"}
    if args.round_robin is not None:
        return arena.run_round_robin(game, specs, args.games or DEFAULT_GAMES["round_robin"], args.seed,
                                     workers=args.workers, progress=progress, prior=args.prior,
                                     agents=agents, **ray_args, **records)
    return arena.run_match(game, specs[0], specs[1], args.games or DEFAULT_GAMES["match"], args.seed,
                           workers=args.workers, progress=progress, agents=agents, **ray_args, **records)


def _report(args: argparse.Namespace, result, game: Game, writer: SgfWriter | None,
            spool: arena.GameSpool | None) -> int:
    """Print the table and save the outputs; the exit status."""
    with _signals_wait() as signalled:
        stdout = Stdout()
        stdout.say(result.table())
        status = 130 if result.interrupted else 0
        if result.interrupted:
            _tell("interrupted: the table covers the games finished before Ctrl-C")
        saved = _save_outputs(args, result, game.spec.name, writer, stdout, spool)
    if signalled:
        _tell("tictacgo arena: interrupted while saving; the results were saved first")
        return 130
    if not saved and status == 0:
        status = 1
    return 1 if stdout.closed and status == 0 else status


@contextmanager
def _signals_wait() -> Iterator[list[int]]:
    """While the block saves the results, Ctrl-C, SIGTERM and SIGHUP are noted (in the list
    yielded), not raised: the results are saved first. A second one stops the block at once."""
    signalled: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield signalled
        return

    def note(signum, frame) -> None:
        signalled.append(signum)
        if len(signalled) > 1:
            raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name} while saving")

    old = {}
    for sig in (signal.SIGINT, *TERMINATION_SIGNALS):
        handler = signal.getsignal(sig)
        if handler is not signal.SIG_IGN:
            old[sig] = signal.signal(sig, note)
    try:
        yield signalled
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)


def _sgf_matches(args: argparse.Namespace, specs: list[AgentSpec]) -> dict[int, tuple[Path, str, str]]:
    """Where ``--sgf`` writes each match's games, by the run's match key: ``{key: (folder, A, B)}``.

    A match goes straight into ``--sgf``; a round robin's pair ``(i, j)`` (key ``p``, the pairs
    in order) into ``DIR/ii-jj_A-vs-B``; the course report's opponent ``COURSE_OPPONENTS[k]`` into
    ``DIR/vs-OPPONENT``. Agents are named as they were typed.
    """
    specs = [spec.label for spec in specs]
    root = Path(args.sgf)
    if args.course_report:
        return {k: (root / f"vs-{_folder_name(opp)}", specs[0], opp)
                for k, opp in enumerate(COURSE_OPPONENTS)}
    if args.round_robin is not None:
        labels = unique_labels(specs)
        pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
        return {p: (root / f"{i:02d}-{j:02d}_{_folder_name(labels[i])}-vs-{_folder_name(labels[j])}",
                    specs[i], specs[j]) for p, (i, j) in enumerate(pairs)}
    return {0: (root, specs[0], specs[1])}


class SgfWriter:
    """Writes each finished game as an SGF file at once (``--sgf``), so that an interrupted run keeps
    every game it finished. The first failure (a full disk, say) stops the writing and is kept in
    ``failure`` for the report after the games; the games go on."""

    def __init__(self, sgf, root: str, game, matches: dict[int, tuple[Path, str, str]]):
        self.sgf, self.root, self.matches = sgf, root, matches
        spec = game.spec
        self.rules = {"n": spec.board_shape[0], "komi": spec.komi, "max_actions": spec.max_actions}
        self.count = 0
        self.failure: str | None = None

    def __call__(self, key: int, game) -> None:
        if self.failure is not None:
            return
        folder, a, b = self.matches[key]
        try:
            self.count += len(self.sgf.write_match_sgf([game], folder, names=(a, b), **self.rules))
        except (OSError, ValueError) as e:
            self.failure = f"could not write the SGF files in {self.root!r}: {_reason(e)}"


def _check_output_paths(args: argparse.Namespace) -> str | None:
    """What is wrong with ``--out``, ``--plot`` or ``--sgf`` (None if nothing), before any game."""
    for flag, value in (("--out", args.out), ("--plot", args.plot), ("--sgf", args.sgf)):
        if value is not None and not value.strip():
            return f"{flag} needs a file or folder name, got {value!r}"
    if args.out is not None and args.plot is not None and same_file(args.out, args.plot):
        return f"--out {args.out!r} and --plot {args.plot!r} name the same file"
    for flag, value in (("--out", args.out), ("--plot", args.plot)):
        if value is not None:
            try:
                check_writable(value)
            except ValueError as e:
                return f"{flag}: {e}"
    if args.plot is not None:
        if importlib.util.find_spec("matplotlib") is None:
            return "--plot needs matplotlib, which is not installed: pip install 'tictacgo[plot]'"
        from matplotlib.backend_bases import FigureCanvasBase

        formats = FigureCanvasBase.get_supported_filetypes()
        fmt = os.path.splitext(args.plot)[1].lstrip(".").lower() or "png"
        if fmt not in formats:
            return f"--plot {args.plot!r}: matplotlib cannot write {fmt!r} images; use one of " \
                   f"{', '.join('.' + f for f in sorted(formats))}"
    if args.sgf is not None and os.path.lexists(args.sgf) and not os.path.isdir(args.sgf):
        return f"--sgf {args.sgf!r}: not a folder"
    return None


def _sgf_collision(args: argparse.Namespace, matches: dict[int, tuple[Path, str, str]]) -> str | None:
    """What is wrong if ``--out`` or ``--plot`` is a file or folder that ``--sgf`` will write (None
    if neither is): one of the SGF records (``game-0000.sgf``, ...) or the folder of a match's
    records."""
    games = args.games or DEFAULT_GAMES["course" if args.course_report else
                                        "round_robin" if args.round_robin is not None else "match"]
    for flag, value in (("--out", args.out), ("--plot", args.plot)):
        if value is None:
            continue
        target = Path(os.path.realpath(value))
        for folder, _, _ in matches.values():
            folder = Path(os.path.realpath(folder))
            if target == folder or target in folder.parents:
                return f"{flag} {value!r} is a folder --sgf writes the games into; give {flag} another name"
            index = _sgf_index(target.name)
            if target.parent == folder and index is not None and index < games:
                return (f"{flag} {value!r} is where --sgf writes game {index + 1}'s record; give {flag} "
                        "another name or folder")
    return None


def _sgf_index(name: str) -> int | None:
    """The game index of a file name ``write_match_sgf`` gives (``game-0007.sgf`` -> 7), else None."""
    match = re.fullmatch(r"game-(\d{4,})\.sgf", name)
    if match is None or f"game-{int(match.group(1)):04d}.sgf" != name:
        return None
    return int(match.group(1))


class Stdout:
    """The run's lines on stdout, until it cannot take them (its reader went away, ``| head -1``,
    ``| true``, or it is a file on a full disk): then the lines are dropped and ``closed`` is set,
    and the run goes on to save its results. A closed pipe is not a reason to lose them."""

    def __init__(self):
        self.closed = False

    def say(self, text: str) -> None:
        if self.closed:
            return
        try:
            print(text, flush=True)
        except OSError:  # BrokenPipeError, or a full disk under `> file`
            self.closed = True
            _to_devnull(sys.stdout)


def _to_devnull(stream) -> None:
    """Point ``stream``'s file descriptor at the null device, so that what is left in its buffer
    goes nowhere when Python flushes it at exit, instead of failing again (exit status 120)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing is flushed at exit


def _settle_stderr() -> None:
    """If stderr's reader is gone (``2>&1 | head -1``), let its buffer go quietly (``_to_devnull``)."""
    try:
        sys.stderr.flush()
    except OSError:
        _to_devnull(sys.stderr)


def _save_outputs(args: argparse.Namespace, result, game: str, sgf: SgfWriter | None, stdout: Stdout,
                  spool=None) -> bool:
    """Write ``--out`` and ``--plot`` and report ``--sgf`` (written game by game); on a failure say so
    and keep the results.

    Returns True when everything asked for was written. When something could
    not be written and the results are not safe in ``--out``, they go to a
    new temporary file whose name is printed, so that a long run is never lost.
    """
    failures = []
    saved = False
    if spool is not None and spool.failure is not None:
        _tell(f"tictacgo arena: note: {spool.failure}")
    if args.out is not None:
        try:
            arena.write_results_json(args.out, result)
            saved = True
        except (OSError, ValueError) as e:
            failures.append(f"could not write --out {args.out!r}: {_reason(e)}")
        else:
            stdout.say(f"wrote {args.out}")
    if sgf is not None:
        if sgf.failure is not None:
            failures.append(sgf.failure)
        else:
            stdout.say(f"wrote {sgf.count} SGF file{'s' if sgf.count != 1 else ''} in {args.sgf}")
    if args.plot:
        try:
            ratings.plot_ratings(result.ratings, args.plot, title=f"{game} round robin, seed {args.seed}")
        except (OSError, ValueError) as e:
            failures.append(f"could not write --plot {args.plot!r}: {_reason(e)}")
        else:
            stdout.say(f"wrote {args.plot}")
    for message in failures:
        _tell(f"tictacgo arena: error: {message}")
    if failures and not saved:
        try:
            kept = _keep_in_temporary_file(result)
        except OSError as e:
            _tell(f"tictacgo arena: error: could not keep the results in a temporary file either: "
                  f"{_reason(e)}; only the table above is left")
        else:
            _tell(f"tictacgo arena: the results are kept in {kept}")
    return not failures


def _tell(text: str) -> None:
    """A line on stderr, after the games: if stderr is gone too (a closed pipe, a full disk), the
    line is lost, never the results still to be saved."""
    try:
        print(text, file=sys.stderr, flush=True)
    except OSError:
        pass


def _keep_in_temporary_file(result) -> str:
    """Write the results to a new file in the system's temporary folder, atomically; its name.

    Raises:
        OSError: that failed too (nothing is left behind then).
    """
    fd, kept = tempfile.mkstemp(prefix="tictacgo-arena-", suffix=".json")
    os.close(fd)
    try:
        write_results_json(kept, result)  # the records module's own, whatever the arena's name holds
    except BaseException:
        try:
            os.unlink(kept)
        except OSError:
            pass
        raise
    return kept


def _reason(e: BaseException) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror + (f": {e.filename!r}" if e.filename else "")
    return str(e)
