"""The one game loop of the package: ``play_game`` and its ``GameRecord``.

``play_game(game, first, second)`` plays one game between two agents and
returns a ``GameRecord``: the actions played, the winning colour, why the
game ended (the rules core's ``end_reason``) and the seconds each agent spent
on each of its moves. An agent that returns an illegal action (occupied
point, suicide, ko, not an int, out of range) loses the game on the spot, as
on the course host: the state becomes ``game.forfeit(state)`` and the
record's reason is ``"illegal"`` with the offending action kept.
``play_wdl(game, agent, opponent, games, colour)`` plays a run of such games
with the same two agent objects and counts the agent's W/D/L.

The demo, the evaluation scripts, the matches of the arena, the course
protocol's host, training's evaluations and the tests all play through this
loop (OpenSpiel's ``evaluate_bots`` habit: one loop, kept apart from the bots
it plays). It takes agents, not their names: it sits below
``tictacgo.baselines``, which builds agents from specs (``make_agent``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tictacgo.agent import as_agent
from tictacgo.games import make_game
from tictacgo.games.base import Game
from tictacgo.games.errors import IllegalActionError


@dataclass
class GameRecord:
    """One finished game, agent-agnostic (colour 1 moved first, colour 2 second).

    Attributes:
        moves: the actions played, in order (an illegal attempt is not among them).
        winner: 1 or 2 for the winning colour, 0 for a draw.
        reason: why the game ended (``state.end`` of the rules core, e.g. ``"win"``,
            ``"draw"``, ``"max_actions"``, ``"double_pass"``, ``"illegal"``).
        times: seconds spent on each move, ``(first player's, second player's)``.
        illegal_by: the colour that forfeited by an illegal action, 0 if none.
        illegal_action: what that agent returned (an int, or the repr of anything else).
        illegal_detail: the rules core's explanation of why it was illegal (or
            the ``Forfeit``'s detail).
        forfeit: why the game was lost by forfeit: the rules' reason
            (``occupied``, ``suicide``, ``ko``), ``malformed`` for an action
            that is not an int in range, or a ``Forfeit``'s reason (e.g. the
            course host's ``timeout``); ``""`` if none.
        final_state: the rules state the game ended in (not written to JSON).
    """

    moves: list[int]
    winner: int
    reason: str
    times: tuple[list[float], list[float]]
    illegal_by: int = 0
    illegal_action: int | str | None = None
    illegal_detail: str = ""
    forfeit: str = ""
    final_state: Any = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        out: dict[str, Any] = {
            "moves": list(self.moves),
            "winner": self.winner,
            "reason": self.reason,
            "times_first": [round(t, 7) for t in self.times[0]],
            "times_second": [round(t, 7) for t in self.times[1]],
        }
        if self.illegal_by:
            out["illegal"] = {"by": self.illegal_by, "action": self.illegal_action,
                              "detail": self.illegal_detail}
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        """The record that ``to_json`` wrote."""
        illegal = data.get("illegal") or {}
        return cls(list(data["moves"]), int(data["winner"]), str(data["reason"]),
                   (list(data["times_first"]), list(data["times_second"])),
                   int(illegal.get("by", 0)), illegal.get("action"), str(illegal.get("detail", "")))


class Forfeit(Exception):  # noqa: N818 -- it is what happens, not an error of the loop
    """Raised by an agent's ``act`` to lose the game on the spot (a player program that
    timed out, crashed or wrote no move): ``play_game`` records it, it does not propagate.

    Args:
        reason: a short word for the record (``timeout``, ``crash``, ``no_output``, ...).
        detail: a sentence for people.
        action: what the agent tried to play, if anything (kept in the record).
    """

    def __init__(self, reason: str, detail: str = "", action: Any = None):
        super().__init__(detail or reason)
        self.reason = reason
        self.detail = detail or reason
        self.action = action


def play_game(game: str | Game, agent_first, agent_second,
              rng: np.random.Generator | None = None, state=None,
              on_move: Callable[[Any, int, int, float], None] | None = None,
              reset: bool = True) -> GameRecord:
    """Play one game to the end and record it.

    Both agents are ``reset()`` first. An action the rules refuse (or one that
    is not an int in range) forfeits the game for the agent that chose it, and
    so does a ``Forfeit`` raised by its ``act``. Other exceptions raised inside
    an agent's ``act`` are bugs and propagate.

    Args:
        game: a game object, or a game name (its default variant).
        agent_first: the agent that moves first (colour 1): an ``Agent`` or a
            callable ``f(state) -> action`` (``tictacgo.baselines.make_agent``
            builds one from a spec).
        agent_second: the agent that moves second (colour 2).
        rng: if given, each agent is re-seeded with its own generator derived
            from it (first, then second), making the game reproducible.
        state: the position to start from (default: the game's initial state).
        on_move: called after every legal move as ``on_move(state_after, action,
            colour, seconds)`` (for logs and live displays).
        reset: call the agents' ``reset()`` first (False keeps what they
            carried over from the previous game).

    Returns:
        The ``GameRecord``.
    """
    module = make_game(game) if isinstance(game, str) else game
    agents = (as_agent(agent_first, module), as_agent(agent_second, module))
    if rng is not None:
        for agent, s in zip(agents, rng.integers(0, 2**63 - 1, size=2), strict=True):
            agent.seed(np.random.default_rng(int(s)))
    if reset:
        for agent in agents:
            agent.reset()
    if state is None:
        state = module.initial_state()
    moves: list[int] = []
    times: tuple[list[float], list[float]] = ([], [])
    while not module.is_terminal(state):
        colour = module.current_player(state)
        t0 = time.perf_counter()
        try:
            action = agents[colour - 1].act(state)
        except Forfeit as f:
            times[colour - 1].append(time.perf_counter() - t0)
            state = module.forfeit(state)
            return GameRecord(moves, int(module.winner(state)), str(module.end_reason(state)), times,
                              illegal_by=colour, illegal_action=f.action, illegal_detail=f.detail,
                              forfeit=f.reason, final_state=state)
        seconds = time.perf_counter() - t0
        times[colour - 1].append(seconds)
        try:
            state = module.play(state, action)
        except (IllegalActionError, TypeError, ValueError) as e:
            state = module.forfeit(state)
            kept = int(action) if isinstance(action, (int, np.integer)) and not isinstance(action, bool) \
                else repr(action)
            why = e.reason if isinstance(e, IllegalActionError) else "malformed"
            return GameRecord(moves, int(module.winner(state)), str(module.end_reason(state)), times,
                              illegal_by=colour, illegal_action=kept, illegal_detail=str(e),
                              forfeit=why, final_state=state)
        moves.append(int(action))
        if on_move is not None:
            on_move(state, int(action), colour, seconds)
    return GameRecord(moves, int(module.winner(state)), str(module.end_reason(state)), times,
                      final_state=state)


def play_wdl(game: str | Game, agent, opponent, games: int, colour: int = 1,
             on_game: Callable[[], object] | None = None) -> tuple[int, int, int]:
    """Play ``games`` games in a row, ``agent`` always as ``colour``; its wins, draws and losses.

    Each game goes through ``play_game`` without an ``rng``: the agents are
    reset but keep their own generators, so one seeded pair of agents gives
    one reproducible sequence of games. A forfeit counts as a loss for the
    agent that made it.

    Args:
        game: a game object, or a game name (its default variant).
        agent: the agent whose result is counted (an ``Agent`` or a callable
            ``f(state) -> action``).
        opponent: the other agent.
        games: how many games.
        colour: ``agent``'s colour, 1 (moves first) or 2.
        on_game: called after each game (a progress bar's ``update``), if given.

    Returns:
        ``(wins, draws, losses)`` from ``agent``'s view.
    """
    if colour not in (1, 2):
        raise ValueError(f"colour must be 1 (first) or 2 (second), got {colour!r}")
    module = make_game(game) if isinstance(game, str) else game
    # Callables become agents once, not once a game.
    agent, opponent = as_agent(agent, module), as_agent(opponent, module)
    pair = (agent, opponent) if colour == 1 else (opponent, agent)
    wins = draws = losses = 0
    for _ in range(games):
        winner = play_game(module, *pair).winner
        if winner == 0:
            draws += 1
        elif winner == colour:
            wins += 1
        else:
            losses += 1
        if on_game is not None:
            on_game()
    return wins, draws, losses
