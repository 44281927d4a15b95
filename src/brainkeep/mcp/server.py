"""The MCP server: tools/list and tools/call mapped onto the dispatcher.

Transport-neutral: stdio and Streamable HTTP both build their server here and
only decide who the caller is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from brainkeep import __version__
from brainkeep.core.context import Caller
from brainkeep.ops.dispatch import Dispatcher, Outcome, opaque_internal

CallerFor = Callable[[ServerRequestContext[Any]], Caller]


def tool_of(definition: dict[str, Any]) -> types.Tool:
    """A catalog tool definition as the SDK's Tool model."""
    return types.Tool.model_validate(definition)


def result_of(outcome: Outcome) -> types.CallToolResult:
    """Exactly one text block holding the JSON payload; errors set isError."""
    text = json.dumps(outcome.payload, indent=2, ensure_ascii=False, default=str)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], is_error=outcome.is_error
    )


def build_server(dispatcher: Dispatcher, caller_for: CallerFor) -> Server[Any]:
    """An MCP server exposing the dispatcher's surface."""
    tools = [tool_of(op.tool_definition()) for op in dispatcher.visible()]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            caller = caller_for(ctx)
        except Exception as exc:  # the edge: the SDK would send str(exc) to the client
            return result_of(Outcome(opaque_internal(params.name, exc).payload(), True))
        arguments = dict(params.arguments or {})
        # The store is synchronous; run it off the event loop so one slow call
        # does not stall every other request on this connection.
        outcome = await anyio.to_thread.run_sync(
            dispatcher.call, params.name, arguments, caller
        )
        return result_of(outcome)

    return Server(
        "brainkeep",
        version=__version__,
        instructions=(
            "brainkeep memory server (MEMORY_VERBS v1). Use remember to save facts with "
            "provenance, recall and entity to read, forget to expire a fact."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
