"""``check_game(game)``: the test step of a new game, as OpenSpiel's and PettingZoo's docs have one.

    from tictacgo.envs import check_game
    check_game(MyGame())                # raises GameCheckError naming the first thing wrong

It plays ``games`` random games (seeded) and checks, at every position:

* the rules agree with themselves: ``legal_bits`` against ``illegal_reason``
  for every action, ``legal_actions`` and ``legal_mask`` against
  ``legal_bits``, ``current_player`` is 1 or 2, ``to_board`` has the spec's
  shape and holds only 0, 1 and 2, ``check_state`` accepts the position,
  ``play`` leaves its input untouched and refuses an illegal action;
* the end: a game is over exactly when no action is legal, its ``winner`` is
  0, 1 or 2 and its ``returns`` say the same, ``end_reason`` is one of
  ``END_REASONS``, ``play`` refuses to go on; and the same moves from the
  start reach the same state (the rules are deterministic);
* the symmetries (``symmetries()``): each game replayed through each map of
  actions is legal move for move and its boards are the moved boards;

then, with ``envs=True``, the envs made from the registry: PettingZoo's
``api_test`` and ``seed_test`` on the AEC env, Gymnasium's ``check_env`` on
the single-agent env, and the native vector env against the rules (the
batched engine's states and boards game for game). A game must be
registered (``register_game``) for its envs; ``envs=False`` checks the rules
alone.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from typing import Any

import numpy as np

from tictacgo.agent import Agent
from tictacgo.games.base import Game
from tictacgo.games.errors import GameOverError


class _RandomAgent(Agent):
    """Uniformly random legal moves: the single-agent env's opponent while it is checked."""

    name = "random"

    def act(self, state) -> int:
        legal = self.game.legal_actions(state)
        return int(legal[self.rng.integers(len(legal))])


class GameCheckError(AssertionError):
    """A game that does not keep the promises of the ``Game`` interface: the message names the check,
    and the moves from the start that reach the position where it failed."""


def check_game(game: Game, games: int = 20, seed: int = 0, envs: bool = True) -> dict[str, int]:
    """Check ``game`` as the module docstring says.

    Args:
        game: a game object.
        games: random games to play.
        seed: seeds the random games.
        envs: also check the PettingZoo, Gymnasium and vector envs made from the registry.
    Returns:
        What was checked: ``{"games": ..., "positions": ..., "symmetries": ...}``.
    Raises:
        GameCheckError: the first thing found wrong.
    """
    if not isinstance(game, Game):
        raise TypeError(f"check_game takes a game object (a tictacgo.games.Game), got {game!r}")
    rng = np.random.default_rng(seed)
    lines, positions = [], 0
    for _ in range(games):
        moves, n = _random_game(game, rng)
        lines.append(moves)
        positions += n
    symmetries = _check_symmetries(game, lines)
    if envs:
        _check_envs(game, seed)
    return {"games": games, "positions": positions, "symmetries": symmetries}


def _fail(check: str, moves: list[int], detail: str) -> GameCheckError:
    return GameCheckError(f"{check}, after the moves {moves}: {detail}")


def _random_game(game: Game, rng: np.random.Generator) -> tuple[list[int], int]:
    state, moves, positions = game.initial_state(), [], 0
    while True:
        positions += 1
        _check_position(game, state, moves)
        legal = game.legal_actions(state)
        if game.is_terminal(state):
            _check_end(game, state, moves)
            break
        action = int(legal[rng.integers(len(legal))])
        state = game.play(state, action)
        moves.append(action)
        if len(moves) > 10_000:
            raise _fail("a game does not end", moves[:20], "10,000 moves without an end")
    if repr(_replay(game, moves)) != repr(state):
        raise _fail("the same moves from the start reach another state", moves, "replayed")
    return moves, positions


def _replay(game: Game, moves: list[int]) -> Any:
    state = game.initial_state()
    for a in moves:
        state = game.play(state, a)
    return state


def _check_position(game: Game, state: Any, moves: list[int]) -> None:
    spec = game.spec
    bits = game.legal_bits(state)
    over = game.is_terminal(state)
    if over != (bits == 0):
        raise _fail("a game is over exactly when no action is legal", moves,
                    f"is_terminal {over}, legal_bits {bits:#x}")
    if game.legal_actions(state) != [a for a in range(game.num_actions) if bits >> a & 1]:
        raise _fail("legal_actions must be the actions of legal_bits", moves, str(game.legal_actions(state)))
    if not np.array_equal(game.legal_mask(state), [bits >> a & 1 for a in range(game.num_actions)]):
        raise _fail("legal_mask must be legal_bits as a vector", moves, "")
    board = game.to_board(state)
    if board.shape != tuple(spec.board_shape) or not set(np.unique(board)) <= {0, 1, 2}:
        raise _fail("to_board must be an array of the spec's board_shape holding 0, 1 and 2", moves,
                    f"shape {board.shape}, values {sorted(set(np.unique(board).tolist()))}")
    try:
        game.check_state(state)
    except (TypeError, ValueError) as e:
        raise _fail("check_state refuses a position of legal play", moves, str(e)) from None
    if over:
        return
    if game.current_player(state) not in (1, 2):
        raise _fail("current_player must be 1 or 2", moves, repr(game.current_player(state)))
    for a in range(game.num_actions):
        reason = game.illegal_reason(state, a)
        if (reason is None) != bool(bits >> a & 1):
            raise _fail("legal_bits and illegal_reason must agree", moves,
                        f"action {a}: legal_bits says {'legal' if bits >> a & 1 else 'illegal'}, "
                        f"illegal_reason says {reason!r}")
        if reason is not None:
            before = repr(state)
            try:
                game.play(state, a)
            except ValueError:
                pass
            else:
                raise _fail("play must refuse an illegal action", moves, f"action {a} ({reason}) was played")
            if repr(state) != before:
                raise _fail("play must leave its input untouched", moves, f"after refusing action {a}")
    a = game.legal_actions(state)[0]
    before = repr(state)
    game.play(state, a)
    if repr(state) != before:
        raise _fail("play must leave its input untouched", moves, f"after playing {a}")


