"""Size figures of the library: its lines, its longest functions, its function-local imports.

The library is the import package's folders (``tictacgo/``, ``envs/``,
``wrappers/``, ``baselines/``). For each it counts the lines of its ``.py``
files, lists the longest functions and methods (lines from ``def`` to the end
of the body, decorators and docstrings included; a nested function counts
inside its parent and on its own) and counts the ``import`` statements inside
a function body (function-local imports: some keep an optional dependency
optional, the rest hide an import cycle or only delay the cost of an import):

    python scripts/code_stats.py
    python scripts/code_stats.py --top 20 --imports   # and list every function-local import
    python scripts/code_stats.py --json               # the figures as JSON
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ("tictacgo", "envs", "wrappers", "baselines")


@dataclass
class Args:
    top: int = 10
    imports: bool = False
    json: bool = False
    root: Path = ROOT


@dataclass(frozen=True)
class Function:
    path: str
    name: str   # Class.method, or outer.inner for a nested function
    line: int
    length: int


@dataclass(frozen=True)
class LocalImport:
    path: str
    function: str
    line: int
    text: str


def library_files(root: Path) -> list[Path]:
    """The library's Python files, sorted."""
    return sorted(p for folder in LIBRARY for p in (root / folder).rglob("*.py"))


def line_counts(root: Path, files: list[Path]) -> dict[str, int]:
    """Lines per top-level folder, and ``"total"``."""
    counts = {folder: 0 for folder in LIBRARY}
    for path in files:
        counts[path.relative_to(root).parts[0]] += len(path.read_text(encoding="utf-8").splitlines())
    counts["total"] = sum(counts.values())
    return counts


class _Walker(ast.NodeVisitor):
    """Collects every function's length and every import inside a function of one file."""

    def __init__(self, path: str):
        self.path = path
        self.scope: list[str] = []
        self.functions: list[Function] = []
        self.imports: list[LocalImport] = []
        self.depth = 0  # how many functions enclose the current node

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        name = ".".join([*self.scope, node.name])
        self.functions.append(Function(self.path, name, node.lineno, node.end_lineno - start + 1))
        self.scope.append(node.name)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        if self.depth:
            self.imports.append(LocalImport(self.path, ".".join(self.scope), node.lineno,
                                            ast.unparse(node)))

    visit_ImportFrom = visit_Import


def walk(root: Path, files: list[Path]) -> tuple[list[Function], list[LocalImport]]:
    """Every function (longest first) and every function-local import of ``files``."""
    functions, imports = [], []
    for path in files:
        walker = _Walker(str(path.relative_to(root)))
        walker.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        functions += walker.functions
        imports += walker.imports
    functions.sort(key=lambda f: (-f.length, f.path, f.line))
    return functions, imports


def parse_args(argv: list[str] | None) -> Args:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--top", type=int, default=Args.top, help="how many of the longest functions (default 10)")
    p.add_argument("--imports", action="store_true", help="list every function-local import")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    ns = p.parse_args(argv)
    if ns.top < 0:
        p.error(f"--top must be non-negative, got {ns.top}")
    return Args(top=ns.top, imports=ns.imports, json=ns.json, root=ns.root.resolve())


def report_lines(counts: dict[str, int], files: int, functions: list[Function], imports: list[LocalImport],
                 args: Args) -> list[str]:
    """The figures as text, or as one JSON document (``--json``)."""
    over_80 = [f for f in functions if f.length > 80]
    if args.json:
        return [json.dumps({"lines": counts, "files": files, "functions_over_80": len(over_80),
                            "longest": [f.__dict__ for f in functions[:args.top]],
                            "function_local_imports": len(imports)}, indent=1)]
    lines = ["library lines: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()) + f" ({files} files)",
             f"functions over 80 lines: {len(over_80)}",
             f"the {args.top} longest functions:"]
    lines += [f"  {f.length:4d}  {f.path}:{f.line}  {f.name}" for f in functions[:args.top]]
    lines.append(f"function-local imports: {len(imports)}")
    if args.imports:
        lines += [f"  {i.path}:{i.line}  {i.function}: {i.text}" for i in imports]
    return lines


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    files = library_files(args.root)
    if not files:
        print(f"code_stats: no library files under {args.root}", file=sys.stderr)
        return 2
    functions, imports = walk(args.root, files)
    text = "\n".join(report_lines(line_counts(args.root, files), len(files), functions, imports, args))
    try:
        print(text, flush=True)
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
