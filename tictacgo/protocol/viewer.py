"""A game viewer as one self-contained HTML page (``tictacgo view FILE --html OUT.html``).

The page steps through the games of a Little-Go SGF record or of an arena
results file (a match, a round robin or a course report, as ``tictacgo
arena --out`` writes them): buttons, a slider, a swipe across the board,
the move list (pick a move to go there), the arrow keys (Home and End
for the ends, up and down for the previous and next game) and a play
button (or space) that steps one move a second. It shows the last move
marked, the stones each move captured ringed and counted, the score where
the game keeps one (the stones on the board and the komi, the game's own
numbers), the players, whose turn it is, the status after every move, the
result at the end and Tic-Tac-Toe's winning line. The board fills the
window (``tictacgo.protocol.viewer_page`` holds the page's template, style
and script). It needs nothing but a browser: no script or font is
fetched, and the games are embedded as JSON.

The positions are computed here, by this package's rules core; the page only
shows them. Each game's frames hold, after every move, the board as one
digit a point (``to_board``'s 0/1/2, row by row), the last placement, the
points captured, who moved and the move's name, whose turn it is, the
captures and stones of each player, the scores (where the game has komi),
a line of text, and at the end the result and the winner. The board
itself is the game's SVG drawing (``tictacgo.games.svg``) with every
point's elements, which the page shows and hides. ``#game=K&move=M`` in
the address opens game ``K`` at move ``M`` (both counted from 1 and 0).
On load the page checks its data (board lengths and values, one frame a
move) and its drawing (the stones shown match the board, one move-list
entry a position) and writes the outcome into ``<body data-check=...>``:
``ok`` or what is wrong.

Nothing from the file can act in the page: the template is filled in one
pass, the title is HTML-escaped, the embedded JSON has no ``<``, ``>`` or
``&`` (they are written as ``\\u003c`` and so on), the page shows names as
text, and its Content-Security-Policy runs only its own script and style (by
their hashes) and fetches nothing. The results file is read by
``tictacgo.protocol.results_file`` (size and nesting bounded, every field
checked).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from tictacgo.games import make_game
from tictacgo.protocol.files import read_regular_file
from tictacgo.protocol.results_file import MAX_RESULTS_BYTES, read_results_json, results_matches
from tictacgo.protocol.viewer_page import CONTENT_SECURITY_POLICY, PAGE, SCRIPT, STYLE

#: The most games one page holds; ``game=`` picks one from a larger file.
MAX_GAMES = 1000


@dataclass
class ViewerGame:
    """One game to show: its rules, moves, players and what the record says of its end.

    Attributes:
        label: how the game selector names it.
        game: the game object (variant included).
        actions: the actions in order, legal ones only.
        players: the display names of the first and second player.
        recorded: the record's own result text (an SGF ``RE``), or "".
        illegal: the forfeit the record reports after the moves (an illegal action), or None:
            ``{"by": colour, "action": ..., "detail": ...}``.
        frames: the positions after each move (``build_frames``).
        problem: the first move the rules refuse, if any (the frames stop before it).
    """

    label: str
    game: Any
    actions: list[int]
    players: tuple[str, str]
    recorded: str = ""
    illegal: dict[str, Any] | None = None
    frames: list[dict[str, Any]] = field(default_factory=list)
    problem: str = ""


def _board_text(game: Any, state: Any) -> str:
    return "".join(str(int(v)) for v in game.to_board(state).ravel())


def _status(game: Any, state: Any) -> str:
    return "; ".join(part.strip() for part in game.render_ascii(state).splitlines()[-1].split(";"))


def build_frames(vg: ViewerGame) -> ViewerGame:
    """Replay ``vg``'s moves with the rules core and fill in its frames (and ``problem`` if a move is
    illegal: the frames then stop before it).

    Returns:
        ``vg``.
    """
    game = vg.game
    names = [game.spec.player_name(1), game.spec.player_name(2)]
    state = game.initial_state()
    taken = [0, 0]
    frames = [{"board": _board_text(game, state), "last": -1, "captured": [], "mover": 0, "move": "",
               "text": f"start: {vg.players[0]} ({names[0]}) against {vg.players[1]} ({names[1]})",
               "status": _status(game, state), "taken": list(taken), **_counts(game, state)}]
    for k, action in enumerate(vg.actions, start=1):
        mover = game.current_player(state)
        reason = game.illegal_reason(state, action) if not game.is_terminal(state) else "after the end"
        if reason is not None:
            vg.problem = f"move {k} ({names[mover - 1]} {game.point_label(action)}) is illegal: {reason}"
            break
        before = game.to_board(state).ravel()
        state = game.play(state, action)
        after = game.to_board(state).ravel()
        captured = [int(p) for p in range(len(before)) if before[p] != 0 and after[p] == 0]
        taken[mover - 1] += len(captured)
        text = f"move {k}: {names[mover - 1]} {game.point_label(action)}"
        if captured:
            text += f", captures {len(captured)}"
        last = action if action != game.spec.pass_action else -1
        frames.append({"board": _board_text(game, state), "last": int(last), "captured": captured,
                       "mover": mover, "move": game.point_label(action), "text": text,
                       "status": _status(game, state), "taken": list(taken), **_counts(game, state)})
    frames[-1]["result"], winner = _result(vg, state)
    if winner is not None:  # over, by the rules or by the forfeit the record reports
        frames[-1].update(winner=winner, turn=0)
    vg.frames = frames
    return vg


def _counts(game: Any, state: Any) -> dict[str, Any]:
    """Whose turn it is (0 once over), each player's stones on the board and, where the game keeps a
    score (it has komi), each player's score as the game counts it."""
    out: dict[str, Any] = {"turn": 0 if game.is_terminal(state) else int(game.current_player(state)),
                           "stones": [int(bits).bit_count() for bits in game.stone_bits(state)]}
    scores = getattr(game, "scores", None)
    if game.spec.komi is not None and scores is not None:
        out["score"] = [float(x) for x in scores(state)]
    return out


