"""Token service: secrets shown once and stored hashed, verify, revoke, audit events."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import Result

from brainkeep.brain import Brain
from brainkeep.core.clock import Clock
from brainkeep.core.tokens import TokenService, hash_secret, parse_scopes
from brainkeep.core.verify import verify_brain
from brainkeep.errors import InvalidInput, NotFound


@pytest.fixture
def tokens(brain: Brain) -> TokenService:
    return TokenService(brain.store, brain.clock)


def test_secret_is_returned_once_and_stored_only_as_a_hash(
    brain: Brain, tokens: TokenService
) -> None:
    created = tokens.create("laptop", "read,write", expires="30d")
    assert created.secret.startswith(f"bk_{created.token.id}_")
    assert len(created.secret) > 50
    assert created.secret not in repr(created)
    stored = brain.store.get_token(created.token.id)
    assert stored is not None
    assert stored.secret_hash == hash_secret(created.secret)
    raw = (brain.settings.db_path).read_bytes()
    assert created.secret.encode() not in raw


def test_verify(tokens: TokenService) -> None:
    secret = tokens.create("agent", "read").secret
    check = tokens.verify(secret)
    assert check.ok and check.token is not None and check.token.name == "agent"
    assert check.token.scopes == ("read",)
    assert tokens.verify(None).reason == "missing"
    assert tokens.verify("").reason == "missing"
    assert tokens.verify("garbage").reason == "invalid"
    assert tokens.verify(secret[:-1] + ("A" if secret[-1] != "A" else "B")).reason == "invalid"
    assert tokens.verify("bk_000000000000_" + "x" * 43).reason == "invalid"


def test_expired_and_revoked_tokens_fail(brain: Brain) -> None:
    past = Clock(lambda: datetime.now(UTC) - timedelta(days=2))
    old = TokenService(brain.store, past).create("old", "read", expires="1d").secret
    tokens = TokenService(brain.store, brain.clock)
    assert tokens.verify(old).reason == "expired"
    live = tokens.create("live", "write").secret
    revoked = tokens.revoke("live")
    assert revoked.revoked_at is not None
    assert tokens.verify(live).reason == "revoked"
    statuses = {
        t.name: t.status(brain.clock.now_ts()) for t in tokens.list_tokens(include_revoked=True)
    }
    assert statuses == {"old": "expired", "live": "revoked"}
    assert [t.name for t in tokens.list_tokens()] == ["old"]


def test_names_are_unique_among_live_tokens(tokens: TokenService) -> None:
    tokens.create("ci", "read")
    with pytest.raises(InvalidInput, match="already exists"):
        tokens.create("ci", "admin")
    tokens.revoke("ci")
    tokens.create("ci", "admin")  # a replacement may reuse the name
    with pytest.raises(NotFound):
        tokens.revoke("nobody")


@pytest.mark.parametrize(
    ("name", "scopes", "expires"),
    [
        ("", "read", None),
        ("has space", "read", None),
        ("-dash", "read", None),
        ("ok", "", None),
        ("ok", "read,root", None),
        ("ok", "read", "P30D"),
        ("ok", "read", "2001-01-01T00:00:00Z"),
        ("ok", "read", "soon"),
    ],
)
def test_bad_input_is_refused(
    tokens: TokenService, name: str, scopes: str, expires: str | None
) -> None:
    with pytest.raises(InvalidInput):
        tokens.create(name, scopes, expires=expires)
    assert tokens.list_tokens(include_revoked=True) == []


def test_scopes_are_canonical() -> None:
    assert parse_scopes("write, READ,read") == ("read", "write")
    assert parse_scopes(["admin"]) == ("admin",)


def test_create_and_revoke_are_audited_without_secrets(brain: Brain, tokens: TokenService) -> None:
    created = tokens.create("audited", "read,write", expires="12h")
    tokens.revoke("audited")
    events = brain.store.events_for("token", created.token.id)
    assert [e.kind for e in events] == ["token.create", "token.revoke"]
    assert events[0].payload == {
        "name": "audited",
        "scopes": ["read", "write"],
        "expires_at": created.token.expires_at,
        "org_id": None,
        "agent_id": None,
    }
    dumped = json.dumps([e.payload for e in events])
    assert created.secret not in dumped and created.token.secret_hash not in dumped
    assert verify_brain(brain.store).valid


def test_cli_prints_the_secret_once_and_lists_without_it(run_cli: Callable[..., Result]) -> None:
    assert run_cli("init").exit_code == 0
    made = run_cli(
        "token", "create", "--name", "cli-agent", "--scopes", "read,write", "--expires", "30d",
        "--json",
    )
    assert made.exit_code == 0, made.output
    secret = json.loads(made.stdout)["secret"]
    assert secret.startswith("bk_")
    human_made = run_cli("token", "create", "--name", "other")
    assert human_made.stdout.strip().startswith("bk_")  # stdout: the secret alone
    assert "only its hash is kept" in human_made.stderr
    listed = run_cli("token", "list", "--json")
    rows = json.loads(listed.stdout)
    assert [r["name"] for r in rows] == ["cli-agent", "other"]
    assert secret not in listed.output and "hash" not in listed.output
    human = run_cli("token", "list")
    assert "cli-agent" in human.output and secret not in human.output
    assert run_cli("token", "create", "--name", "cli-agent").exit_code == 2
    assert run_cli("token", "revoke", "cli-agent").exit_code == 0
    assert run_cli("token", "revoke", "cli-agent").exit_code == 3


def test_binding_is_stored_and_checked_by_the_grpc_id_rule(
    brain: Brain, tokens: TokenService
) -> None:
    created = tokens.create("bound", "read", org_id="acme", agent_id="bot-1")
    stored = brain.store.get_token(created.token.id)
    assert stored is not None and (stored.org_id, stored.agent_id) == ("acme", "bot-1")
    check = tokens.verify(created.secret)
    assert check.token is not None and check.token.agent_id == "bot-1"
    assert tokens.create("no-org", "read", org_id="").token.org_id is None  # empty = unbound
    for bad in ({"org_id": "acme corp"}, {"agent_id": ""}, {"agent_id": "a" * 257}):
        with pytest.raises(InvalidInput):
            tokens.create("bad", "read", **bad)
    assert brain.store.get_live_token_by_name("bad") is None
