"""The value of a position from proved positions below it: how frontier runs and certificates add up.

One frontier run (``scripts/solve_frontier.py``, ``tictacgo.evaluation.frontier``)
proves the positions of one line; one certificate (``tictacgo solve
--certificate``) proves one position. The value of a position above them
needs several: after Black's centre on 5x5, one run for each of White's
replies. ``combine`` puts them together with the rules core alone
(``tictacgo.games.littlego``: legal actions, play, the end of the game;
``position_code`` for the 8 symmetric images):

* every position a run proved is read back by replaying its line's moves, a
  certificate's root enters with its claim once the checker
  (``tictacgo.proof.checker``) accepts it (or as a record kept from an
  earlier check says it did: ``tictacgo.proof.check_records``, for
  certificates too large to keep), and each is named by its
  canonical code (a position and its 8 images share one); two results that
  disagree on a position are refused;
* at the *root* (the position after ``opening``), every legal action of the
  mover is played: its value is the game's result where the action ends it,
  else a proved position's of the same code, else (with ``depth`` above 1)
  the minimax of its own children, down to ``depth`` actions below the root;
* a position's value is the minimax of its children's: the mover wins as
  soon as one child is a win for it; otherwise the value is known only once
  every child's is (the best of them for the mover);
* back along the opening toward the empty board, a position is a win for
  its mover when the opening's move there leads to a win for that mover (a
  position where the opening's move does not win stays unknown, unless a
  result proves it).

What it trusts: a run's values, each the solver's search on that position
(nothing is searched here), marked unchecked; a value that follows from
game ends and certificates the checker accepted in this run alone is marked
checked (``CHECKED``), a proof that needs nothing but the rules core; one
that also needs records of earlier checks (``RECORDED``: certificates not
read again, or no longer kept) says so: it is only as good as the records.
What it checks: one variant, legal lines, no contradictions, and that every
child a value needs is there, by the rules' own moves and symmetries, not by
the solver's move classes.

``scripts/combine_proofs.py`` is the command line (its work:
``combine_and_report``). Its JSON has the layout of a frontier run's
(``line``: the opening; ``positions``: a row for each position of the
opening, the root last), so ``book_from_frontier`` reads
it: the ``solver`` agent then plays the opening's winning moves from its
book.
"""

from __future__ import annotations

import os
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from tictacgo.atomic import atomic_write_json
from tictacgo.games import littlego
from tictacgo.proof import proof_file
from tictacgo.proof.checker import outcome_for
from tictacgo.proof.position_code import Code, canonical, move_action, move_name

#: A frontier run's JSON (or a combined result) is at most this large.
MAX_RESULT_BYTES = 16 * 1024 * 1024
#: How a value is known, weakest first: from a solver run's values; from records of the checker's
#: earlier word (not re-checked here); from game ends and certificates the checker accepted in this run.
UNCHECKED, RECORDED, CHECKED = 0, 1, 2
#: Each level in words, as the commands print it after a value.
TRUST_WORDS = {CHECKED: "checked", RECORDED: "from records of earlier checks, not re-checked",
               UNCHECKED: "from the solver runs' values"}


def trust_words(level: int) -> str:
    """How a value of trust ``level`` is known, in words."""
    return TRUST_WORDS[level]


def fmt_value(v: int | None) -> str:
    """A value for Black in words: ``"Black wins"``, ``"White wins"``, ``"draw"`` or ``"unknown"``."""
    return {1: "Black wins", -1: "White wins", 0: "draw", None: "unknown"}[v]


@dataclass(frozen=True)
class Proved:
    """One position a result proved: its value for Black, and where that comes from."""

    value_for_black: int
    source: str         # the file's name
    line: str           # the moves from the empty board to the position, as the course writes them
    checked: int        # CHECKED: the claim of a certificate the checker accepted now; RECORDED: as a
    #                     record of an earlier check says (``check_records``); UNCHECKED: a run's value


@dataclass(frozen=True)
class Child:
    """One legal action of the root's mover and what is known of the position it leads to."""

    move: str                    # the action, as the course writes it
    value_for_black: int | None  # None: not known
    how: str                     # "game end", "proved by FILE after LINE", "not proved", or
    #                              "from the proved positions below it"
    checked: int                 # CHECKED: the value follows from game ends and certificates checked
    #                              now alone; RECORDED: records of earlier checks too; UNCHECKED: runs


