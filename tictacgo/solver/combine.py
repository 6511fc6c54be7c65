"""The value of a position from the proved values of its children: how frontier runs add up.

One frontier run (``scripts/solve_frontier.py``, ``tictacgo.evaluation.frontier``)
proves the positions of one line. The value of a position before the
lines part needs several runs: after Black's centre on 5x5, one run for
each of White's replies. ``combine`` puts them together with the rules core
alone (``tictacgo.games.littlego``: legal actions, play, the end of the
game; ``position_code`` for the 8 symmetric images):

* every position of every run's line whose value the run proved is read
  back by replaying the line's moves, and named by its canonical code (the
  same position, or one of its 8 images, has one code); two runs that
  disagree on a position are refused;
* at the *root* (the position after ``opening``), every legal action of the
  mover is played and looked up: the result of the game where the action
  ends it, else a proved position of the same code;
* the root's value is the minimax of its children's: the mover wins as soon
  as one child is a win for it; otherwise the value is known only once every
  child is (the best of them for the mover);
* back along the opening toward the empty board, a position is a win for
  its mover when the opening's move there leads to a win for that mover (a
  position where the opening's move does not win stays unknown, unless a run
  proved it).

What it trusts: the runs' values, each the solver's search on that
position (nothing is searched again here: this is not the certificate
checker, ``tictacgo.solver.checker``). What it checks: that the runs are of
one variant, that their lines are legal, that they do not contradict each
other, and that the children it needs are all there, by the rules' own
moves and symmetries, not by the solver's move classes.

``scripts/combine_proofs.py`` is the command line. Its JSON has the layout of
a frontier run's (``line``: the opening; ``positions``: a row for each
position of the opening, the root last), so ``book_from_frontier`` reads
it: the ``solver`` agent then plays the opening's winning moves from its
book.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from tictacgo.games import littlego
from tictacgo.protocol.coords import action_to_course, course_to_action
from tictacgo.solver.position_code import Code, canonical

#: A frontier run's JSON (or a combined result) is at most this large.
MAX_RESULT_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Proved:
    """One position a run proved: its value for Black, and where that comes from."""

    value_for_black: int
    source: str         # the run's file name
    line: str           # the moves from the empty board to the position, as the course writes them
    best_move: str | None


@dataclass(frozen=True)
class Child:
    """One legal action of the root's mover and what is known of the position it leads to."""

    move: str                   # the action, as the course writes it
    value_for_black: int | None  # None: no run proved this position
    how: str                    # "game end", "proved by FILE at LINE", or "not proved"


@dataclass
class Combined:
    """The values ``combine`` found: the root's children, the root and the opening's positions.

    Attributes:
        game: the variant.
        opening: the moves from the empty board to the root, as the course writes them.
        children: one entry per legal action of the root's mover, in action order.
        values: the value for Black of the position after ``opening[:k]``, for ``k`` from 0 (the
            empty board) to ``len(opening)`` (the root); None where it does not follow.
        best_moves: the winning move of the mover in each of those positions, where the value says
            the mover wins (None elsewhere).
        sources: the runs read.
    """

    game: littlego.LittleGo
    opening: list[str]
    children: list[Child]
    values: list[int | None]
    best_moves: list[str | None]
    sources: list[str]

    @property
    def root_value(self) -> int | None:
        return self.values[-1]

    @property
    def missing(self) -> list[str]:
        """The root's legal actions whose positions no run proved."""
        return [c.move for c in self.children if c.value_for_black is None]

    def to_json(self) -> dict:
        """The values as a frontier run's JSON (``line``: the opening; one row per position of the
        opening, the empty board first), with the children and the sources beside them."""
        g = self.game
        rows = []
        for k, (value, best) in enumerate(zip(self.values, self.best_moves, strict=True)):
            rows.append({"taken": k, "left": g.max_actions - k,
                         "mover": "Black" if k % 2 == 0 else "White",
                         "value_for_black": value, "best_move": best,
                         "line_move": self.opening[k] if k < len(self.opening) else None})
        return {"size": g.size, "komi": g.komi, "max_actions": g.max_actions, "line": list(self.opening),
                "positions": rows, "value_for_black": self.values[0],
                "children": [{"move": c.move, "value_for_black": c.value_for_black, "how": c.how}
                             for c in self.children],
                "sources": list(self.sources),
                "method": "combined from the runs' proved positions by the rules core (no search)"}


def read_runs(paths: list[str | os.PathLike]) -> tuple[littlego.LittleGo, dict[Code, Proved], list[str]]:
    """The proved positions of frontier runs' JSON files, by canonical code.

    Raises:
        ValueError: a file that is not a frontier run's JSON, runs of different variants, a line
            that the rules do not allow, or two runs that give one position different values
            (each named).
    """
    if not paths:
        raise ValueError("no run files given: expected one or more frontier runs' JSON files")
    game = None
    proved: dict[Code, Proved] = {}
    names = []
    for path in paths:
        path = Path(path)
        run = _load(path)
        g = littlego.LittleGo(run["size"], run["komi"], run["max_actions"])
        if game is None:
            game = g
        elif (g.size, g.komi, g.max_actions) != (game.size, game.komi, game.max_actions):
            raise ValueError(f"{path}: a run on {_variant(g)}, but {names[0]} is on {_variant(game)}")
        names.append(path.name)
        states = _replay(path, g, run["line"])
        for k, entry in enumerate(run["positions"]):
            try:
                taken, value, best = int(entry["taken"]), entry["value_for_black"], entry.get("best_move")
            except (KeyError, TypeError, ValueError) as e:
                raise ValueError(f"{path}: position {k} is not a frontier row (taken, value_for_black): "
                                 f"{e}") from None
            if value is None:
                continue
            if value not in (-1, 0, 1) or not 0 <= taken < len(states) or states[taken].end is not None:
                raise ValueError(f"{path}: position {k}: value_for_black {value!r} after {taken!r} moves; "
                                 f"expected -1, 0 or 1 at a position of the line before its end "
                                 f"(0 to {len(states) - 1} moves)")
            code, _ = canonical(states[taken])
            line = " ".join(run["line"][:taken])
            new = Proved(int(value), path.name, line, best)
            old = proved.get(code)
            if old is not None and old.value_for_black != new.value_for_black:
                raise ValueError(f"{path}: the position after '{line}' is {_result(new.value_for_black)} "
                                 f"there, but {old.source} proves the same position (after '{old.line}') "
                                 f"{_result(old.value_for_black)}")
            proved.setdefault(code, new)
    return game, proved, names


def combine(paths: list[str | os.PathLike], opening: str | list[str]) -> Combined:
    """The value of the position after ``opening`` (and of the positions before it) from runs' results.

    Args:
        paths: frontier runs' JSON files (``scripts/solve_frontier.py --json``), of one variant.
        opening: the moves from the empty board to the root, as the course writes them (``"2,2"``,
            ``"PASS"``), a string separated by spaces or a list; empty for the empty board.
    Returns:
        A ``Combined`` (see the module docstring for how each value follows).
    Raises:
        ValueError: as ``read_runs``, or an opening move that is not legal there (named).
    """
    game, proved, names = read_runs(paths)
    n = game.size
    words = opening.split() if isinstance(opening, str) else list(opening)
    states = _replay("the opening", game, words)
    if states[-1].end is not None:
        raise ValueError(f"the opening '{' '.join(words)}' ends the game; expected a position to play from")
    root = states[-1]
    children = []
    for a in littlego.legal_actions(root):
        child = littlego.play(root, a)
        move = action_to_course(a, n)
        if child.end is not None:
            children.append(Child(move, _end_value(child), "game end"))
            continue
        p = proved.get(canonical(child)[0])
        if p is None:
            children.append(Child(move, None, "not proved"))
        else:
            children.append(Child(move, p.value_for_black, f"proved by {p.source} after '{p.line}'"))
    values: list[int | None] = [None] * len(states)
    best: list[str | None] = [None] * len(states)
    values[-1], best[-1] = _minimax(root, children)
    if values[-1] is None:
        values[-1], best[-1] = _looked_up(proved, root)
    for k in range(len(words) - 1, -1, -1):
        sign = 1 if states[k].to_move == littlego.BLACK else -1
        if values[k + 1] is not None and values[k + 1] * sign == 1:
            values[k], best[k] = values[k + 1], words[k]
        else:
            values[k], best[k] = _looked_up(proved, states[k])
    return Combined(game, words, children, values, best, names)


def _minimax(state: littlego.GoState, children: list[Child]) -> tuple[int | None, str | None]:
    """The value for Black of ``state`` from its children's, and the mover's best move; (None, None)
    while the children known do not decide it."""
    sign = 1 if state.to_move == littlego.BLACK else -1
    known = [c for c in children if c.value_for_black is not None]
    if not known:
        return None, None
    top = max(known, key=lambda c: c.value_for_black * sign)
    if top.value_for_black * sign == 1 or len(known) == len(children):
        return top.value_for_black, top.move if top.value_for_black * sign >= 0 else None
    return None, None


def _looked_up(proved: dict[Code, Proved], state: littlego.GoState) -> tuple[int | None, str | None]:
    """A run's own value for ``state`` (None if none proved it); no move, since a run's best move is in
    the frame of its own line's position, which may be an image of ``state``."""
    p = proved.get(canonical(state)[0])
    return (None, None) if p is None else (p.value_for_black, None)


def _end_value(state: littlego.GoState) -> int:
    w = littlego.winner(state)
    return 1 if w == littlego.BLACK else -1 if w == littlego.WHITE else 0


def _replay(where, game: littlego.LittleGo, words) -> list[littlego.GoState]:
    """The states along ``words`` (course moves) from the empty board, each move checked by the rules."""
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise ValueError(f"{where}: the line must be a list of moves such as '2,2' or 'PASS', got {words!r}")
    states = [game.initial_state()]
    for k, word in enumerate(words):
        s = states[-1]
        if s.end is not None:
            break  # a line may hold moves after its game's end: they are not positions
        try:
            a = game.pass_action if word.upper() == "PASS" else course_to_action(word, game.size)
        except ValueError as e:
            raise ValueError(f"{where}: move {k + 1} ({word!r}): {e}") from None
        reason = littlego.illegal_reason(s, a)
        if reason is not None:
            raise ValueError(f"{where}: move {k + 1} ({word}) after '{' '.join(words[:k])}' is illegal: "
                             f"{reason}")
        states.append(littlego.play(s, a))
    return states


def _load(path: Path) -> dict:
    try:
        if path.stat().st_size > MAX_RESULT_BYTES:
            raise ValueError(f"{path.stat().st_size:,} bytes, more than {MAX_RESULT_BYTES:,}")
        run = json.loads(path.read_text())
        for key in ("size", "komi", "max_actions", "line", "positions"):
            run[key]  # noqa: B018 (presence)
        if not isinstance(run["positions"], list):
            raise TypeError("'positions' is not a list")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: not a frontier run's JSON (size, komi, max_actions, line, positions): "
                         f"{e}") from None
    return run


def _variant(g: littlego.LittleGo) -> str:
    return f"{g.size}x{g.size}, komi {g.komi:g}, {g.max_actions} actions"


def _result(v: int) -> str:
    return {1: "a Black win", -1: "a White win", 0: "a draw"}[v]
