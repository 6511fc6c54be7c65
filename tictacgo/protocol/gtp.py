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
``undo``, ``showboard``, ``time_settings``, ``time_left``, ``final_score``,
``final_status_list``, ``quit``.

Behaviour worth knowing:

* Every action counts in Little-Go, passes included. GTP allows a colour to
  play twice in a row, and GUIs send the stones of an edited position (set
  up in Sabaki or GoGui) as ``play`` commands: a ``play`` or ``genmove`` for
  the colour not to move first skips the other colour's turn. The skipped
  turn counts as an action, as a pass does, but never ends the game (Black
  passing first or two passes in a row would). A skip that reaches the
  action limit fails, and so does an out-of-turn ``play ... pass``; no move
  is accepted once the game is over. ``undo`` takes back a setup stone and
  its skipped turn together.
* ``play`` of a move the rules refuse fails with ``illegal move`` and the
  reason (``occupied``, ``suicide``, ``ko``); the position is unchanged.
* ``komi`` and ``boardsize`` are kept across ``clear_board``; ``boardsize``
  clears the board (as GTP says); ``komi`` rescores the game in progress.
  Either makes a new game (``LittleGo(size, komi)``) and a new agent for it,
  so that the agent searches the rules being played. A size the agent cannot
  play (an agent that refuses the variant when built: a trained model is
  tied to its board size, the solver to boards up to 7x7) is an
  ``unacceptable size`` failure, and a komi it cannot play a failure too;
  either leaves the game and the agent as they were. ``tictacgo gtp
  --board-size N --komi K`` starts with another variant (exit status 2, one
  line, if it is out of range or the agent cannot play it).
* ``final_score`` is this variant's stone score of the current position
  (``B+x``, ``W+x``, ``0``), not territory. ``final_status_list alive``
  lists every stone on the board, one group a line, and ``dead`` and
  ``seki`` list none: the variant counts the stones as they stand and takes
  none off as dead, so this is the status its score uses.
* ``time_settings main byo_yomi_time byo_yomi_stones`` and ``time_left
  colour seconds stones`` set the clock (``tictacgo.protocol.gtp_clock``).
  Under a time limit, an agent with a time option (``mcts``, ``minimax``,
  ``policy_mcts``, ``mix_mcts``, ``az``, ``solver``: a ``time_limit`` attribute)
  gets the clock's share for each move: the time left spread over its
  colour's remaining actions, never more than its own ``time=`` if one was
  given (a solver agent's share is split between its search and its
  fallback). Other agents play as they are.
* Input is bounded and strict: a command line of more than ``MAX_LINE``
  (4096) characters is answered ``? syntax error: a command line is longer
  than 4096 characters`` and skipped in chunks, never held whole (an endless
  line, ``< /dev/zero``, keeps the memory flat). Numbers are ASCII: whole
  numbers are digits only, real numbers (``komi``, ``time_left``) such as
  ``6.5``, ``-1`` or ``2e1`` and finite, each at most ``MAX_NUMBER_CHARS``
  (24) characters; anything else (``boardsize ²``, ``komi inf``, 5000
  digits) is ``? syntax error``. Bytes that are not UTF-8 read as ``\ufffd``.
* ``genmove`` never resigns; an agent that fails or returns an illegal
  action gives a failure response with the reason (logged on stderr), and
  the engine goes on. No command crashes the engine: anything unexpected is
  a ``?`` response.