def _result(vg: ViewerGame, state: Any) -> tuple[str, int | None]:
    """The end of the game in words (who won and why, or that the record stops before the end), and the
    winner: 1 or 2, 0 for a draw, None if the game is not over."""
    game = vg.game
    if vg.problem:
        return f"the record stops here: {vg.problem}", None
    if vg.illegal and not game.is_terminal(state):
        state = game.forfeit(state)
        by = game.spec.player_name(int(vg.illegal.get("by", 0)))
        detail = vg.illegal.get("detail") or ""
        illegal = f"{by} lost by an illegal action {vg.illegal.get('action')!r}"
        illegal += f" ({detail})" if detail else ""
    else:
        illegal = ""
    winner = None
    if not game.is_terminal(state):
        text = "the game is not over after the recorded moves"
    else:
        winner = int(game.winner(state) or 0)
        who = "a draw" if not winner else f"{vg.players[winner - 1]} ({game.spec.player_name(winner)}) wins"
        text = f"result: {who}, {illegal or game.end_words(state)}"
    if vg.recorded:
        text += f"; the record says {vg.recorded}"
    return text, winner


def read_games(path: str | os.PathLike) -> list[ViewerGame]:
    """The games of an SGF record or an arena results file, frames not built yet.

    Args:
        path: a ``.sgf`` file (Little-Go) or a results ``.json`` file of ``tictacgo arena``.

    Raises:
        ValueError: a file that is neither, too large or too deeply nested, a format it does not
            know, a field missing or of the wrong kind, or a file without a game.
        OSError: the file cannot be read.
    """
    path = Path(path)
    head = read_regular_file(path, MAX_RESULTS_BYTES, "the file")
    if path.suffix.lower() == ".sgf" or head.lstrip()[:1] == b"(":
        games = _sgf_games(path)
    else:
        results = read_results_json(path, head)
        games = [g for label, match in results_matches(results, path)
                 for g in _match_games(match, label, path)]
    if not games:
        raise ValueError(f"{path}: the file holds no game")
    return games


def load_games(path: str | os.PathLike, only: int | None = None) -> list[ViewerGame]:
    """The games of ``path`` (``read_games``, ``pick_games``) with their frames.

    Raises:
        ValueError: as ``read_games``, or ``only`` out of range.
        OSError: the file cannot be read.
    """
    return [build_frames(g) for g in pick_games(read_games(path), only, path)]


def pick_games(games: list[ViewerGame], only: int | None, path: str | os.PathLike) -> list[ViewerGame]:
    """Game ``only`` of ``games`` (counted from 1) if given, else the first ``MAX_GAMES``.

    Raises:
        ValueError: ``only`` out of range (``path`` names the file in the message).
    """
    if only is None:
        return games[:MAX_GAMES]
    if not 1 <= only <= len(games):
        raise ValueError(f"game {only} is out of range: {os.fspath(path)} holds {len(games)} game(s)")
    return [games[only - 1]]


