"""Fixtures for retrieval tests: one real local model per session, brains that share it.

The model (all-MiniLM-L6-v2 int8, loaded offline from its wheel) is loaded
once; every brain here gets it passed in, so no test pays for a second load.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.clock import Clock
from brainkeep.core.context import LOCAL, STDIO, Caller
from brainkeep.errors import Unavailable
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage import UsageLog
from brainkeep.providers.local_embeddings import LocalEmbeddingProvider
from tests.providers.scripted_http import ScriptedServer, start


@pytest.fixture(scope="session")
def model() -> Iterator[LocalEmbeddingProvider]:
    """The real local embedding model, loaded once for the whole session."""
    provider = LocalEmbeddingProvider()
    provider.embed(["warm up"])
    yield provider
    provider.close()


class SwitchableEmbedder:
    """Wraps the real model: can be made to fail, or to claim another model id.

    A failing provider and a model switch are the two things a real model
    cannot be asked to do on demand.
    """

    def __init__(self, inner: LocalEmbeddingProvider, *, model_id: str | None = None) -> None:
        self.inner = inner
        self.model_id = model_id or inner.model_id
        self.dimensions = inner.dimensions
        self.fail = False
        self.fail_after_calls: int | None = None
        self.calls = 0
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.fail or (self.fail_after_calls is not None and self.calls > self.fail_after_calls):
            raise Unavailable("embedding provider down (test)", detail="scripted failure")
        self.texts += len(texts)
        return self.inner.embed(texts)


class Ticker:
    """A wall clock that moves 1 ms per read (so writes have distinct timestamps)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


OpenBrain = Callable[..., Brain]


@pytest.fixture
def open_home(tmp_path: Path) -> Iterator[OpenBrain]:
    """Open brains on one temp home (several may be open: two "processes")."""
    opened: list[Brain] = []

    def make(embedder: Any = None, *, chat: Any = "from-settings", home: Path | None = None,
             values: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> Brain:
        settings = load_settings(home or tmp_path / "home", env=env or {})
        if values:
            settings = type(settings)(settings.home, {**settings.values, **values}, settings.env)
        extra = {} if chat == "from-settings" else {"chat": chat}
        brain = open_brain(settings, clock=Clock(Ticker()), embedder=embedder, **extra)
        opened.append(brain)
        return brain

    yield make
    for brain in opened:
        brain.close()


@pytest.fixture
def embedder(model: LocalEmbeddingProvider) -> SwitchableEmbedder:
    return SwitchableEmbedder(model)


@pytest.fixture
def brain(open_home: OpenBrain, embedder: SwitchableEmbedder) -> Brain:
    """A brain with the real local model."""
    return open_home(embedder)


class Verbs:
    """Calls operations through the real dispatcher, as a transport would."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.dispatcher = Dispatcher(
            build_catalog(), brain, surface="full",
            usage=UsageLog(brain.settings.usage_path),
        )

    def call(self, op: str, caller: Caller = STDIO, /, **params: Any) -> tuple[dict, bool]:
        outcome = self.dispatcher.call(op, params, caller)
        return json.loads(json.dumps(outcome.payload)), outcome.is_error

    def ok(self, op: str, caller: Caller = STDIO, /, **params: Any) -> dict[str, Any]:
        payload, is_error = self.call(op, caller, **params)
        assert not is_error, payload
        return payload

    def err(self, op: str, caller: Caller = STDIO, /, **params: Any) -> dict[str, Any]:
        payload, is_error = self.call(op, caller, **params)
        assert is_error, payload
        return payload

    def local(self, op: str, /, **params: Any) -> dict[str, Any]:
        return self.ok(op, LOCAL, **params)


@pytest.fixture
def verbs(brain: Brain) -> Verbs:
    return Verbs(brain)


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """A scripted JSON server on 127.0.0.1 (the LLM API stand-in)."""
    state = ScriptedServer()
    httpd, thread = start(state)
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
