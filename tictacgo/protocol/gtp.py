"""A Go Text Protocol (GTP v2) engine for Little-Go backed by an agent (``tictacgo gtp --agent SPEC``).

GTP is the line protocol that Go GUIs (GoGui, Sabaki, Lizzie) and match
tools (gogui-twogtp, GNU Go's own test scripts) use to talk to engines: a
command a line on stdin, a response on stdout (``= result`` or ``? error``,
then an empty line), optionally numbered (``7 genmove b`` -> ``=7 C3``).
This engine plays by this package's Little-Go rules core, so a GUI that
connects to it gets the variant's rules: stone scoring, no suicide, simple
ko, the action limit (24 on 5x5, passes count), the end on two passes in a
row and on Black passing first.

Commands: ``protocol_version``, ``name``, ``version``, ``known_command``,
``list_commands``, ``boardsize`` (2..19; the default size is 5),
``clear_board``, ``komi`` (default ``n / 2`` = 2.5), ``play``, ``genmove``,
``undo``, ``showboard``, ``final_score``, ``quit``.

Behaviour worth knowing:

* Colours alternate strictly, as every action counts in Little-Go: ``play``
  or ``genmove`` for the colour not to move fails (``illegal move: it is
  Black's turn``), as does any move once the game is over.
* ``play`` of a move the rules refuse fails with ``illegal move`` and the
  reason (``occupied``, ``suicide``, ``ko``); the position is unchanged.
* ``komi`` and ``boardsize`` are kept across ``clear_board``; ``boardsize``
  clears the board (as GTP says); ``komi`` rescores the game in progress.
  Either makes a new game (``LittleGo(size, komi)``) and a new agent for it,
  so that the agent searches the rules being played. A size the agent cannot
  play (a trained model is tied to its board size) is an ``unacceptable
  size`` failure, and a komi it cannot play a failure too; either leaves the
  game as it was.
* ``final_score`` is this variant's stone score of the current position
  (``B+x``, ``W+x``, ``0``), not territory.
* ``genmove`` never resigns; an agent that fails or returns an illegal
  action gives a failure response with the reason (logged on stderr), and
  the engine goes on. No command crashes the engine: anything unexpected is
  a ``?`` response.

The engine object (``GtpEngine``) is usable without a process:
``engine.handle("genmove b")`` returns the response text.
"""

from __future__ import annotations

import re
import sys
import time
import traceback
from collections.abc import Callable
from typing import IO

import numpy as np

from tictacgo import __version__
from tictacgo.games import littlego as go
from tictacgo.protocol.coords import GO_LETTERS, action_to_vertex, vertex_to_action

PROTOCOL_VERSION = 2
ENGINE_NAME = "tictacgo"

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class GtpError(Exception):
    """A command failed: the message becomes the ``?`` response."""


def parse_colour(text: str) -> int:
    """``b``/``black`` -> 1, ``w``/``white`` -> 2 (case-insensitive), else GtpError."""
    t = text.lower()
    if t in ("b", "black"):
        return go.BLACK
    if t in ("w", "white"):
        return go.WHITE
    raise GtpError(f"invalid color {text!r}; expected b, black, w or white")