The engine object (``GtpEngine``) is usable without a process:
``engine.handle("genmove b")`` returns the response text.
"""

from __future__ import annotations

import math
import re
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

from tictacgo import __version__
from tictacgo.games import littlego as go
from tictacgo.protocol.coords import GO_LETTERS, action_to_vertex, check_size, vertex_to_action
from tictacgo.protocol.gtp_clock import GtpClock
from tictacgo.validate import check_number

PROTOCOL_VERSION = 2
ENGINE_NAME = "tictacgo"

#: The longest command line read, in characters (its newline not counted). A longer line is
#: answered ``? syntax error`` and skipped in chunks of this size, never held whole in memory.
MAX_LINE = 4096
#: The most characters a number in a command may have (``boardsize``, ``komi``, ``time_settings``, ...).
MAX_NUMBER_CHARS = 24

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# GTP numbers are ASCII: Python's int() and float() would also take other scripts' digits, and
# str.isdigit() superscripts that int() then refuses.
_INT_RE = re.compile(r"[0-9]+", re.ASCII)
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


class GtpError(Exception):
    """A command failed: the message becomes the ``?`` response."""


def parse_colour(text: str) -> int:
    """``b``/``black`` -> 1, ``w``/``white`` -> 2 (case-insensitive), else GtpError."""
    t = text.lower()
    if t in ("b", "black"):
        return go.BLACK
    if t in ("w", "white"):
        return go.WHITE
    raise GtpError(f"invalid color {_shown(text)}; expected b, black, w or white")


def parse_int(text: str, what: str) -> int:
    """A GTP whole number: ASCII digits only, at most ``MAX_NUMBER_CHARS`` of them.

    Raises:
        GtpError: ``syntax error`` naming ``what`` and the text, otherwise.
    """
    if len(text) > MAX_NUMBER_CHARS or not _INT_RE.fullmatch(text):
        raise GtpError(f"syntax error: {what} {_shown(text)} is not a whole number "
                       f"(ASCII digits, at most {MAX_NUMBER_CHARS})")
    return int(text)


def parse_float(text: str, what: str) -> float:
    """A GTP real number (``6.5``, ``-1``, ``2e1``): ASCII, finite, at most ``MAX_NUMBER_CHARS`` characters.

    Raises:
        GtpError: ``syntax error`` naming ``what`` and the text, otherwise (``nan`` and ``inf`` too).
    """
    infinite = GtpError(f"syntax error: {what} must be finite, got {_shown(text)}")
    if text.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        raise infinite
    if len(text) > MAX_NUMBER_CHARS or not _FLOAT_RE.fullmatch(text):
        raise GtpError(f"syntax error: {what} {_shown(text)} is not a number "
                       f"(ASCII, such as 6.5, at most {MAX_NUMBER_CHARS} characters)")
    value = float(text)
    if not math.isfinite(value):  # 1e999
        raise infinite
    return value


def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a response, cut to ``limit`` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


def read_lines(stream: IO[str], limit: int = MAX_LINE) -> Iterator[str | None]:
    """The lines of ``stream``, each read in at most ``limit + 1`` characters; None for a longer line.

    A longer line is read on in chunks of that size and dropped up to its newline (or the end of
    the input), so an endless line (``< /dev/zero``) never fills the memory.
    """
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line.endswith("\n"):
            yield line
            continue
        while line and not line.endswith("\n"):
            line = stream.readline(limit + 1)
        yield None


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
        size: the board size to start with (2..19).
        komi: the komi to start with (None: the rules' default, ``size / 2``).

    Raises:
        ValueError: a size or komi out of range, or one the agent cannot play (the factory's
            ValueError: a trained model is tied to its variant).
    """

    def __init__(self, agent_factory: Callable[[go.LittleGo], object], name: str = ENGINE_NAME,
                 agent_spec: str = "", log: IO[str] | None = None, size: int = 5,
                 komi: float | None = None):
        self._agent_factory = agent_factory
        self._name = name
        self._spec = agent_spec
        self._log = log if log is not None else sys.stderr
        self.size = check_size(size)
        # None: the rules' default, size / 2
        self.komi: float | None = check_number("komi", komi, allow_none=True)
        self.moves: list[int] = []
        self.skips: set[int] = set()  # indices in ``moves`` of turns skipped before a setup stone
        self.clock = GtpClock()
        self.game = go.LittleGo(self.size, self.komi)  # built again only when boardsize or komi changes it
        self.state = self.game.initial_state()
        self.agent = agent_factory(self.game)
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
            "time_settings": self._time_settings,
            "time_left": self._time_left,
            "final_score": self._final_score,
            "final_status_list": self._final_status_list,
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
        if _INT_RE.fullmatch(words[0]):
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
        for line in read_lines(stdin):
            response = self.handle(line) if line is not None else (
                f"? syntax error: a command line is longer than {MAX_LINE} characters\n\n")
            if response is None:
                continue
            stdout.write(response)
            stdout.flush()
            if self.quit:
                return

    # ------------------------------------------------------------------ helpers

    def _rebuild(self, moves: list[int], skips: set[int] | None = None) -> None:
        skips = set(self.skips if skips is None else skips)
        state = self.game.initial_state()
        for i, a in enumerate(moves):
            state = _skip_turn(state) if i in skips else go.play(state, a)
        self.state, self.moves, self.skips = state, list(moves), {i for i in skips if i < len(moves)}

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

    def _turn_for(self, colour: int) -> go.GoState:
        """The state in which ``colour`` moves: the current one, or the other colour's turn skipped.

        Raises:
            GtpError: the game is over, or skipping the turn would reach the action limit.
        """
        if self.state.end is not None:
            raise GtpError(f"illegal move: the game is over ({self.state.end})")
        if colour == self.state.to_move:
            return self.state
        skipped = _skip_turn(self.state)
        if skipped.end is not None:
            player = self.state.game.spec.player_name(colour)
            raise GtpError(f"illegal move: no action is left for {player} (skipping "
                           f"{self.state.game.spec.player_name(self.state.to_move)}'s turn "
                           f"reaches the limit of {self.state.game.max_actions} actions)")
        return skipped

    def _apply(self, before: go.GoState, action: int) -> None:
        """Play ``action`` in ``before`` (the current state, or it with a turn skipped)."""
        after = go.play(before, action)
        if before is not self.state:
            self.skips.add(len(self.moves))
            self.moves.append(self.state.game.pass_action)
        self.state = after
        self.moves.append(action)

    # ------------------------------------------------------------------ commands

    def _known_command(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error: known_command takes one command name")
        return "true" if args[0] in self.commands else "false"

    def _boardsize(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error: boardsize takes one whole number")
        n = parse_int(args[0], "boardsize")
        if not 2 <= n <= len(GO_LETTERS):
            raise GtpError(f"unacceptable size: {n}; this engine plays 2..{len(GO_LETTERS)} (Little-Go is 5)")
        game = go.LittleGo(n, self.komi)
        agent = self._agent_for(game, f"unacceptable size: {n}")
        self.size, self.game = n, game
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
        komi = parse_float(args[0], "komi")
        game = go.LittleGo(self.size, komi)
        agent = self._agent_for(game, f"komi {komi:g} is refused")
        old = self.komi, self.game
        self.komi, self.game = komi, game
        try:
            self._rebuild(self.moves)
        except (go.IllegalActionError, go.GameOverError) as e:  # cannot happen with the same rules
            self.komi, self.game = old
            raise GtpError(f"cannot change komi now: {e}") from e
        self.agent = agent
        return ""

    def _play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpError("syntax error: play takes a color and a vertex")
        colour = parse_colour(args[0])
        if args[1].lower() == "resign":
            raise GtpError("illegal move: resign is not a move in Little-Go")
        if len(args[1]) > MAX_NUMBER_CHARS or not args[1].isascii():
            raise GtpError(f"syntax error: {_shown(args[1])} is not a vertex; expected a column letter "
                           f"and a row number such as C3, or pass")
        try:
            action = vertex_to_action(args[1], self.size)
        except ValueError as e:
            raise GtpError(f"syntax error: {e}") from None
        if action == self.state.game.pass_action and colour != self.state.to_move and self.state.end is None:
            mover = self.state.game.spec.player_name(self.state.to_move)
            raise GtpError(f"illegal move: it is {mover}'s turn; a pass out of turn is not a setup stone")
        before = self._turn_for(colour)
        reason = go.illegal_reason(before, action)
        if reason is not None:
            raise GtpError(f"illegal move: {reason}")
        self._apply(before, action)
        return ""

    def _genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error: genmove takes a color")
        colour = parse_colour(args[0])
        before = self._turn_for(colour)
        budget = self.clock.budget(colour, (before.game.max_actions - before.t + 1) // 2)
        start = time.perf_counter()
        try:
            with _time_limit(self.agent, budget):
                action = self.agent.act(before)
        except Exception as e:
            traceback.print_exc(file=self._log)
            raise GtpError(f"the agent failed: {type(e).__name__}: {e}") from None
        finally:
            self.clock.spend(colour, time.perf_counter() - start)
        try:
            self._apply(before, action)
        except (TypeError, ValueError) as e:
            raise GtpError(f"the agent chose an illegal action {action!r}: {e}") from None
        player = self.state.game.spec.player_name(colour)
        within = "" if budget is None else f" (budget {budget:.3f} s)"
        print(f"genmove {player}: {action_to_vertex(self.moves[-1], self.size)} "
              f"in {time.perf_counter() - start:.3f} s{within}", file=self._log)
        return action_to_vertex(self.moves[-1], self.size)

    def _undo(self, args: list[str]) -> str:
        if not self.moves:
            raise GtpError("cannot undo: no move has been played")
        keep = len(self.moves) - 1
        if keep - 1 in self.skips:  # a setup stone goes with the turn skipped before it
            keep -= 1
        self._rebuild(self.moves[:keep])
        self._reset_agent()
        return ""

    def _showboard(self, args: list[str]) -> str:
        return "\n" + render_board(self.state)

    def _time_settings(self, args: list[str]) -> str:
        if len(args) != 3:
            raise GtpError("syntax error: time_settings takes three whole numbers "
                           "(main time, byo-yomi time, byo-yomi stones)")
        main, byo_yomi, stones = (parse_int(a, w) for a, w in zip(
            args, ("main time", "byo-yomi time", "byo-yomi stones"), strict=True))
        self.clock.settings(main, byo_yomi, stones)
        return ""

    def _time_left(self, args: list[str]) -> str:
        if len(args) != 3:
            raise GtpError("syntax error: time_left takes a color, seconds and stones")
        colour = parse_colour(args[0])
        seconds = parse_float(args[1], "time")
        stones = parse_int(args[2], "stones")
        try:
            self.clock.time_left(colour, seconds, stones)
        except ValueError as e:
            raise GtpError(f"syntax error: {e}") from None
        return ""

    def _final_score(self, args: list[str]) -> str:
        b, w = go.scores(self.state)
        if b == w:
            return "0"
        return f"{'B' if b > w else 'W'}+{abs(b - w):g}"

    def _final_status_list(self, args: list[str]) -> str:
        if len(args) != 1 or args[0].lower() not in ("alive", "dead", "seki"):
            raise GtpError("syntax error: final_status_list takes alive, dead or seki")
        if args[0].lower() != "alive":
            return ""  # stone scoring as the stones stand: none is dead, none is counted apart as seki
        game = self.state.game
        lines = []
        for stones in (self.state.black, self.state.white):
            while stones:
                group = game.flood(stones & -stones, stones)
                stones &= ~group
                lines.append(" ".join(action_to_vertex(p, self.size) for p in game.bits_to_list(group)))
        return "\n".join(lines)

    def _quit(self, args: list[str]) -> str:
        self.quit = True
        return ""


def _skip_turn(state: go.GoState) -> go.GoState:
    """``state`` with the mover's turn skipped before a setup stone: an action, as a pass is, that
    ends the game only at the action limit."""
    skipped = go.play(state, state.game.pass_action)
    if skipped.end in (go.END_PASS_ON_EMPTY_START, go.END_DOUBLE_PASS):
        skipped = skipped._replace(end=None)
    return skipped


@contextmanager
def _time_limit(agent: object, seconds: float | None) -> Iterator[None]:
    """Within the block, ``agent.time_limit`` is at most ``seconds`` (None: unchanged).

    A solver agent's budget is split evenly between its own search and its fallback's.
    """
    timed = [] if seconds is None else [a for a in (agent, getattr(agent, "fallback", None))
                                        if a is not None and hasattr(a, "time_limit")]
    saved = [(a, a.time_limit) for a in timed]
    for a, own in saved:
        share = seconds / len(timed)
        a.time_limit = share if own is None else min(own, share)
    try:
        yield
    finally:
        for a, own in saved:
            a.time_limit = own


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
