"""``AZAgent``: a trained AlphaZero network playing through the batched search, one game at a time.

Registry spec: ``az`` (the model shipped for the game), ``az:path=DIR`` (a
folder written by the AlphaZero training), with ``sims=N`` simulations per
move (``sims=0``: the raw network's best legal move; at most ``MAX_SIMS``),
``search=gumbel|puct``, ``time=SECONDS`` (stop searching after that long; the
loading of the model is not counted, and the search's arrays grow with the
simulations run, so a huge ``sims`` with ``time`` still stops on time) and
``considered=K`` (Gumbel's root sample, 1 to ``MAX_CONSIDERED``), ``reuse=true``
(with ``search=puct`` only: the next search starts from the kept subtree, ``tree_reuse``) and
``device=cpu|cuda|auto`` (where the network runs; ``cuda`` and ``auto`` need torch,
and ``auto`` is CUDA when torch sees a GPU, else the CPU). The search
plays to win: no Gumbel or Dirichlet noise, the best action by its own rule.
A model trained for another game variant (board size, komi, action limit) is
refused when the agent is built, before any game, and a position of another
variant when it is asked for a move (the game object is compared, never rebuilt).

A model with a numpy export (``model.npz``, written by every save) plays
without torch (``numpy_net``); this module never imports torch unless a model
lacks that export. Models are cached per process (keyed by the folder and its
files' modification times): the arena builds a fresh agent for every game.
"""

from __future__ import annotations

import importlib.util
import os
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.learning.alphazero.device import DEVICES, resolve_device
from tictacgo.baselines.learning.alphazero.modelfile import describe_game
from tictacgo.baselines.learning.alphazero.search import NEG
from tictacgo.baselines.learning.alphazero.selfplay import SEARCHES, SearchConfig
from tictacgo.baselines.learning.alphazero.tree_reuse import TreeReuse
from tictacgo.baselines.registry import register_agent
from tictacgo.games.base import Game
from tictacgo.games.batched_engines import make_batched_engine
from tictacgo.validate import check_bool, check_choice, check_int, check_number, check_path

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
DEFAULT_SIMS = 256
#: The most simulations a move may ask for (about 110 MB of search tree on 5x5 Little-Go).
MAX_SIMS = 100_000
#: The largest Gumbel root sample (more than the game's actions acts as all of them).
MAX_CONSIDERED = 1024


def shipped_model(game_name: str) -> Path:
    """The folder of the AlphaZero model shipped for a game (it may not exist)."""
    return MODELS_DIR / f"{game_name}_az"


class AZAgent(Agent):
    """Plays the search's best action over a policy-value network (see the module docstring).

    Args:
        game: the game object the agent plays.
        evaluator: a ``NetworkEvaluator`` (or any evaluator of the search's signature).
        network_game: the game (and variant) the network was trained for; it must equal ``game``.
        sims: simulations per move (0: the raw network's best legal action).
        search: "gumbel" or "puct".
        time_limit: seconds of search per move at most (None: no limit).
        max_considered: Gumbel's root sample size.
        rng: unused by the noiseless search; kept for the interface.
        reuse: keep the tree between moves (``TreeReuse``; PUCT only).
    """

    name = "az"

    def __init__(self, game, evaluator, network_game: Game, sims: int = DEFAULT_SIMS, search: str = "gumbel",
                 time_limit: float | None = None, max_considered: int = 16,
                 rng: np.random.Generator | None = None, reuse: bool = False):
        super().__init__(game, rng)
        check_plays(network_game, game, "the network")
        sims = check_int("sims", sims, min=0, max=MAX_SIMS)
        max_considered = check_int("considered", max_considered, min=1, max=MAX_CONSIDERED)
        check_choice("search", search, SEARCHES)
        self.evaluator = evaluator
        self.network_game = network_game
        self.time_limit = check_number("time", time_limit, positive=True, allow_none=True,
                                       expected="a finite positive number of seconds")
        self.config = SearchConfig(search, sims, max_considered=max_considered, gumbel_scale=0.0,
                                   dirichlet_fraction=0.0)
        self.engine = make_batched_engine(network_game, 1)
        self.last = None  # the last move's SearchOutput
        self.reuse = TreeReuse(search) if check_bool("reuse", reuse) else None  # the tree between moves
        self._warm_up()

    def _warm_up(self) -> None:
        """One simulation from the empty board, so the engine's compiled kernels are loaded now, not
        in the first move's time (the noiseless search draws nothing from the generator)."""
        self.engine.set_state(0, self.network_game.initial_state())
        replace(self.config, simulations=min(1, self.config.simulations)).run(
            self.engine, self.evaluator, self.rng, temperature=0.0)

    def search(self, state):
        """The search's output for ``state`` (``SearchOutput`` of one game)."""
        if self.game.is_terminal(state):
            raise ValueError("the game is over; there is no move to choose")
        here = getattr(state, "game", self.game)  # Go states carry their variant
        if here is not self.network_game and here != self.network_game:
            raise ValueError(f"this network was trained for {describe_game(self.network_game)}, "
                             f"the position is {describe_game(here)}")
        self.engine.set_state(0, state)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        if self.reuse is not None:
            self.last = self.reuse.search(self.config, self.engine, self.evaluator, self.rng, deadline)
            return self.last
        self.last = self.config.run(self.engine, self.evaluator, self.rng, temperature=0.0, deadline=deadline)
        return self.last

    def act(self, state) -> int:
        out = self.search(state)
        action = int(out.action[0])
        if not out.legal[0, action]:  # never expected: every rule masks illegal actions
            raise RuntimeError(f"the search chose illegal action {action}")
        return action

    def probabilities(self, state) -> dict[int, float]:
        """The raw network's policy over the legal actions (no search)."""
        legal = self.game.legal_mask(state).astype(bool)
        self.engine.set_state(0, state)
        logits, _ = self.evaluator(self.engine, np.zeros(1, np.int64), legal[None])
        z = np.where(legal, logits[0], NEG)
        p = np.exp(z - z.max())
        p /= p.sum()
        return {int(a): float(p[a]) for a in np.nonzero(legal)[0]}


