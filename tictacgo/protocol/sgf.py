"""SGF game records for Little-Go, read and written with sgfmill.

SGF (Smart Game Format, FF[4]) is the file format Go software opens: Sabaki,
GoGui, CGoban, KaTrain. The parsing and serialising is sgfmill's (the ``sgf``
extra: ``pip install 'tictacgo[sgf]'``); this module maps records to the rules
core's actions and back and puts the variant's rules into the record.

A record written here looks like:

    (;FF[4]GM[1]SZ[5]CA[UTF-8]AP[tictacgo:0.1.0]KM[2.5]ACTIONLIMIT[24]
    RU[Little-Go (CSCI-561 host): stone scoring ...]PB[mcts]PW[greedy]RE[W+4.5]
    ;B[cc];W[cd];B[];W[]...)

* ``SZ`` board size, ``KM`` komi (added to White's score), ``RE`` the result
  by this variant's scoring (``B+x``/``W+x`` with ``x`` the margin in points,
  ``0`` a draw, ``B+F``/``W+F`` a win by the opponent's illegal move), ``PB``
  and ``PW`` the players.
* ``RU`` states the variant in words: stone scoring (stones on the board, no
  territory), no suicide, simple ko, the action limit, the end on two passes
  in a row and on Black passing first. ``ACTIONLIMIT`` is a private property
  (FF[4] allows them) holding the limit as a number, so a reader does not
  have to parse the text; it defaults to ``n * n - 1`` when absent (records
  from other programs).
* Moves alternate ``B``/``W`` from Black, one node each; a pass is an empty
  value (``B[]``), as FF[4] prefers to ``tt``. Setup stones (``AB``/``AW``/``AE``)
  are refused on reading: a Little-Go game starts from the empty board.

Reading is bounded before sgfmill allocates anything: at most ``MAX_SGF_BYTES``
(1 MiB), ``MAX_SGF_NODES`` nodes, ``MAX_SGF_VALUES`` property values and
``MAX_SGF_DEPTH`` nested variations (``check_shape``). The root's numbers
(``SZ``, ``KM``, ``GM``, ``ACTIONLIMIT``) are read as short ASCII numbers, so
``KM[inf]`` or ``SZ[²]`` is refused in a message that names the property, the
value and what is expected. Every refusal is one ``ValueError`` line.

Point mapping: sgfmill gives ``(row, col)`` with row 0 at the BOTTOM; the
rules core's action is ``i * n + j`` with row ``i`` from the TOP, so
``i = n - 1 - row``. SGF ``aa`` is the top-left corner, action 0.

Entry points: ``record_to_sgf`` (moves -> bytes), ``write_sgf``,
``load_record`` / ``load_game`` / ``sgf_to_moves`` (file or bytes -> initial
state and actions), ``state_from_sgf`` (the position after some moves, for
``env.reset(options={"state": s})``), ``write_match_sgf`` (an arena match,
one file per game) and ``check_result`` (a record's ``RE`` against our scoring).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sgfmill import sgf, sgf_grammar

from tictacgo import __version__
from tictacgo.atomic import atomic_write_bytes
from tictacgo.games import littlego as go
from tictacgo.games import make_game
from tictacgo.games.base import Game
from tictacgo.protocol.coords import GO_LETTERS, action_to_vertex
from tictacgo.protocol.files import read_regular_file
from tictacgo.validate import check_int

ACTION_LIMIT_PROP = "ACTIONLIMIT"
# sgfmill holds about 100 bytes of memory per byte it parses (a MiB of moves: 1.3 s and about
# 100 MiB here); a 24-action record is well under 1 kB, and a MiB holds over 100,000 moves.
MAX_SGF_BYTES = 1 << 20
# Within that, sgfmill's tree costs about 300 bytes a node (a MiB of empty nodes: 8 s and 340 MB), so
# the raw text's shape is counted first. A Little-Go record has a node a move (at most 361 on 19x19).
MAX_SGF_NODES = 20_000
MAX_SGF_VALUES = 100_000
MAX_SGF_DEPTH = 1_000  # variations nested in variations
MAX_NUMBER_CHARS = 24
_RESULT_RE = re.compile(r"^\s*([BW])\+(.*)$", re.IGNORECASE)
_VALUE_RE = re.compile(rb"\[(?:[^\\\]]|\\.)*\]", re.DOTALL)  # a property value: [...] with \-escapes
_WHOLE_RE = re.compile(rb"\s*[+-]?[0-9]+\s*", re.ASCII)
_REAL_RE = re.compile(rb"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*", re.ASCII)  # SGF's Real: no exponent
_UNPRINTABLE_RE = re.compile(r"[\x00-\x1f\x7f]")


def rules_text(geo: go.LittleGo) -> str:
    """The variant's rules in words, for the record's ``RU`` property."""
    return (f"Little-Go (CSCI-561 course host): stone scoring (stones on the board, no territory; "
            f"komi {geo.komi:g} to White), no suicide, simple ko (no superko), "
            f"the game ends after {geo.max_actions} actions (passes count), after two passes in a row, "
            f"or when Black passes on the first action (White then wins)")


def check_game(game: str | Game) -> None:
    """Raise ValueError unless this module can record ``game``: Go (``GM[1]``), i.e. Little-Go.

    The game's spec declares its SGF game type (``sgf_game``): Go is 1;
    Tic-Tac-Toe has none (FF[4] defines none for it).
    """
    spec = make_game(game).spec
    if spec.sgf_game != 1:
        raise ValueError(f"SGF records are written for Little-Go (Go, GM[1]) only, not {spec.title}")


def _rules_of(record: Any) -> dict[str, Any]:
    """``n``, ``komi``, ``max_actions`` of the variant a ``GameRecord`` was played in ({} if unknown)."""
    state = getattr(record, "final_state", None)
    if state is None:
        return {}
    if not isinstance(state, go.GoState):
        raise ValueError(f"SGF records are written for Little-Go only; this game ended in a "
                         f"{type(state).__name__}")
    spec = state.game.spec
    return {"n": spec.board_shape[0], "komi": spec.komi, "max_actions": spec.max_actions}


# --------------------------------------------------------------------------- points


def action_to_sgf_move(action: int, size: int) -> tuple[int, int] | None:
    """sgfmill's move for an action on a ``size x size`` board: ``(row from the bottom, col)``, None for
    PASS."""
    if action == size * size:
        return None
    i, j = divmod(action, size)
    return (size - 1 - i, j)


def sgf_move_to_action(move: tuple[int, int] | None, size: int) -> int:
    """The action for sgfmill's move ``(row from the bottom, col)`` or None (PASS) on a ``size x size``
    board."""
    if move is None:
        return size * size
    row, col = move
    return (size - 1 - row) * size + col


# --------------------------------------------------------------------------- results


def result_string(state: go.GoState) -> str | None:
    """SGF ``RE`` for a finished game (``B+2``, ``W+4.5``, ``0``, ``W+F``); None while it goes on."""
    w = go.winner(state)
    if w is None:
        return None
    if state.end == go.END_ILLEGAL:
        return f"{'B' if w == go.BLACK else 'W'}+F"
    b, wh = go.scores(state)
    if w == 0:
        return "0"
    return f"{'B' if w == go.BLACK else 'W'}+{abs(b - wh):g}"


def check_result(re_value: str | None, state: go.GoState) -> tuple[bool, str]:
    """Whether a record's ``RE`` agrees with the rules' outcome of ``state``.

    Args:
        re_value: the ``RE`` text (None when the record has none).
        state: the state after the record's last move.
    Returns:
        ``(ok, explanation)``. A missing or unknown (``?``, ``Void``) ``RE`` is ok.
        A win by forfeit (``+F``) needs an unfinished game whose player to move
        is the loser; resignation and time (``+R``, ``+T``) need an unfinished game.
    """
    ours = result_string(state)
    if re_value is None or re_value.strip() in ("", "?") or re_value.strip().lower() == "void":
        return True, f"the record gives no result; by the rules: {ours or 'game not over'}"
    text = re_value.strip()
    if text.lower() in ("0", "draw", "jigo"):
        return (ours == "0", f"RE[{text}] (a draw); by the rules: {ours or 'game not over'}")
    m = _RESULT_RE.match(text)
    if not m:
        return False, f"RE[{text}] is not an SGF result (expected B+x, W+x, 0, B+R, W+F, ...)"
    colour = go.BLACK if m.group(1).upper() == "B" else go.WHITE
    rest = m.group(2).strip().upper()
    if rest in ("R", "RESIGN", "T", "TIME", "F", "FORFEIT"):
        if state.end is not None:
            return False, f"RE[{text}] but the game is over by the rules: {ours}"
        if rest.startswith("F") and colour == state.to_move:
            return False, (f"RE[{text}] but the player to move after the last recorded action "
                           f"({'Black' if state.to_move == go.BLACK else 'White'}) is the one that "
                           "forfeited, so the other colour wins")
        return True, f"RE[{text}]: the game ended outside the rules' end conditions"
    if state.end is None:
        return False, f"RE[{text}] but the game is not over by the rules after the recorded moves"
    if go.winner(state) != colour:
        return False, f"RE[{text}] but by the rules: {ours}"
    if rest:
        try:
            margin = float(rest)
        except ValueError:
            return False, f"RE[{text}]: {rest!r} is not a margin"
        b, w = go.scores(state)
        if not math.isclose(margin, abs(b - w)):
            return False, f"RE[{text}] but by the rules: {ours} (Black {b:g}, White {w:g})"
    return True, f"RE[{text}] agrees with the rules: {ours}"


# --------------------------------------------------------------------------- writing


def record_to_sgf(moves: Sequence[int], *, n: int = 5, komi: float | None = None,
                  max_actions: int | None = None, black: str = "Black", white: str = "White",
                  forfeit_by: int = 0, comment: str | None = None) -> bytes:
    """An SGF record of a Little-Go game given by its actions.

    The moves are replayed on the rules core first, so a record of an illegal
    game is never written, and ``RE`` is the rules' result.

    Args:
        moves: actions in order (``i * n + j``; ``n * n`` is PASS).
        n: the board size (default 5).
        komi: White's komi (default ``n / 2``).
        max_actions: the action limit (default ``n * n - 1``).
        black: Black's player name (``PB``).
        white: White's player name (``PW``).
        forfeit_by: 1 or 2 if that colour lost by an illegal action after the
            last move (the arena's ``GameRecord.illegal_by``): ``RE`` is then a
            win by forfeit for the other colour; 0 otherwise.
        comment: text for ``GC`` (game comment).
    Returns:
        The record as UTF-8 bytes.
    Raises:
        ValueError: an action the rules refuse, moves after the end, or a bad ``forfeit_by``.
    """
    state = go.LittleGo(n, komi, max_actions).initial_state()
    for k, a in enumerate(moves, start=1):
        if state.end is not None:
            raise ValueError(f"move {k} ({a!r}) comes after the end of the game ({state.end})")
        try:
            state = go.play(state, a)
        except (TypeError, ValueError) as e:
            raise ValueError(f"move {k} cannot be recorded: {e}") from e
    if forfeit_by not in (0, go.BLACK, go.WHITE):
        raise ValueError(f"forfeit_by must be 0, 1 (Black) or 2 (White), got {forfeit_by!r}")
    if forfeit_by:
        if state.end is not None or state.to_move != forfeit_by:
            raise ValueError(f"forfeit_by={forfeit_by} but after the moves "
                             f"{'the game is over' if state.end else 'the other colour is to move'}")
        state = go.forfeit(state)
    game = _new_record(state.game, black, white)
    root = game.get_root()
    result = result_string(state)
    if result is not None:
        root.set("RE", result)
    if comment:
        root.set("GC", comment)
    colour = "b"
    for a in moves:
        _set_move(game.extend_main_sequence(), colour, int(a), n)
        colour = "w" if colour == "b" else "b"
    return game.serialise()


def _new_record(geo: go.LittleGo, black: str, white: str):
    """An empty record of the variant ``geo``: its root names the program, komi, limit, rules, players."""
    game = sgf.Sgf_game(size=geo.size)
    root = game.get_root()
    root.set("AP", ("tictacgo", __version__))
    root.set("KM", geo.komi)
    root.set_raw(ACTION_LIMIT_PROP, str(geo.max_actions).encode())
    root.set("RU", rules_text(geo))
    root.set("PB", str(black))
    root.set("PW", str(white))
    return game


def _set_move(node, colour: str, action: int, n: int) -> None:
    """``node``'s move: ``colour`` ("b" or "w") plays ``action``."""
    move = action_to_sgf_move(action, n)
    if move is None:
        # sgfmill writes a pass as "tt" on boards up to 19x19; FF[4] prefers the empty value.
        node.set_raw(colour.upper(), b"")
    else:
        node.set_move(colour, move)


def tree_to_sgf(tree: dict[str, Any], *, n: int = 5, komi: float | None = None,
                max_actions: int | None = None, name: str = "", black: str = "Black",
                white: str = "White") -> bytes:
    """An SGF record with variations: a tree of moves from the empty board (a solution tree).

    Args:
        tree: the root, ``{"comment": text, "children": [node, ...]}``; each node is ``{"action":
            int, "comment": text, "children": [...]}`` (its first child is the main line, the others
            variations; a comment goes to the node's ``C``).
        n: the board size (default 5).
        komi: White's komi (default ``n / 2``).
        max_actions: the action limit (default ``n * n - 1``).
        name: the record's ``GN``.
        black: Black's name (``PB``).
        white: White's name (``PW``).
    Returns:
        The record as UTF-8 bytes; Sabaki, GoGui and ``tictacgo view`` open its variations.
    Raises:
        ValueError: a move the rules refuse where the tree plays it (named by its line).
    """
    geo = go.LittleGo(n, komi, max_actions)
    game = _new_record(geo, black, white)
    root = game.get_root()
    if name:
        root.set("GN", name)
    if tree.get("comment"):
        root.set("C", str(tree["comment"]))
    stack = [(root, geo.initial_state(), tree, ())]
    while stack:
        parent, state, node, line = stack.pop()
        for child in reversed(node.get("children", [])):  # reversed: the first child is written first
            action = int(child["action"])
            reason = go.illegal_reason(state, action) if state.end is None else "the game is over"
            if reason is not None:
                raise ValueError(f"the tree plays {action} after {list(line)}: {reason}")
            colour = "b" if state.to_move == go.BLACK else "w"
            out = parent.new_child(0)
            _set_move(out, colour, action, n)
            if child.get("comment"):
                out.set("C", str(child["comment"]))
            stack.append((out, go.play(state, action), child, (*line, action)))
    return game.serialise()


def sgf_lines(data: bytes | str) -> list[tuple[list[int], str]]:
    """Every line of an SGF record's tree, root to leaf: its actions and the last node's comment (the
    main line first). A record without variations has one line.

    Raises:
        ValueError: as ``sgf_to_record`` (which reads the main line and the root).
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    record = sgf_to_record(raw)
    n = record.initial.game.size
    game = sgf.Sgf_game.from_bytes(raw)
    out: list[tuple[list[int], str]] = []
    stack = [(game.get_root(), [])]
    while stack:
        node, line = stack.pop()
        kids = list(node)
        if not kids:
            comment = node.get("C") if node.has_property("C") else ""
            out.append((line, comment))
            continue
        for child in reversed(kids):
            colour, move = child.get_move()
            stack.append((child, line if colour is None else [*line, sgf_move_to_action(move, n)]))
    return out


def write_sgf(path: str | os.PathLike, moves: Sequence[int], **kw: Any) -> Path:
    """Write ``record_to_sgf(moves, **kw)`` to ``path`` atomically (temporary file + rename)."""
    return atomic_write_bytes(path, record_to_sgf(moves, **kw))


def write_match_sgf(records: Any, directory: str | os.PathLike,
                    names: tuple[str, str] | None = None, **rules: Any) -> list[Path]:
    """One SGF file per game of an arena match, in ``directory`` (created if missing).

    Args:
        records: a ``MatchResult`` of the arena (its game must be Little-Go; the
            names default to its two specs and follow who moved first), or an
            iterable of ``MatchGame`` (``.index``, ``.a_first``, ``.record``) or
            of ``GameRecord`` (``.moves``, ``.illegal_by``; colour 1 = Black).
        directory: where to write ``game-0000.sgf``, ``game-0001.sgf``, ... (by game index).
        names: (agent A, agent B) for ``MatchGame`` items, (Black, White) for
            ``GameRecord`` items.
        rules: ``n``, ``komi``, ``max_actions``; by default those of each game's
            ``final_state`` (the arena keeps it), else the 5x5 course game.
    Returns:
        The paths written, in the order of the games.
    Raises:
        ValueError: a match of another game than Little-Go, or a game the rules refuse.
    """
    games: Iterable[Any] = records
    if hasattr(records, "games") and hasattr(records, "spec_a"):
        check_game(records.game)
        games = records.iter_games()  # from memory or from the run's spool on disk
        names = names or (records.spec_a, records.spec_b)
    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for k, item in enumerate(games):
        record = getattr(item, "record", item)
        index = getattr(item, "index", k)
        default = ("A", "B") if hasattr(item, "record") else ("Black", "White")
        a, b = names or default
        black, white = (a, b) if getattr(item, "a_first", True) else (b, a)
        comment = None
        if getattr(record, "illegal_by", 0):
            who = "Black" if record.illegal_by == go.BLACK else "White"
            why = getattr(record, "forfeit", "") or "illegal"
            if why in (go.OCCUPIED, go.SUICIDE, go.KO, "malformed", "illegal"):
                comment = (f"{who} lost by an illegal action: {record.illegal_action!r} "
                           f"({record.illegal_detail})")
            else:  # a Forfeit raised by the player (the course host's timeout, crash, ...)
                comment = f"{who} forfeited ({why}): {record.illegal_detail}"
        written.append(write_sgf(out_dir / f"game-{index:04d}.sgf", list(record.moves), black=black,
                                 white=white, forfeit_by=int(getattr(record, "illegal_by", 0)),
                                 comment=comment, **{**_rules_of(record), **rules}))
    return written


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class SgfRecord:
    """A Little-Go record read from SGF (its moves not yet checked against the rules).

    Attributes:
        initial: the empty board with the record's size, komi and action limit.
        actions: the moves as rules-core actions, Black's first.
        black, white: the player names (``PB``/``PW``), ``""`` if absent.
        result: the ``RE`` text, None if absent.
    """

    initial: go.GoState
    actions: tuple[int, ...]
    black: str
    white: str
    result: str | None

    def vertex(self, k: int) -> str:
        """Move ``k`` (1-based) as ``"B C3"``."""
        return f"{'BW'[(k - 1) % 2]} {action_to_vertex(self.actions[k - 1], self.initial.game.size)}"


def _value_text(raw: bytes, limit: int = 40) -> str:
    """A property value as a message shows it: on one line, cut to ``limit`` characters."""
    text = _UNPRINTABLE_RE.sub("?", raw[:limit].decode("utf-8", "replace"))
    return text + (f"... ({len(raw)} bytes)" if len(raw) > limit else "")


def check_shape(raw: bytes) -> None:
    """Refuse SGF text too large for sgfmill to parse cheaply, before it allocates anything.

    Raises:
        ValueError: over ``MAX_SGF_BYTES`` bytes, ``MAX_SGF_NODES`` nodes, ``MAX_SGF_VALUES``
            property values or ``MAX_SGF_DEPTH`` nested variations.
    """
    if len(raw) > MAX_SGF_BYTES:
        raise ValueError(f"the SGF record is larger than {MAX_SGF_BYTES} bytes ({len(raw)})")
    structure, values = _VALUE_RE.subn(b"", raw)  # brackets and semicolons inside values are text
    nodes = structure.count(b";")
    chars = np.frombuffer(structure, dtype=np.uint8)
    depth = int(np.cumsum((chars == ord("(")).astype(np.int32) - (chars == ord(")")), dtype=np.int64)
                .max(initial=0))
    for what, count, cap in (("nodes", nodes, MAX_SGF_NODES), ("property values", values, MAX_SGF_VALUES),
                             ("nested variations", depth, MAX_SGF_DEPTH)):
        if count > cap:
            raise ValueError(f"the SGF record has {count} {what}; at most {cap} are read")


def _root_number(props: dict[str, list[bytes]], prop: str, real: bool, expected: str) -> float | int | None:
    """The root's ``prop`` as a number (None if absent): ASCII, short, finite.

    Raises:
        ValueError: ``PROP[value] is not ...`` and ``expected``, for anything else (``KM[inf]``, ``SZ[²]``).
    """
    if prop not in props:
        return None
    raw = props[prop][0]
    if len(raw) > MAX_NUMBER_CHARS or not (_REAL_RE if real else _WHOLE_RE).fullmatch(raw):
        raise ValueError(f"{prop}[{_value_text(raw)}] is not {expected}")
    return float(raw) if real else int(raw)


def _root_text(root: Any, prop: str) -> str | None:
    """The root's text property ``prop`` (None if absent), as far as it can be read."""
    if not root.has_property(prop):
        return None
    try:
        return root.get(prop)
    except ValueError:  # several values, or bytes not of the record's encoding: the first, readable part
        return root.get_raw(prop).decode("utf-8", "replace")


def sgf_to_record(data: bytes | str) -> SgfRecord:
    """Parse SGF text into an ``SgfRecord``.

    Raises:
        ValueError: too large to read (``check_shape``), not SGF (sgfmill's message), not Go
            (``GM`` other than 1), a root number that is not one (``SZ``, ``KM``, ``GM``,
            ``ACTIONLIMIT``), a size the rules core does not support, setup stones, or moves that
            do not alternate Black, White, ... from Black.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    check_shape(raw)
    try:
        coarse = sgf_grammar.parse_sgf_game(raw)
    except ValueError as e:
        raise ValueError(f"not a readable SGF record: {e}") from e
    props = coarse.sequence[0]
    gm = _root_number(props, "GM", False, "a game type: expected a whole number, 1 for Go")
    if gm is not None and gm != 1:
        raise ValueError(f"GM[{gm}] is not Go (GM[1])")
    n = _root_number(props, "SZ", False, "a board size: expected a whole number such as 5")
    n = 19 if n is None else n  # FF[4]'s default for Go
    if not 2 <= n <= len(GO_LETTERS):
        raise ValueError(f"SZ[{n}] is not a board size Little-Go is played on here: "
                         f"expected 2..{len(GO_LETTERS)}")
    komi = _root_number(props, "KM", True, "a komi: expected a finite number such as 2.5")
    limit = _root_number(props, ACTION_LIMIT_PROP, False,
                         f"an action limit: expected a whole number in 1..{MAX_SGF_NODES}")
    if limit is not None and not 1 <= limit <= MAX_SGF_NODES:
        raise ValueError(f"{ACTION_LIMIT_PROP}[{limit}] is not an action limit: expected a whole number "
                         f"in 1..{MAX_SGF_NODES}")
    try:
        game = sgf.Sgf_game.from_coarse_game_tree(coarse)
    except (ValueError, LookupError) as e:  # an unknown CA encoding
        raise ValueError(f"not a readable SGF record: {e}") from e
    root = game.get_root()
    initial = go.LittleGo(n, komi, limit).initial_state()
    actions: list[int] = []
    for node in game.get_main_sequence():
        if node.has_setup_stones():
            raise ValueError("the record has setup stones (AB/AW/AE); a Little-Go record starts "
                             "from the empty board")
        k = len(actions) + 1
        try:
            colour, move = node.get_move()
        except ValueError:  # sgfmill gives no message: a point off the board or not two letters
            prop = "B" if node.has_property("B") else "W"
            raw = _value_text(node.get_raw(prop))
            last = chr(ord("a") + n - 1)
            raise ValueError(f"move {k} {prop}[{raw}] is not a point of the {n}x{n} board "
                             f"(expected two letters a..{last}, or {prop}[] to pass)") from None
        if colour is None:
            continue
        expected = "b" if k % 2 else "w"
        if colour != expected:
            raise ValueError(f"move {k} is {colour.upper()}'s but in Little-Go every action counts, "
                             f"so move {k} is {expected.upper()}'s (colours alternate from Black)")
        actions.append(sgf_move_to_action(move, n))
    black = _root_text(root, "PB") or ""
    white = _root_text(root, "PW") or ""
    result = _root_text(root, "RE")
    return SgfRecord(initial, tuple(actions), black, white, result)


def load_record(path: str | os.PathLike) -> SgfRecord:
    """``sgf_to_record`` of a file's contents.

    Raises:
        ValueError: not a regular file (a folder, a named pipe), larger than
            ``MAX_SGF_BYTES``, or not a Little-Go record (see ``sgf_to_record``).
        OSError: the file is missing or cannot be read.
    """
    return sgf_to_record(read_regular_file(path, MAX_SGF_BYTES, "the SGF file"))


def sgf_to_moves(data: bytes | str) -> tuple[go.GoState, list[int]]:
    """(initial state, actions) of SGF text; see ``sgf_to_record``."""
    rec = sgf_to_record(data)
    return rec.initial, list(rec.actions)


def load_game(path: str | os.PathLike) -> tuple[go.GoState, list[int]]:
    """(initial state, actions) of an SGF file; see ``sgf_to_record``."""
    rec = load_record(path)
    return rec.initial, list(rec.actions)


def state_from_sgf(path: str | os.PathLike, upto: int | None = None) -> go.GoState:
    """The position after the first ``upto`` moves of a record (all of them if None).

    The result is a ``GoState`` that the envs take as ``reset(options={"state": s})``
    (they refuse a finished game, so pick ``upto`` before the end for that).

    Raises:
        ValueError: ``upto`` outside ``0..len(moves)``, or a move the rules
            refuse (its number, vertex and reason), or moves after the end.
    """
    rec = load_record(path)
    if upto is None:
        upto = len(rec.actions)
    upto = check_int("upto", upto, min=0, max=len(rec.actions))  # at most the record's moves
    state = rec.initial
    for k in range(1, upto + 1):
        if state.end is not None:
            raise ValueError(f"move {k} ({rec.vertex(k)}) comes after the end of the game ({state.end})")
        try:
            state = go.play(state, rec.actions[k - 1])
        except go.IllegalActionError as e:
            raise ValueError(f"move {k} ({rec.vertex(k)}) is illegal: {e.reason}") from e
    return state
