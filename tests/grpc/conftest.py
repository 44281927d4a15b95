"""A real Mnemo gRPC server on a free port, over a real SQLite brain in tmp_path.

Clients use the stubs generated from the proto; nothing in grpc is mocked.
``clock`` lets a test move time (TTL expiry, ``as_of``) without sleeping.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.config import Settings
from brainkeep.core.clock import Clock
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import GrpcServerHandle, start_grpc_server
from brainkeep.store import SQLiteStore


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


@pytest.fixture
def make_brain(tmp_path: Path, clock: MovableClock) -> Iterator[Any]:
    brains: list[Brain] = []

    def make(**extra: Any) -> Brain:
        settings = Settings(home=tmp_path / "home")
        brain = Brain(settings=settings, store=SQLiteStore(settings.db_path), clock=clock,
                      **extra)
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
def db(brain: Brain) -> Iterator[sqlite3.Connection]:
    """A raw connection to the brain file: for edits 'behind the server's back'."""
    conn = sqlite3.connect(brain.settings.db_path, isolation_level=None)
    yield conn
    conn.close()
