"""A real Mnemo gRPC server on a free port, over a real brain in tmp_path.

Every brain test here runs on both engines (``test_x[sqlite]``,
``test_x[postgres]``): the brain is a SQLite file or a fresh PostgreSQL
database named by the home's config (tests/brain_engines.py).

Clients use the stubs generated from the proto; nothing in grpc is mocked.
``clock`` lets a test move time (TTL expiry, ``as_of``) without sleeping.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest

from brainkeep.brain import Brain, open_store
from brainkeep.config import load_settings
from brainkeep.core.clock import Clock
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import GrpcServerHandle, start_grpc_server
from tests.brain_engines import ENGINES, RawDatabase, engine_home


class MovableClock(Clock):
    """Wall time plus an offset tests can advance."""

    def __init__(self) -> None:
        self.offset = timedelta()
        super().__init__(now_fn=lambda: datetime.now(UTC) + self.offset)

    def advance(self, **delta: float) -> None:
        self.offset += timedelta(**delta)


@pytest.fixture
def clock() -> MovableClock:
    return MovableClock()


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def grpc_home(tmp_path: Path, brain_engine: str) -> Iterator[Path]:
    """The home every brain of the test opens (one file or one database)."""
    with engine_home(tmp_path / "home", brain_engine) as home:
        yield home


@pytest.fixture
def make_brain(grpc_home: Path, clock: MovableClock) -> Iterator[Any]:
    brains: list[Brain] = []

    def make(**extra: Any) -> Brain:
        settings = load_settings(grpc_home, env={})
        brain = Brain(settings=settings, store=open_store(settings), clock=clock, **extra)
        brains.append(brain)
        return brain

    yield make
    for brain in brains:
        brain.mnemo.flush_reads()  # buffered recall stats, before the store closes
        brain.close()


@pytest.fixture
def brain(make_brain: Any) -> Brain:
    return make_brain()  # type: ignore[no-any-return]


@pytest.fixture
def server(brain: Brain) -> Iterator[GrpcServerHandle]:
    handle = start_grpc_server(brain, port=0)
    yield handle
    handle.stop(grace=1.0)


@pytest.fixture
def channel(server: GrpcServerHandle) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as chan:
        yield chan


@pytest.fixture
def stub(channel: grpc.Channel) -> pb_grpc.MnemoServiceStub:
    return pb_grpc.MnemoServiceStub(channel)


@pytest.fixture
def db(brain: Brain) -> Iterator[RawDatabase]:
    """A raw connection to the brain: for edits 'behind the server's back' (``?`` params)."""
    conn = RawDatabase(brain.settings.home)
    yield conn
    conn.close()
