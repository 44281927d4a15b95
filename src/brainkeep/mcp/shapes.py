"""MCP answers as plain JSON: what the SDK server and the lean stdio session both send.

Kept free of the MCP SDK so `brainkeep serve` can answer ``initialize`` and
``tools/list`` without importing it (its import alone costs more CPU than
the 1 s start-up budget on a 2-core machine). ``mcp/server.py`` builds the
SDK's models from these same dicts, and ``tests/mcp/test_shapes.py`` checks
the protocol versions against the SDK's, so the two paths cannot drift.
"""

from __future__ import annotations

import json
from typing import Any

from brainkeep import __version__
from brainkeep.ops.dispatch import Outcome

SERVER_NAME = "brainkeep"
INSTRUCTIONS = (
    "brainkeep memory server (MEMORY_VERBS v1). Use remember to save facts with "
    "provenance, recall and entity to read, forget to expire a fact."
)
# Revisions the initialize handshake negotiates, oldest to newest (the SDK's
# mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS; a test keeps them equal).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def negotiated_version(requested: str) -> str:
    """The client's revision when we speak it, else our newest (the client may then hang up)."""
    return requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def initialize_result(requested: str) -> dict[str, Any]:
    """The ``initialize`` result: tools only, no list-changed notifications."""
    return {
        "protocolVersion": negotiated_version(requested),
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": SERVER_NAME, "version": __version__},
        "instructions": INSTRUCTIONS,
    }


def call_tool_result(outcome: Outcome) -> dict[str, Any]:
    """Exactly one text block holding the JSON payload; errors set isError."""
    text = json.dumps(outcome.payload, indent=2, ensure_ascii=False, default=str)
    return {"content": [{"type": "text", "text": text}], "isError": outcome.is_error}
