"""Self-play: B games played at once by the batched search, turned into training positions.

``SelfPlay.step()`` searches every game's current position in one batched
search, records the position (planes from the mover's view, the search's
policy target, the mover), plays the chosen actions on the batched engine
and, for the games that ended, returns their positions with the value target
(the result from each position's mover's view) and, for the ownership head,
the final board from the mover's view. Finished games restart at once, so
the batch stays full.

Exploration: Gumbel search samples through its Gumbel noise; PUCT search
samples in proportion to visits for the first ``temperature_moves`` actions
of a game, then plays the most visited. With ``random_opening`` each game
opens with 0..N uniformly random placements (drawn per game): the search
still gives those positions their policy targets, but their value target is
dropped (weight 0), since their result follows random play.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tictacgo.baselines.search import SEARCHES as _SEARCH_FUNCTIONS
from tictacgo.baselines.search import Evaluator, SearchOutput, gumbel_search, puct_search
from tictacgo.games.base import Game
from tictacgo.games.batched_engines import make_batched_engine

SEARCHES = tuple(_SEARCH_FUNCTIONS)


@dataclass
class SearchConfig:
    """How moves are searched (self-play and agents)."""

    search: str = "gumbel"
    """"gumbel" (Gumbel MuZero's root and improved-policy targets) or "puct" (AlphaZero's)."""
    simulations: int = 32
    """Simulations per move."""
    max_considered: int = 16
    """Gumbel: actions sampled at the root."""
    gumbel_scale: float = 1.0
    """Gumbel: noise scale (0 plays the best move)."""
    dirichlet_fraction: float = 0.25
    """PUCT: the noise's share of the root prior."""
    dirichlet_alpha: float = 0.3
    """PUCT: the noise's concentration."""
    c_init: float = 1.25
    """PUCT: exploration constant."""

    def __post_init__(self):
        if self.search not in SEARCHES:
            raise ValueError(f"search must be one of {SEARCHES}, got {self.search!r}")
        sims = self.simulations
        if isinstance(sims, bool) or not isinstance(sims, int) or sims < 0:
            raise ValueError(f"simulations must be an int >= 0, got {self.simulations!r}")

    def run(self, roots, evaluate: Evaluator, rng: np.random.Generator, temperature: float = 1.0,
            deadline: float | None = None, **reuse) -> SearchOutput:
        """Search ``roots`` (a batched engine of live games) with these settings; ``reuse``: PUCT's
        ``reuse`` and ``keep_tree`` (``puct_search``: the trees kept between moves)."""
        if reuse and self.search != "puct":
            raise ValueError(f"only the PUCT search keeps its tree between moves, not {self.search!r}")
        if self.search == "gumbel":
            return gumbel_search(roots, evaluate, self.simulations, rng, max_considered=self.max_considered,
                                 gumbel_scale=self.gumbel_scale, deadline=deadline)
        return puct_search(roots, evaluate, self.simulations, rng, dirichlet_fraction=self.dirichlet_fraction,
                           dirichlet_alpha=self.dirichlet_alpha, c_init=self.c_init, temperature=temperature,
                           deadline=deadline, **reuse)


@dataclass
class Positions:
    """Training positions of finished games (arrays with one entry per position)."""

    planes: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    value_weight: np.ndarray
    ownership: np.ndarray
    mover: np.ndarray

    def __len__(self) -> int:
        return len(self.value)


@dataclass
class _Trajectory:
    planes: list = field(default_factory=list)
    policy: list = field(default_factory=list)
    mover: list = field(default_factory=list)
    random_phase: list = field(default_factory=list)


