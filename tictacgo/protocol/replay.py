"""Replaying a Little-Go SGF record through the env and checking it (``tictacgo replay FILE.sgf``).

Each move of the record's main line is checked against the rules core
(``illegal_reason``) and then stepped through the PettingZoo AEC env
``littlego_v0`` built with the record's size, komi and action limit, so a
record that replays here is a game the env plays. The first illegal move is
reported with its number, colour, vertex, the course's ``i,j`` and the
rule it breaks (occupied, suicide, ko), and so is a move played after the
game ended (24 actions, two passes, Black passing first). Otherwise the final
board and the result by this variant's stone scoring are printed, and the
record's ``RE`` is checked against it.

Exit status: 0 when every move is legal and ``RE`` agrees (or is absent);
1 for an illegal move, moves after the end, or an ``RE`` that disagrees;
2 for a file that cannot be read as a Little-Go SGF record (or no sgfmill).
"""

from __future__ import annotations

import sys

from tictacgo.games import littlego as go
from tictacgo.protocol.coords import action_to_course


def replay(file: str, quiet: bool = False) -> int:
    """Replay the record in ``file`` and say what was found (see the module docstring).

    Args:
        file: the SGF file.
        quiet: print only the verdict.

    Returns:
        The exit status: 0 (every move legal, ``RE`` agrees), 1 or 2.
    """
    try:
        from tictacgo.protocol import sgf
    except ImportError as e:
        _error(f"needs sgfmill (pip install 'tictacgo[sgf]'): {e}")
        return 2
    try:
        record = sgf.load_record(file)
    except (OSError, ValueError) as e:
        _error(f"{file}: {e}")
        return 2
    from tictacgo.envs import littlego_v0

    game = record.initial.game
    n = game.size
    env = littlego_v0.raw_env(board_size=n, komi=game.komi, max_actions=game.max_actions)
    env.reset()
    for k, action in enumerate(record.actions, start=1):
        state = env.game_state
        where = f"move {k} ({record.vertex(k)}, course {action_to_course(action, n)})"
        if state.end is not None:
            _error(f"{file}: {where} comes after the end of the game: it ended after move {k - 1} "
                   f"({state.end})")
            return 1
        reason = go.illegal_reason(state, action)
        if reason is not None:
            _error(f"{file}: {where} is illegal: {reason}")
            if not quiet:
                print(go.render_ascii(state))
            return 1
        env.step(action)
        if env.game_state.last_action != action or env.game_state.t != state.t + 1:
            _error(f"{file}: {where}: the env did not play the move")
            return 1
    state = env.game_state
    b, w = go.scores(state)
    if not quiet:
        print(f"{record.black or 'Black'} (Black) vs {record.white or 'White'} (White), {n}x{n}, "
              f"komi {game.komi:g}, action limit {game.max_actions}: {len(record.actions)} moves, all legal")
        if record.actions:
            print(f"last move: {record.vertex(len(record.actions))}")
        print(go.render_ascii(state))
        if state.end is None:
            print("the game is not over after the recorded moves")
        else:
            print(f"result by the rules: {sgf.result_string(state)} (Black {b:g}, White {w:g}; "
                  f"ended by {state.end})")
    ok, why = sgf.check_result(record.result, state)
    if ok:
        print(why)
    else:
        _error(f"{file}: {why}")
    return 0 if ok else 1


def _error(message: str) -> None:
    """A problem, on stderr, with the command's name in front as every command's messages have."""
    print(f"tictacgo replay: {message}", file=sys.stderr)
