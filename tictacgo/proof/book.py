"""The book: proved-best moves by position, which the ``solver`` agent plays before it searches.

    from tictacgo.proof.book import build_book, load_book
    book = build_book(["3x3.cert"])            # every certificate is checked first
    book.write("3x3.book")
    book = load_book("3x3.book")
    book.lookup(state)                         # (action, outcome it keeps for the mover) or None

A book holds, for each position of one variant, a move and the outcome the
move keeps for the player to move (+1 win, 0 draw). Its entries come from

* certificates (``tictacgo.proof.certificate``): each is checked by
  ``tictacgo.proof.verify`` (``tictacgo.proof.checker``: the rules core alone) before its moves enter
  the book, with the outcome the checker found the move to guarantee; a
  certificate's strategy covers every position its side meets whatever the
  other side plays, so a book of the empty board's certificate plays a
  whole game from the first move;
* a frontier run (``scripts/solve_frontier.py``'s JSON): the positions of
  its line that the solver proved won for the mover, with the winning move
  it found (proved by the solver, not checked by the checker; the book's
  header says which sources it holds).

Lost positions have no entry (every move loses: the agent decides how). The
file is ``tictacgo.proof.proof_file``'s layout with ``"format":
"tictacgo-book"`` and one table ``book`` with a ``value`` column (int8).
``load_book`` refuses a file over its size cap before reading it, and a
move the rules do not allow in a position is never played
(``lookup`` returns None there).

The package ships books for the course's game on 3x3, 4x4 and 5x5
(``default_book``); ``tictacgo solve --book OUT CERT...`` builds others.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from tictacgo.games import littlego
from tictacgo.proof import proof_file
from tictacgo.proof.checker import verify
from tictacgo.proof.position_code import Code, canonical, from_canonical, move_action, to_canonical
from tictacgo.reading import shorten, shown

FORMAT = "tictacgo-book"
VERSION = 1
COLUMNS = {**proof_file.COLUMNS, "value": np.int8}
#: Default cap on a book file's size.
MAX_BOOK_BYTES = 64 << 20
#: The books the package ships (the data package ``tictacgo.proof.books``, found by its path: reading a
#: book imports no solver and needs no numba).
BOOKS_DIR = Path(__file__).resolve().parent / "books"


@dataclass
class Book:
    """Proved-best moves of one variant: canonical code -> (move in the canonical frame, outcome).

    Attributes:
        game: the variant the entries belong to.
        entries: the canonical position's row key (``row_key``: Black's stones, White's stones, the
            packed rest of the code) -> (move, outcome the move keeps for the mover).
        sources: what the entries were built from (text, one item a source).
    """

    game: littlego.LittleGo
    entries: dict[tuple[int, int, int], tuple[int, int]] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.entries)

    def variant(self) -> tuple[int, float, int]:
        return self.game.size, self.game.komi, self.game.max_actions

    def fits(self, game) -> bool:
        """Whether the book's entries are about ``game``'s variant."""
        return isinstance(game, littlego.LittleGo) and \
            (game.size, game.komi, game.max_actions) == self.variant()

    def lookup(self, state: littlego.GoState) -> tuple[int, int] | None:
        """(the book's move in ``state``, the outcome it keeps for the mover), or None if not in the book.

        None also for a finished game, another variant, or a move the rules do not allow here.
        """
        if state.end is not None or not self.fits(state.game):
            return None
        code, s = canonical(state)
        entry = self.entries.get(row_key(code))
        if entry is None:
            return None
        action = from_canonical(entry[0], s, self.game.size)
        if littlego.illegal_reason(state, action) is not None:
            return None
        return action, entry[1]

    def add(self, state: littlego.GoState, action: int, value: int) -> None:
        """Add (or improve) the entry of ``state``: ``action`` keeps ``value`` for the mover."""
        code, s = canonical(state)
        self._add(code, to_canonical(action, s, self.game.size), value)

    def _add(self, code: Code, move: int, value: int) -> None:
        key = row_key(code)
        old = self.entries.get(key)
        if old is None or value > old[1]:
            self.entries[key] = (move, value)

    def write(self, path: str | os.PathLike) -> Path:
        """Write the book atomically; its path."""
        g = self.game
        header = {"format": FORMAT, "version": VERSION,
                  "game": {"size": g.size, "komi": g.komi, "max_actions": g.max_actions},
                  "sources": list(self.sources), "rows": len(self.entries)}
        keys = sorted(self.entries)
        table = {"black": np.array([k[0] for k in keys], dtype=np.uint64),
                 "white": np.array([k[1] for k in keys], dtype=np.uint64),
                 "meta": np.array([k[2] for k in keys], dtype=np.uint16),
                 "move": np.array([self.entries[k][0] for k in keys], dtype=np.uint8),
                 "value": np.array([self.entries[k][1] for k in keys], dtype=np.int8)}
        return proof_file.write(path, header, {"book": table})


def rows_not_kept(old: Book, new: Book) -> list[tuple[int, int, int]]:
    """The rows of ``old`` that ``new`` drops or holds with a lower outcome for the mover: what a book
    that grows must not lose. A row whose move changed but keeps the same outcome is kept (both moves
    are proved); the keys are ``row_key``'s."""
    return [key for key, (_, value) in old.entries.items()
            if key not in new.entries or new.entries[key][1] < value]


def grown_book(old: Book, new: Book) -> int:
    """Check that ``new`` may replace ``old`` as a book that grows: the same game, and every row of
    ``old`` kept (``rows_not_kept``); the number of kept rows whose move changed (both proved).

    Raises:
        ValueError: another game (size, komi, actions), or rows lost or held with a lower outcome.
    """
    if new.variant() != old.variant():
        raise ValueError(f"the new book is of {new.variant()} (size, komi, actions), the old one of "
                         f"{old.variant()}")
    lost = rows_not_kept(old, new)
    if lost:
        raise ValueError(f"the new book loses {len(lost):,} of the old book's {len(old):,} rows (or holds "
                         f"them with a lower outcome)")
    return sum(new.entries[k][0] != move for k, (move, _) in old.entries.items())


def load_book(path: str | os.PathLike, max_bytes: int = MAX_BOOK_BYTES) -> Book:
    """Read a book file (see the module docstring).

    Raises:
        ProofFileError: a missing, oversized or malformed file, naming what is wrong.
    """
    header, tables = proof_file.read(path, FORMAT, COLUMNS, max_bytes=max_bytes)
    version = header.get("version")
    if isinstance(version, bool) or version != VERSION:
        raise proof_file.ProofFileError(f"{path}: book version {shown(version)}, this reader "
                                        f"reads version {VERSION}")
    size, komi, max_actions = proof_file.check_variant(path, header)
    game = littlego.LittleGo(size, komi, max_actions)
    if set(tables) - {"book"}:
        raise proof_file.ProofFileError(f"{path}: a book has one table, 'book'; found {sorted(tables)}")
    sources = header.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(x, str) for x in sources):
        raise proof_file.ProofFileError(f"{path}: the header's sources are {shown(sources)}; expected a "
                                        "list of texts")
    book = Book(game, sources=list(sources))
    arrays = tables.get("book")
    if arrays is None:
        return book
    n = game.size
    black, white, meta = arrays["black"], arrays["white"], arrays["meta"]
    move, value = arrays["move"], arrays["value"]
    bad = (move > n * n) | ((value != 0) & (value != 1)) | ((black | white) >> np.uint64(n * n) != 0) \
        | ((black & white) != 0) | ((meta & 0x7F) >= max_actions)
    if bad.any():
        k = int(np.argmax(bad))
        raise proof_file.ProofFileError(
            f"{path}: row {k} is not a {n}x{n} position with a move in 0..{n * n} and an outcome 0 or 1 "
            f"(move {move[k]}, outcome {value[k]}, t={meta[k] & 0x7F})")
    keys = zip(black.tolist(), white.tolist(), meta.tolist(), strict=True)
    book.entries = dict(zip(keys, zip(move.tolist(), value.tolist(), strict=True), strict=True))
    return book


