"""Dependencies point inward: core imports no front end or driver; SQL stays in store/."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "brainkeep"
CORE_FORBIDDEN = {"click", "mcp", "grpc", "starlette", "uvicorn", "sqlite3", "psycopg", "rich"}
SQL = re.compile(
    r"\b(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b",
    re.IGNORECASE | re.DOTALL,
)


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
            if node.module.startswith("brainkeep."):
                roots.add(node.module)
    return roots


CORE_MODULES = sorted((SRC / "core").rglob("*.py"))


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_core_imports_no_front_end_or_driver(path: Path) -> None:
    roots = imported_roots(path)
    assert not roots & CORE_FORBIDDEN, f"{path.name} imports {sorted(roots & CORE_FORBIDDEN)}"
    front_ends = {r for r in roots if re.match(r"brainkeep\.(cli|mcp|grpc|ops)\b", r)}
    assert not front_ends, f"{path.name} imports {sorted(front_ends)}"


def sql_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if SQL.search(node.value) and not _is_docstring(node, tree):
                found.append((node.lineno, node.value[:60]))
    return found


def _is_docstring(node: ast.Constant, tree: ast.Module) -> bool:
    for parent in ast.walk(tree):
        body = getattr(parent, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and body[0].value is node
        ):
            return True
    return False


OUTSIDE_STORE = sorted(
    p
    for p in SRC.rglob("*.py")
    if "store" not in p.relative_to(SRC).parts and "generated" not in p.relative_to(SRC).parts
)


@pytest.mark.parametrize("path", OUTSIDE_STORE, ids=lambda p: str(p.relative_to(SRC)))
def test_no_sql_outside_the_store(path: Path) -> None:
    assert sql_literals(path) == []


def test_the_sql_check_can_fail() -> None:
    engine = SRC / "store" / "sql" / "pages.py"
    assert sql_literals(engine), "the detector no longer finds SQL where it certainly is"


# -- the module graph ---------------------------------------------------------
# Every import counts: top level, under `if TYPE_CHECKING:`, inside functions.
# A type-only or deferred import still makes two modules one design unit.

Graph = dict[str, set[str]]


def module_name(path: Path, root: Path) -> str:
    """Dotted name of ``path`` inside the package rooted at directory ``root``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_files(root: Path) -> dict[str, Path]:
    """Every module of the package at ``root`` by dotted name (generated stubs skipped)."""
    return {
        module_name(p, root): p
        for p in sorted(root.rglob("*.py"))
        if "generated" not in p.relative_to(root).parts
    }


def _nearest_module(name: str, modules: set[str]) -> str | None:
    while name not in modules and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in modules else None


def import_targets(path: Path, name: str, modules: set[str]) -> set[str]:
    """Modules of the package that ``path`` (module ``name``) imports, anywhere in the file.

    ``from pkg.x import y`` targets ``pkg.x.y`` when that is a module, else
    ``pkg.x`` (whose ``__init__`` then carries the re-export onwards);
    relative imports are resolved against the module's package.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            candidates = [
                f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules else module
                for alias in node.names
            ]
        else:
            continue
        found.update(t for c in candidates if (t := _nearest_module(c, modules)) is not None)
    found.discard(name)
    return found


def module_graph(root: Path) -> Graph:
    files = package_files(root)
    modules = set(files)
    return {name: import_targets(path, name, modules) for name, path in files.items()}


def find_cycles(graph: Graph) -> list[list[str]]:
    """Each group of modules that import one another (directly or round a loop), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:  # Tarjan; the graph is a few hundred nodes deep at most
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(sorted(group) for group in groups)