class SelfPlay:
    """B games of self-play on the batched engine (see the module docstring).

    Args:
        game: the game (and variant) played.
        evaluate: the search's leaf evaluator (the network's).
        num_games: games played at once (B).
        search: the search settings.
        rng: the only source of randomness.
        temperature_moves: PUCT: actions per game sampled from the visits (then the most visited).
        random_opening: open each game with 0..N random placements.
    """

    def __init__(self, game: Game, evaluate: Evaluator, num_games: int, search: SearchConfig,
                 rng: np.random.Generator, temperature_moves: int = 8, random_opening: int = 0):
        self.game = game
        self.evaluate = evaluate
        self.search = search
        self.rng = rng
        self.temperature_moves = temperature_moves
        self.random_opening = random_opening
        self.engine = make_batched_engine(game, num_games)
        self.encoder = game.encoder
        self.B = num_games
        self.N = self.engine.board_shape[0] * self.engine.board_shape[1]
        self.pass_action = self.engine.pass_action
        self.trajectories = [_Trajectory() for _ in range(num_games)]
        self.moves = np.zeros(num_games, np.int64)
        self.opening = self._draw_openings(num_games)
        self.games_finished = 0
        self.first_player_wins = 0
        self.draws = 0
        self.moves_finished = 0

    def _draw_openings(self, k: int) -> np.ndarray:
        if not self.random_opening:
            return np.zeros(k, np.int64)
        return self.rng.integers(self.random_opening + 1, size=k)

    def _random_actions(self, legal: np.ndarray) -> np.ndarray:
        """A uniformly random legal placement per game (PASS only where no placement is legal)."""
        place = legal.copy()
        if self.pass_action is not None:
            place[:, self.pass_action] = False
        place = np.where(place.any(-1, keepdims=True), place, legal)
        u = self.rng.random(place.shape) * place
        return u.argmax(-1)

    def step(self) -> Positions | None:
        """One move in every game; the positions of the games that ended (None if none did)."""
        eng = self.engine
        games = np.arange(self.B)
        out = self.search.run(eng, self.evaluate, self.rng, temperature=1.0)
        # Explored moves early in each game (PUCT samples its visits), the search's greedy move later.
        out.action = np.where(self.moves < self.temperature_moves, out.action, out.greedy)
        planes = self.encoder.from_engine(eng, games, out.legal)
        random_phase = self.moves < self.opening
        actions = np.where(random_phase, self._random_actions(out.legal), out.action)
        mover = eng.to_move.copy()
        for b in games:
            tr = self.trajectories[b]
            tr.planes.append(planes[b])
            tr.policy.append(out.policy[b].astype(np.float32))
            tr.mover.append(mover[b])
            tr.random_phase.append(random_phase[b])
        eng.play(actions)
        self.moves += 1
        ended = np.nonzero(eng.done)[0]
        if not ended.size:
            return None
        result = self._finish(ended)
        eng.reset(eng.done.copy())
        self.moves[ended] = 0
        self.opening[ended] = self._draw_openings(len(ended))
        return result

    def _finish(self, ended: np.ndarray) -> Positions:
        eng = self.engine
        returns = eng.returns()
        boards = eng.boards().reshape(self.B, -1)
        parts = {k: [] for k in ("planes", "policy", "value", "value_weight", "ownership", "mover")}
        for b in ended:
            tr = self.trajectories[b]
            movers = np.array(tr.mover)
            value = returns[b, movers - 1]
            # The value target is kept only after the last random move: earlier results follow random play.
            last_random = max((i for i, r in enumerate(tr.random_phase) if r), default=-1)
            weight = (np.arange(len(movers)) > last_random).astype(np.float32)
            own = np.where(boards[b] == 0, 0.0, np.where(boards[b][None, :] == movers[:, None], 1.0, -1.0))
            parts["planes"].append(np.stack(tr.planes))
            parts["policy"].append(np.stack(tr.policy))
            parts["value"].append(value.astype(np.float32))
            parts["value_weight"].append(weight)
            parts["ownership"].append(own.astype(np.float32))
            parts["mover"].append(movers)
            self.games_finished += 1
            self.moves_finished += len(movers)
            self.first_player_wins += int(eng.winner[b] == 1)
            self.draws += int(eng.winner[b] == 0)
            self.trajectories[b] = _Trajectory()
        return Positions(**{k: np.concatenate(v) for k, v in parts.items()})
