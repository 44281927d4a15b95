"""`brainkeep serve`: MCP over stdio (default), MCP over HTTP, and/or gRPC."""

from __future__ import annotations

import signal
import sys
import threading

import click

from brainkeep.cli.app import CliContext
from brainkeep.ops.catalog import SURFACES

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


@click.command()
@click.option(
    "--surface",
    type=click.Choice(SURFACES),
    default=None,
    help="MCP tools to expose: the seven verbs, or verbs plus page operations "
    "(default: config mcp_surface, else full).",
)
@click.option("--http", "http", is_flag=True, help="Serve MCP over Streamable HTTP at /mcp.")
@click.option("--port", default=3131, show_default=True, help="HTTP port.")
@click.option("--bind", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--grpc", "grpc_", is_flag=True, help="Serve the Mnemo gRPC API.")
@click.option("--grpc-port", default=50051, show_default=True, help="gRPC port (0: any free).")
@pass_cli
def serve(
    cli: CliContext,
    surface: str | None,
    http: bool,
    port: int,
    bind: str,
    grpc_: bool,
    grpc_port: int,
) -> None:
    """Serve the brain. With no flag: MCP over stdio (for an agent host).

    stdout belongs to the MCP protocol on stdio; logs go to stderr.
    """
    brain = cli.brain()
    brain.store.optimize()  # a long-running server should plan with fresh statistics
    settings = cli.settings
    surface = surface or str(settings.get("mcp_surface") or "full")
    stop = threading.Event()
    grpc_handle = None
    if grpc_:
        from brainkeep.grpc.server import start_grpc_server

        token = settings.env.get("BRAINKEEP_GRPC_TOKEN") or settings.get("grpc.token") or None
        grpc_handle = start_grpc_server(brain, bind=bind, port=grpc_port, token=token)
        click.echo(f"gRPC listening on {bind}:{grpc_handle.port}", err=True)
    try:
        if http:
            from brainkeep.mcp.http import run_http_server

            run_http_server(brain, settings, surface=surface, bind=bind, port=port)
        elif grpc_:
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, lambda *_: stop.set())
            stop.wait()
        else:
            from brainkeep.mcp.stdio import run_stdio_server

            run_stdio_server(brain, surface=surface)
    finally:
        if grpc_handle is not None:
            grpc_handle.stop(grace=5.0)
        sys.stderr.flush()
