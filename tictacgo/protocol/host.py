"""The course's host: two player programs through the course file protocol (``tictacgo host``).

    tictacgo host "python3 $PWD/my_player3.py" "tictacgo my-player --agent greedy" --games 10

plays Little-Go between two external programs the way the CSCI-561 host
does. Each command is a shell command line, run once per move with its
working directory set to a fresh temporary directory (one per player per
game; so give scripts by absolute path). For every move the host:

1. writes ``input.txt`` in the mover's directory: the colour to move, the
   previous board (the board before the opponent's last action; equal to
   the current board when the opponent passed) and the current board, with
   no final newline;
2. deletes any old ``output.txt`` there (whatever the player left at that
   name, a folder included);
3. runs the command with a per-move limit (``--time-limit`` seconds of wall
   clock; the course counts 10 s of CPU time, which the wall clock bounds
   for a single-threaded player); a player still running then is killed
   and loses;
4. reads ``output.txt`` with the host's tolerance (``course.parse_output``).
   A missing or malformed file loses (an ``output.txt`` that is a folder or
   another non-file counts as malformed), and so does a move out of bounds, on
   an occupied point, suicide or a ko recapture. The exit status of the
   player is not looked at, only its ``output.txt``.

The game follows ``tictacgo.games.littlego`` (docs/littlego.md): every
action counts (passes too), the game ends after ``n*n - 1`` actions, on two
passes in a row, or on a pass as the very first action; Black's score is
its stones, White's its stones plus komi ``n/2``.

Each game's result is printed, then a tally: games won by each command, as
Black and as White. With ``--games N`` the colours swap every game (the
first command plays Black in games 1, 3, 5, ...). ``--seed S`` gives each
player run a seed derived from S, the game and the colour in the
``TICTACGO_SEED`` environment variable (``tictacgo my-player`` reads it), so
a match between seeded players can be replayed. Exit status 0 when the
games were played (whoever won), 2 for bad arguments.

Each run of a program has a supervisor, a small process of its own
(``tictacgo.protocol.supervisor``) that owns the program's whole process
tree. When the move ends, however it ends (an answer, the time limit, the
host interrupted by Ctrl-C, SIGTERM or SIGHUP, or the host's process dying),
every process the program started is killed: its process group and, on
Linux, every process below it, those that left its session with ``setsid``
included (the supervisor is a child subreaper, so an orphan comes back to it
rather than to init); where the host's process died, its temporary folder is
removed too. Elsewhere (macOS, the BSDs) the process group is killed, and a
process that left the session may outlive the move. The program's stdout and
stderr are drained as they come: each goes to a log beside its working
directory (``.<folder name>.log/stdout.txt`` and ``stderr.txt``, rewritten every
move) that keeps the first 4 MiB and, past that, a line saying how many
bytes were cut and the last 64 KiB; a forfeit shows the last 800 characters
of stderr. So neither the host's memory nor the disk grows with what a
program writes.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tictacgo import game_loop
from tictacgo.agent import Agent
from tictacgo.game_loop import Forfeit
from tictacgo.games import littlego
from tictacgo.protocol import course, supervisor
from tictacgo.protocol.player import SEED_ENV

TIMEOUT = "timeout"
MISSING = "missing_file"
MALFORMED = "malformed"


@dataclass
class PlayerRun:
    """One run of a player program: what it answered, or why it failed."""

    move: str | tuple[int, int] | None  # parsed output.txt; None on failure
    failure: str | None                 # TIMEOUT, MISSING or MALFORMED; None on success
    detail: str                         # a human-readable explanation of the failure
    seconds: float                      # wall-clock time of the run
    stderr_tail: str = ""               # the end of the player's stderr


@dataclass
class GameResult:
    """The outcome of one hosted game."""

    black: str                          # the command that played Black
    white: str
    winner: int                         # 1 Black, 2 White, 0 draw
    end: str                            # littlego end reason (END_ILLEGAL for a forfeit)
    forfeit: str | None                 # why the loser forfeited: timeout, missing_file,
    #                                     malformed, out_of_bounds, occupied, suicide, ko
    detail: str                         # one line describing the end
    scores: tuple[float, float]         # (Black, White), komi included
    n_actions: int
    final_board: np.ndarray
    moves: list[str] = field(default_factory=list)  # the output.txt moves, "i,j" or "PASS"


def _clear(path: Path) -> None:
    """Remove whatever is at ``path`` in a player's working directory: a file, a link, a folder tree."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        shutil.rmtree(path)
    else:
        path.unlink()


def _tail(text: str, limit: int = 800) -> str:
    return text[-limit:].strip()


def run_player(command: str, workdir: str | os.PathLike, colour: int, previous, board,
               time_limit: float, env: dict | None = None,
               owner_dir: str | os.PathLike | None = None) -> PlayerRun:
    """Run one move of a player program through the file protocol.

    Args:
        command: the shell command line of the player.
        workdir: the player's working directory (input.txt/output.txt live there).
        colour: 1 or 2, the colour to move.
        previous: the board before the opponent's last action.
        board: the current board.
        time_limit: wall-clock seconds before the player is killed (a loss).
        env: the environment for the player (default: the host's).
        owner_dir: the player's own temporary folder (``workdir`` or a folder above it), removed
            by the program's supervisor if this process dies during the move.
    Returns:
        A ``PlayerRun`` with the parsed move, or the failure and why.
    """
    workdir = Path(workdir)
    output = workdir / "output.txt"
    # The player may have left anything at these names (a folder named
    # output.txt, say); the working directory is the host's, so it is cleared.
    _clear(workdir / "input.txt")
    _clear(output)
    course.write_input(workdir / "input.txt", colour, previous, board)
    logs = workdir.parent / f".{workdir.name}.log"
    logs.mkdir(exist_ok=True)
    outcome = supervisor.run_supervised(command, workdir, env, time_limit, logs / "stdout.txt",
                                        logs / "stderr.txt", orphan_dir=owner_dir)
    timed_out, seconds = outcome["timed_out"], outcome["seconds"]
    stderr_tail = _tail(outcome["stderr_tail"])
    if timed_out:
        return PlayerRun(None, TIMEOUT, f"no answer within the {time_limit:g} s limit", seconds, stderr_tail)
    if not output.exists():
        return PlayerRun(None, MISSING, f"output.txt not found (exit status {outcome['returncode']})",
                         seconds, stderr_tail)
    try:
        move = course.read_output(output)
    except ValueError as e:
        return PlayerRun(None, MALFORMED, str(e), seconds, stderr_tail)
    return PlayerRun(move, None, "", seconds, stderr_tail)


