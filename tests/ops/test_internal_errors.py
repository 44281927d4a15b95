"""An `internal` error never shows the client Python exception text or class names.

The operator gets the real exception in the log (stderr) under an incident
id; the MCP payload (and the gRPC status) carry a fixed message and that id.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.core.context import STDIO
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import start_grpc_server
from brainkeep.ops.catalog import Catalog, Operation, Param
from brainkeep.ops.dispatch import INTERNAL_MESSAGE, Dispatcher
from brainkeep.ops.registry import open_dispatcher

SECRET = "/srv/secret/brain.db row 42 said hunter2"


def _explode(ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
    raise KeyError(SECRET)


BUGGY = Operation(
    name="recall",
    description="A verb whose handler has a bug.",
    params=(Param("query", "string", "Anything."),),
    scope="read",
    handler=_explode,
    verb=True,
)


def incident_of(payload: dict[str, Any]) -> str:
    match = re.fullmatch(r"incident ([0-9a-f]{12})", payload.get("detail", ""))
    assert match, payload
    return match.group(1)


def test_a_handler_bug_leaks_nothing(brain: Brain, caplog: pytest.LogCaptureFixture) -> None:
    dispatcher = Dispatcher(Catalog((BUGGY,)), brain, surface="verbs")
    with caplog.at_level(logging.ERROR, logger="brainkeep.dispatch"):
        outcome = dispatcher.call("recall", {"query": "x"}, STDIO)
    assert outcome.is_error
    payload = outcome.payload
    text = json.dumps(payload)
    assert "KeyError" not in text and "hunter2" not in text and "/srv/secret" not in text
    assert payload["error"] == "internal" and payload["message"] == INTERNAL_MESSAGE
    assert payload["suggestion"] and payload["protocol_version"] == 1
    # The operator can find the real failure by the id the client saw.
    incident = incident_of(payload)
    logged = [r for r in caplog.records if incident in r.getMessage()]
    assert logged and logged[0].exc_info is not None
    assert logged[0].exc_info[0] is KeyError


@pytest.fixture
def broken_brain(brain: Brain) -> Iterator[Brain]:
    """A brain whose event log table vanished behind its back: every write fails in SQL."""
    conn = sqlite3.connect(brain.settings.db_path, isolation_level=None)
    conn.execute("DROP TABLE events")
    conn.close()
    yield brain


def test_a_database_failure_leaks_no_driver_text(broken_brain: Brain) -> None:
    dispatcher = open_dispatcher(broken_brain, "verbs")
    outcome = dispatcher.call("remember", {"fact": "Alice likes tea", "provenance": "t"}, STDIO)
    assert outcome.is_error
    payload = outcome.payload
    text = json.dumps(payload)
    assert payload["error"] == "internal"
    assert "OperationalError" not in text and "no such table" not in text
    assert "events" not in text
    incident_of(payload)


def test_grpc_internal_status_leaks_no_driver_text(broken_brain: Brain) -> None:
    handle = start_grpc_server(broken_brain, port=0)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{handle.port}") as channel:
            stub = pb_grpc.MnemoServiceStub(channel)
            with pytest.raises(grpc.RpcError) as info:
                stub.Remember(pb.RememberRequest(content="x", agent_id="alice"), timeout=30)
    finally:
        broken_brain.mnemo.flush_reads()
        handle.stop(grace=1.0)
    assert info.value.code() == grpc.StatusCode.INTERNAL
    details = info.value.details() or ""
    assert "OperationalError" not in details and "no such table" not in details
