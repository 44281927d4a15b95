"""The ``engine`` fixture: every contract test runs once per engine in ``ENGINES``.

Tests get a ``store`` (the first instance on a fresh brain) and may open
more instances on the same brain with ``engine.open()`` (a second process's
view, for isolation and concurrency checks). Every instance is closed after
the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from brainkeep.core.ports.store import Store
from tests.store.engines import ENGINES, EngineSpec


@dataclass
class Engine:
    """One engine under test, bound to one fresh brain."""

    spec: EngineSpec
    target: str
    opened: list[Store] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.spec.name

    def open(self) -> Store:
        """Another store instance on the same brain (own connections)."""
        store = self.spec.open(self.target)
        self.opened.append(store)
        return store

    def close_all(self) -> None:
        for store in reversed(self.opened):
            store.close()
        self.opened.clear()


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A fresh brain on one engine (parametrized over every registered engine)."""
    spec = ENGINES[request.param]
    handle = Engine(spec, spec.target(tmp_path))
    try:
        yield handle
    finally:
        handle.close_all()


@pytest.fixture
def store(engine: Engine) -> Store:
    """The first store instance on the engine's fresh brain."""
    return engine.open()
