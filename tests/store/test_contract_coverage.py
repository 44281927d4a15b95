"""Meta-test: every method of the Store protocols is exercised by a contract test.

A method counts as covered when some ``test_contract_*.py`` module (or the
shared ``contract.py`` helpers they call) uses it as an attribute, e.g.
``store.append_event(...)``. (Coverage by name: each test module asserts
what its calls return.) Names come from the protocol classes
themselves, so a method added to the protocol without a contract test
fails here.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from brainkeep.core.ports.search_index import SearchIndex
from brainkeep.core.ports.store import Store
from brainkeep.store.sqlite import SQLiteStore

HERE = Path(__file__).resolve().parent
# SearchIndex is what ``Store.search_index`` returns: the retrieval half of the seam.
PROTOCOLS: tuple[type, ...] = (Store, SearchIndex)


def protocol_members(protocol: type) -> set[str]:
    """Public methods and attributes the protocol and its repository protocols declare."""
    names: set[str] = set()
    for part in protocol.__mro__:
        if part.__module__.startswith("brainkeep.core.ports"):
            names |= {
                name
                for name, value in vars(part).items()
                if not name.startswith("_") and inspect.isfunction(value)
            }
            names |= {n for n in inspect.get_annotations(part) if not n.startswith("_")}
    return names


def required_members() -> set[str]:
    found: set[str] = set()
    for protocol in PROTOCOLS:
        found |= protocol_members(protocol)
    return found


def attributes_used(paths: list[Path]) -> set[str]:
    """Every ``x.name`` attribute access in the given modules."""
    used: set[str] = set()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        used |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    return used


def contract_modules() -> list[Path]:
    modules = sorted(HERE.glob("test_contract_*.py"))
    modules = [m for m in modules if m.name != Path(__file__).name]
    return [*modules, HERE / "contract.py"]


def uncovered(members: set[str], paths: list[Path]) -> list[str]:
    return sorted(members - attributes_used(paths))


def test_every_protocol_method_has_a_contract_test() -> None:
    members = required_members()
    assert len(members) > 60  # the protocols were actually read
    missing = uncovered(members, contract_modules())
    assert missing == [], f"protocol methods with no contract test: {missing}"


def test_the_coverage_check_can_fail(tmp_path: Path) -> None:
    partial = tmp_path / "test_contract_partial.py"
    partial.write_text("def test_x(store):\n    store.get_meta('k')\n", encoding="utf-8")
    missing = uncovered(required_members(), [partial])
    assert "get_meta" not in missing
    assert {"append_event", "grants_for", "transaction"} <= set(missing)


def test_every_repository_is_listed() -> None:
    # Store is composed of repository protocols: their methods must be scanned too.
    members = protocol_members(Store)
    assert {"grants_for", "append_event", "save_page", "insert_token"} <= members
    assert "append_event" in protocol_members(Store)
    assert "engine_name" in protocol_members(Store)


def test_the_sqlite_engine_implements_every_member(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "brain.db")
    try:
        index = store.search_index("default")
        missing = sorted(
            name for name in protocol_members(Store) | protocol_members(Store)
            if not hasattr(store, name)
        )
        missing += sorted(name for name in protocol_members(SearchIndex)
                          if not hasattr(index, name))
    finally:
        store.close()
    assert missing == []
