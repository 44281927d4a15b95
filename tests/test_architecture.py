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
    engine = SRC / "store" / "sqlite" / "pages.py"
    assert sql_literals(engine), "the detector no longer finds SQL where it certainly is"
