"""Contract: ``describe()`` tells `doctor` about the engine in the same keys, with no secret."""

from __future__ import annotations

import json

from brainkeep.core.ports.store import Store
from tests.store.conftest import Engine

KEYS = {"engine", "target", "server_version", "vector", "pool", "cache", "migrations"}


def test_describe_has_the_engine_neutral_keys(engine: Engine, store: Store) -> None:
    info = store.describe()
    assert KEYS <= set(info)
    assert info["engine"] == engine.name == store.engine_name
    assert info["server_version"].split()[0] in {"SQLite", "PostgreSQL"}
    assert isinstance(info["vector"]["available"], bool)
    migrations = info["migrations"]
    assert migrations["schema_version"] == store.schema_version() >= 1
    assert migrations["pending"] == [] and migrations["skipped"] == []
    if info["pool"] is not None:  # an engine with a pool says how big it is
        assert 1 <= info["pool"]["min"] <= info["pool"]["max"]
    if info["cache"] is not None:  # a server cache, against what search reads
        cache = info["cache"]
        assert cache["size_bytes"] > 0 and cache["search_bytes"] > 0
        assert cache["fits"] is (cache["size_bytes"] >= cache["search_bytes"])
    assert (info["cache"] is None) is (engine.name == "sqlite")
    json.dumps(info)  # doctor --json prints it as is


def test_describe_never_shows_a_password(engine: Engine, store: Store) -> None:
    # A password can only be in a URL target; whatever the engine, the secret
    # part of the target must not be echoed (the SQLite target is a path).
    info = store.describe()
    target = str(info["target"])
    assert "password" not in target and ":***@" not in target
    if engine.name == "postgres":
        assert "postgresql://" not in target and "," in target  # host:port, database name
