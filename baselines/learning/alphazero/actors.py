"""Self-play on Ray actors: N processes (here or on a cluster's nodes) play, one learner trains.

With ``--actors N`` the training loop (``train``) takes its positions from an
``ActorPool`` instead of an in-process ``SelfPlay``. Each actor is a Ray
actor process holding its own copy of the network and a ``SelfPlay`` of
``num_games`` games; one call ``play(weights, version, moves)`` loads the
weights it is sent (if any), plays ``moves`` moves in each of its games and
returns the positions of the games that ended, as plain numpy arrays, with
its counters and the version of the weights it played with.

The learner keeps one call in flight per actor. When one returns, that actor
is sent its next call at once, with the newest weights (``ray.put`` once per
version, as a dict of numpy arrays: the network's ``state_dict``, no code),
and only then does the learner add the positions to the replay buffer and
take the gradient steps they are owed. So an actor plays with weights at most
one call old, and the learner never falls more than one call per actor
behind the ratio of gradient steps to positions.

Ray is imported only when a pool starts. Without ``RAY_ADDRESS`` the pool
starts a Ray instance on this machine for the run (shut down after it); with
``RAY_ADDRESS`` set (``ray start --head`` prints it; ``ray job submit`` sets
it) the actors go to that cluster, whose nodes need tictacgo installed.
Each actor's games are seeded from the run's seed, the actor's index and the
positions played before the pool started (so a resumed run plays new games).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
import torch

from tictacgo.baselines.learning.alphazero.network import Architecture, NetworkEvaluator, PolicyValueNet
from tictacgo.baselines.learning.alphazero.precision import resolve_precision
from tictacgo.baselines.learning.alphazero.selfplay import Positions, SearchConfig, SelfPlay
from tictacgo.baselines.learning.training_config import TrainingFailed
from tictacgo.games import make_game

INSTALL_HINT = "pip install 'tictacgo[ray]'"
STARTUP_SECONDS = 300.0
"""How long the pool waits for its actors to start (a cluster may have to find the CPUs)."""


def import_ray():
    """Ray, or an ImportError that names the extra that installs it."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(f"self-play actors need ray, which is not installed: {INSTALL_HINT}") from e
    return ray


def weights_to_arrays(net: torch.nn.Module) -> dict[str, np.ndarray]:
    """The network's ``state_dict`` as numpy arrays (copies, on the CPU): what travels to the actors."""
    return {name: t.detach().cpu().numpy().copy() for name, t in net.state_dict().items()}


def load_arrays(net: torch.nn.Module, arrays: dict[str, np.ndarray]) -> None:
    """Copy arrays made by ``weights_to_arrays`` into ``net`` (every name and shape must match)."""
    net.load_state_dict({name: torch.tensor(np.asarray(a)) for name, a in arrays.items()})


@dataclass(frozen=True)
class ActorSettings:
    """What an actor needs to build its self-play: plain data, the same for every actor of a run."""

    game: str
    board_size: int | None
    architecture: dict
    search: dict
    num_games: int
    temperature_moves: int
    random_opening: int
    precision: str
    threads: int

    @classmethod
    def of_run(cls, cfg, arch: Architecture) -> ActorSettings:
        """The settings of an ``AlphaZeroConfig`` run whose network has the architecture ``arch``."""
        return cls(cfg.game, cfg.board_size, asdict(arch), asdict(cfg.search_config()), cfg.num_games,
                   cfg.temperature_moves, cfg.random_opening, cfg.inference_precision, cfg.threads)


