"""The lean stdio session and the SDK server send the same shapes (mcp/shapes.py)."""

from __future__ import annotations

import mcp_types as types
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from brainkeep.mcp.shapes import HANDSHAKE_VERSIONS, call_tool_result, initialize_result
from brainkeep.mcp.stdio_wire import Message, Rejected, check_shape
from brainkeep.ops.dispatch import Outcome
from brainkeep.ops.registry import build_catalog


def test_the_handshake_versions_are_the_sdks() -> None:
    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


def test_initialize_negotiates_like_the_sdk() -> None:
    assert initialize_result("2025-06-18")["protocolVersion"] == "2025-06-18"
    assert initialize_result("1999-01-01")["protocolVersion"] == HANDSHAKE_PROTOCOL_VERSIONS[-1]
    types.InitializeResult.model_validate(initialize_result("2025-06-18"))


def test_tool_definitions_survive_the_sdk_models_unchanged() -> None:
    """Our tools/list sends the catalog's dicts; the SDK would send its models' dump."""
    for op in build_catalog().operations:
        definition = op.tool_definition()
        dumped = types.Tool.model_validate(definition).model_dump(
            by_alias=True, exclude_unset=True, mode="json")
        assert dumped == definition, op.name


def test_call_results_survive_the_sdk_models_unchanged() -> None:
    for outcome in (Outcome({"ok": "é"}, False), Outcome({"error": "not_found"}, True)):
        shape = call_tool_result(outcome)
        dumped = types.CallToolResult.model_validate(shape).model_dump(
            by_alias=True, exclude_unset=True, mode="json")
        assert dumped == shape


def test_shape_check() -> None:
    request = check_shape({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    assert request == Message("ping", 3, True, None)
    note = check_shape({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert isinstance(note, Message) and not note.has_id
    response = check_shape({"jsonrpc": "2.0", "id": 4, "result": {}})
    assert isinstance(response, Message) and response.method is None
    for bad in ({"jsonrpc": "2.0", "id": 11}, [1, 2], {"jsonrpc": "1.0", "id": 1, "method": "x"},
                {"jsonrpc": "2.0", "id": True, "method": "x"},
                {"jsonrpc": "2.0", "id": 1, "method": "x", "params": [1]}):
        rejected = check_shape(bad)
        assert isinstance(rejected, Rejected) and rejected.reply is not None, bad
        assert b"-32600" in rejected.reply
