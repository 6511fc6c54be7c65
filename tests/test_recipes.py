"""The training commands the README and the docs print are the shipped models' recipes.

A figure printed beside a command must come from that command: each documented
recipe is parsed by the real ``tictacgo train`` parser and compared, setting by
setting, with what the shipped model recorded (``model.json`` for AlphaZero
networks, the command in the models' README for the SB3 zips).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
import shlex
from pathlib import Path

import pytest

from tictacgo.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "baselines" / "models"
# Settings that say where a run plays and how it reports, not what it learns.
NOT_RECIPE = {"out", "out_dir", "resume", "force", "progress", "tensorboard", "device", "threads", "actors"}


def _commands(path: Path, start: str) -> list[str]:
    """Every shell command in ``path``'s code blocks that starts with ``start`` (continuations joined)."""
    text = path.read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    joined = "\n".join(b.replace("\\\n", " ") for b in blocks)
    return [line.split("#")[0].strip() for line in joined.splitlines() if line.strip().startswith(start)]


def _settings(command: str) -> dict:
    argv = [a for a in shlex.split(command)[1:] if a != "--no-progress"]
    args = build_parser("train", argv[1:]).parse_args(argv)
    return {k: v for k, v in vars(args).items() if k not in NOT_RECIPE and k != "command"}


def _alphazero_config(settings: dict) -> dict:
    pytest.importorskip("torch")
    from tictacgo.baselines.learning.alphazero.train import AlphaZeroConfig

    names = {f.name for f in dataclasses.fields(AlphaZeroConfig)}
    if importlib.util.find_spec("ray") is None:  # --actors needs the ray extra; the other flags still count
        names.discard("actors")
    cfg = dataclasses.asdict(AlphaZeroConfig(**{k: v for k, v in settings.items() if k in names}))
    return {k: v for k, v in cfg.items() if k not in NOT_RECIPE}


@pytest.mark.parametrize("game", ["tictactoe", "littlego"])
def test_documented_alphazero_recipes_are_the_shipped_networks_settings(game):
    recorded = json.loads((MODELS / f"{game}_az" / "model.json").read_text())["info"]["config"]
    pages = (ROOT / "README.md", ROOT / "docs" / "alphazero.md", MODELS / "README.md")
    documented = [c for path in pages for c in _commands(path, "tictacgo train")
                  if "alphazero" in c and re.search(rf"\b{game}\b", c)]
    assert documented, f"no documented recipe for the {game} network"
    for command in documented:
        cfg = _alphazero_config(_settings(command))
        differ = {k: (v, recorded.get(k)) for k, v in cfg.items() if k in recorded and recorded[k] != v}
        assert not differ, f"{command!r} differs from {game}_az/model.json: {differ}"


def test_documented_tictactoe_ppo_recipes_are_the_shipped_models_command():
    shipped = [c for c in _commands(MODELS / "README.md", "tictacgo train tictactoe --algo maskable-ppo")]
    assert len(shipped) == 1
    recipe = _settings(shipped[0])
    documented = [c for path in (ROOT / "README.md", ROOT / "docs" / "training.md")
                  for c in _commands(path, "tictacgo train tictactoe --algo maskable-ppo")]
    assert len(documented) >= 2
    for command in documented:
        assert _settings(command) == recipe, command


def _normalised(command: str) -> list[str]:
    argv = shlex.split(command)
    if "--out" in argv:
        i = argv.index("--out")
        del argv[i:i + 2]
    return argv


def test_the_readme_prints_every_checked_recipe_with_its_wall_time():
    from tictacgo.baselines.learning.recipes import RECIPES

    readme = ROOT / "README.md"
    printed = [_normalised(c) for c in _commands(readme, "tictacgo train")]
    text = readme.read_text()
    for recipe in RECIPES:
        assert _normalised(recipe.command) in printed, recipe.name
        assert recipe.wall in text, recipe.name


@pytest.mark.parametrize("spec, name", [("az:sims=0", "tictactoe-alphazero"),
                                        ("ppo", "tictactoe-maskable-ppo")])
def test_the_shipped_models_measure_their_published_figures(spec, name):
    """What check_recipes.py measures on a rerun gives, on the shipped model, the figure the docs print."""
    from tictacgo.baselines.learning.recipes import RECIPES, measure

    recipe = next(r for r in RECIPES if r.name == name)
    rate = measure(spec)
    assert rate == pytest.approx(recipe.published, abs=5e-5)
    assert recipe.reproduces(rate) and not recipe.reproduces(recipe.low - 0.001)
    assert f"{recipe.published:.2%}" in (ROOT / "README.md").read_text() + (MODELS / "README.md").read_text()


def test_the_alphazero_recipe_names_the_shipped_weights_and_tells_a_rerun_that_made_others(tmp_path):
    """The work-bounded recipe expects the shipped weights exactly; a rerun's record says if it made them."""
    from tictacgo.baselines.learning.recipes import RECIPES

    recipe = next(r for r in RECIPES if r.name == "tictactoe-alphazero")
    shipped = json.loads((MODELS / "tictactoe_az" / "model.json").read_text())
    assert recipe.weights == shipped["weights_sha256"]
    assert recipe.same_weights(MODELS / "tictactoe_az") is True
    (tmp_path / "model.json").write_text(json.dumps({**shipped, "weights_sha256": "0" * 64}))
    assert recipe.same_weights(tmp_path) is False
    assert recipe.same_weights(tmp_path / "missing") is None
    assert "--max-positions" in recipe.command and shipped["info"]["positions"] == 318720
