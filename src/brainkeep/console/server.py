"""`brainkeep ui`: the console on 127.0.0.1 only, trusted like the CLI, behind a URL token."""

from __future__ import annotations

import html
import json
import os
import secrets
import sys
import tempfile
import webbrowser
from pathlib import Path

from brainkeep.asgi_server import QuietExitServer, connection_limits, listen, server_config
from brainkeep.brain import Brain
from brainkeep.console.app import build_console_app
from brainkeep.core.context import Caller
from brainkeep.ops.registry import open_dispatcher

# Never another address: the local console is trusted, so it must stay on
# this machine (DESIGN.md: servers bind 127.0.0.1 unless told otherwise, and
# this one cannot be told). Other accounts of this machine still reach the
# port: the URL token (console/local_auth.py) is what keeps them out.
BIND = "127.0.0.1"


def run_console(brain: Brain, caller: Caller, *, port: int, open_browser: bool,
                json_out: bool = False) -> None:
    """Serve the console until SIGINT/SIGTERM.

    Prints ``brainkeep: console at http://127.0.0.1:PORT/?token=KEY`` to
    stderr once listening (tests read the URL from it when ``port`` is 0);
    with ``json_out`` also ``{"url": ...}`` (the same URL) as one line on
    stdout, for scripts. The key is new each run; the browser tab is opened
    through a private file, never with the key on a command line.

    Raises:
        BrainkeepError: the port cannot be bound.
    """
    sock = listen(BIND, port, backlog=128,
                  suggestion="Pick another --port (or stop the process using it).")
    token = secrets.token_urlsafe(32)
    url = f"http://{BIND}:{sock.getsockname()[1]}/?token={token}"
    app = build_console_app(brain, open_dispatcher(brain, "full"), local_caller=caller,
                            local_token=token)
    # No proxy is ever trusted here: the console binds loopback only.
    config = server_config(app, connection_limits(brain.settings, forwarded_allow_ips=""),
                           log_level="warning", access_log=False, lifespan="off",
                           server_header=False, timeout_graceful_shutdown=5)
    print(f"brainkeep: console at {url} (local, trusted like the CLI: keep this URL to "
          "yourself; Ctrl-C stops it)", file=sys.stderr, flush=True)
    if json_out:
        print(json.dumps({"url": url}), flush=True)
    opener = _open_in_browser(url) if open_browser else None
    try:
        QuietExitServer(config).run(sockets=[sock])
    finally:
        sock.close()
        if opener is not None:
            opener.unlink(missing_ok=True)
    print("brainkeep: console stopped", file=sys.stderr, flush=True)


def _open_in_browser(url: str) -> Path:
    """Open ``url`` in a browser tab through ``redirect_file`` (as Jupyter does)."""
    path = redirect_file(url)
    webbrowser.open(path.as_uri())
    return path


def redirect_file(url: str) -> Path:
    """A private (0600) HTML file that sends a browser on to ``url``.

    A browser started with the URL as an argument would show the key to every
    account in the process list; the file's name carries nothing secret.
    """
    fd, name = tempfile.mkstemp(prefix="brainkeep-ui-", suffix=".html")  # mode 0600
    target = html.escape(url, quote=True)
    with os.fdopen(fd, "w", encoding="utf-8") as page:
        page.write(f'<!doctype html><meta http-equiv="refresh" content="0;url={target}">'
                   f'<title>brainkeep console</title><p><a href="{target}">Open the '
                   "brainkeep console</a></p>\n")
    return Path(name)
