"""`brainkeep protocol conformance --target http://…/mcp --token T` passes against our server."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ServedBrain
from http_support import ServerProc, server_env


def test_conformance_over_http(server: ServerProc, served: ServedBrain) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "brainkeep", "protocol", "conformance",
         "--target", server.url, "--token", served.tokens["rw"], "--json"],
        env=server_env(served.home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["ok"] and report["failed"] == 0
    assert report["passed"] >= 25
    assert served.tokens["rw"] not in result.stdout + result.stderr
