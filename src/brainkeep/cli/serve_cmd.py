"""`brainkeep serve`: MCP over stdio (default), MCP over HTTP, and/or gRPC."""

from __future__ import annotations

import signal
import sys
import threading
from dataclasses import replace

import click

from brainkeep.cli.app import CliContext
from brainkeep.core.context import STDIO, Caller
from brainkeep.core.memory import validation
from brainkeep.errors import InvalidInput
from brainkeep.ops.catalog import SURFACES

pass_cli = click.make_pass_decorator(CliContext, ensure=True)

# In-flight gRPC calls get this long to finish after SIGTERM/SIGINT (HTTP has
# its own SHUTDOWN_GRACE_S in http_app.py, stdio in mcp/stdio.py).
GRPC_GRACE_S = 5.0
# The main thread waits in short slices: a signal delivered to one of gRPC's
# own threads only sets Python's flag, and a wait without a timeout never
# returns to run the handler (the "ignores SIGTERM" bug).
_POLL_S = 0.1


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
@click.option("--public-url", help="HTTP: the URL clients reach (tunnel or proxy); the OAuth "
              "issuer and resource are derived from it (default: the loopback address).")
@click.option("--allow-registration", is_flag=True,
              help="HTTP: allow OAuth dynamic client registration (RFC 7591).")
@click.option("--forwarded-allow-ips", metavar="IPS",
              help="HTTP: the reverse proxies (comma-separated IPs or networks) whose "
              "X-Forwarded-For/-Proto are believed; the client address then comes from them "
              "(default: config http.forwarded_allow_ips, blank = none: the socket peer).")
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
    public_url: str | None,
    allow_registration: bool,
    forwarded_allow_ips: str | None,
    grpc_: bool,
    grpc_port: int,
    org_id: str | None,
    agent_id: str | None,
) -> None:
    """Serve the brain. With no flag: MCP over stdio (for an agent host).

    stdout belongs to the MCP protocol on stdio; logs go to stderr.
    """
    stop = _stop_on_signals()
    stdio_caller = _stdio_caller(org_id, agent_id, http=http, grpc_=grpc_)
    settings = cli.settings
    surface = surface or str(settings.get("mcp_surface") or "full")
    if not (http or grpc_):
        # stdio: the agent host waits for tools/list, which needs no brain; the
        # session opens it in the background (a missing brain still fails here, exit 1).
        cli.require_brain()
        from brainkeep.mcp.stdio import run_stdio_server

        try:
            run_stdio_server(cli.brain, surface=surface, caller=stdio_caller, stop=stop)
        finally:
            sys.stderr.flush()
        return
    brain = cli.brain()
    brain.store.optimize()  # a long-running server should plan with fresh statistics
    grpc_handle = None
    if grpc_:
        from brainkeep.grpc.server import check_grpc_auth, normalize_token, start_grpc_server

        token = normalize_token(settings.env.get("BRAINKEEP_GRPC_TOKEN")) or normalize_token(
            str(settings.get("grpc.token") or ""))
        warning = check_grpc_auth(bind, token)  # before binding: a refusal exits 2
        grpc_handle = start_grpc_server(brain, bind=bind, port=grpc_port, token=token)
        if warning:
            click.echo(warning, err=True)
        click.echo(f"gRPC listening on {bind}:{grpc_handle.port}", err=True)
    try:
        if http:
            from brainkeep.http_app import run_http_server

            run_http_server(brain, settings, surface=surface, bind=bind, port=port, stop=stop,
                            public_url=public_url, allow_registration=allow_registration,
                            forwarded_allow_ips=forwarded_allow_ips)
        else:
            while not stop.wait(_POLL_S):
                pass
            click.echo("brainkeep: stopping gRPC (draining in-flight calls)", err=True)
    finally:
        if grpc_handle is not None:
            grpc_handle.stop(grace=GRPC_GRACE_S)
        sys.stderr.flush()


def _stop_on_signals() -> threading.Event:
    """Make SIGTERM and SIGINT set one event, from the first line of `serve` on.

    Installed before anything is opened, so a signal that lands while the
    server is still starting is not lost (nor a raw kill): every server kind
    checks the event once it runs, stops accepting, drains, and exits 0.
    uvicorn swaps in its own handlers while it serves and also checks this.
    """
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop


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
