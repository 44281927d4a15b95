"""The MCP server on the official SDK: tools/list and tools/call mapped onto the dispatcher.

Streamable HTTP builds its server here, and so does stdio for a connection
that does not open with ``initialize`` (``mcp/stdio_sdk.py``); the lean stdio
session (``mcp/stdio.py``) sends the same shapes from ``mcp/shapes.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from brainkeep import __version__
from brainkeep.core.context import Caller
from brainkeep.mcp.shapes import INSTRUCTIONS, SERVER_NAME, call_tool_result
from brainkeep.ops.dispatch import Dispatcher, Outcome, opaque_internal

CallerFor = Callable[[ServerRequestContext[Any]], Caller]


def tool_of(definition: dict[str, Any]) -> types.Tool:
    """A catalog tool definition as the SDK's Tool model."""
    return types.Tool.model_validate(definition)


def result_of(outcome: Outcome) -> types.CallToolResult:
    """Exactly one text block holding the JSON payload; errors set isError."""
    return types.CallToolResult.model_validate(call_tool_result(outcome))


def build_server(dispatcher: Dispatcher, caller_for: CallerFor) -> Server[Any]:
    """An MCP server exposing the dispatcher's surface.

    ``tools/list`` shows each caller the tools its scopes allow
    (``Dispatcher.offered``): a read-only token is not offered writes it could
    only get scope_denied for. stdio callers hold every scope.
    """
    # Tool models per set of offered names: a handful of scope combinations.
    listed: dict[tuple[str, ...], list[types.Tool]] = {}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        try:
            offered = dispatcher.offered(caller_for(ctx))
        except Exception as exc:  # the edge: logged with an incident id, never sent
            opaque_internal("tools/list", exc)
            offered = ()  # fail closed, like a caller with no scopes
        key = tuple(op.name for op in offered)
        if key not in listed:
            listed[key] = [tool_of(op.tool_definition()) for op in offered]
        return types.ListToolsResult(tools=listed[key])

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
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
