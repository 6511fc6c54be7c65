"""Games between two GTP engines, refereed by this package's Little-Go rules.

A GTP controller (as gogui-twogtp is for ordinary Go) that knows the
variant: it asks the engine to move (``genmove``), checks the answer
against the rules core, tells the other engine (``play``), and ends the
game when the rules say so (the action limit, two passes, Black passing
first), scoring it by stones on the board plus komi. The engines' own
ideas of the rules matter only where they refuse a move: an engine that
answers with an illegal move, a malformed vertex, ``resign`` or a failure
loses the game by forfeit, and an engine that refuses the opponent's legal
move ends the game as ``"disagreement"`` (no winner), since the two no
longer share a position.

``GtpProcess`` runs one engine as a subprocess (``gnugo --mode gtp``,
``tictacgo gtp --agent mcts``); ``play_refereed_game(black, white)``
plays one game and returns a ``RefereedGame``.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from tictacgo.games import littlego as go
from tictacgo.protocol.coords import action_to_vertex, vertex_to_action

END_FORFEIT = "forfeit"
END_DISAGREEMENT = "disagreement"


class GtpProcessError(RuntimeError):
    """The engine process died or answered something that is not GTP."""


class GtpProcess:
    """A GTP engine in a subprocess, spoken to over its stdin/stdout.

    Args:
        command: the engine's command line, e.g. ``["gnugo", "--mode", "gtp"]``.
        name: how the engine is named in results (defaults to the command).
    """

    def __init__(self, command: Sequence[str], name: str | None = None):
        self.command = list(command)
        self.name = name or " ".join(self.command)
        self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(self, command: str) -> tuple[bool, str]:
        """Send one command; ``(success, response text)`` without the ``=``/``?`` prefix.

        Raises:
            GtpProcessError: the engine exited or answered a line that does not start with = or ?.
        """
        if self.proc.poll() is not None:
            raise GtpProcessError(f"{self.name} has exited (status {self.proc.returncode})")
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise GtpProcessError(f"{self.name} closed its output after {command!r}")
            line = line.rstrip("\r\n")
            if not lines and not line:
                continue  # stray blank lines between responses
            if not line:
                break
            lines.append(line)
        head = lines[0]
        if head[:1] not in ("=", "?"):
            raise GtpProcessError(f"{self.name} answered {head!r} to {command!r}; not a GTP response")
        text = "\n".join([head[1:].lstrip("0123456789").strip()] + lines[1:]).strip()
        return head[0] == "=", text

    def ask(self, command: str) -> str:
        """``send`` that raises GtpProcessError on a failure response."""
        ok, text = self.send(command)
        if not ok:
            raise GtpProcessError(f"{self.name} failed {command!r}: {text}")
        return text

    def close(self) -> None:
        """Send ``quit`` (if the engine still runs) and wait for it to exit."""
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except (GtpProcessError, OSError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> GtpProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class RefereedGame:
    """One refereed game.

    Attributes:
        moves: the actions played (rules-core numbering).
        winner: 1 Black, 2 White, 0 draw or no result (a disagreement).
        reason: the rules' end (``max_actions``, ``double_pass``,
            ``pass_on_empty_start``) or ``forfeit`` / ``disagreement``.
        scores: (Black, White) by stones plus komi at the end.
        detail: what happened, for a forfeit or a disagreement.
        seconds: each colour's total ``genmove`` time, (Black, White).
    """

    moves: list[int] = field(default_factory=list)
    winner: int = 0
    reason: str = ""
    scores: tuple[float, float] = (0.0, 0.0)
    detail: str = ""
    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])


def play_refereed_game(black: GtpProcess, white: GtpProcess, size: int = 5, komi: float | None = None,
                       max_actions: int | None = None) -> RefereedGame:
    """Play one game between two GTP engines under the Little-Go rules.

    Both engines get ``boardsize``, ``clear_board`` and ``komi`` first.

    Args:
        black, white: the engines (Black moves first).
        size, komi, max_actions: the rules (defaults 5, ``size / 2``, ``size * size - 1``).
    Returns:
        The game's moves, winner, reason and scores.
    """
    state = go.LittleGo(size, komi, max_actions).initial_state()
    engines = {go.BLACK: black, go.WHITE: white}
    for engine in engines.values():
        engine.ask(f"boardsize {size}")
        engine.ask("clear_board")
        engine.ask(f"komi {state.game.komi:g}")
    game = RefereedGame()
    while state.end is None:
        colour = state.to_move
        letter = "B" if colour == go.BLACK else "W"
        mover, other = engines[colour], engines[3 - colour]
        start = time.perf_counter()
        ok, answer = mover.send(f"genmove {letter}")
        game.seconds[colour - 1] += time.perf_counter() - start
        reason = None
        action = None
        if not ok:
            reason = f"genmove failed: {answer}"
        elif answer.lower() == "resign":
            reason = "resigned"
        else:
            try:
                action = vertex_to_action(answer, size)
            except ValueError as e:
                reason = f"answered {answer!r}: {e}"
            else:
                why = go.illegal_reason(state, action)
                if why is not None:
                    reason = f"played {answer} which is illegal here: {why}"
        if reason is not None:
            state = go.forfeit(state)
            game.reason, game.detail = END_FORFEIT, f"{mover.name} ({letter}) {reason}"
            break
        state = go.play(state, action)
        game.moves.append(action)
        if state.end is None:
            ok, answer = other.send(f"play {letter} {action_to_vertex(action, size)}")
            if not ok:
                game.reason = END_DISAGREEMENT
                game.detail = (f"{other.name} refused {letter} {action_to_vertex(action, size)}, "
                               f"legal under Little-Go's rules: {answer}")
                game.scores = go.scores(state)
                return game
    game.winner = go.winner(state) or 0
    game.reason = game.reason or str(state.end)
    game.scores = go.scores(state)
    return game
