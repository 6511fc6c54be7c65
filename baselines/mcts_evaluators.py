"""Evaluators: where MCTS gets the value of a leaf and the prior of its children.

The search (``tictacgo.baselines.mcts``) knows nothing about how a position
is judged; it asks an evaluator, as OpenSpiel's ``mcts.Evaluator`` does:

* ``evaluate(state, rnd) -> (first player's value, second player's value)``
  for a position that is not over, each in [-1, 1] (a rollout's result, or a
  network's value estimate);
* ``prior(state) -> {action: probability}`` when ``uses_prior`` is True:
  unless given another selection rule, the search then expands all children
  at once with these priors and selects by PUCT
  (``Q + c * P * sqrt(N) / (1 + n)``); with ``uses_prior`` False its default
  is plain UCT, expanding one untried child at a time.

The evaluators here:

* ``RandomRollout``: play uniformly random legal placements to the end
  (PASS only when forced, or with ``pass_prob``), as the game's seeded
  ``random_playout`` (``tictacgo.games.playouts``: one numba call, or its
  pure-Python twin without numba; the same moves either way).
* ``CaptureRollout``: the same, but with probability ``capture_prob`` the
  mover takes a capture (Go: an opponent group in atari) or a win
  (Tic-Tac-Toe) when one exists; on the game's ``fast_rollout`` where there
  is one (Little-Go). With ``capture_prob=0`` it is ``RandomRollout``.
* ``PolicyRollout``: rollout moves drawn from a policy ``f(state, rnd) ->
  action`` (policy MCTS plugs a learned policy in here).
* ``ValueAndPrior``: a value function ``f(state) -> v`` (from the view of the
  player to move) and an optional prior function: AlphaZero-style search
  with a policy-value network, or a value function with a policy prior.

``AgentPolicy`` turns any agent that gives move probabilities (a method
``probabilities(state) -> {action: p}``, as ``PolicyAgent`` and the random
player have) into both: ``AgentPolicy(agent)(state, rnd)`` draws a move for
``PolicyRollout`` and ``.probabilities(state)`` is a prior (the
policy-guided searches of ``tictacgo.baselines.policy_mcts`` use it).

A new kind of guidance is a new evaluator (or a new selection rule, for how
the tree is walked), never a change to the search.
All evaluators draw randomness only from the ``random.Random`` the search
passes in, so a seeded search is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from tictacgo.games import Game
from tictacgo.games.playouts import playout_backend
from tictacgo.validate import check_int, check_probability

_WIN_VALUES = {0: (0.0, 0.0), 1: (1.0, -1.0), 2: (-1.0, 1.0)}


class Evaluator:
    """Base class: the value of a live leaf, and optionally the prior of its children."""

    #: True: by default the search selects by PUCT over ``prior(state)`` (see ``mcts.PUCT``).
    uses_prior = False

    def evaluate(self, state, rnd: random.Random) -> tuple[float, float]:
        """(first player's value, second player's value) of ``state``, which is not over."""
        raise NotImplementedError

    def prior(self, state) -> dict[int, float]:
        """Prior probabilities of the legal actions of ``state`` (need not sum to 1)."""
        raise NotImplementedError


class CaptureRollout(Evaluator):
    """Rollouts that take a capture (Go) or a win (Tic-Tac-Toe) with probability ``capture_prob``.

    With ``capture_prob=0`` (uniform random rollouts) a rollout is the game's
    ``random_playout``, seeded by 63 bits drawn from the search's stream: one
    compiled call with numba, its pure-Python twin without (the same moves
    either way, see ``tictacgo.games.playouts``).

    Args:
        game: the game object.
        capture_prob: chance per rollout move of looking for a capture first.
        pass_prob: chance per rollout move of a voluntary PASS (games with a pass).
        fast: run on the game's fast playout engines when it has them
            (``random_playout``, ``fast_rollout``); False plays through the
            rules core's ``play``.
        backend: where ``random_playout`` runs: "auto" (numba when it
            imports), "numba", "numpy" (the Python twin), or None for the
            environment variable ``TICTACGO_BATCHED_BACKEND``.
    """

    def __init__(self, game: Game, capture_prob: float = 1.0, pass_prob: float = 0.0,
                 fast: bool = True, backend: str | None = None):
        self.game = game
        self.capture_prob = check_probability("capture_prob", capture_prob)
        self.pass_prob = check_probability("pass_prob", pass_prob)
        if self.pass_prob and game.pass_action is None:
            raise ValueError(f"{game.spec.title} has no pass: pass_prob must be 0, got {pass_prob!r}")
        self.backend = backend
        self._fast = getattr(game, "fast_rollout", None) if fast else None
        self._playout = getattr(game, "random_playout", None) if fast else None
        # Resolved once (a bad name fails here, not in the first search), and again after unpickling.
        self._resolved = playout_backend(backend) if self._playout is not None else None

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self._playout is not None:
            self._resolved = playout_backend(self.backend)

    def evaluate(self, state, rnd: random.Random) -> tuple[float, float]:
        if self._playout is not None and not self.capture_prob:
            return _WIN_VALUES[self._playout(state, rnd.getrandbits(63), self.pass_prob, self._resolved)]
        if self._fast is not None:
            return _WIN_VALUES[self._fast(state, rnd, self.pass_prob, self.capture_prob)]
        if self.capture_prob > 0:
            end = capture_rollout(self.game, state, rnd, self.pass_prob, self.capture_prob)
        else:
            end = random_rollout(self.game, state, rnd, self.pass_prob)
        return self.game.returns(end)


class RandomRollout(CaptureRollout):
    """Uniformly random rollouts: ``CaptureRollout`` with ``capture_prob=0`` (plain UCT's)."""

    def __init__(self, game: Game, pass_prob: float = 0.0, fast: bool = True, backend: str | None = None):
        super().__init__(game, capture_prob=0.0, pass_prob=pass_prob, fast=fast, backend=backend)


class PolicyRollout(Evaluator):
    """Rollouts whose moves come from ``policy(state, rnd) -> action`` (e.g. a learned policy)."""

    def __init__(self, game: Game, policy: Callable[[object, random.Random], int]):
        if not callable(policy):
            raise TypeError(f"policy must be callable f(state, rnd) -> action, got {policy!r}")
        self.game = game
        self.policy = policy

    def evaluate(self, state, rnd: random.Random) -> tuple[float, float]:
        game, policy = self.game, self.policy
        while not game.is_terminal(state):
            state = game.play(state, policy(state, rnd))
        return game.returns(state)


class ValueAndPrior(Evaluator):
    """A value function and, optionally, a prior: AlphaZero-style or "UCT plus a policy prior".

    Args:
        game: the game object.
        value: ``f(state) -> v`` in [-1, 1] from the view of the player to
            move; None evaluates leaves with ``rollout`` instead.
        prior: ``f(state) -> {action: p}``; None keeps plain UCT expansion.
        rollout: the evaluator for leaf values when ``value`` is None
            (default: ``RandomRollout``).
    """

    def __init__(self, game: Game, value: Callable[[object], float] | None = None,
                 prior: Callable[[object], dict[int, float]] | None = None,
                 rollout: Evaluator | None = None):
        if value is None and prior is None:
            raise ValueError("give a value function, a prior function, or both")
        self.game = game
        self.value = value
        self.prior_fn = prior
        self.uses_prior = prior is not None
        self.rollout = rollout if rollout is not None else RandomRollout(game)

    def evaluate(self, state, rnd: random.Random) -> tuple[float, float]:
        if self.value is None:
            return self.rollout.evaluate(state, rnd)
        v = float(self.value(state))
        return (v, -v) if self.game.current_player(state) == 1 else (-v, v)

    def prior(self, state) -> dict[int, float]:
        return self.prior_fn(state)


def normalised(probs: dict[int, float], legal: list[int]) -> dict[int, float]:
    """``probs`` over the ``legal`` actions only, summing to 1 (uniform if they carry no mass).

    Negative, NaN or missing entries count as 0.
    """
    kept = {a: max(float(probs.get(a, 0.0)), 0.0) for a in legal}
    kept = {a: (p if p == p else 0.0) for a, p in kept.items()}  # NaN -> 0
    total = sum(kept.values())
    if not total > 0:
        return {a: 1.0 / len(legal) for a in legal} if legal else {}
    return {a: p / total for a, p in kept.items()}


class AgentPolicy:
    """An agent's move probabilities as a search policy (see the module docstring).

    ``probabilities(state)``: the agent's distribution renormalised over the
    legal actions (a prior); calling it, ``policy(state, rnd)``, draws a move
    from that distribution with ``rnd`` (a rollout policy for
    ``PolicyRollout``, reproducible for a seeded ``rnd``). Distributions are
    cached per state (the last ``cache_size`` states), since a search asks
    for the same positions again and again and a network is slow.

    Raises:
        ValueError: the agent gives no move probabilities.
    """

    def __init__(self, agent, cache_size: int = 100_000):
        if not callable(getattr(agent, "probabilities", None)):
            raise ValueError(f"{agent!r} gives no move probabilities (it has no probabilities(state) "
                             "method): use a policy agent such as 'ppo', 'a2c' or 'random'")
        check_int("cache_size", cache_size, min=0)
        self.agent = agent
        self.game = agent.game
        self.cache_size = cache_size
        self._cache: dict = {}

    def probabilities(self, state) -> dict[int, float]:
        """The agent's probabilities over the legal actions of ``state``, summing to 1."""
        cache = self._cache
        probs = cache.get(state)
        if probs is None:
            probs = normalised(self.agent.probabilities(state), self.game.legal_actions(state))
            if self.cache_size:
                if len(cache) >= self.cache_size:
                    del cache[next(iter(cache))]  # the oldest entry
                cache[state] = probs
        return probs

    def __call__(self, state, rnd: random.Random) -> int:
        """A move drawn from ``probabilities(state)`` with ``rnd``."""
        probs = self.probabilities(state)
        r = rnd.random()
        acc = 0.0
        action = None
        for action, p in probs.items():
            acc += p
            if r < acc:
                return action
        if action is None:
            raise ValueError("no legal action: the game is over")
        return action  # rounding left r at or above the total: the last action

    def __getstate__(self) -> dict:
        d = self.__dict__.copy()
        d["_cache"] = {}  # a cache, not state: copies start empty
        return d

    def __repr__(self) -> str:
        return f"AgentPolicy({self.agent!r})"


def default_evaluator(game: Game, rollout: str | None = None, capture_prob: float = 1.0,
                      pass_prob: float = 0.0) -> Evaluator:
    """The registry's tuned rollouts: the game's own kind unless ``rollout`` names one.

    Args:
        rollout: "random", "capture", or None to ask the game (``game.default_rollout``: "capture"
            where its better rollout moves pay, as Little-Go's captures do, else "random").
    """
    if rollout is None:
        rollout = game.default_rollout
    if rollout == "random":
        return RandomRollout(game, pass_prob=pass_prob)
    if rollout == "capture":
        return CaptureRollout(game, capture_prob=capture_prob, pass_prob=pass_prob)
    raise ValueError(f"rollout must be 'random' or 'capture', got {rollout!r}")


# -- rollouts on the rules core ------------------------------------------------------

def random_rollout(game: Game, state, rnd: random.Random, pass_prob: float = 0.0):
    """Play uniformly random legal placements to the end; PASS only when none (or with ``pass_prob``).

    Returns:
        The terminal state.
    """
    return capture_rollout(game, state, rnd, pass_prob=pass_prob, capture_prob=0.0)


def capture_rollout(game: Game, state, rnd: random.Random, pass_prob: float = 0.0,
                    capture_prob: float = 0.5):
    """Like ``random_rollout``, but with probability ``capture_prob`` the game's better rollout move
    (``game.rollout_move``: a capture in Go, a win at once otherwise) is played when one exists.
    Returns the terminal state."""
    legal_bits, play, is_terminal = game.legal_bits, game.play, game.is_terminal
    pa = game.pass_action
    not_pass = ~(1 << pa) if pa is not None else -1
    rand = rnd.random
    better = game.rollout_move
    while not is_terminal(state):
        bits = legal_bits(state) & not_pass
        if not bits or (pass_prob and rand() < pass_prob):
            state = play(state, pa)
            continue
        if capture_prob and rand() < capture_prob:  # no draw at 0: random_rollout's stream
            nxt = better(state, bits, rnd)
            if nxt is not None:
                state = nxt
                continue
        r = int(rand() * bits.bit_count())
        while r:
            bits &= bits - 1
            r -= 1
        state = play(state, (bits & -bits).bit_length() - 1)
    return state
