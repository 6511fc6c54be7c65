"""Playing an agent yourself, in the terminal or from a pipe (``tictacgo play GAME --agent SPEC``).

    tictacgo play littlego --agent mcts:sims=2000 --as second --seed 1
    tictacgo play littlego --board-size 7 --agent mcts:sims=400
    tictacgo play tictactoe --agent minimax

The board is printed before each of your moves, with coordinates. Moves:

* both games: the course's ``row,col`` (0-based, row 0 at the top), e.g. ``2,3``;
* Little-Go: also Go letters as GTP and GUIs write them, e.g. ``C3`` (column
  letter A..E without I, row number from the bottom), and ``pass``;
* Tic-Tac-Toe: also the cell number 0..8 shown on empty cells;
* ``undo`` takes back your last move and the agent's reply, ``quit`` ends
  the session, ``help`` lists all this.

A move the rules refuse (occupied point, suicide, ko) or a line that is not a
move is answered with a message and you move again; unlike the course host,
it does not lose the game. After each agent move the line says what it
played and how long it thought. At the end the result and why the game
ended (three in a row, full board, the action limit, two passes, Black
passing first) are printed, with the stone score for Little-Go.

Scripted games: when stdin is not a terminal the moves are read one a line
(``printf '2,2\\nC4\\npass\\n' | tictacgo play littlego --agent random``);
each line read is echoed after the prompt so the transcript reads like a
session. Exit status: 0 for a finished game or ``quit``, 1 when the input
ends before the game does, 2 for bad arguments (unknown game or agent),
130 on Ctrl-C. ``--board-size N`` plays Little-Go on an N x N board.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO

from tictacgo.games.base import Game
from tictacgo.protocol.coords import GO_LETTERS, action_to_course, course_to_action, vertex_to_action

COMMANDS = ("undo", "quit", "help")


def move_name(game: Game, action: int) -> str:
    """How a move is shown: ``C3 (2,2)`` or ``pass`` in Little-Go, ``1,1 (cell 4)`` in Tic-Tac-Toe."""
    n = game.spec.board_shape[0]
    if action == game.pass_action:
        return "pass"
    if game.writes_vertices:
        i, j = divmod(action, n)
        return f"{GO_LETTERS[j]}{n - i} ({i},{j})"
    return f"{action_to_course(action, n)} (cell {action})"


def parse_move(game: Game, text: str) -> int | str:
    """The action a typed line names, or one of ``COMMANDS``.

    Raises:
        ValueError: the line is neither a move of this game nor a command.
    """
    t = text.strip()
    low = t.lower()
    if low in COMMANDS or low in ("exit", "?"):
        return {"exit": "quit", "?": "help"}.get(low, low)
    n = game.spec.board_shape[0]
    if low == "pass" and game.pass_action is not None:  # any game whose rules have a pass
        return game.pass_action
    if "," in t or (len(t.split()) == 2 and all(p.lstrip("-").isdigit() for p in t.split())):
        return course_to_action(t, n)
    if game.writes_vertices:
        if not t:
            raise ValueError("empty line; type a move such as C3 or 2,2, pass, undo or quit")
        return vertex_to_action(t, n)
    if t.isdigit() and 0 <= int(t) < n * n:
        return int(t)
    passing = ", pass" if game.pass_action is not None else ""
    raise ValueError(f"{t!r} is not a move; type row,col such as 1,2 or a cell number 0..{n * n - 1}"
                     f"{passing}, undo or quit")


def help_text(game: Game) -> str:
    n = game.spec.board_shape[0]
    if game.writes_vertices:
        last = GO_LETTERS[n - 1]
        moves = ("a move is row,col as the course writes it (0-based, row 0 at the top), e.g. 2,2, "
                 f"or Go letters, e.g. C3 (column A..{last} without I, row 1 at the bottom), or pass")
    else:
        moves = f"a move is row,col (0-based, row 0 at the top), e.g. 1,2, or a cell number 0..{n * n - 1}"
        if game.pass_action is not None:
            moves += ", or pass"
    return f"{moves}; undo takes back your last move and the reply; quit ends the game"


def render(game: Game, state) -> str:
    """The board with coordinates for both ways of typing a move."""
    spec = game.spec
    n = game.spec.board_shape[0]
    board = game.to_board(state)
    sym = {0: ".", 1: "X", 2: "O"}
    if game.writes_vertices:
        lines = ["     " + " ".join(GO_LETTERS[:n])]
        for i in range(n):
            lines.append(f"  {n - i:>2} " + " ".join(sym[int(v)] for v in board[i]) + f"  {i}")
        lines.append("     " + " ".join(str(j) for j in range(n)))
        lines.append("  Go letters: column above, row left (C3); course: row right, column below (2,2)")
        first, second = (b.bit_count() for b in game.stone_bits(state))
        limit = f"/{spec.max_actions}" if spec.max_actions is not None else ""
        komi = f" + komi {spec.komi:g}" if spec.komi is not None else ""
        lines.append(f"  action {state.t}{limit}; stones: {spec.player_names[0]} {first}, "
                     f"{spec.player_names[1]} {second}{komi}")
        return "\n".join(lines)
    width = len(str(n * n - 1))
    lines = ["      " + "   ".join(str(j) for j in range(n)) + "        cells"]
    for i in range(n):
        cells = " | ".join(sym[int(board[i][j])] for j in range(n))
        key = " ".join(f"{i * n + j:>{width}}" for j in range(n))
        lines.append(f"  {i}   {cells}        {key}")
        if i < n - 1:
            lines.append("     " + "+".join(["---"] * n))
    lines.append("  row,col: row left, column above; or a cell number")
    return "\n".join(lines)


def result_text(game: Game, state, human: int) -> str:
    """Who won, by what score (Little-Go) and why the game ended."""
    spec = game.spec
    w = game.winner(state)
    who = "draw" if w == 0 else f"{game.player_label(w)} wins"
    you = "it is a draw" if w == 0 else "you win" if w == human else "the agent wins"
    why = game.end_words(state)
    scores = getattr(game, "scores", None)
    if spec.komi is not None and scores is not None:
        b, wh = scores(state)
        first, second = spec.player_names
        score = (f"{first} {b:g} : {second} {wh:g} (stones on the board, komi {spec.komi:g} "
                 f"to {second})")
        return f"Game over: {who}, {score}; the game ended because {why}. {you.capitalize()}."
    return f"Game over: {who}; {why}. {you.capitalize()}."


def play_session(game: Game, agent, agent_name: str, human: int,
                 read_line: Callable[[str], str], out: IO[str], echo: bool = False) -> int:
    """Play one game between a person (``read_line``) and ``agent``; the exit status.

    Args:
        game: the rules module.
        agent: an object with ``act(state) -> action`` (and optionally ``reset()``).
        agent_name: how the agent is named in messages.
        human: the person's colour, 1 (moves first) or 2.
        read_line: ``f(prompt) -> line``; raises EOFError at the end of input.
        out: where the session is written.
        echo: write each line read after its prompt (for piped input).
    Returns:
        0 for a finished game or ``quit``, 1 if the input ended first.
    """
    def say(text: str = "") -> None:
        out.write(text + "\n")
        out.flush()

    state = game.initial_state()
    history = [state]
    shown = None  # the board is printed again only when it changed
    say(f"You play {game.player_label(human)} against {agent_name}. {help_text(game)}.")
    while not game.is_terminal(state):
        if game.current_player(state) != human:
            start = time.perf_counter()
            action = agent.act(state)
            seconds = time.perf_counter() - start
            try:
                state = game.play(state, action)
            except (TypeError, ValueError) as e:
                say(f"{agent_name} chose an illegal action {action!r}: {e}")
                state = game.forfeit(state)
                break
            history.append(state)
            played = move_name(game, action)
            say(f"{agent_name} as {game.player_label(3 - human)} plays {played} after {seconds:.2f} s")
            continue
        if state is not shown:
            say(render(game, state))
            shown = state
        prompt = f"Your move as {game.player_label(human)}: "
        try:
            line = read_line(prompt)
        except EOFError:
            say()
            print("tictacgo play: the input ended before the game was over", file=sys.stderr)
            return 1
        if echo:
            say(line.rstrip("\n"))
        try:
            move = parse_move(game, line)
        except ValueError as e:
            say(f"Not a move: {e}")
            continue
        if move == "quit":
            say("You quit; the game is abandoned.")
            return 0
        if move == "help":
            say(help_text(game))
            continue
        if move == "undo":
            earlier = [k for k in range(len(history) - 1) if game.current_player(history[k]) == human]
            if not earlier:
                say("Nothing to undo: you have not moved yet.")
                continue
            del history[earlier[-1] + 1:]
            state = history[-1]
            if callable(getattr(agent, "reset", None)):
                agent.reset()
            say("Undone: your last move and the reply.")
            continue
        reason = game.illegal_reason(state, move)
        if reason is not None:
            say(f"{move_name(game, move)} is illegal: {reason}. Try again.")
            continue
        state = game.play(state, move)
        history.append(state)
    say(render(game, state))
    say(result_text(game, state, human))
    return 0
