"""`brainkeep ui`: the console on 127.0.0.1 only, trusted like the CLI."""

from __future__ import annotations

import json
import sys
import webbrowser

from brainkeep.asgi_server import QuietExitServer, connection_limits, listen, server_config
from brainkeep.brain import Brain
from brainkeep.console.app import build_console_app
from brainkeep.core.context import Caller
from brainkeep.ops.registry import open_dispatcher

# Never another address: the local console has no sign-in, so it must stay
# on this machine (DESIGN.md: servers bind 127.0.0.1 unless told otherwise,
# and this one cannot be told).
BIND = "127.0.0.1"


def run_console(brain: Brain, caller: Caller, *, port: int, open_browser: bool,
                json_out: bool = False) -> None:
    """Serve the console until SIGINT/SIGTERM.

    Prints ``brainkeep: console at http://127.0.0.1:PORT/`` to stderr once
    listening (tests read the port from it when ``port`` is 0); with
    ``json_out`` also ``{"url": ...}`` as one line on stdout, for scripts.

    Raises:
        BrainkeepError: the port cannot be bound.
    """
    sock = listen(BIND, port, backlog=128,
                  suggestion="Pick another --port (or stop the process using it).")
    url = f"http://{BIND}:{sock.getsockname()[1]}/"
    app = build_console_app(brain, open_dispatcher(brain, "full"), local_caller=caller)
    # No proxy is ever trusted here: the console binds loopback only.
    config = server_config(app, connection_limits(brain.settings, forwarded_allow_ips=""),
                           log_level="warning", access_log=False, lifespan="off",
                           server_header=False, timeout_graceful_shutdown=5)
    print(f"brainkeep: console at {url} (local, trusted like the CLI; Ctrl-C stops it)",
          file=sys.stderr, flush=True)
    if json_out:
        print(json.dumps({"url": url}), flush=True)
    if open_browser:
        webbrowser.open(url)
    try:
        QuietExitServer(config).run(sockets=[sock])
    finally:
        sock.close()
    print("brainkeep: console stopped", file=sys.stderr, flush=True)