def book_for_spec(spec: str | None, game) -> Book | None:
    """The book a ``book=`` parameter names: ``default`` (the package's book of ``game``'s variant, or
    None), ``none`` (None) or a book file's path (read and checked to be of the variant)."""
    if spec is None or spec == "none":  # the spec parser reads "none" as None
        return None
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"book must be 'default', 'none' or the path of a book file, got {spec!r}")
    if spec == "default":
        return default_book(game.size, game.komi, game.max_actions)
    book = load_book(spec)
    if not book.fits(game):
        raise ValueError(f"book {spec!r} holds positions of {book.variant()} (size, komi, actions), "
                         f"not of this game's {(game.size, game.komi, game.max_actions)}")
    return book


def row_key(code: Code) -> tuple[int, int, int]:
    """The key of a canonical code in ``Book.entries``: its columns as the file stores them."""
    return code.black, code.white, proof_file.pack_meta(code)


def book_from_certificates(paths: list[str | os.PathLike], book: Book | None = None,
                           max_bytes: int = proof_file.DEFAULT_MAX_BYTES) -> Book:
    """Check each certificate and add its strategies' moves to ``book`` (a new one by default).

    Raises:
        ProofFileError, CertificateError: a certificate that cannot be read or does not prove its claim.
        ValueError: certificates of different variants.
    """
    for path in paths:
        report = verify(path, max_bytes=max_bytes)
        if book is None:
            book = Book(report.game)
        elif not book.fits(report.game):
            raise ValueError(f"{path}: a certificate of {_variant_text(report.game)}, but the book holds "
                             f"{_variant_text(book.game)}")
        for check in report.strategies:
            for code, (move, value) in check.values.items():
                book._add(code, move, value)
        book.sources.append(f"certificate {Path(path).name}: {report.claim} from {report.root_line}, checked "
                            f"({sum(len(c.values) for c in report.strategies):,} positions)")
    if book is None:
        raise ValueError("no certificate given")
    return book


