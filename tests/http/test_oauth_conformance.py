"""The conformance kit passes over HTTP with an OAuth access token instead of a bearer token."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx2
from http_support import ServedBrain, ServerProc, server_env
from oauth_support import add_client


def test_conformance_over_http_with_an_oauth_token(server: ServerProc,
                                                   served: ServedBrain) -> None:
    created = add_client(served.home, "conformance-bot", grant_types=("client_credentials",),
                         scopes="read,write")
    assert created.secret
    response = httpx2.post(f"{server.base}/token", data={
        "grant_type": "client_credentials", "client_id": created.client.client_id,
        "client_secret": created.secret, "resource": server.url})
    assert response.status_code == 200, response.text
    access = response.json()["access_token"]
    assert access.startswith("bkoa_")
    result = subprocess.run(
        [sys.executable, "-m", "brainkeep", "protocol", "conformance",
         "--target", server.url, "--token", access, "--json"],
        env=server_env(served.home), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["ok"] and report["failed"] == 0 and report["passed"] >= 25
    assert access not in result.stdout + result.stderr + server.stderr()
