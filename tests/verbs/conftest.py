"""Fixtures for verb tests: a real brain (SQLite file or PostgreSQL database), via the dispatcher.

Every brain test here runs on both engines: ``test_x[sqlite]``, ``test_x[postgres]``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.clock import Clock
from brainkeep.core.context import LOCAL, STDIO, Caller
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage import UsageLog
from tests.brain_engines import ENGINES, engine_home


@dataclass
class FakeTime:
    """A controllable wall clock (time only moves when a test says so)."""

    now: datetime = field(default_factory=lambda: datetime(2026, 6, 15, 12, 0, tzinfo=UTC))

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    def __call__(self) -> datetime:
        # Each read moves 1 µs so writes never share a timestamp unless a test wants it.
        self.now += timedelta(microseconds=1)
        return self.now


@dataclass
class VerbHarness:
    brain: Brain
    dispatcher: Dispatcher
    time: FakeTime

    def call(
        self, op: str, caller: Caller = STDIO, /, **params: Any
    ) -> tuple[dict[str, Any], bool]:
        outcome = self.dispatcher.call(op, params, caller)
        # Round-trip through JSON exactly as a transport would.
        return json.loads(json.dumps(outcome.payload)), outcome.is_error

    def ok(self, op: str, caller: Caller = STDIO, /, **params: Any) -> dict[str, Any]:
        payload, is_error = self.call(op, caller, **params)
        assert not is_error, payload
        return payload

    def err(self, op: str, caller: Caller = STDIO, /, **params: Any) -> dict[str, Any]:
        payload, is_error = self.call(op, caller, **params)
        assert is_error, payload
        return payload

    def page(self, slug: str, content: str) -> None:
        self.brain.pages.put_page(slug, content)

    def local(self, op: str, /, **params: Any) -> dict[str, Any]:
        return self.ok(op, LOCAL, **params)


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def verb_home(tmp_path: Path, brain_engine: str) -> Iterator[Path]:
    """The home of the test's brain, on the engine under test."""
    with engine_home(tmp_path / "home", brain_engine) as home:
        yield home


@pytest.fixture
def harness(verb_home: Path) -> Iterator[VerbHarness]:
    time = FakeTime()
    settings = load_settings(verb_home, env={})
    brain = open_brain(settings, clock=Clock(time))
    dispatcher = Dispatcher(
        build_catalog(), brain, surface="full", usage=UsageLog(settings.usage_path)
    )
    yield VerbHarness(brain, dispatcher, time)
    brain.close()


Factory = Callable[..., VerbHarness]
