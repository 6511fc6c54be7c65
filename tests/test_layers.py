"""The package's layers: the import contracts of pyproject.toml hold, they fail on an import up the
layers or on the proof's checker importing the search, and no module imports another module's private
name.

import-linter finds a package's modules in its folder; envs/, wrappers/ and baselines/ reach
``tictacgo`` through setuptools' package-dir, so the contract runs on the package laid out as
Python sees it: a temporary tree of links to the source files.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the tomli backport, where installed
    tomllib = pytest.importorskip("tomli")

pytest.importorskip("importlinter", reason="the import contract needs import-linter (the dev extra)")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"


def source_files() -> dict[str, Path]:
    """Each module file of the package by its path as Python sees it (``tictacgo/envs/aec_base.py``)."""
    mapping = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]["package-dir"]
    files = {}
    for prefix, folder in mapping.items():
        base = ROOT / folder
        for path in base.rglob("*.py"):
            rel = path.relative_to(base)
            files[Path(*prefix.split("."), rel).as_posix()] = path
    return files


def stage(dest: Path, extra: dict[str, str] | None = None) -> Path:
    """``dest/tictacgo``: links to the package's source files, plus ``extra`` modules (path -> text)."""
    for key, path in source_files().items():
        target = dest / key
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(path)
    for key, text in (extra or {}).items():
        (dest / key).write_text(text)
    return dest


def lint_imports(staged: Path) -> subprocess.CompletedProcess:
    """import-linter on the staged package, with pyproject.toml's contracts."""
    code = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # Run in the staged tree: its tictacgo comes first on sys.path, before the installed one.
    return subprocess.run([sys.executable, "-c", code, "--config", str(PYPROJECT), "--no-cache"],
                          cwd=staged, env=env, capture_output=True, text=True, timeout=120)


def test_the_staged_package_holds_every_module_once():
    files = source_files()
    assert "tictacgo/envs/aec_base.py" in files and "tictacgo/baselines/learning/training.py" in files
    assert files["tictacgo/envs/aec_base.py"] == ROOT / "envs" / "aec_base.py"
    assert not any(key.startswith(("envs/", "baselines/")) for key in files)