def check_plays(network_game: Game, game: Game, what: str) -> None:
    """Refuse a network trained for another game or variant than ``game``'s.

    Raises:
        ValueError: naming both variants (``what`` names the network or its folder).
    """
    if network_game != game:
        raise ValueError(f"{what} plays {describe_game(network_game)}, not {describe_game(game)}: it was "
                         f"trained for that variant only")


_LOADED: dict[tuple, tuple] = {}
_KEEP = 4


def load_cached(path: str | Path, device: str = "cpu"):
    """``(evaluator, game)`` for a model folder, cached per process.

    On the CPU the numpy export (``model.npz``) is played when the model has one, so no torch is
    imported; otherwise (or with ``device`` "cuda" or "auto") the torch weights.
    """
    from tictacgo.baselines.learning.alphazero.modelfile import META_FILE, NUMPY_FILE, WEIGHTS_FILE, read_meta

    folder = Path(path)
    stamp = tuple(os.stat(folder / f).st_mtime_ns if (folder / f).exists() else None
                  for f in (META_FILE, WEIGHTS_FILE, NUMPY_FILE))
    key = (os.path.realpath(folder), stamp, device)
    hit = _LOADED.pop(key, None)
    if hit is None:
        if device == "cpu" and read_meta(folder).get("numpy_sha256"):
            from tictacgo.baselines.learning.alphazero.numpy_net import load_numpy

            evaluator, network_game, _ = load_numpy(folder)
        else:
            if importlib.util.find_spec("torch") is None:
                why = (f"device={device} runs the torch weights" if device != "cpu"
                       else f"{folder} has no numpy export (model.npz), and its torch weights need torch")
                raise ValueError(f"{why}: pip install 'tictacgo[train]'")
            import torch

            from tictacgo.baselines.learning.alphazero.network import NetworkEvaluator, load_model

            # One thread: single positions run fastest on one, and OpenMP's spinning threads slow
            # everything down badly when other processes (arena workers) share the cores.
            torch.set_num_threads(1)
            where = resolve_device(device, "device={}")
            net, network_game, _ = load_model(folder)
            evaluator = NetworkEvaluator(net.to(where), network_game, device=where)
        hit = (evaluator, network_game)
        while len(_LOADED) >= _KEEP:
            del _LOADED[next(iter(_LOADED))]
    _LOADED[key] = hit
    return hit


def _make_az(game, rng, path: str | None = None, sims: int = DEFAULT_SIMS, search: str = "gumbel",
             time: float | None = None, considered: int = 16, reuse: bool = False, device: str = "cpu"):
    check_choice("device", device, DEVICES)
    name = game.spec.name
    if path is None:
        path = shipped_model(name)
        if not (path / "model.json").is_file():
            raise ValueError(f"no AlphaZero model is shipped for {name}; train one with "
                             f"tictacgo train {name} --algo alphazero --out DIR and pass az:path=DIR")
    else:
        path = check_path("path", path, "a model folder")
    evaluator, network_game = load_cached(path, device)
    check_plays(network_game, game, f"the model {str(path)!r}")
    return AZAgent(game, evaluator, network_game, sims=sims, search=search, time_limit=time,
                   max_considered=considered, rng=rng, reuse=reuse)


register_agent("az", _make_az, description="an AlphaZero network with batched Gumbel or PUCT search "
               "(path=DIR, default the shipped model; sims=256, 0 for the raw network, at most 100000; "
               "search=gumbel|puct; time=SECONDS; considered=16; reuse=true keeps PUCT's tree between moves; "
               "device=cpu|cuda|auto)")