class GtpEngine:
    """The GTP state machine: a board (as a list of actions) and an agent for ``genmove``.

    Args:
        agent_factory: ``f(game) -> agent`` building an agent with ``.act(state)``
            (and optionally ``.reset()``) for ``game``, the ``LittleGo`` being
            played (its size and komi); called again when ``boardsize`` or
            ``komi`` changes the game.
        name: what ``name`` answers.
        agent_spec: shown by ``version``.
        log: where warnings and tracebacks go (stderr by default).
    """

    def __init__(self, agent_factory: Callable[[go.LittleGo], object], name: str = ENGINE_NAME,
                 agent_spec: str = "", log: IO[str] | None = None):
        self._agent_factory = agent_factory
        self._name = name
        self._spec = agent_spec
        self._log = log if log is not None else sys.stderr
        self.size = 5
        self.komi: float | None = None  # None: the rules' default, size / 2
        self.moves: list[int] = []
        self.state = go.LittleGo(self.size).initial_state()
        self.agent = agent_factory(self.state.game)
        self.quit = False
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda a: str(PROTOCOL_VERSION),
            "name": lambda a: self._name,
            "version": lambda a: __version__ + (f" ({self._spec})" if self._spec else ""),
            "known_command": self._known_command,
            "list_commands": lambda a: "\n".join(self.commands),
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi,
            "play": self._play,
            "genmove": self._genmove,
            "undo": self._undo,
            "showboard": self._showboard,
            "final_score": self._final_score,
            "quit": self._quit,
        }

    # ------------------------------------------------------------------ protocol

    def handle(self, line: str) -> str | None:
        """The full response (ending in an empty line) to one input line, None for a blank one."""
        line = _CONTROL_RE.sub("", line.replace("\t", " ")).split("#", 1)[0].strip()
        if not line:
            return None
        words = line.split()
        ident = ""
        if words[0].isdigit():
            ident = words.pop(0)
        if not words:
            return f"?{ident} missing command\n\n"
        command, args = words[0], words[1:]
        handler = self.commands.get(command)
        if handler is None:
            return f"?{ident} unknown command\n\n"
        try:
            result = handler(args)
        except GtpError as e:
            return f"?{ident} {e}\n\n"
        except Exception as e:  # never let a bug take the engine down mid-game
            traceback.print_exc(file=self._log)
            return f"?{ident} internal error: {type(e).__name__}: {e}\n\n"
        return f"={ident} {result}\n\n" if result else f"={ident}\n\n"

    def serve(self, stdin: IO[str], stdout: IO[str]) -> None:
        """Answer commands from ``stdin`` until ``quit`` or end of input."""
        for line in stdin:
            response = self.handle(line)
            if response is None:
                continue
            stdout.write(response)
            stdout.flush()
            if self.quit:
                return

    # ------------------------------------------------------------------ helpers

    def _rebuild(self, moves: list[int]) -> None:
        state = go.LittleGo(self.size, self.komi).initial_state()
        for a in moves:
            state = go.play(state, a)
        self.state, self.moves = state, list(moves)

    def _agent_for(self, game: go.LittleGo, refusal: str):
        """The agent for ``game``: the current one if it plays that game, else a new one (it must
        search the rules being played).

        Raises:
            GtpError: ``refusal`` and why, when the agent cannot play ``game`` (a trained
                model is tied to its board size and variant); nothing has changed then.
        """
        agent_game = getattr(self.agent, "game", None)
        if agent_game is not None and agent_game == game:
            return self.agent
        try:
            return self._agent_factory(game)
        except (TypeError, ValueError) as e:
            raise GtpError(f"{refusal}; the agent cannot play it: {e}") from None

    def _reset_agent(self) -> None:
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset()

    def _check_turn(self, colour: int) -> None:
        if self.state.end is not None:
            raise GtpError(f"illegal move: the game is over ({self.state.end})")
        if colour != self.state.to_move:
            mover = self.state.game.spec.player_name(self.state.to_move)
            raise GtpError(f"illegal move: it is {mover}'s turn "
                           "(colours alternate in Little-Go: every action counts)")

    def _apply(self, action: int) -> None:
        self.state = go.play(self.state, action)
        self.moves.append(action)

    # ------------------------------------------------------------------ commands

    def _known_command(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error: known_command takes one command name")
        return "true" if args[0] in self.commands else "false"

    def _boardsize(self, args: list[str]) -> str:
        if len(args) != 1 or not args[0].isdigit():
            raise GtpError("syntax error: boardsize takes one whole number")
        n = int(args[0])
        if not 2 <= n <= len(GO_LETTERS):
            raise GtpError(f"unacceptable size: {n}; this engine plays 2..{len(GO_LETTERS)} (Little-Go is 5)")
        agent = self._agent_for(go.LittleGo(n, self.komi), f"unacceptable size: {n}")
        self.size = n
        self._rebuild([])
        self.agent = agent
        self._reset_agent()
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self._rebuild([])
        self._reset_agent()
        return ""

    def _komi(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error: komi takes one number")
        try:
            komi = float(args[0])
        except ValueError:
            raise GtpError(f"syntax error: komi {args[0]!r} is not a number") from None
        if not np.isfinite(komi):
            raise GtpError(f"syntax error: komi must be finite, got {args[0]!r}")
        agent = self._agent_for(go.LittleGo(self.size, komi), f"komi {komi:g} is refused")
        old = self.komi
        self.komi = komi
        try:
            self._rebuild(self.moves)
        except (go.IllegalActionError, go.GameOverError) as e:  # cannot happen with the same rules
            self.komi = old
            raise GtpError(f"cannot change komi now: {e}") from e
        self.agent = agent
        return ""

    def _play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpError("syntax error: play takes a color and a vertex")
        colour = parse_colour(args[0])
        if args[1].lower() == "resign":
            raise GtpError("illegal move: resign is not a move in Little-Go")
        try:
            action = vertex_to_action(args[1], self.size)
        except ValueError as e:
            raise GtpError(f"syntax error: {e}") from None
        self._check_turn(colour)
        reason = go.illegal_reason(self.state, action)
        if reason is not None:
            raise GtpError(f"illegal move: {reason}")
        self._apply(action)
        return ""

    def _genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error: genmove takes a color")
        colour = parse_colour(args[0])
        self._check_turn(colour)
        start = time.perf_counter()
        try:
            action = self.agent.act(self.state)
        except Exception as e:
            traceback.print_exc(file=self._log)
            raise GtpError(f"the agent failed: {type(e).__name__}: {e}") from None
        try:
            self._apply(action)
        except (TypeError, ValueError) as e:
            raise GtpError(f"the agent chose an illegal action {action!r}: {e}") from None
        player = self.state.game.spec.player_name(colour)
        print(f"genmove {player}: {action_to_vertex(self.moves[-1], self.size)} "
              f"in {time.perf_counter() - start:.3f} s", file=self._log)
        return action_to_vertex(self.moves[-1], self.size)

    def _undo(self, args: list[str]) -> str:
        if not self.moves:
            raise GtpError("cannot undo: no move has been played")
        self._rebuild(self.moves[:-1])
        self._reset_agent()
        return ""

    def _showboard(self, args: list[str]) -> str:
        return "\n" + render_board(self.state)

    def _final_score(self, args: list[str]) -> str:
        b, w = go.scores(self.state)
        if b == w:
            return "0"
        return f"{'B' if b > w else 'W'}+{abs(b - w):g}"

    def _quit(self, args: list[str]) -> str:
        self.quit = True
        return ""


def render_board(state: go.GoState) -> str:
    """The board with Go coordinates (letters over columns, rows numbered from the bottom)."""
    n = state.game.size
    board = go.to_board(state)
    sym = {go.EMPTY: ".", go.BLACK: "X", go.WHITE: "O"}
    letters = "    " + " ".join(GO_LETTERS[:n])
    lines = [letters]
    for i in range(n):
        lines.append(f"{n - i:2d}  " + " ".join(sym[int(v)] for v in board[i]) + f"  {n - i}")
    lines.append(letters)
    b, w = go.scores(state)
    status = f"over ({state.end})" if state.end else f"{state.game.spec.player_name(state.to_move)} to move"
    lines.append(f"action {state.t}/{state.game.max_actions}, {status}; "
                 f"stones + komi: Black {b:g}, White {w:g}")
    return "\n".join(lines)
