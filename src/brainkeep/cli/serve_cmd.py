"""`brainkeep serve`: MCP over stdio (default), MCP over HTTP, and/or gRPC."""

from __future__ import annotations

import signal
import sys
import threading
from dataclasses import replace

import click

from brainkeep.cli.app import CliContext
from brainkeep.core.context import STDIO, Caller
from brainkeep.core.mnemo import validation
from brainkeep.errors import InvalidInput
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
@click.option(
    "--org",
    "org_id",
    help="stdio only: the tenant the MCP client reads and writes (default: no org). "
    "Refused with --http (each token carries its own org) and --grpc (each request "
    "carries its org_id).",
)
@click.option(
    "--agent",
    "agent_id",
    help="stdio only: the agent id the MCP client writes as and reads as (default: an "
    "anonymous remote reader). Refused with --http and --grpc, like --org.",
)
@pass_cli
def serve(
    cli: CliContext,
    surface: str | None,
    http: bool,
    port: int,
    bind: str,
    grpc_: bool,
    grpc_port: int,
    org_id: str | None,
    agent_id: str | None,
) -> None:
    """Serve the brain. With no flag: MCP over stdio (for an agent host).

    stdout belongs to the MCP protocol on stdio; logs go to stderr.
    """
    stdio_caller = _stdio_caller(org_id, agent_id, http=http, grpc_=grpc_)
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

            run_stdio_server(brain, surface=surface, caller=stdio_caller)
    finally:
        if grpc_handle is not None:
            grpc_handle.stop(grace=5.0)
        sys.stderr.flush()


def _stdio_caller(org_id: str | None, agent_id: str | None, *, http: bool, grpc_: bool
                  ) -> Caller:
    """The one caller of a stdio server, bound to ``--org``/``--agent``.

    The flags bind a process-wide identity, which only stdio has: an HTTP
    caller is whoever its token names and a gRPC caller whoever its request
    names, so a server-wide binding there would silently mean nothing.

    Raises:
        InvalidInput: a flag combined with --http/--grpc, or a bad id (exit 2).
    """
    if org_id is None and agent_id is None:
        return STDIO
    if http or grpc_:
        raise InvalidInput(
            "--org/--agent bind the stdio MCP client; they do not apply to --http or --grpc.",
            suggestion="Bind HTTP callers with `brainkeep token create --name NAME --org ORG "
            "--agent AGENT`; gRPC requests carry their own org_id and agent_id.",
            field="org" if org_id is not None else "agent",
        )
    agent = None if agent_id is None else validation.agent_id(agent_id)
    return replace(STDIO, org_id=validation.org_id(org_id), agent_id=agent)