@dataclass
class Combined:
    """The values ``combine`` found: the root's children, the root and the opening's positions.

    Attributes:
        game: the variant.
        opening: the moves from the empty board to the root, as the course writes them.
        depth: how many actions below the root the minimax looked for proved positions.
        children: one entry per legal action of the root's mover, in action order.
        values: the value for Black of the position after ``opening[:k]``, for ``k`` from 0 (the
            empty board) to ``len(opening)`` (the root); None where it does not follow.
        best_moves: the winning move of the mover in each of those positions, where the value says
            the mover wins (None elsewhere).
        checked: for each of those positions, how its value is known: ``CHECKED`` when it follows
            from game ends and certificates the checker accepted in this run alone, ``RECORDED`` when
            it also rests on records of earlier checks, ``UNCHECKED`` when it needs a run's value.
        sources: the files read (check records kept from earlier jobs among them).
        kept: how many of ``sources`` are such records.
    """

    game: littlego.LittleGo
    opening: list[str]
    depth: int
    children: list[Child]
    values: list[int | None]
    best_moves: list[str | None]
    checked: list[int]
    sources: list[str]
    kept: int = 0

    @property
    def root_value(self) -> int | None:
        return self.values[-1]

    @property
    def missing(self) -> list[str]:
        """The root's legal actions whose positions' values are not known."""
        return [c.move for c in self.children if c.value_for_black is None]

    def to_json(self) -> dict:
        """The values as a frontier run's JSON (``line``: the opening; one row per position of the
        opening, the empty board first), with the children and the sources beside them (and
        ``kept_records``: how many sources are kept records of checks, where there are any)."""
        g = self.game
        rows = []
        columns = zip(self.values, self.best_moves, self.checked, strict=True)
        for k, (value, best, checked) in enumerate(columns):
            rows.append({"taken": k, "left": g.max_actions - k,
                         "mover": "Black" if k % 2 == 0 else "White",
                         "value_for_black": value, "best_move": best,
                         "line_move": self.opening[k] if k < len(self.opening) else None,
                         "checked": checked == CHECKED, "how": trust_words(checked)})
        out = {"size": g.size, "komi": g.komi, "max_actions": g.max_actions, "line": list(self.opening),
               "positions": rows, "value_for_black": self.values[0], "depth": self.depth,
               "children": [{"move": c.move, "value_for_black": c.value_for_black, "how": c.how,
                             "checked": c.checked == CHECKED} for c in self.children],
               "sources": list(self.sources),
               "method": "the rules core's minimax over the proved positions of the sources (no search)"}
        if self.kept:
            out["kept_records"] = self.kept  # how many sources are records of checks, not certificates
        return out


def read_results(paths: list[str | os.PathLike], records: bool = False,
                 max_bytes: int = proof_file.DEFAULT_MAX_BYTES, checked_now=()
                 ) -> tuple[littlego.LittleGo, dict[Code, Proved], list[str]]:
    """The proved positions of frontier runs' JSON files and of certificates, by canonical code.

    A certificate (a zip file) is checked first (``tictacgo.proof.checker.verify``): its root
    enters with its claim, ``CHECKED``. With ``records``, a certificate whose record of an earlier
    check holds its very bytes (``tictacgo.proof.check_records``) is not checked again: it enters as
    ``RECORDED``, with the record's claim, which must be the certificate's own; one in
    ``checked_now`` (paths the caller ran the checker on in this run, ``proof_leaves.certify``'s) enters
    as ``CHECKED`` when its record holds the check of its very bytes. A frontier run enters
    with every position of its line it proved. ``max_bytes``: the checker's cap on a certificate.

    Raises:
        ValueError: a file that is neither, results of different variants, a line that the rules do
            not allow, or two results that give one position different values (each named).
        CertificateError: a certificate that does not prove its claim.
    """
    if not paths:
        raise ValueError("no result files given: expected frontier runs' JSON files or certificates")
    game = None
    proved: dict[Code, Proved] = {}
    names: list[str] = []
    now = {Path(p) for p in checked_now}
    proof_file.check_result_files(paths, MAX_RESULT_BYTES)  # regular files; bounded JSON
    for path in paths:
        path = Path(path)
        if zipfile.is_zipfile(path):
            g, entries = _read_certificate(path, records, max_bytes, path in now)
        else:
            g, entries = _read_run(path)
        if game is None:
            game = g
        elif (g.size, g.komi, g.max_actions) != (game.size, game.komi, game.max_actions):
            raise ValueError(f"{path}: a result on {_variant(g)}, but {names[0]} is on {_variant(game)}")
        names.append(path.name)
        for code, new in entries:
            _enter(proved, code, new, path)
    return game, proved, names