class SelfPlayWorker:
    """One actor's body: its network, its games and its generator (Ray wraps it; tests call it here).

    Args:
        settings: the run's actor settings.
        seed: the entropy of this actor's generator (``numpy.random.SeedSequence`` entropy and spawn key).
    """

    def __init__(self, settings: ActorSettings, seed: tuple[int, tuple[int, ...]]):
        torch.set_num_threads(settings.threads)
        variant = make_game(settings.game, size=settings.board_size)
        self.net = PolicyValueNet(Architecture(**settings.architecture))
        self.precision = resolve_precision(settings.precision, "cpu").used  # "auto": by this actor's CPU
        self.evaluator = NetworkEvaluator(self.net, variant, device="cpu", precision=self.precision)
        rng = np.random.default_rng(np.random.SeedSequence(seed[0], spawn_key=seed[1]))
        self.selfplay = SelfPlay(variant, self.evaluator, settings.num_games, SearchConfig(**settings.search),
                                 rng, temperature_moves=settings.temperature_moves,
                                 random_opening=settings.random_opening)
        self.version = -1

    def ready(self) -> bool:
        """True once built (the pool waits on it before the run's clock starts)."""
        return True

    def play(self, weights: dict[str, np.ndarray] | None, version: int, moves: int) -> dict:
        """Load ``weights`` (None: keep the ones held), then play ``moves`` moves in every game.

        Returns:
            ``{"positions": arrays of the games that ended (None if none did), "games": games ended,
            "moves": moves played in each game, "evaluations": network evaluations, "version": the
            weights' version played with, "seconds": wall time spent, "cpu_seconds": this process's CPU
            time spent}``.

        Raises:
            ValueError: no weights were ever sent.
        """
        t0, c0 = time.perf_counter(), time.process_time()
        if weights is not None:
            load_arrays(self.net, weights)
            self.version = version
        if self.version < 0:
            raise ValueError("a self-play actor was asked to play before it was sent weights")
        games_before, evaluations_before = self.selfplay.games_finished, self.evaluator.positions
        finished = [p for p in (self.selfplay.step() for _ in range(moves)) if p is not None]
        positions = None
        if finished:
            positions = {name: np.concatenate([getattr(p, name) for p in finished])
                         for name in ("planes", "policy", "value", "value_weight", "ownership", "mover")}
        return {"positions": positions, "games": self.selfplay.games_finished - games_before, "moves": moves,
                "evaluations": self.evaluator.positions - evaluations_before, "version": self.version,
                "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0}


class ActorPool:
    """The learner's side: N actors, one ``play`` call in flight each (see the module docstring).

    ``step()`` returns the positions of one finished call, as ``SelfPlay.step()``
    does for one move, after sending that actor its next call with the newest weights.

    Args:
        ray: the ray module, initialized.
        settings: the actors' settings.
        count: how many actors.
        seed: the run's seed.
        resumed_at: positions played before this pool (a part of each actor's seed).
        net: the learner's network (its weights are sent).
        version: the current weights' version (the learner's gradient steps).
        moves: moves per call, in each of an actor's games.
        owns_ray: ``close()`` also shuts Ray down (it was started for this pool).
    """

    def __init__(self, ray, settings: ActorSettings, count: int, seed: int, resumed_at: int,
                 net: torch.nn.Module, version: Callable[[], int], moves: int, owns_ray: bool = False):
        self.ray = ray
        self.owns_ray = owns_ray
        self.net = net
        self.version = version
        self.moves = moves
        self.positions_per_step = moves * settings.num_games
        self.games_finished = 0
        self.evaluations = 0
        self.cpu_seconds = 0.0  # the actors' CPU time in the calls returned
        self.calls = 0
        self.weights_sent = 0
        self.newest_played = -1
        self.played = [-1] * count  # the version each actor played its last returned call with
        self.largest_lag = 0
        self._sent_version: int | None = None
        self._weights_ref = None
        self._held = [-1] * count  # the version each actor holds (or will hold once its call starts)
        remote = ray.remote(num_cpus=1)(SelfPlayWorker)
        self.actors = [remote.remote(settings, (seed, (resumed_at, i))) for i in range(count)]
        self.pending: dict = {}

    def wait_ready(self, timeout: float = STARTUP_SECONDS) -> None:
        """Wait until every actor is built, then send each its first call.

        Raises:
            TrainingFailed: an actor failed to start, or they did not all start within ``timeout`` s.
        """
        try:
            self.ray.get([a.ready.remote() for a in self.actors], timeout=timeout)
        except self.ray.exceptions.GetTimeoutError:
            cpus = self.ray.cluster_resources().get("CPU", 0)
            raise TrainingFailed(f"{len(self.actors)} self-play actors did not start within {timeout:.0f} s "
                                 f"(each takes a CPU; Ray has {cpus:g})") from None
        except self.ray.exceptions.RayError as e:
            raise TrainingFailed(f"a self-play actor failed to start: {_last_line(e)}") from None
        for i in range(len(self.actors)):
            self._submit(i)

    def _submit(self, i: int) -> None:
        version = self.version()
        if version != self._sent_version:
            self._weights_ref = self.ray.put(weights_to_arrays(self.net))
            self._sent_version = version
        weights = None if self._held[i] == version else self._weights_ref
        if weights is not None:
            self.weights_sent += 1
        self._held[i] = version
        self.pending[self.actors[i].play.remote(weights, version, self.moves)] = i

    def step(self) -> Positions | None:
        """The positions of the next call to finish (None if no game ended in it).

        Raises:
            TrainingFailed: an actor failed (the message ends with its error's last line).
        """
        (ref,), _ = self.ray.wait(list(self.pending), num_returns=1)
        i = self.pending.pop(ref)
        try:
            result = self.ray.get(ref)
        except self.ray.exceptions.RayError as e:
            raise TrainingFailed(f"self-play actor {i} failed: {_last_line(e)}") from None
        self._submit(i)
        self.calls += 1
        self.games_finished += result["games"]
        self.evaluations += result["evaluations"]
        self.cpu_seconds += result["cpu_seconds"]
        self.played[i] = result["version"]
        self.newest_played = max(self.newest_played, result["version"])
        self.largest_lag = max(self.largest_lag, self.version() - result["version"])
        return None if result["positions"] is None else Positions(**result["positions"])

    def summary(self) -> dict:
        """The pool's counters, for the run's record."""
        return {"actors": len(self.actors), "calls": self.calls, "weights_sent": self.weights_sent,
                "newest_weights_played": self.newest_played, "largest_weights_lag": self.largest_lag}

    def close(self) -> None:
        """Stop the actors (the calls in flight are dropped), and Ray if it was started for this pool."""
        self.pending.clear()
        for actor in self.actors:
            self.ray.kill(actor)
        if self.owns_ray:
            self.ray.shutdown()


def _last_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[-1] if text else type(error).__name__


def ray_address() -> str:
    """Where the actors go: ``RAY_ADDRESS`` when set (a cluster), else ``"local"`` (a Ray for this run)."""
    return os.environ.get("RAY_ADDRESS") or "local"


def start_actors(cfg, net: PolicyValueNet, version: Callable[[], int], resumed_at: int,
                 log=print) -> ActorPool:
    """Start Ray (unless it is initialized already) at ``ray_address()`` and ``cfg.actors`` ready actors.

    Args:
        cfg: the run's ``AlphaZeroConfig`` (``actors``, ``actor_moves``, ``seed`` and the self-play settings).
        net: the learner's network.
        version: the current weights' version.
        resumed_at: positions played before this session.
        log: called with a line of text when Ray has fewer CPUs than actors.

    Returns:
        The pool, its first calls sent; ``close()`` stops the actors and a Ray started here.

    Raises:
        ImportError: ray is not installed (the message names the extra).
        TrainingFailed: Ray could not be reached, or the actors did not start.
    """
    ray = import_ray()
    started_here = False
    pool = None
    try:
        if not ray.is_initialized():
            address = ray_address()
            kw = {"num_cpus": max(os.cpu_count() or 1, cfg.actors)} if address == "local" else {}
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False,
                         logging_level="WARNING", **kw)
            except ConnectionError as e:
                raise TrainingFailed(f"--actors could not reach Ray at {address!r}: {e}") from None
            started_here = True
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < cfg.actors:
            log(f"Ray has {cpus:g} CPUs for {cfg.actors} actors: some wait for a CPU")
        pool = ActorPool(ray, ActorSettings.of_run(cfg, net.arch), cfg.actors, cfg.seed, resumed_at, net,
                         version, cfg.actor_moves, owns_ray=started_here)
        pool.wait_ready()
    except BaseException:
        if pool is not None:
            pool.close()
        elif started_here:
            ray.shutdown()
        raise
    return pool