def _player_seed(seed: int, game_index: int, colour: int) -> int:
    return int(np.random.SeedSequence([seed, game_index, colour]).generate_state(1)[0])


def play_programs(black: str, white: str, size: int = 5, time_limit: float = 10.0,
              seed: int | None = None, game_index: int = 0,
              log: Callable[[str], None] | None = None,
              game: littlego.LittleGo | None = None) -> GameResult:
    """Play one game between two player commands.

    Args:
        black: the shell command of the Black player.
        white: the shell command of the White player.
        size: the board size n.
        time_limit: wall-clock seconds per move.
        seed: if given, each player run gets a derived seed in ``$TICTACGO_SEED``.
        game_index: mixed into the derived seeds.
        log: called with a line per move (for ``--verbose``); None is quiet.
        game: the game object, when the caller has built it for a run of games (its
            board size must be ``size``); None: ``LittleGo(size)``.
    Returns:
        The ``GameResult``.
    Raises:
        ValueError: a ``game`` whose board size is not ``size``.
    """
    commands = {littlego.BLACK: black, littlego.WHITE: white}
    if game is None:
        game = littlego.LittleGo(size)
    elif game.size != size:
        raise ValueError(f"size {size} differs from the game's board size {game.size}")
    name = game.spec.player_name
    moves: list[str] = []  # what the players wrote, the illegal last one included
    with tempfile.TemporaryDirectory(prefix="tictacgo-host-") as tmp:
        players = []
        for c in (littlego.BLACK, littlego.WHITE):
            workdir = Path(tmp) / name(c).lower()
            workdir.mkdir()
            env = dict(os.environ)
            if seed is not None:
                env[SEED_ENV] = str(_player_seed(seed, game_index, c))
            players.append(ProgramPlayer(commands[c], workdir, c, time_limit, env, moves, game=game,
                                         owner_dir=Path(tmp)))

        def show(state, action, colour, seconds):
            if log is not None:
                log(f"  {state.t:2d}. {name(colour)}: {moves[-1]}  [{seconds:.2f} s]")
                log("\n".join("      " + line for line in littlego.render_ascii(state).splitlines()))

        record = game_loop.play_game(game, players[0], players[1], on_move=show)
    state = record.final_state
    w = record.winner
    b_score, w_score = littlego.scores(state)
    if not record.forfeit:
        who = "draw" if w == 0 else f"{name(w)} wins"
        detail = f"{who} {b_score:g} : {w_score:g} after {state.t} actions ({state.end})"
    else:
        detail = f"{name(record.illegal_by)} forfeits: {record.illegal_detail}\n  {name(w)} wins"
    return GameResult(black, white, w, state.end, record.forfeit or None, detail, (b_score, w_score), state.t,
                      littlego.to_board(state), moves)


class ProgramPlayer(Agent):
    """A player program seen as an agent: each ``act`` is one run through the course's files.

    A run that fails (timeout, no or malformed output.txt) or a move the
    course's host refuses (out of bounds, occupied, suicide, ko) raises
    ``tictacgo.game_loop.Forfeit``, so that the arena's one game loop scores the
    forfeit as the host does.
    """

    name = "program"

    def __init__(self, command: str, workdir: Path, colour: int | None, time_limit: float, env: dict,
                 moves: list[str], game: littlego.LittleGo | None = None, owner_dir: Path | None = None):
        super().__init__(game if game is not None else littlego.LittleGo())
        self.command = command
        self.workdir = workdir
        self.colour = colour
        self.time_limit = time_limit
        self.env = env
        self.moves = moves
        self.owner_dir = owner_dir  # the player's temporary folder, removed if this process dies mid-move
        self.last_stderr = ""       # the end of what the program wrote on stderr during its last move

    def act(self, state) -> int:
        # colour None: the program plays whichever colour is to move (an agent of the registry).
        colour = self.colour if self.colour is not None else self.game.current_player(state)
        name = self.game.spec.player_name(colour)
        result = run_player(self.command, self.workdir, colour, littlego.previous_board(state),
                            littlego.to_board(state), self.time_limit, self.env, owner_dir=self.owner_dir)
        self.last_stderr = result.stderr_tail
        if result.failure is not None:
            detail = result.detail
            if result.stderr_tail:
                detail += f"\n  {name}'s stderr: " + result.stderr_tail.replace("\n", "\n    ")
            raise Forfeit(result.failure, detail)
        action, reason = course.judge_move(state, result.move)
        text = course.PASS if result.move == course.PASS else f"{result.move[0]},{result.move[1]}"
        self.moves.append(text)
        if action is None:
            raise Forfeit(reason, f"illegal move {text} ({reason})", action=text)
        return action