def book_from_frontier(path: str | os.PathLike, book: Book | None = None) -> Book:
    """Add the positions a frontier run proved won for the mover (``scripts/solve_frontier.py``'s JSON).

    Each position of the run's line whose value is known and a win for the player to move enters with
    the winning move the solver found (its ``best_move``). The file is read within bounds
    (``proof_file.read_json``) and every entry is checked before any enters: its ``taken`` a count of
    the line's moves that reaches a position before the game's end, its ``value_for_black`` -1, 0, 1
    or null, and its ``best_move`` a legal move there.

    Raises:
        ValueError: not a frontier JSON, an entry that is not one (named by its index), or another
            variant than ``book``'s.
    """
    path = Path(path)
    run = proof_file.read_json(path, MAX_BOOK_BYTES)
    try:
        if not isinstance(run, dict):
            raise TypeError(f"a JSON {type(run).__name__}, not an object")
        game = littlego.LittleGo(run["size"], run["komi"], run["max_actions"])
        line, positions = run["line"], run["positions"]
        if not isinstance(line, list) or not isinstance(positions, list):
            raise TypeError("'line' and 'positions' must be lists")
        actions = [move_action(m, game.size) for m in line]
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: not a frontier run's JSON (size, komi, max_actions, line, positions): "
                         f"{shorten(str(e))}") from None
    states = [game.initial_state()]
    for k, a in enumerate(actions):
        if states[-1].end is not None:
            break  # a line may hold moves after its game's end: they are not positions
        reason = littlego.illegal_reason(states[-1], a)
        if reason is not None:
            raise ValueError(f"{path}: the line's move {k + 1} ({shown(line[k])}) is illegal: {reason}")
        states.append(littlego.play(states[-1], a))
    if book is None:
        book = Book(game)
    elif not book.fits(game):
        raise ValueError(f"{path}: a run on {_variant_text(game)}, but the book holds "
                         f"{_variant_text(book.game)}")
    wins = []
    for k, entry in enumerate(positions):
        def bad(why: str, k=k) -> ValueError:
            return ValueError(f"{path}: position {k} of the run is not a frontier entry (taken, "
                              f"value_for_black, best_move): {why}")

        if not isinstance(entry, dict):
            raise bad(f"a JSON {type(entry).__name__}, not an object")
        value, best, taken = entry.get("value_for_black"), entry.get("best_move"), entry.get("taken")
        if value is None or best is None:
            continue
        if isinstance(value, bool) or value not in (-1, 0, 1) or not isinstance(value, int):
            raise bad(f"value_for_black {shown(value)}, expected -1, 0, 1 or null")
        if isinstance(taken, bool) or not isinstance(taken, int) or not 0 <= taken < len(states) \
                or states[taken].end is not None:
            raise bad(f"taken {shown(taken)}, expected the number of the line's moves to a position before "
                      f"its game's end (0 to {len(states) - 1 - (states[-1].end is not None)})")
        state = states[taken]
        try:
            action = move_action(best, game.size)
        except ValueError as e:
            raise bad(f"best_move: {shorten(str(e))}") from None
        reason = littlego.illegal_reason(state, action)
        if reason is not None:
            raise bad(f"best_move {shown(best)} is illegal there: {reason}")
        mover_value = value if state.to_move == littlego.BLACK else -value
        if mover_value > 0:
            wins.append((state, action, mover_value))
    for state, action, mover_value in wins:
        book.add(state, action, mover_value)
    kind = "combined result" if "method" in run else "frontier run"  # combine_proofs.py's JSON has one
    book.sources.append(f"{kind} {path.name}: {len(wins)} position{'' if len(wins) == 1 else 's'} of its "
                        "line proved won by the solver (not checked by a certificate)")
    return book