def _read_run(path: Path) -> tuple[littlego.LittleGo, list[tuple[Code, Proved]]]:
    run = _load(path)
    try:
        g = littlego.LittleGo(run["size"], run["komi"], run["max_actions"])
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: not a variant of the course's game: {e}") from None
    states = states_along(path, g, run["line"])
    out = []
    for k, entry in enumerate(run["positions"]):
        try:
            taken, value = int(entry["taken"]), entry["value_for_black"]
        except (KeyError, TypeError, ValueError, OverflowError) as e:
            raise ValueError(f"{path}: position {k} is not a frontier row (taken, value_for_black): "
                             f"{e}") from None
        if value is None:
            continue
        if value not in (-1, 0, 1) or not 0 <= taken < len(states) or states[taken].end is not None:
            raise ValueError(f"{path}: position {k}: value_for_black {value!r} after {taken!r} moves; "
                             f"expected -1, 0 or 1 at a position of the line before its end "
                             f"(0 to {len(states) - 1} moves)")
        line = " ".join(run["line"][:taken])
        out.append((canonical(states[taken])[0], Proved(int(value), path.name, line, UNCHECKED)))
    return g, out


def _read_certificate(path: Path, records: bool, max_bytes: int, checked_now: bool = False
                      ) -> tuple[littlego.LittleGo, list[tuple[Code, Proved]]]:
    from tictacgo.proof.check_records import checked_claim, record_path
    from tictacgo.proof.checker import certificate_root, verify

    game, root, claim, root_line = certificate_root(path)
    level = CHECKED if checked_now else RECORDED
    recorded = checked_claim(path) if records or checked_now else None
    if recorded is not None and recorded != claim:
        raise ValueError(f"{record_path(path)}: the record says the checker accepted '{recorded}' for "
                         f"{path.name}, whose own claim is '{claim}': one of the two was changed")
    if recorded is None:
        report = verify(path, max_bytes=max_bytes)
        game, root, claim, root_line = report.game, report.root, report.claim, report.root_line
        level = CHECKED
    value = {"black wins": 1, "white wins": -1, "draw": 0}[claim]
    line = root_line.removeprefix("the position after ") if root.t else ""
    return game, [(canonical(root)[0], Proved(value, path.name, line, level))]


def combine(paths: list[str | os.PathLike], opening: str | list[str], depth: int = 1,
            records: bool = False, max_bytes: int = proof_file.DEFAULT_MAX_BYTES,
            kept: str | os.PathLike | None = None, game: littlego.LittleGo | None = None,
            checked_now=()) -> Combined:
    """The value of the position after ``opening`` (and of the positions before it) from results.

    Args:
        paths: frontier runs' JSON files (``scripts/solve_frontier.py --json``) and certificates
            (``tictacgo solve --certificate``), of one variant.
        opening: the moves from the empty board to the root, as the course writes them (``"2,2"``,
            ``"PASS"``), a string separated by spaces or a list; empty for the empty board.
        depth: how many actions below the root to look for proved positions (1: the root's
            children are proved positions or game ends).
        records: take a certificate whose record of an earlier check holds its very bytes at the
            record's word (``RECORDED``), without checking it again (``read_results``).
        max_bytes: the checker's cap on a certificate's size.
        kept: a folder of check records kept from earlier jobs (``check_records.recorded_checks``):
            each recorded position enters with the claim the record says the checker accepted, as
            ``RECORDED`` (not checked here: what a record vouches for is the checker's word on a file
            with its SHA-256; making that file again and checking it is the only way to check it).
        game: the variant of ``kept``'s positions where ``paths`` is empty (a record does not say it).
        checked_now: certificates among ``paths`` that the caller checked in this run (``read_results``).
    Returns:
        A ``Combined`` (see the module docstring for how each value follows).
    Raises:
        ValueError: as ``read_results``, a depth below 1, or an opening move that is not legal there.
    """
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be an integer of at least 1, got {depth!r}")
    if paths or kept is None or game is None:
        game, proved, names = read_results(paths, records, max_bytes, checked_now)
    else:
        proved, names = {}, []
    kept_names = [] if kept is None else _read_kept(kept, game, proved)
    names += kept_names
    n = game.size
    words = opening.split() if isinstance(opening, str) else list(opening)
    states = states_along("the opening", game, words)
    if states[-1].end is not None:
        raise ValueError(f"the opening '{' '.join(words)}' ends the game; expected a position to play from")
    root = states[-1]
    search = Minimax(proved)
    children = []
    for a in littlego.legal_actions(root):
        child = littlego.play(root, a)
        move = move_name(a, n)
        if child.end is not None:
            children.append(Child(move, outcome_for(child, littlego.BLACK), "game end", CHECKED))
            continue
        p = proved.get(canonical(child)[0])
        value, checked = search.value(child, depth - 1)
        if p is not None and checked == p.checked:
            how = f"proved by {p.source} after '{p.line}'"
        else:
            how = "not proved" if value is None else "from the proved positions below it"
        children.append(Child(move, value, how, checked))
    values: list[int | None] = [None] * len(states)
    best: list[str | None] = [None] * len(states)
    checked = [UNCHECKED] * len(states)
    known = [(c.value_for_black, c.checked, c.move) for c in children]
    values[-1], best[-1], checked[-1] = _decide(root, known)
    if values[-1] is None:
        values[-1], checked[-1] = _looked_up(proved, root)
    for k in range(len(words) - 1, -1, -1):
        sign = 1 if states[k].to_move == littlego.BLACK else -1
        if values[k + 1] is not None and values[k + 1] * sign == 1:
            values[k], best[k], checked[k] = values[k + 1], words[k], checked[k + 1]
        else:
            values[k], checked[k] = _looked_up(proved, states[k])
    return Combined(game, words, depth, children, values, best, checked, names, len(kept_names))


