"""The ``tictacgo`` command: one subcommand per task.

Every subcommand's arguments live in this package, one module a subcommand
(``tictacgo.cli.arena``, ``tictacgo.cli.train``, ...), which offers
``add_arguments(parser)`` and ``run(args) -> int`` (the exit status) and
may offer ``on_argument_error(argv)``, called before argparse's exit 2 when
the arguments do not parse. ``run`` turns the arguments into calls of the
library (the arena, the course protocol, training, ...), which holds no
argparse. The module is imported only when its subcommand runs, so
``tictacgo --help`` stays fast and optional dependencies stay optional.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version

from tictacgo.interrupt import termination_as_interrupt

# subcommand -> (module, one-line help)
COMMANDS = {
    "demo": ("tictacgo.cli.demo", "create the envs, play and render games between agents, print a table"),
    "agents": ("tictacgo.cli.agents", "list the agents for a game and their parameters"),
    "arena": ("tictacgo.cli.arena", "play agents against each other and report win/draw/loss"),
    "train": ("tictacgo.cli.train", "train a MaskablePPO, A2C or AlphaZero agent (train extra) or a Q-table"),
    "my-player": ("tictacgo.cli.player", "the course player: read input.txt, write output.txt"),
    "host": ("tictacgo.cli.host", "run two player programs through the course file protocol"),
    "play": ("tictacgo.cli.play", "play an agent yourself in the terminal (or from a pipe of moves)"),
    "replay": ("tictacgo.cli.replay", "replay an SGF record of Little-Go and check every move"),
    "view": ("tictacgo.cli.view", "write an HTML page that steps through the games of a record or results"),
    "gtp": ("tictacgo.cli.gtp", "a Go Text Protocol (GTP v2) engine for Little-Go backed by an agent"),
    "solve": ("tictacgo.cli.solve", "solve a Little-Go position, write or check its proof, build a book"),
    "prove": ("tictacgo.cli.prove", "make and check the whole proof of a solved game, on every core or Ray"),
}


def command_module(command: str, argv: list[str]) -> str:
    """The module that takes ``command``'s arguments (``train --algo alphazero`` and ``train --algo
    qlearning`` have their own)."""
    if command == "train":
        from tictacgo.cli import train_alphazero, train_qlearning

        if train_alphazero.wanted(argv):
            return "tictacgo.cli.train_alphazero"
        if train_qlearning.wanted(argv):
            return "tictacgo.cli.train_qlearning"
    return COMMANDS[command][0]


def _plain(text: str | None) -> str | None:
    """Docstring text for a terminal: reStructuredText's double backticks dropped."""
    return None if text is None else text.replace("``", "")


def _version() -> str:
    try:
        return version("tictacgo")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with its errors in one line (the usage block is for ``--help``)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(only: str | None = None, argv: list[str] = ()) -> argparse.ArgumentParser:
    parser = _Parser(prog="tictacgo", description=_plain(__doc__.splitlines()[0]))
    parser.add_argument("--version", action="version", version=f"tictacgo {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (_, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == only:
            importlib.import_module(command_module(name, list(argv))).add_arguments(p)
            # The subcommands take their descriptions and help from docstrings.
            p.description = _plain(p.description)
            for action in p._actions:
                action.help = _plain(action.help)
    return parser


def game_modules(argv: list[str]) -> tuple[list[str], list[str]]:
    """(``argv`` without its ``--game-module M`` options, the modules they name): the option may stand
    anywhere, before the command or among its arguments, and be repeated."""
    rest, modules, k = [], [], 0
    while k < len(argv):
        a = argv[k]
        if a == "--game-module" and k + 1 < len(argv):
            modules.append(argv[k + 1])
            k += 2
            continue
        if a.startswith("--game-module="):
            modules.append(a.split("=", 1)[1])
        else:
            rest.append(a)
        k += 1
    return rest, modules


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    argv, modules = game_modules(argv)
    command = argv[0] if argv and argv[0] in COMMANDS else None
    try:
        # Games from outside the package (--game-module, $TICTACGO_GAME_MODULES, entry points), before
        # any command builds its arguments: `train`'s game choices and every game name include them.
        from tictacgo.games.registry import load_plugins

        if load_plugins(modules):
            from tictacgo.registration import register_envs

            register_envs()  # their Gymnasium ids (train makes its envs by id)
    except ValueError as e:
        print(f"tictacgo{' ' + command if command else ''}: error: {e}", file=sys.stderr)
        return 2
    try:
        with termination_as_interrupt():  # SIGTERM and SIGHUP stop a run as Ctrl-C does
            return _main(argv, command)
    except KeyboardInterrupt:
        # Ctrl-C (or SIGTERM, SIGHUP) at any stage (importing a subcommand,
        # parsing, running, saving): one line and the conventional status, never a traceback.
        print(f"tictacgo{' ' + command if command else ''}: interrupted", file=sys.stderr)
        return 130


def _main(argv: list[str], command: str | None) -> int:
    parser = build_parser(command, argv[1:])
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        # A subcommand may clean up after arguments that do not parse
        # (my-player removes a stale output.txt).
        module = importlib.import_module(command_module(command, argv[1:])) if command is not None else None
        hook = getattr(module, "on_argument_error", None) if e.code else None
        if hook is not None:
            hook(argv[1:])
        raise
    if args.command is None:
        parser.print_help()
        return 2
    module = importlib.import_module(command_module(args.command, argv[1:]))
    return guard_output(f"tictacgo {args.command}", lambda: int(module.run(args) or 0))


def guard_output(prog: str, run: Callable[[], int]) -> int:
    """``run()``'s exit status, with the failures of writing its output turned into status 1: a closed
    stdout (``tictacgo agents | head -3``: not an error of ours, so nothing is said) and a full disk
    (``> /dev/full``, or a disk that filled under a file the command writes without handling it
    itself: one line on stderr naming ``prog``), never a traceback. Scripts use it too.
    """
    try:
        status = run()
        sys.stdout.flush()  # a full disk under stdout shows here, while one line can still say so
        return status
    except BrokenPipeError:
        # Point stdout at devnull so that Python's exit flush is quiet.
        _silence_stdout()
        return 1
    except OSError as e:
        if e.errno not in _WRITE_ERRORS:
            raise
        _flush_what_can_be()
        _silence_stdout()
        what = "its output" if e.filename is None else repr(e.filename)
        print(f"{prog}: cannot write {what}: {e.strerror or e}", file=sys.stderr)
        return 1


#: The errors of a write that failed for want of room or a working device.
_WRITE_ERRORS = {errno.ENOSPC, errno.EFBIG, errno.EIO, getattr(errno, "EDQUOT", errno.ENOSPC)}


def _flush_what_can_be() -> None:
    """Write out what stdout still holds, if it can be (it may be a terminal, the error elsewhere)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):  # ValueError: stdout was closed
        pass


def _silence_stdout() -> None:
    """Point stdout at devnull, so that nothing more is written there and Python's exit flush is quiet."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # closed, or a stand-in without a file: nothing to do
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass
