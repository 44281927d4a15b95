"""MCP over stdio: stdout carries the protocol, logs go to stderr."""

from __future__ import annotations

import logging
import sys

import anyio
from mcp.server.stdio import stdio_server

from brainkeep.brain import Brain
from brainkeep.core.context import STDIO, Caller
from brainkeep.mcp.server import build_server
from brainkeep.ops.registry import open_dispatcher


def run_stdio_server(brain: Brain, *, surface: str, caller: Caller = STDIO) -> None:
    """Serve MCP on stdin/stdout until the client closes the stream.

    stdio callers are remote (world-only) per the trust model: whoever spawned
    us is an agent host, not the trusted local CLI. ``caller`` may bind that
    one client to an org and an agent id (`serve --org/--agent`); it stays remote.
    """
    if not caller.remote:
        raise ValueError("a stdio caller is never trusted")
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    dispatcher = open_dispatcher(brain, surface)
    server = build_server(dispatcher, lambda _ctx: caller)
    print(f"brainkeep: MCP over stdio, surface={surface}", file=sys.stderr)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