def combine_and_report(paths: list[str | os.PathLike], opening: str = "", depth: int = 1,
                       json_path: str | os.PathLike | None = None) -> int:
    """``combine`` the results, print each of the root's legal actions and the values along the opening
    (how each is known), and write the values as JSON (``json_path``): the work of
    ``scripts/combine_proofs.py``. Bad input is one line on stderr.

    Returns:
        The exit status: 0 when the root is decided, 1 when children are missing (they are printed),
        2 on bad input.
    """
    try:
        proof_file.check_result_files(paths, MAX_RESULT_BYTES)  # bounded, before combine reads them
        result = combine(paths, opening, depth)
    except ValueError as e:  # CertificateError and ProofFileError included
        print(f"error: {e}", file=sys.stderr)
        return 2
    g = result.game
    root = f"after '{' '.join(result.opening)}'" if result.opening else "the empty board"
    print(f"{g.size}x{g.size}, komi {g.komi:g}, {g.max_actions} actions; {len(result.sources)} results read")
    print(f"the {len(result.children)} legal actions {root}:")
    for c in result.children:
        mark = {CHECKED: "checked ", RECORDED: "recorded, not re-checked ", UNCHECKED: ""}[c.checked]
        print(f"  {c.move:>5}  {fmt_value(c.value_for_black):<11} {mark}{c.how}")
    print("values:")
    for k, (v, best) in enumerate(zip(result.values, result.best_moves, strict=True)):
        where = f"after '{' '.join(result.opening[:k])}'" if k else "the empty board"
        move = f" (the mover plays {best})" if best else ""
        how = "" if v is None else {
            CHECKED: ", checked: from game ends and certificates checked now alone",
            RECORDED: f", {trust_words(RECORDED)}", UNCHECKED: ", from the runs' values"}[result.checked[k]]
        print(f"  {where}: {fmt_value(v)}{move}{how}")
    if json_path:
        atomic_write_json(json_path, result.to_json())
        print(f"written to {json_path}")
    if result.root_value is None:
        print(f"undecided: not proved: the position after {', '.join(result.missing)}")
        return 1
    return 0


def _read_kept(folder: str | os.PathLike, game: littlego.LittleGo, proved: dict[Code, Proved]) -> list[str]:
    """Add the checks recorded in ``folder`` to ``proved`` (each position replayed from its record's
    moves by the rules), as ``read_results`` adds a certificate's; the records' names."""
    from tictacgo.proof.check_records import CLAIMS, recorded_checks

    names = []
    for moves, claim, path in recorded_checks(folder):
        states = states_along(path, game, moves)
        if len(states) <= len(moves) or states[-1].end is not None:
            raise ValueError(f"{path}: the game ends before the end of '{' '.join(moves)}'; expected a "
                             f"position to play from")
        new = Proved(CLAIMS[claim], path.name, " ".join(moves), RECORDED)
        _enter(proved, canonical(states[-1])[0], new, path)
        names.append(path.name)
    return names


