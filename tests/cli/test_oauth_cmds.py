"""`brainkeep oauth clients list|add|remove` and `brainkeep admin set-password`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.oauth.password import META_KEY, admin_password_ok
from brainkeep.core.oauth.service import OAuthService

RunCli = Callable[..., Result]


def ok(result: Result) -> Any:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return json.loads(result.stdout)


def test_clients_add_list_remove(run_cli: RunCli, home: Path) -> None:
    assert run_cli("init").exit_code == 0
    added = ok(run_cli("oauth", "clients", "add", "--name", "claude", "--redirect-uri",
                       "https://claude.ai/api/mcp/auth_callback", "--org", "acme", "--json"))
    machine = ok(run_cli("oauth", "clients", "add", "--name", "ci", "--machine", "--scopes",
                         "read", "--json"))
    assert added["client_secret"].startswith("bkcs_") and added["org_id"] == "acme"
    assert machine["grant_types"] == ["client_credentials"] and machine["scopes"] == ["read"]
    listed = ok(run_cli("oauth", "clients", "list", "--json"))["clients"]
    assert [c["name"] for c in listed] == ["ci", "claude"]
    assert all("client_secret" not in c and "secret_hash" not in str(c) for c in listed)
    brain = open_brain(load_settings(home, env={}))
    try:  # only the hash is kept, and it verifies the printed secret
        stored = OAuthService(brain.store, brain.clock).get_client(added["client_id"])
        assert stored is not None and stored.secret_hash != added["client_secret"]
        assert OAuthService(brain.store, brain.clock).client_secret_ok(
            stored, added["client_secret"])
    finally:
        brain.close()
    ok(run_cli("oauth", "clients", "remove", machine["client_id"], "--json"))
    assert [c["name"] for c in ok(run_cli("oauth", "clients", "list", "--json"))["clients"]
            ] == ["claude"]
    assert run_cli("oauth", "clients", "remove", machine["client_id"]).exit_code != 0


def test_a_code_client_needs_a_redirect_uri(run_cli: RunCli) -> None:
    assert run_cli("init").exit_code == 0
    assert run_cli("oauth", "clients", "add", "--name", "nowhere").exit_code != 0


def test_set_password_stores_a_salted_hash(run_cli: RunCli, home: Path) -> None:
    assert run_cli("init").exit_code == 0
    ok(run_cli("admin", "set-password", "--password", "tea-and-biscuits", "--json"))
    assert run_cli("admin", "set-password", "--password", "short").exit_code != 0
    brain = open_brain(load_settings(home, env={}))
    try:
        stored = brain.store.get_meta(META_KEY)
        assert stored is not None and stored.startswith("scrypt$")
        assert "tea-and-biscuits" not in stored
        assert admin_password_ok(brain.store, "tea-and-biscuits")
        assert not admin_password_ok(brain.store, "tea-and-biscuitz")
    finally:
        brain.close()
