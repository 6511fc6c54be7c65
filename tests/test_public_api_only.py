"""The library uses other libraries (PettingZoo, Gymnasium, SB3, sb3-contrib, torch) through their public API.

A private name (``_x``) of another library may change or vanish in any release
(PettingZoo's order-enforcing wrapper's ``_has_updated`` is why the package once
pinned ``pettingzoo<1.28``). The library reads no attribute with a leading
underscore that it does not define itself, and never names the private
attributes it once read.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ["tictacgo", "envs", "wrappers", "baselines"]

# Private names of other libraries the library read before it used their public API instead.
FORMERLY_READ = {
    "_has_updated": "PettingZoo's OrderEnforcingWrapper",
    "_has_reset": "PettingZoo's OrderEnforcingWrapper",
    "_was_dead_step": "PettingZoo's AECEnv",
    "_accumulate_rewards": "PettingZoo's AECEnv",
    "_n_updates": "SB3's BaseAlgorithm",
    "_get_constructor_parameters": "SB3's BasePolicy",
    "_version": "torch's Tensor",
}

# Standard-library names that are private by their spelling only; documented and stable.
STDLIB_DOCUMENTED = {"_exit", "_replace", "_asdict", "_fields", "_make", "_field_defaults", "_getframe"}


def _library_trees() -> dict[Path, ast.Module]:
    files = [p for folder in LIBRARY for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(files) > 100, "the library's files were not found"
    return {p: ast.parse(p.read_text(), filename=str(p)) for p in files}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _defined_names(tree: ast.Module) -> set[str]:
    """The names a module defines: functions, classes, assignment targets (names and attributes),
    imports, arguments and keywords of the library's own calls."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Name)) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _attributes_read(tree: ast.Module) -> list[tuple[str, int]]:
    return [(node.attr, node.lineno) for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and _private(node.attr)]


def test_the_library_reads_no_private_attribute_it_does_not_define():
    trees = _library_trees()
    defined = set().union(*map(_defined_names, trees.values()))
    foreign = [f"{path.relative_to(ROOT)}:{line}: .{name}"
               for path, tree in trees.items() for name, line in _attributes_read(tree)
               if name not in defined and name not in STDLIB_DOCUMENTED]
    assert not foreign, "private attributes of other libraries read:\n" + "\n".join(foreign)


def test_the_private_names_once_read_are_gone_as_attributes_and_as_strings():
    found = []
    for path, tree in _library_trees().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in FORMERLY_READ:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr} "
                             f"({FORMERLY_READ[node.attr]})")
            elif isinstance(node, ast.Constant) and node.value in FORMERLY_READ:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r} "
                             f"({FORMERLY_READ[node.value]})")
    assert not found, "\n".join(found)


def test_the_check_finds_a_private_attribute_of_another_library():
    tree = ast.parse("import torch\n\ndef key(t):\n    return t._version\n")
    read = {name for name, _ in _attributes_read(tree)}
    assert read == {"_version"} and "_version" not in _defined_names(tree)
    own = ast.parse("class A:\n    def __init__(self):\n        self._n = 0\n\n    def n(self):\n"
                    "        return self._n\n")
    assert {name for name, _ in _attributes_read(own)} <= _defined_names(own)
