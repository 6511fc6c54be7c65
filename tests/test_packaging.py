"""Packaging: every folder with an __init__.py is a listed subpackage."""

import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the tomli backport, where installed
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_folder_is_listed_in_pyproject():
    tool = pyproject()["tool"]["setuptools"]
    listed = set(tool["packages"])
    dirs = tool["package-dir"]
    found = set()
    for prefix, folder in dirs.items():
        base = ROOT / folder
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            found.add(".".join([prefix, *rel.parts]) if rel.parts else prefix)
    assert found == listed


def test_the_top_level_folders_map_into_tictacgo():
    dirs = pyproject()["tool"]["setuptools"]["package-dir"]
    assert dirs["tictacgo.envs"] == "envs"
    assert dirs["tictacgo.wrappers"] == "wrappers"
    assert dirs["tictacgo.baselines"] == "baselines"


def test_core_dependencies_stay_light():
    deps = " ".join(pyproject()["project"]["dependencies"])
    for heavy in ("torch", "stable-baselines3", "sb3-contrib", "tensorflow", "jax"):
        assert heavy not in deps


def test_the_train_extra_gives_torch_a_range_that_the_setup_pin_satisfies():
    from packaging.requirements import Requirement

    train = [Requirement(r) for r in pyproject()["project"]["optional-dependencies"]["train"]]
    torch = next(r for r in train if r.name == "torch")
    assert "==" not in str(torch.specifier)  # a user's own torch build must satisfy it
    assert torch.specifier.contains("2.13.0")
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    assert "pip install --quiet torch==2.13.0" in makefile  # the exact pin lives in the set-up


def test_importing_tictacgo_imports_no_torch():
    import subprocess
    import sys

    code = "import sys, tictacgo, tictacgo.games, tictacgo.baselines; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