def _check_end(game: Game, state: Any, moves: list[int]) -> None:
    winner = game.winner(state)
    if winner not in (0, 1, 2):
        raise _fail("a finished game's winner is 0, 1 or 2", moves, repr(winner))
    expected = {0: (0.0, 0.0), 1: (1.0, -1.0), 2: (-1.0, 1.0)}[winner]
    returns = tuple(float(r) for r in game.returns(state))
    if (np.sign(returns[0]), np.sign(returns[1])) != expected:
        raise _fail("returns must say who won", moves, f"winner {winner}, returns {returns}")
    reason = game.end_reason(state)
    if reason not in game.END_REASONS:
        raise _fail("end_reason must be one of END_REASONS", moves, f"{reason!r} not in {game.END_REASONS}")
    for a in range(game.num_actions):
        try:
            game.play(state, a)
        except (ValueError, GameOverError):
            continue
        raise _fail("play must refuse every action once the game is over", moves, f"action {a} was played")


def _check_symmetries(game: Game, lines: list[list[int]]) -> int:
    from tictacgo.games.symmetry import move_boards

    maps = np.asarray(game.symmetries())
    if maps.ndim != 2 or maps.shape[1] != game.num_actions or not np.array_equal(maps[0],
                                                                                  np.arange(game.num_actions)):
        raise GameCheckError(f"symmetries() must be int maps of shape (S, {game.num_actions}), the identity "
                             f"first; got shape {maps.shape}")
    for s, m in enumerate(maps[1:], start=1):
        if sorted(m.tolist()) != list(range(game.num_actions)):
            raise GameCheckError(f"symmetry {s} is not a permutation of the actions")
        for moves in lines:
            state, moved = game.initial_state(), game.initial_state()
            for k, a in enumerate(moves):
                image = int(m[a])
                if game.illegal_reason(moved, image) is not None:
                    raise _fail(f"symmetry {s} must map legal moves to legal moves", moves[:k],
                                f"{a} is legal, its image {image} is not")
                state, moved = game.play(state, a), game.play(moved, image)
                if not np.array_equal(move_boards(game.to_board(state), m), game.to_board(moved)):
                    raise _fail(f"symmetry {s} must move the board with the moves", moves[:k + 1], "")
                if game.is_terminal(state) != game.is_terminal(moved):
                    raise _fail(f"symmetry {s} must keep the end of the game", moves[:k + 1],
                                f"the game {'ends' if game.is_terminal(state) else 'goes on'} but its image "
                                f"{'ends' if game.is_terminal(moved) else 'goes on'}")
            if game.winner(state) != game.winner(moved):
                raise _fail(f"symmetry {s} must keep the result", moves, "")
    return len(maps)


def _check_envs(game: Game, seed: int) -> None:
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test, seed_test

    from tictacgo.envs import game_envs

    try:
        game_envs.env_id(game)
        aec = game_envs.aec_env(game)
    except (KeyError, ValueError) as e:
        raise GameCheckError(f"the envs are made from the registry: register the game first "
                             f"(tictacgo.games.register_game) or pass envs=False ({e})") from None
    rng = np.random.default_rng(seed)
    opponent = _RandomAgent(game, np.random.default_rng(seed))  # the env seeds it on each reset(seed)

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")  # api_test's advisory warnings about dict observations
        try:
            api_test(aec, num_cycles=100)
            seed_test(lambda: game_envs.aec_env(game), num_cycles=50)
        except AssertionError as e:
            raise GameCheckError(f"PettingZoo's api_test or seed_test: {e}") from None
        env = game_envs.single_agent_env(game, opponent=opponent)
        try:
            check_env(env, skip_render_check=True)
        except AssertionError as e:
            raise GameCheckError(f"Gymnasium's check_env: {e}") from None
    engine = game.batched(8)
    states = [game.initial_state()] * 8
    for step in range(4 * game.num_actions):
        mask = engine.legal_mask()
        live = mask.any(axis=1)
        if not live.any():
            break
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        engine.play(actions)
        states = [game.play(s, int(a)) if ok else s for s, a, ok in zip(states, actions, live, strict=True)]
        for i in range(8):
            if repr(engine.state(i)) != repr(states[i]) or \
                    not np.array_equal(engine.boards()[i], game.to_board(states[i])):
                raise GameCheckError(f"the batched engine (game.batched) and the rules differ in game {i} "
                                     f"after {step + 1} steps")