def _sgf_games(path: Path) -> list[ViewerGame]:
    """The game of an SGF record, or one game a line of a record with variations (a solution tree:
    each line from the root to a leaf, labelled by its moves and the leaf's comment)."""
    try:
        from tictacgo.protocol import sgf
    except ImportError as e:
        raise ValueError(f"reading SGF needs sgfmill: pip install 'tictacgo[sgf]' ({e})") from None
    try:
        data = read_regular_file(path, sgf.MAX_SGF_BYTES, "the SGF file")
        record = sgf.sgf_to_record(data)
        lines = sgf.sgf_lines(data)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    game = record.initial.game
    players = (record.black or "Black", record.white or "White")
    if len(lines) == 1:
        return [ViewerGame(f"{players[0]} vs {players[1]}", game, list(record.actions), players,
                           record.result or "")]
    n = game.size
    out = []
    for k, (actions, comment) in enumerate(lines, start=1):
        moves = " ".join("PASS" if a == n * n else f"{a // n},{a % n}" for a in actions)
        out.append(ViewerGame(f"line {k}: {moves}", game, actions, players, comment))
    return out


def _match_games(match: dict[str, Any], prefix: str, path: Path) -> list[ViewerGame]:
    """The games of one match that ``results_matches`` checked.

    Raises:
        ValueError: a game this package cannot make, or a move that is not one of its actions.
    """
    variant = dict(match.get("variant") or {})
    try:
        game = make_game(match["game"], **variant)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: the results file names a game this package cannot make: "
                         f"{match['game']!r} with {variant}: {e}") from None
    actions = game.spec.num_actions
    out = []
    for g in match["games"]:
        players = (g.get("first", "first"), g.get("second", "second"))
        label = f"{prefix}game {g['index'] + 1}: {players[0]} vs {players[1]}"
        wrong = next((a for a in g["moves"] if not 0 <= a < actions), None)
        if wrong is not None:
            raise ValueError(f"{path}: {label}: the move {_short_number(wrong)} is not an action of "
                             f"{game.spec.title} (0 to {actions - 1})")
        out.append(ViewerGame(label, game, list(g["moves"]), players, illegal=g.get("illegal")))
    return out


def _short_number(n: int) -> str:
    text = str(n) if abs(n) < 10**30 else f"{n:.3e}"
    return text


def page_data(games: list[ViewerGame]) -> dict[str, Any]:
    """What the page embeds: every game's frames, and one board drawing per variant."""
    boards: dict[str, str] = {}
    out = []
    for vg in games:
        key = json.dumps(vg.game.params, sort_keys=True) + vg.game.spec.name
        if key not in boards:
            empty = vg.game.to_board(vg.game.initial_state())
            boards[key] = vg.game.board_svg(empty, every_point=True)
        out.append({"label": vg.label, "board": list(boards).index(key), "points": vg.game.spec.num_points,
                    "captures": vg.game.spec.captures,
                    "komi": None if vg.game.spec.komi is None else [0.0, float(vg.game.spec.komi)],
                    "title": vg.game.spec.title, "players": list(vg.players),
                    "names": [vg.game.spec.player_name(1), vg.game.spec.player_name(2)],
                    "moves": list(vg.actions[:len(vg.frames) - 1]), "frames": vg.frames})
    return {"format": "tictacgo-viewer/1", "boards": list(boards.values()), "games": out}


def _script_json(data: Any) -> str:
    """``data`` as JSON with no ``<``, ``>`` or ``&`` in it (written ``\\u003c`` and so on inside the
    strings, the only place JSON has them): still JSON that parses to ``data``, and nothing the HTML
    parser can take for the end of the ``<script>`` element or a comment."""
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_FIELD = re.compile(r"@(CSP|TITLE|STYLE|DATA|SCRIPT)@")


def page_html(games: list[ViewerGame], title: str) -> str:
    """The viewer page for ``games`` (see the module docstring).

    The template is filled in one pass, so that no text from a file (a title, a player's name) is
    ever read as a place to fill in; each field is escaped for where it goes.

    Args:
        games: the games, frames built (``load_games``).
        title: the page's title (the file's name, say).
    """
    fields = {"CSP": escape(CONTENT_SECURITY_POLICY, quote=True), "TITLE": escape(title, quote=True),
              "STYLE": STYLE, "DATA": _script_json(page_data(games)), "SCRIPT": SCRIPT}
    return _FIELD.sub(lambda m: fields[m.group(1)], PAGE)


def read_page_data(html: str) -> dict[str, Any]:
    """The data a viewer page embeds (for checking a page in Python)."""
    start = html.index('<script id="game-data" type="application/json">') + len(
        '<script id="game-data" type="application/json">')
    end = html.index("</script>", start)
    return json.loads(html[start:end])