def _variant_text(game: littlego.LittleGo) -> str:
    return f"{game.size}x{game.size}, komi {game.komi:g}, {game.max_actions} actions"


def book_file_name(game: littlego.LittleGo) -> str:
    """The file name of a variant's book in the package's ``books`` folder."""
    return f"littlego_{game.size}x{game.size}_komi{game.komi:g}_{game.max_actions}.book"


def default_book_path(game: littlego.LittleGo) -> Path | None:
    """The shipped book of ``game``'s variant, or None when the package has none."""
    path = BOOKS_DIR / book_file_name(game)
    return path if path.is_file() else None


def proof_book_path(game: littlego.LittleGo) -> Path:
    """Where the package keeps the book of the proof of ``game``'s empty board (``tictacgo prove
    --book``): the proof's winning moves and its checked leaves' moves near their roots."""
    return BOOKS_DIR / book_file_name(game).replace(".book", "_proof.book")


@cache
def default_book(size: int, komi: float, max_actions: int) -> Book | None:
    """The shipped book of a variant (read once per process), with the book of its proof where the
    package has one (``proof_book_path``); None when it has neither.

    Where both books know a position, the proof's move is kept unless the other book's keeps a better
    outcome: its wins are the ones the proof's checked certificates stand behind, and a player that
    follows them stays inside the proof (another book's winning move may lead where the proof's
    leaves do not reach)."""
    game = littlego.LittleGo(size, komi, max_actions)
    path, proof = default_book_path(game), proof_book_path(game)
    book = None if path is None else load_book(path)
    if proof.is_file():
        extra = load_book(proof)
        if book is None:
            return extra
        for key, (move, value) in extra.entries.items():
            old = book.entries.get(key)
            if old is None or value >= old[1]:
                book.entries[key] = (move, value)
        book.sources += extra.sources
    return book


__all__ = ["Book", "book_file_name", "book_from_certificates", "book_from_frontier", "default_book",
           "default_book_path", "load_book", "proof_book_path"]
