"""The verb suite really runs on the engine its id names (not SQLite twice)."""

from __future__ import annotations

from .conftest import VerbHarness


def test_the_brain_is_on_the_engine_under_test(harness: VerbHarness, brain_engine: str) -> None:
    assert harness.brain.store.engine_name == brain_engine
    assert (harness.brain.settings.database_url is not None) == (brain_engine == "postgres")
