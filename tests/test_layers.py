"""The layers of docs/architecture.md, enforced on the import graph (every import counts).

- no front (cli, mcp, grpc, console) imports another front, except that the
  CLI's serving commands (the composition roots of `serve` and `ui`) start a
  front's server entry point;
- no front imports an engine module (``store.sqlite``, ``store.postgres``):
  fronts reach persistence through ``brainkeep.store`` (``store.open``);
- no engine imports the other engine;
- the domain (core) imports no ``store`` module: the ports it names live in
  ``core/ports/``;
- no cycle among the packages core, store, store.sql, store.sqlite,
  store.postgres, mcp, console.
"""

from __future__ import annotations

import pytest

from tests.test_architecture import GRAPH, Graph, find_cycles

FRONTS = ("cli", "mcp", "grpc", "console", "hooks")
ENGINES = ("store.sqlite", "store.postgres")
# The CLI's `serve`, `ui` and `hook` commands compose servers: each may start
# the entry point of the front it serves, and reach nothing else of it.
COMPOSITION_ROOTS = {"brainkeep.cli.serve_cmd", "brainkeep.cli.ui_cmd", "brainkeep.cli.hook_cmd"}
SERVER_ENTRY_POINTS = {"brainkeep.mcp.stdio", "brainkeep.grpc.server", "brainkeep.console.server",
                       "brainkeep.hooks.entry"}
# ``store.sql`` (the repositories both engines share) is its own node: the
# engines import it, and the ``store`` package's factory imports the engines.
CYCLE_PACKAGES = ("core", "store.sqlite", "store.postgres", "store.sql", "store", "mcp",
                  "console")


def _in(module: str, package: str) -> bool:
    name = f"brainkeep.{package}"
    return module == name or module.startswith(name + ".")


def front_of(module: str) -> str | None:
    return next((f for f in FRONTS if _in(module, f)), None)


def front_violations(graph: Graph) -> list[str]:
    """Imports from one front into another, or from a front into an engine."""
    found = []
    for module, targets in sorted(graph.items()):
        front = front_of(module)
        if front is None:
            continue
        for target in sorted(targets):
            other = front_of(target)
            if other is not None and other != front and not (
                    module in COMPOSITION_ROOTS and target in SERVER_ENTRY_POINTS):
                found.append(f"{module} -> {target} (front into front)")
            if any(_in(target, engine) for engine in ENGINES):
                found.append(f"{module} -> {target} (front into an engine)")
    return found


def engine_violations(graph: Graph) -> list[str]:
    found = []
    for module, targets in sorted(graph.items()):
        for mine, other in (ENGINES, ENGINES[::-1]):
            if _in(module, mine):
                found += [f"{module} -> {t}" for t in sorted(targets) if _in(t, other)]
    return found


def domain_violations(graph: Graph) -> list[str]:
    return [f"{m} -> {t}" for m, targets in sorted(graph.items()) if _in(m, "core")
            for t in sorted(targets) if _in(t, "store")]


def package_of(module: str) -> str | None:
    """The first of CYCLE_PACKAGES that holds ``module`` (engines before store)."""
    return next((p for p in CYCLE_PACKAGES if _in(module, p)), None)


def package_graph(graph: Graph) -> Graph:
    packages: Graph = {p: set() for p in CYCLE_PACKAGES}
    for module, targets in graph.items():
        mine = package_of(module)
        if mine is None:
            continue
        packages[mine].update(p for t in targets
                              if (p := package_of(t)) is not None and p != mine)
    return packages


def test_no_front_imports_another_front_or_an_engine() -> None:
    assert front_violations(GRAPH) == []


def test_no_engine_imports_the_other() -> None:
    assert engine_violations(GRAPH) == []


def test_the_domain_imports_no_store_module() -> None:
    assert domain_violations(GRAPH) == []


def test_no_cycle_among_the_main_packages() -> None:
    cycles = find_cycles(package_graph(GRAPH))
    assert cycles == [], f"package cycles: {cycles}"


@pytest.mark.parametrize(("extra", "check"), [
    ({"brainkeep.console.fake": {"brainkeep.mcp.auth"}}, front_violations),
    ({"brainkeep.cli.fake": {"brainkeep.store.postgres.conninfo"}}, front_violations),
    ({"brainkeep.cli.serve_cmd": {"brainkeep.mcp.gate"}}, front_violations),
    ({"brainkeep.store.postgres.fake": {"brainkeep.store.sqlite.engine"}}, engine_violations),
    ({"brainkeep.core.fake": {"brainkeep.store.sql.dialect"}}, domain_violations),
])
def test_each_rule_can_fail(extra: Graph, check: object) -> None:
    graph = {**GRAPH, **{k: GRAPH.get(k, set()) | v for k, v in extra.items()}}
    assert callable(check) and check(graph) != []


def test_the_package_cycle_check_can_fail() -> None:
    graph = {**GRAPH, "brainkeep.core.fake": {"brainkeep.mcp.server"},
             "brainkeep.mcp.server": GRAPH["brainkeep.mcp.server"]}
    assert find_cycles(package_graph(graph)) != []
    assert package_of("brainkeep.store.sqlite.engine") == "store.sqlite"
    assert package_of("brainkeep.store.sql.pages") == "store.sql"
    assert package_of("brainkeep.store.migrate") == "store"
