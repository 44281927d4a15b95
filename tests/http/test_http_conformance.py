"""`brainkeep protocol conformance --target http://…/mcp --token T` passes against our server.

On both engines: the session's SQLite brain and its PostgreSQL twin.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from http_support import ServedBrain, ServerProc, server_env

from tests.brain_engines import ENGINES


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def served_server(
    engine: str, request: pytest.FixtureRequest
) -> tuple[ServerProc, ServedBrain]:
    prefix = "" if engine == "sqlite" else "pg_"
    return (request.getfixturevalue(f"{prefix}server"),
            request.getfixturevalue(f"{prefix}served"))


def test_conformance_over_http(
    served_server: tuple[ServerProc, ServedBrain], engine: str
) -> None:
    server, served = served_server
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
    doctor = subprocess.run([sys.executable, "-m", "brainkeep", "doctor", "--json"],
                            env=server_env(served.home), capture_output=True, text=True,
                            timeout=60)
    assert json.loads(doctor.stdout)["engine"] == engine  # the id names the engine served
