"""A write that outwaits another writer's lock is a retryable `unavailable` on every surface.

A second, plain sqlite3 connection holds ``BEGIN IMMEDIATE`` on the brain
file (what another brainkeep process, a backup or a script does) while the
CLI, the MCP dispatcher and the gRPC server try to write. The brain's busy
timeout is lowered through the `store.busy_timeout_ms` setting so each wait
lasts a fraction of a second.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner

from brainkeep.brain import Brain, open_brain
from brainkeep.cli.app import EXIT_CODES, EXIT_RETRYABLE
from brainkeep.cli.main import cli
from brainkeep.config import load_settings
from brainkeep.core.context import STDIO
from brainkeep.errors import Busy, StoreError
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import start_grpc_server
from brainkeep.ops.registry import open_dispatcher
from brainkeep.store import SQLiteStore
from brainkeep.store.sqlite.engine import is_lock_timeout

BUSY_MS = 150


@contextmanager
def write_lock_held(db_path: Path) -> Iterator[sqlite3.Connection]:
    """Another connection holding the brain's write lock until the block ends."""
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        yield holder
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.fixture
def busy_home(home: Path) -> Path:
    """A migrated brain whose writers give up after ``BUSY_MS``."""
    home.mkdir(parents=True)
    (home / "config.json").write_text(json.dumps({"store.busy_timeout_ms": BUSY_MS}))
    open_brain(load_settings(home, env={})).close()
    return home


@pytest.fixture
def busy_brain(busy_home: Path) -> Iterator[Brain]:
    brain = open_brain(load_settings(busy_home, env={}))
    try:
        yield brain
    finally:
        brain.close()


def memory_count(db_path: Path) -> int:
    conn = sqlite3.connect(db_path)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0])
    finally:
        conn.close()


# -- the store: driver error code -> Busy, once ---------------------------------


def test_lock_timeout_is_busy_from_the_error_code(tmp_path: Path) -> None:
    path = tmp_path / "brain.db"
    store = SQLiteStore(path, busy_timeout_ms=50)
    try:
        assert store.db.scalar("PRAGMA busy_timeout") == 50
        with write_lock_held(path), pytest.raises(Busy) as info, store.transaction():
            pass
    finally:
        store.close()
    error = info.value
    assert error.code == "unavailable" and error.retryable
    assert "retry shortly" in error.suggestion.lower()
    cause = info.value.__cause__
    assert isinstance(cause, sqlite3.OperationalError)
    assert cause.sqlite_errorcode & 0xFF == 5  # SQLITE_BUSY (any extended variant)


def test_lock_words_in_a_message_are_not_a_lock_timeout(tmp_path: Path) -> None:
    # Detection reads sqlite_errorcode: an unrelated error that happens to say
    # "locked" or "busy" stays an internal StoreError.
    store = SQLiteStore(tmp_path / "brain.db")
    try:
        with pytest.raises(StoreError) as info:
            store.db.execute("SELECT * FROM database_is_locked_busy")
    finally:
        store.close()
    assert not isinstance(info.value, Busy)
    assert info.value.code == "internal"
    assert not is_lock_timeout(sqlite3.OperationalError("database is locked"))


def test_busy_timeout_comes_from_settings(busy_brain: Brain) -> None:
    assert busy_brain.store.db.scalar("PRAGMA busy_timeout") == BUSY_MS


# -- (a) the CLI: its own exit code ------------------------------------------------


def test_cli_remember_while_locked_exits_retryable(busy_home: Path) -> None:
    args = ["--home", str(busy_home), "remember", "Alice likes tea", "-p", "test"]
    with write_lock_held(busy_home / "brain.db"):
        human = CliRunner().invoke(cli, args)
        as_json = CliRunner().invoke(cli, [*args, "--json"])
    assert human.exit_code == EXIT_RETRYABLE == 6
    assert EXIT_RETRYABLE not in EXIT_CODES.values()  # distinguishable from a missing provider
    assert "locked by another writer" in human.stderr
    assert "Retry shortly" in human.stderr
    assert "Traceback" not in human.stderr
    assert as_json.exit_code == EXIT_RETRYABLE
    payload = json.loads(as_json.stderr)
    assert payload["error"] == "unavailable" and "Retry shortly" in payload["suggestion"]
    assert memory_count(busy_home / "brain.db") == 0  # nothing was written
    # The lock released, the same command succeeds.
    assert CliRunner().invoke(cli, args).exit_code == 0


# -- (b) MCP: the verb envelope -----------------------------------------------------


def test_mcp_remember_while_locked_answers_unavailable(busy_brain: Brain) -> None:
    dispatcher = open_dispatcher(busy_brain, "verbs")
    params = {"fact": "Alice likes tea", "provenance": "test"}
    with write_lock_held(busy_brain.settings.db_path):
        outcome = dispatcher.call("remember", params, STDIO)
    assert outcome.is_error and outcome.retryable
    payload = outcome.payload
    assert payload["error"] == "unavailable"
    assert payload["protocol_version"] == 1
    suggestion = payload["suggestion"]
    assert "Another writer held" in suggestion and "Retry shortly" in suggestion
    assert "OperationalError" not in json.dumps(payload)
    assert not dispatcher.call("remember", params, STDIO).is_error


# -- (c) gRPC: UNAVAILABLE ----------------------------------------------------------


def test_grpc_remember_while_locked_is_unavailable(busy_brain: Brain) -> None:
    handle = start_grpc_server(busy_brain, port=0)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{handle.port}") as channel:
            stub = pb_grpc.MnemoServiceStub(channel)
            request = pb.RememberRequest(content="Alice likes tea", agent_id="alice")
            with write_lock_held(busy_brain.settings.db_path):
                with pytest.raises(grpc.RpcError) as info:
                    stub.Remember(request, timeout=30)
            assert stub.Remember(request, timeout=30).id  # retried after the lock: it works
    finally:
        busy_brain.mnemo.flush_reads()
        handle.stop(grace=1.0)
    error = info.value
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "locked by another writer" in error.details()
    assert "Retry shortly" in error.details()
