"""Contract: hashed HTTP bearer tokens."""

from __future__ import annotations

from dataclasses import replace

from brainkeep.core.ports.store import Store
from brainkeep.core.token_models import ApiToken
from brainkeep.core.tokens import hash_secret
from tests.store.contract import ts


def token(token_id: str, name: str, *, expires_at: str | None = None) -> ApiToken:
    return ApiToken(id=token_id, name=name, secret_hash=hash_secret(f"bk_{token_id}"),
                    scopes=("read", "write"), created_at=ts(0), expires_at=expires_at)


def test_insert_and_get_token_round_trip(store: Store) -> None:
    original = token("t1", "laptop", expires_at=ts(100))
    with store.transaction():
        store.insert_token(original)
    assert store.get_token("t1") == original
    assert store.get_token("missing") is None


def test_token_binding_round_trips(store: Store) -> None:
    bound = replace(token("t1", "agent"), org_id="acme", agent_id="agent-7")
    with store.transaction():
        store.insert_token(bound)
    stored = store.get_token("t1")
    assert stored == bound and (stored.org_id, stored.agent_id) == ("acme", "agent-7")


def test_revoked_tokens_leave_lists_and_name_lookup(store: Store) -> None:
    with store.transaction():
        store.insert_token(token("t1", "laptop"))
        store.insert_token(token("t2", "ci"))
    assert store.get_live_token_by_name("laptop") == token("t1", "laptop")
    with store.transaction():
        store.revoke_token("t1", ts(10))
        store.revoke_token("t1", ts(20))  # revoking twice keeps the first stamp
    assert store.get_live_token_by_name("laptop") is None
    revoked = store.get_token("t1")
    assert revoked is not None and revoked.revoked_at == ts(10)
    assert [t.id for t in store.list_tokens()] == ["t2"]
    assert [t.id for t in store.list_tokens(include_revoked=True)] == ["t2", "t1"]  # by name
    # The name is free again once its holder is revoked.
    with store.transaction():
        store.insert_token(token("t3", "laptop"))
    live = store.get_live_token_by_name("laptop")
    assert live is not None and live.id == "t3"


def test_count_usable_tokens_skips_revoked_and_expired(store: Store) -> None:
    with store.transaction():
        store.insert_token(token("t1", "forever"))
        store.insert_token(token("t2", "short", expires_at=ts(50)))
        store.insert_token(token("t3", "revoked"))
        store.revoke_token("t3", ts(1))
    assert store.count_usable_tokens(ts(10)) == 2
    assert store.count_usable_tokens(ts(50)) == 1  # expires_at is exclusive
    # An expired token is still the live holder of its name (it blocks reuse).
    live = store.get_live_token_by_name("short")
    assert live is not None and live.id == "t2"