def cycle_path(graph: Graph, group: list[str]) -> list[str]:
    """The shortest import path from the group's first module back to itself."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt_frontier = []
        for node in frontier:
            for nxt in sorted(graph[node] & members):
                if nxt == start:
                    return paths[node] + [start]
                if nxt not in paths:
                    paths[nxt] = paths[node] + [nxt]
                    nxt_frontier.append(nxt)
        frontier = nxt_frontier
    raise AssertionError(f"no cycle through {group}")  # a strong component always has one


def test_no_import_cycles() -> None:
    graph = module_graph(SRC)
    cycles = find_cycles(graph)
    assert not cycles, "import cycles (TYPE_CHECKING and function-level imports count):\n" + (
        "\n".join(f"{', '.join(g)}  (e.g. {' -> '.join(cycle_path(graph, g))})" for g in cycles)
    )


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_the_cycle_detector_can_fail(tmp_path: Path) -> None:
    pkg = _write(tmp_path, {
        "pkg/__init__.py": "from pkg.reexported import Thing\n",
        "pkg/reexported.py": "def f():\n    from pkg import Thing\n",  # through the __init__
        "pkg/a.py": "from pkg import b\n",  # `from pkg import b`: the module pkg.b
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import X\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": "from ..a import Y\n",  # an edge, but no cycle
        "pkg/grpc/generated/x_pb2.py": "from pkg.sub import c\n",  # skipped
    })
    graph = module_graph(pkg)
    assert graph["pkg.sub.c"] == {"pkg.a"}
    assert "pkg.grpc.generated.x_pb2" not in graph
    assert find_cycles(graph) == [["pkg", "pkg.reexported"], ["pkg.a", "pkg.b"]]
    triangle = {"x": {"y"}, "y": {"z", "w"}, "z": {"x"}, "w": set()}
    assert find_cycles(triangle) == [["x", "y", "z"]]
    assert cycle_path(triangle, ["x", "y", "z"]) == ["x", "y", "z", "x"]
    assert find_cycles({"x": {"y"}, "y": {"z"}, "z": set()}) == []


# -- core never reaches up to the composition root or down into an engine ----

def _upward_or_engine(target: str) -> bool:
    return target == "brainkeep.brain" or target.startswith("brainkeep.store.sqlite")


def forbidden_core_imports(graph: Graph, module: str) -> set[str]:
    """Targets of ``module`` that are ``brainkeep.brain`` or the SQLite engine.

    A package whose ``__init__`` imports one of them counts too (importing
    ``brainkeep.store`` itself pulls in ``SQLiteStore``).
    """
    return {
        target
        for target in graph[module]
        if _upward_or_engine(target)
        or (
            (SRC.parent / target.replace(".", "/") / "__init__.py").exists()
            and any(_upward_or_engine(t) for t in graph.get(target, ()))
        )
    }


GRAPH = module_graph(SRC)
CORE_NAMES = sorted(m for m in GRAPH if m.startswith("brainkeep.core"))


@pytest.mark.parametrize("module", CORE_NAMES)
def test_core_imports_neither_brain_nor_the_sqlite_engine(module: str) -> None:
    bad = forbidden_core_imports(GRAPH, module)
    assert not bad, f"{module} imports {sorted(bad)}: core receives its services explicitly"


def test_the_upward_import_check_can_fail() -> None:
    graph = dict(GRAPH)
    graph["brainkeep.core.fake"] = {"brainkeep.core.models", "brainkeep.brain"}
    graph["brainkeep.core.fake2"] = {"brainkeep.store"}  # its __init__ imports the engine
    graph["brainkeep.core.fake3"] = {"brainkeep.store.sqlite.pages"}
    assert forbidden_core_imports(graph, "brainkeep.core.fake") == {"brainkeep.brain"}
    assert forbidden_core_imports(graph, "brainkeep.core.fake2") == {"brainkeep.store"}
    assert forbidden_core_imports(graph, "brainkeep.core.fake3") == {"brainkeep.store.sqlite.pages"}


# -- small modules --------------------------------------------------------------

MAX_LINES = 400
# TODO lead: split these, then empty this set (store/sqlite/vectors.py is already done).
ALLOWED_OVERSIZE: set[str] = set()


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def size_problem(path: Path) -> str | None:
    lines = line_count(path)
    return f"{path.name} has {lines} lines (max {MAX_LINES})" if lines > MAX_LINES else None


@pytest.mark.parametrize(
    "path", sorted(package_files(SRC).values()), ids=lambda p: str(p.relative_to(SRC))
)
def test_modules_stay_small(path: Path) -> None:
    rel = path.relative_to(SRC).as_posix()
    if rel in ALLOWED_OVERSIZE:
        pytest.skip(f"{rel}: allowed oversize until the lead splits it")
    problem = size_problem(path)
    assert problem is None, f"{rel}: {problem}; split it by responsibility"


def test_the_oversize_allowance_is_not_stale() -> None:
    # An entry that shrank (or moved) must leave the set, so it cannot hide a regrowth.
    stale = {rel for rel in ALLOWED_OVERSIZE
             if not (SRC / rel).exists() or line_count(SRC / rel) <= MAX_LINES}
    assert not stale, f"remove from ALLOWED_OVERSIZE: {sorted(stale)}"


def test_the_size_check_can_fail(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    assert size_problem(big) == f"big.py has {MAX_LINES + 1} lines (max {MAX_LINES})"
    big.write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    assert size_problem(big) is None


# SQLite search mechanics that belong to the engine's SearchIndex
# (store/sqlite/keyword_index.py, vector_index.py), never to core/: full-text
# query syntax (MATCH, NEAR, quoted terms joined by " OR "/" AND "), FTS
# tables and their vocabulary views, rowid floors, the sqlite_sequence
# watermark of the vector index.
ENGINE_SEARCH_SYNTAX = re.compile(
    r"\bMATCH\b|\bNEAR\(|fts5vocab|\bbm25\(|sqlite_sequence|\b\w+_fts\b|\browid\b"
    r"|[\"'] (?:OR|AND|NOT) [\"']"
)


def engine_search_syntax(text: str) -> list[str]:
    return [m.group(0) for m in ENGINE_SEARCH_SYNTAX.finditer(text)]


def test_core_builds_no_engine_search_syntax() -> None:
    found = {
        str(path.relative_to(SRC)): hits
        for path in CORE_MODULES
        if (hits := engine_search_syntax(path.read_text(encoding="utf-8")))
    }
    assert not found, f"engine search syntax in core/ (move it behind SearchIndex): {found}"
    # The detector still sees it where it certainly is.
    engine = (SRC / "store" / "sqlite" / "keyword_index.py").read_text(encoding="utf-8")
    assert {"MATCH", "fts5vocab", "bm25("} <= set(engine_search_syntax(engine))
    vectors = (SRC / "store" / "sqlite" / "vector_index.py").read_text(encoding="utf-8")
    assert "sqlite_sequence" in engine_search_syntax(vectors)
    assert engine_search_syntax("""' OR '.join(t); "x MATCH ?" """) == ["' OR '", "MATCH"]
