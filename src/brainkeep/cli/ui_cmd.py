"""`brainkeep ui`: the web console on this machine, behind a key in its URL."""

from __future__ import annotations

import click

from brainkeep.cli.app import CliContext

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


@click.command()
@click.option("--port", default=3132, show_default=True, help="Port on 127.0.0.1 (0: any free).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser tab.")
@click.option("--json", "json_out", is_flag=True,
              help='Once listening, print {"url": ...} (with its key) as one JSON line on stdout.')
@pass_cli
def ui(cli: CliContext, port: int, no_browser: bool, json_out: bool) -> None:
    """Open the web console: pages, memories, search, audit, usage and access.

    Serves 127.0.0.1 only and, like the CLI, is trusted: it sees private
    memories of the --org tenant. Other accounts on this machine can reach
    the port, so it answers only browsers that opened the URL it prints
    (http://127.0.0.1:PORT/?token=KEY, a new key each run). For a console
    other machines can reach, use `brainkeep serve --http` and open /console
    (token sign-in).
    """
    # Imported here: the console (Starlette, Jinja2) loads only for this command.
    from brainkeep.console.server import run_console

    brain = cli.brain()
    try:
        run_console(brain, cli.caller, port=port, open_browser=not no_browser,
                    json_out=json_out)
    finally:
        brain.close()