def test_the_layers_contract_holds(tmp_path):
    out = lint_imports(stage(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 kept, 0 broken" in out.stdout


@pytest.mark.parametrize(("module", "line", "broken"), [
    ("tictacgo/games/back_import.py", "from tictacgo.baselines import make_agent\n",
     "tictacgo.games is not allowed to import tictacgo.baselines"),
    ("tictacgo/arena/back_import.py", "from tictacgo.protocol import course\n",
     "tictacgo.arena is not allowed to import tictacgo.protocol"),
    ("tictacgo/envs/back_import.py", "def lazy():\n    from tictacgo.game_loop import play_game\n"
     "    from tictacgo.wrappers import RandomOpening\n",
     "tictacgo.envs is not allowed to import tictacgo.wrappers"),
])
def test_the_contract_fails_on_an_import_up_the_layers(tmp_path, module, line, broken):
    out = lint_imports(stage(tmp_path, {module: line}))
    assert out.returncode == 1, out.stdout + out.stderr
    assert "1 kept, 1 broken" in out.stdout
    assert broken in out.stdout
    assert module.removesuffix(".py").replace("/", ".") in out.stdout  # the offending module is named


def test_the_contract_fails_when_the_checkers_side_of_the_proof_imports_the_search(tmp_path):
    staged = stage(tmp_path)
    book = staged / "tictacgo" / "proof" / "book.py"
    text = book.read_text()
    book.unlink()  # a link to the source file: replaced by a changed copy, the source left alone
    book.write_text(text + "\n\ndef _certify(state):\n    from tictacgo.proof.certificate import prove\n\n"
                    "    return prove(state)\n")
    out = lint_imports(staged)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "1 kept, 1 broken" in out.stdout
    assert "tictacgo.proof.book is not allowed to import tictacgo.proof.certificate" in out.stdout


def test_the_contract_fails_on_a_module_in_no_layer(tmp_path):
    out = lint_imports(stage(tmp_path, {"tictacgo/helpers.py": "X = 1\n"}))
    assert out.returncode == 1 and "tictacgo.helpers" in out.stdout, out.stdout + out.stderr


def _module_of(key: str) -> str:
    return key.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def private_imports(files: dict[str, Path]) -> list[str]:
    """``from tictacgo.x import _name`` and ``module._name`` (an imported tictacgo module), across modules."""
    modules = {_module_of(key) for key in files}
    found = []
    for key, path in sorted(files.items()):
        here = _module_of(key)
        tree = ast.parse(path.read_text(), filename=str(path))
        aliases = {}  # local name -> tictacgo module it refers to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tictacgo"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if alias.name.startswith("_") and not alias.name.startswith("__") and node.module != here:
                        found.append(f"{key}:{node.lineno}: {full}")
                    if full in modules:
                        aliases[alias.asname or alias.name] = full
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("tictacgo.") and alias.asname:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases and node.attr.startswith("_") \
                    and not node.attr.startswith("__"):
                found.append(f"{key}:{node.lineno}: {aliases[node.value.id]}.{node.attr}")
    return found


def test_no_module_reaches_for_another_modules_private_names():
    assert private_imports(source_files()) == []


def test_the_private_name_check_sees_both_forms(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from tictacgo.arena.runner import _resolve_workers\n"
                   "from tictacgo.arena import runner\n"
                   "runner._start_pool(2)\n")
    files = {**source_files(), "tictacgo/arena/bad.py": bad}
    assert private_imports(files) == ["tictacgo/arena/bad.py:1: tictacgo.arena.runner._resolve_workers",
                                      "tictacgo/arena/bad.py:3: tictacgo.arena.runner._start_pool"]


# -- the games name nothing above them, and import each other without a circle --------------------

def upper_layers() -> tuple[str, ...]:
    """The modules and packages of ``tictacgo`` in the layers above ``games`` (pyproject's contract)."""
    layers = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"][0]["layers"]
    above = layers[:layers.index("games")]
    return tuple(part.strip().strip("()") for layer in above for part in layer.split("|"))


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module's module, classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def upper_layer_strings(files: dict[str, Path]) -> list[str]:
    """Strings in ``tictacgo/games`` (docstrings aside) that name a module above the games, as
    ``"tictacgo.envs.vector_env:make_tictactoe"`` did: an import up the layers that import-linter
    cannot see."""
    pattern = re.compile(r"\btictacgo\.(?:" + "|".join(map(re.escape, upper_layers())) + r")\b")
    found = []
    for key, path in sorted(files.items()):
        if not key.startswith("tictacgo/games/"):
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                    and pattern.search(node.value):
                found.append(f"{key}:{node.lineno}: {node.value!r}")
    return found


def test_no_string_in_the_games_names_a_layer_above_them():
    assert upper_layer_strings(source_files()) == []


def test_the_string_check_catches_an_entry_point_named_in_the_games(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""A docstring may mention tictacgo.envs."""\n'
                   'ENTRY = {"vector": "tictacgo.envs.vector_env:make_tictactoe"}\n'
                   'def f():\n    return load("tictacgo.registration:make_env")\n')
    files = {**source_files(), "tictacgo/games/bad.py": bad}
    assert upper_layer_strings(files) == [
        "tictacgo/games/bad.py:2: 'tictacgo.envs.vector_env:make_tictactoe'",
        "tictacgo/games/bad.py:4: 'tictacgo.registration:make_env'"]


def games_imports(files: dict[str, Path]) -> tuple[dict[str, set[str]], list[str]]:
    """The games modules' imports of each other at module level (a module -> the modules it imports;
    ``from tictacgo.games import name`` of a name that is no module imports the package,
    ``tictacgo.games``), and the imports inside functions (``key:line: module``)."""
    modules = {_module_of(k) for k in files if k.startswith("tictacgo/games/")}
    graph: dict[str, set[str]] = {}
    local = []
    for key, path in sorted(files.items()):
        if not key.startswith("tictacgo/games/"):
            continue
        here = _module_of(key)
        tree = ast.parse(path.read_text(), filename=str(path))
        top = set()
        for stmt in tree.body:
            top.update(id(n) for n in ast.walk(stmt) if not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)))
        edges = set()
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tictacgo.games"):
                names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                         for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("tictacgo.games")]
            for name in names:
                if id(node) in top:
                    edges.add(name)
                else:
                    local.append(f"{key}:{node.lineno}: {name}")
        graph[here] = edges - {here}
    return graph, local


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph`` (each once, as the path that closes it)."""
    cycles, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def test_the_games_modules_import_each_other_without_a_circle():
    graph, local = games_imports(source_files())
    assert import_cycles(graph) == []
    # Only the optional numba kernels are imported where first needed (numba may be missing).
    assert all(line.endswith(("batched_kernels", "playout_kernels")) for line in local), local


def test_the_circle_check_sees_a_circle_kept_open_at_module_level(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from tictacgo.games.littlego import LittleGo\n")
    low = tmp_path / "low.py"
    low.write_text("from tictacgo.games import bad\n")
    files = {**source_files(), "tictacgo/games/bad.py": bad, "tictacgo/games/littlego_place.py": low}
    cycles = import_cycles(games_imports(files)[0])
    assert any({"tictacgo.games.bad", "tictacgo.games.littlego", "tictacgo.games.littlego_place"} <= set(c)
               for c in cycles), cycles


def package_imports(files: dict[str, Path], packages: tuple[str, ...]) -> dict[str, set[str]]:
    """The imports among the modules of ``packages`` (``"tictacgo/proof"``), at module level and inside
    functions alike: a module -> the modules (or packages, for a name that is no module) it imports."""
    keys = {k: path for k, path in files.items() if k.startswith(tuple(p + "/" for p in packages))}
    modules = {_module_of(k) for k in keys}
    graph: dict[str, set[str]] = {}
    for key, path in sorted(keys.items()):
        here = _module_of(key)
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                         for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            edges.update(n for n in names if n in modules)
        graph[here] = edges - {here}
    return graph


def test_the_proof_and_the_solver_import_each_other_without_a_circle():
    """Function-local imports included: ``certificate`` and ``compiled_extraction`` once imported each
    other (the error both walks raise now lives in the lower one)."""
    graph = package_imports(source_files(), ("tictacgo/proof", "tictacgo/solver"))
    assert "tictacgo.proof.compiled_extraction" in graph["tictacgo.proof.certificate"]
    assert import_cycles(graph) == []


def test_the_arena_results_do_not_import_the_records_that_import_them():
    files = source_files()

    def imported(name: str) -> set[str]:
        tree = ast.parse(files[f"tictacgo/arena/{name}.py"].read_text())
        return {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}

    assert "tictacgo.arena.results" in imported("records")  # the one direction
    assert "tictacgo.arena.records" not in imported("results")


# -- tests import the library, never a script ----------------------------------------------------

TESTS = ROOT / "tests"
SCRIPTS = ROOT / "scripts"
#: Calls that load a file or a folder as a module when given a script's path.
_LOADERS = {"spec_from_file_location", "run_path", "run_module", "SourceFileLoader", "import_module",
            "insert", "append"}  # the last two: sys.path.insert / append of the scripts' folder


def script_imports(files: list[Path]) -> list[str]:
    """Where ``files`` import a script of ``scripts/`` as a module (``import solve_subtrees``,
    ``from scripts import x``, a spec, loader or ``sys.path`` entry built from a path naming
    ``scripts``); running one as a command (``subprocess``, ``[sys.executable, "scripts/x.py"]``) is
    fine."""
    names = {p.stem for p in SCRIPTS.glob("*.py")} | {"scripts"}
    found = []
    for path in files:
        text = path.read_text()
        tree = ast.parse(text, filename=str(path))
        for node in ast.walk(tree):
            modules = []
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules = [node.module]
            if any(m.split(".")[0] in names for m in modules):
                found.append(f"{path.name}:{node.lineno}: import {', '.join(modules)}")
            if isinstance(node, ast.Call):
                func = node.func
                name = getattr(func, "attr", None) or getattr(func, "id", "")
                args = " ".join(ast.get_source_segment(text, a) or "" for a in [*node.args, *node.keywords])
                if name in _LOADERS and re.search(r"\bscripts\b|\bSCRIPTS?\b", args):
                    found.append(f"{path.name}:{node.lineno}: {name}({args})")
    return found


def test_no_test_imports_a_script():
    """The scripts are thin entry points (docs/architecture.md): a test imports the library behind one,
    or runs it as a command."""
    files = sorted(TESTS.rglob("*.py"))
    assert len(files) > 50
    assert script_imports(files) == []


def test_the_script_import_check_sees_each_way_in(tmp_path):
    bad = tmp_path / "test_bad.py"
    bad.write_text("import importlib.util, subprocess, sys\n"
                   "import solve_subtrees\n"
                   "from scripts.certify_leaves import main\n"
                   "SCRIPT = ROOT / 'scripts' / 'combine_proofs.py'\n"
                   "spec = importlib.util.spec_from_file_location('combine_proofs', SCRIPT)\n"
                   "sys.path.insert(0, str(ROOT / 'scripts'))\n"
                   "subprocess.run([sys.executable, str(SCRIPT), '--help'])\n")
    assert [line.split(":")[1] for line in script_imports([bad])] == ["2", "3", "5", "6"]


def test_the_readme_draws_the_layers_of_the_contract_in_its_order():
    contract = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"][0]
    readme = (ROOT / "README.md").read_text()
    drawing = readme.split("## Architecture", 1)[1].split("```", 2)[1]
    layers = " ".join(drawing.split()).split(">")
    drawn = [" | ".join(p.strip() for p in layer.split("|")) for layer in layers]
    assert drawn == [layer.replace("(", "").replace(")", "") for layer in contract["layers"]]
