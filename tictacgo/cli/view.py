"""``tictacgo view FILE --html OUT.html``: a page that steps through the games of a record.

FILE is a Little-Go SGF record or a results file of ``tictacgo arena --out``
(a match, a round robin or a course report); ``tictacgo.protocol.viewer``
builds the page. Exit status 0 when the page is written (a record with an
illegal move is shown up to it, and said so on stderr), 2 for a file that
cannot be read as either (malformed, too large, nested too deep), a
``--game`` out of range, an ``--html`` that cannot be written or that is the
input file itself (also through a link), 130 when interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tictacgo.atomic import atomic_write_text, check_writable, same_file
from tictacgo.protocol import viewer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="an SGF record (Little-Go) or a results .json of tictacgo arena")
    parser.add_argument("--html", required=True, metavar="OUT.html",
                        help="write the viewer page here (one file, nothing fetched when it is opened)")
    parser.add_argument("--game", type=int, default=None, metavar="K",
                        help="show only game K of the file, counted from 1 (default: every game, "
                             "up to the first 1000)")


def _error(message: str) -> int:
    print(f"tictacgo view: error: {message}", file=sys.stderr)
    return 2


def _readable(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 (kept by Python as lone surrogates, which no
    page can hold) shown as the replacement character."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def run(args: argparse.Namespace) -> int:
    if not args.html.strip():
        return _error(f"--html needs a file name, got {args.html!r}")
    if same_file(args.html, args.file):
        return _error(f"--html {args.html!r} is the input file {args.file!r}; writing the page there "
                      "would replace the record: give the page another name")
    try:
        check_writable(args.html)
    except ValueError as e:
        return _error(f"--html: {e}")
    try:
        games = viewer.read_games(args.file)
        total = len(games)
        games = [viewer.build_frames(g) for g in viewer.pick_games(games, args.game, args.file)]
    except OSError as e:
        return _error(f"{args.file}: {e.strerror or e}")
    except ValueError as e:
        return _error(str(e))
    for k, g in enumerate(games, start=1):
        if g.problem:
            print(f"tictacgo view: note: game {args.game or k}: {g.problem}; "
                  "the page shows it up to that move", file=sys.stderr)
    if args.game is None and total > len(games):
        print(f"tictacgo view: note: the page shows the first {len(games)} of {total} games; "
              "--game K shows any one", file=sys.stderr)
    try:
        atomic_write_text(args.html, viewer.page_html(games, _readable(Path(args.file).name)))
    except (OSError, ValueError) as e:
        return _error(f"could not write --html {args.html!r}: {getattr(e, 'strerror', None) or e}")
    print(f"wrote {args.html} ({len(games)} game{'s' if len(games) != 1 else ''})")
    return 0
