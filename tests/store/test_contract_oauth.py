"""Contract: OAuth clients and grants (codes, access and refresh tokens), stored hashed."""

from __future__ import annotations

from dataclasses import replace

from brainkeep.core.oauth.models import ACCESS, CODE, REFRESH, OAuthClient, OAuthGrant
from brainkeep.core.ports.store import Store
from brainkeep.core.tokens import hash_secret
from tests.store.conftest import Engine
from tests.store.contract import ts


def client(client_id: str, name: str = "claude", *, secret: bool = True) -> OAuthClient:
    return OAuthClient(
        client_id=client_id, name=name,
        secret_hash=hash_secret(f"s-{client_id}") if secret else None,
        redirect_uris=("http://127.0.0.1:9/cb",), grant_types=("authorization_code",),
        scopes=("read", "write"), created_at=ts(0), org_id="acme", agent_id="agent-1",
        metadata={"client_name": name},
    )


def grant(grant_id: str, kind: str = REFRESH, *, family: str = "f1",
          client_id: str = "c1") -> OAuthGrant:
    return OAuthGrant(
        id=grant_id, kind=kind, secret_hash=hash_secret(grant_id), client_id=client_id,
        family_id=family, scopes=("read",), created_at=ts(0), expires_at=ts(100),
        resource="http://127.0.0.1:1/mcp", redirect_uri="http://127.0.0.1:9/cb",
        code_challenge="abc" if kind == CODE else None, org_id="acme", agent_id="agent-1",
    )


def test_client_round_trips_with_metadata_and_binding(store: Store) -> None:
    original = client("c1")
    public = client("c2", "cursor", secret=False)
    with store.transaction():
        store.insert_oauth_client(original)
        store.insert_oauth_client(public)
    stored = store.get_oauth_client("c1")
    assert stored == original and stored is not None
    assert stored.metadata == {"client_name": "claude"}
    assert store.get_oauth_client("c2") == public and public.secret_hash is None
    assert store.get_oauth_client("nope") is None


def test_revoked_clients_leave_the_list(store: Store) -> None:
    with store.transaction():
        store.insert_oauth_client(client("c1", "b"))
        store.insert_oauth_client(client("c2", "a"))
    assert [c.client_id for c in store.list_oauth_clients()] == ["c2", "c1"]
    with store.transaction():
        assert store.revoke_oauth_client("c1", ts(5)) is True
        assert store.revoke_oauth_client("c1", ts(6)) is False
    assert [c.client_id for c in store.list_oauth_clients()] == ["c2"]
    every = store.list_oauth_clients(include_revoked=True)
    assert [c.revoked_at for c in every if c.client_id == "c1"] == [ts(5)]


def test_grant_round_trips(store: Store) -> None:
    code = grant("g1", CODE)
    with store.transaction():
        store.insert_oauth_grant(code)
    assert store.get_oauth_grant("g1") == code
    assert store.get_oauth_grant("missing") is None


def test_a_grant_is_used_exactly_once(store: Store) -> None:
    with store.transaction():
        store.insert_oauth_grant(grant("g1", CODE))
    with store.transaction():
        assert store.use_oauth_grant("g1", ts(1)) is True
    with store.transaction():
        assert store.use_oauth_grant("g1", ts(2)) is False
    stored = store.get_oauth_grant("g1")
    assert stored is not None and stored.used_at == ts(1) and not stored.live(ts(1))


def test_a_revoked_grant_cannot_be_used(store: Store) -> None:
    with store.transaction():
        store.insert_oauth_grant(grant("g1", REFRESH))
        store.revoke_oauth_grant("g1", ts(1))
        assert store.use_oauth_grant("g1", ts(2)) is False
    stored = store.get_oauth_grant("g1")
    assert stored is not None and stored.revoked_at == ts(1)


def test_family_revocation_touches_only_that_family(store: Store) -> None:
    with store.transaction():
        store.insert_oauth_grant(grant("a1", ACCESS, family="f1"))
        store.insert_oauth_grant(grant("r1", REFRESH, family="f1"))
        store.insert_oauth_grant(grant("a2", ACCESS, family="f2"))
    with store.transaction():
        assert store.revoke_oauth_family("f1", ts(3)) == 2
        assert store.revoke_oauth_family("f1", ts(4)) == 0
    assert [store.get_oauth_grant(g).revoked_at for g in ("a1", "r1", "a2")  # type: ignore[union-attr]
            ] == [ts(3), ts(3), None]


def test_client_grant_revocation_spares_other_clients(store: Store) -> None:
    with store.transaction():
        store.insert_oauth_grant(grant("a1", ACCESS, client_id="c1"))
        store.insert_oauth_grant(replace(grant("a2", ACCESS, client_id="c2"), family_id="f2"))
        assert store.revoke_oauth_client_grants("c1", ts(3)) == 1
    assert store.get_oauth_grant("a1").revoked_at == ts(3)  # type: ignore[union-attr]
    assert store.get_oauth_grant("a2").revoked_at is None  # type: ignore[union-attr]


def test_grants_survive_reopening(engine: Engine, store: Store) -> None:
    with store.transaction():
        store.insert_oauth_grant(grant("g1", ACCESS))
    other = engine.open()
    assert other.get_oauth_grant("g1") == grant("g1", ACCESS)
