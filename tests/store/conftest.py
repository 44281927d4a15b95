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

from brainkeep.store.base import Store
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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[None]:
    """A test that reached a Store method its engine has not ported is a skip, not a pass.

    Only ``NotPorted`` (store/postgres/pending.py) qualifies, and the reason
    names the method and its repository, so the skip list is the port's
    to-do list. Any other failure stays a failure.
    """
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if call.excinfo is None or not report.failed:
        return
    from brainkeep.store.postgres.pending import NotPorted

    if call.excinfo.errisinstance(NotPorted):
        exc = call.excinfo.value
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0,
                           f"Skipped: not ported: {exc.method} ({exc.detail})")


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