def _enter(proved: dict[Code, Proved], code: Code, new: Proved, path: Path) -> None:
    """Put ``new`` in ``proved`` unless a result there already says as much (a checked value beats a
    recorded one, which beats a run's); one that gives the position another value is refused, naming
    both."""
    old = proved.get(code)
    if old is not None and old.value_for_black != new.value_for_black:
        raise ValueError(f"{path}: the position after '{new.line}' is {_result(new.value_for_black)} "
                         f"there, but {old.source} proves the same position (after '{old.line}') "
                         f"{_result(old.value_for_black)}")
    if old is None or new.checked > old.checked:
        proved[code] = new


class Minimax:
    """The value of a position from the proved ones within a number of actions below it (memoised by
    canonical code: the depth left at a position follows from its actions played)."""

    def __init__(self, proved: dict[Code, Proved]):
        self.proved = proved
        self.memo: dict[Code, tuple[int | None, int]] = {}

    def value(self, state: littlego.GoState, depth: int) -> tuple[int | None, int]:
        """(value for Black or None, how it is known: ``CHECKED``, ``RECORDED`` or ``UNCHECKED``)."""
        if state.end is not None:
            return outcome_for(state, littlego.BLACK), CHECKED
        code = canonical(state)[0]
        p = self.proved.get(code)
        if p is not None and (p.checked or depth == 0):
            return p.value_for_black, p.checked
        if depth == 0:
            return None, UNCHECKED
        if code not in self.memo:
            kids = [littlego.play(state, a) for a in littlego.legal_actions(state)]
            # the proved children first: a win for the mover among them decides without going deeper
            near = [self.value(k, 0) + (None,) for k in kids]
            value, _, checked = _decide(state, near)
            if value is None or checked < CHECKED:
                value, _, checked = _decide(state, [self.value(k, depth - 1) + (None,) for k in kids])
            if p is not None and value is not None and value != p.value_for_black:
                raise ValueError(f"{p.source} proves the position after '{p.line}' "
                                 f"{_result(p.value_for_black)}, but the results below it make it "
                                 f"{_result(value)}")
            if p is not None and not checked:  # a run's value, where nothing checked says more
                value = p.value_for_black
            self.memo[code] = (value, checked)
        return self.memo[code]


def _decide(state: littlego.GoState, children: list[tuple[int | None, int, str | None]]
            ) -> tuple[int | None, str | None, int]:
    """(value for Black, the mover's best move, how it is known) of ``state`` from its children's
    (value, how known, move); (None, None, UNCHECKED) while the children known do not decide it. A
    win for the mover needs one winning child (the best known one); any other value needs all, and is
    known as well as the least known of them."""
    sign = 1 if state.to_move == littlego.BLACK else -1
    known = [c for c in children if c[0] is not None]
    wins = [c for c in known if c[0] * sign == 1]
    if wins:
        win = max(wins, key=lambda c: c[1])  # the first of the best known
        return win[0], win[2], win[1]
    if not known or len(known) < len(children):
        return None, None, UNCHECKED
    top = max(known, key=lambda c: c[0] * sign)
    return top[0], top[2] if top[0] == 0 else None, min(c[1] for c in known)


def _looked_up(proved: dict[Code, Proved], state: littlego.GoState) -> tuple[int | None, int]:
    """A result's own value for ``state`` (None if none proved it), and how it is known."""
    p = proved.get(canonical(state)[0])
    return (None, UNCHECKED) if p is None else (p.value_for_black, p.checked)


def states_along(where, game: littlego.LittleGo, words) -> list[littlego.GoState]:
    """The states along ``words`` (course moves) from the empty board, each move checked by the rules
    (``where`` names the source in an error)."""
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise ValueError(f"{where}: the line must be a list of moves such as '2,2' or 'PASS', got {words!r}")
    states = [game.initial_state()]
    for k, word in enumerate(words):
        s = states[-1]
        if s.end is not None:
            break  # a line may hold moves after its game's end: they are not positions
        try:
            a = move_action("PASS" if word.upper() == "PASS" else word, game.size)
        except ValueError as e:
            raise ValueError(f"{where}: {e} (the line's move {k + 1})") from None
        reason = littlego.illegal_reason(s, a)
        if reason is not None:
            raise ValueError(f"{where}: move {k + 1} ({word}) after '{' '.join(words[:k])}' is illegal: "
                             f"{reason}")
        states.append(littlego.play(s, a))
    return states


def _load(path: Path) -> dict:
    try:
        run = proof_file.read_json(path, MAX_RESULT_BYTES)  # a regular file, bounded, finite numbers
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
