"""Registry entries for trained models: ``ppo`` and ``a2c``.

``ppo:path=model.zip`` and ``a2c:path=model.zip`` play a saved
``MaskablePPO`` / A2C model (``tictacgo.baselines.learning.PolicyAgent``:
the best legal action, or ``sample=true`` to sample). Without ``path`` they
load the model shipped with the package for the game
(``baselines/models/<game>_<algo>.zip``, see ``baselines/models/README.md``),
played from its numpy export (``<game>_<algo>.npz``,
``tictacgo.baselines.numpy_policy``) when there is one: the same moves,
without torch, in a fraction of the loading time. A ``path`` ending in
``.npz`` is such an export; any other path is an SB3 model zip, which needs
the ``train`` extra (torch, SB3, sb3-contrib), imported only when such an
agent is built, so listing agents stays light. A zip is loaded without
unpickling anything from it (``tictacgo.baselines.learning.model_zip``);
``trust=true`` loads it with SB3's own loader instead, which runs any code the
file holds: only for a file you trust, whose network this project does not build.

A model is checked when its agent is built (``tictacgo.baselines.model_reading``:
sizes capped, an export's arrays judged by their declared shapes before they
are read, NaN weights refused; the JSON beside a model, when there is one,
must name this game and variant), so a bad file is one ValueError before any
game. Each agent loads its model when it is built; the arena builds an agent once
per worker and re-seeds it for every game, so a model is loaded once per
worker, not once per game.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tictacgo.baselines.model_files import check_model_game
from tictacgo.baselines.registry import register_agent
from tictacgo.validate import check_path

MODELS_DIR = Path(__file__).resolve().parent / "models"
_ALGO_FILE = {"maskable-ppo": "ppo", "a2c": "a2c"}


def shipped_model(game_name: str, algo: str, suffix: str = ".zip") -> Path:
    """The path of the model shipped for ``game_name`` and ``algo`` (it may not exist).

    ``suffix=".npz"`` gives its numpy export (``tictacgo.baselines.numpy_policy``).
    """
    return MODELS_DIR / f"{game_name}_{_ALGO_FILE[algo]}{suffix}"


def _build(game, rng, algo: str, path: str | None, sample: bool, trust: bool = False):
    name = game.spec.name
    if path is None and shipped_model(name, algo, ".npz").exists():
        path = str(shipped_model(name, algo, ".npz"))  # the same policy, without torch
    if path is not None:
        path = check_path("path", path, "a model file name (.zip, or its .npz export)")
    if path is not None and path.endswith(".npz"):
        from tictacgo.baselines.numpy_policy import NumpyPolicyAgent, load_npz

        check_model_game(path, game)
        try:
            agent = NumpyPolicyAgent(game, load_npz(path), sample=sample, rng=rng)
        except FileNotFoundError as e:
            raise ValueError(str(e)) from None
        agent.name = _ALGO_FILE[algo]
        return agent
    if importlib.util.find_spec("sb3_contrib") is None or importlib.util.find_spec("torch") is None:
        raise ValueError("trained-model agents need the train extra: pip install 'tictacgo[train]'")
    from tictacgo.baselines.learning.policy_agent import PolicyAgent, load_model

    if path is None:
        shipped = shipped_model(name, algo)
        if not shipped.exists():
            raise ValueError(f"no {algo} model is shipped for {name}; train one with "
                             f"'tictacgo train {name} --algo {algo}' and pass path=DIR/best_model.zip")
        path = str(shipped)
    check_model_game(path, game)
    try:
        model = load_model(path, algo, game, trust)
    except FileNotFoundError as e:
        raise ValueError(str(e)) from None
    agent = PolicyAgent(game, model, sample=sample, rng=rng)
    agent.name = _ALGO_FILE[algo]
    return agent


def _make_ppo(game, rng, path: str | None = None, sample: bool = False, trust: bool = False):
    return _build(game, rng, "maskable-ppo", path, sample, trust)


def _make_a2c(game, rng, path: str | None = None, sample: bool = False, trust: bool = False):
    return _build(game, rng, "a2c", path, sample, trust)


register_agent("ppo", _make_ppo, description="a trained MaskablePPO model: best legal action "
               "(path=model.zip; default: the shipped model; sample=true to sample; trust=true: "
               "SB3's own loader, which runs code in the file)")
register_agent("a2c", _make_a2c, description="a trained A2C model: best legal action "
               "(path=model.zip; default: the shipped model; sample=true to sample; trust=true: "
               "SB3's own loader, which runs code in the file)")
