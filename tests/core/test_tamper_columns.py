"""Issue 10, item 11: a direct edit of any column that decides who may read a
row, or whether it is live, is found by BOTH verifiers.

A real brain on a real SQLite file is written through the services (gRPC
memories, MCP facts, pages, a share and a delegation); then a second,
independent sqlite3 connection edits it, as a user with the sqlite3 shell
would. ``verify_brain`` (``brainkeep verify``) and the gRPC Verify service
(whole brain and the owner's slice, as a client asks) must both say invalid.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.core.context import Caller
from brainkeep.core.memory.delegation import DelegateInput
from brainkeep.core.memory.models import REDACTED_TEXT
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.memory.sharing import ShareInput
from brainkeep.core.verify import verify_brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import start_grpc_server

LOCAL = Caller(remote=False, client_id="local", transport="cli")


@dataclass(frozen=True)
class Scene:
    private: str  # alice's private gRPC memory (uuid)
    shared: str  # alice's memory shared with bob
    tagged: str  # alice's memory covered by carol's tag delegation
    plain: str  # alice's memory with no tag
    soft_deleted: str
    redacted: str
    fact: str  # an MCP fact with entity and provenance (uuid)
    expired_fact: str
    ttl_fact: str
    quarantinable: str


def sql(home: Path, statement: str, params: tuple[Any, ...] = ()) -> None:
    conn = sqlite3.connect(home / "brain.db")
    try:
        with conn:
            conn.execute(statement, params)
    finally:
        conn.close()


@pytest.fixture
def scene(brain: Brain) -> Scene:
    def mem(text: str, **fields: Any) -> str:
        return brain.mnemo.remember(RememberInput(content=text, agent_id="alice",
                                                  **fields)).uuid

    private = mem("alice private plan", scope="private")
    shared = mem("alice shared note", scope="private")
    tagged = mem("alice tagged note", scope="shared", tags=("project-x",))
    plain = mem("alice plain note", scope="shared")
    soft_deleted = mem("alice deleted note", scope="private")
    redacted = mem("alice redacted note", scope="private")
    quarantinable = mem("alice public note", scope="public")
    brain.mnemo.share(ShareInput(memory_ids=(shared,), targets=("bob",), agent_id="alice",
                                 expires_in_hours=1))
    brain.mnemo.delegate(DelegateInput(delegator_id="alice", delegate_id="carol",
                                       permission="read", tags=("project-x",),
                                       expires_in_hours=1))
    brain.mnemo.forget([soft_deleted], "soft_delete", "alice")
    brain.mnemo.forget([redacted], "redact", "alice")
    fact = brain.facts.remember("Alice prefers email", "chat", LOCAL,
                                entity="people/alice-example", visibility="private")
    expired = brain.facts.remember("Alice lived in Paris", "chat", LOCAL,
                                   entity="people/alice-example")
    brain.facts.forget(expired.memory.fact_id, LOCAL, reason="moved")
    ttl = brain.facts.remember("Alice is travelling", "chat", LOCAL, ttl="7d")
    brain.pages.put_page("people/alice-example", "# Alice\n\nLikes tea.\n")
    brain.pages.put_page("secret/plan", "---\nvisibility: private\n---\n# Plan\n\nSecret.\n")
    brain.pages.put_page("old/page", "# Old\n\nGone.\n")
    brain.pages.delete_page("old/page", LOCAL)
    s = Scene(private, shared, tagged, plain, soft_deleted, redacted, fact.memory.uuid,
              expired.memory.uuid, ttl.memory.uuid, quarantinable)
    assert verify_brain(brain.store).valid
    assert brain.mnemo.verify(None, None).valid
    assert brain.mnemo.verify("alice", None).valid
    return s


LATER = "2099-01-01T00:00:00.000000Z"
M = "UPDATE memories SET "

# (case id, SQL with {placeholders} naming Scene fields).
TAMPERS = [
    # a memory's text together with redacted_at: the redaction has no memory.redact event
    ("text+redacted_at", M + "text = 'forged', redacted_at = '" + LATER + "' "
     "WHERE uuid = '{private}'"),
    ("placeholder+redacted_at", M + f"text = '{REDACTED_TEXT}', redacted_at = '{LATER}' "
     "WHERE uuid = '{private}'"),
    ("redacted_text_swapped", M + "text = 'forged' WHERE uuid = '{redacted}'"),
    ("private_to_world", M + "visibility = 'world', scope = 'public' WHERE uuid = '{private}'"),
    ("scope_only", M + "scope = 'public' WHERE uuid = '{private}'"),
    ("visibility_only", M + "visibility = 'world' WHERE uuid = '{fact}'"),
    ("expired_at_cleared", M + "expired_at = NULL WHERE uuid = '{expired_fact}'"),
    ("expired_at_set", M + "expired_at = '" + LATER + "' WHERE uuid = '{fact}'"),
    ("deleted_at_cleared", M + "deleted_at = NULL WHERE uuid = '{soft_deleted}'"),
    ("deleted_at_set", M + "deleted_at = '" + LATER + "' WHERE uuid = '{plain}'"),
    ("valid_until_extended", M + "valid_until = NULL WHERE uuid = '{ttl_fact}'"),
    ("provenance", M + "provenance = 'forged source' WHERE uuid = '{fact}'"),
    ("entity_slug", M + "entity_slug = 'people/bob' WHERE uuid = '{fact}'"),
    ("org_id", M + "org_id = 'other-org' WHERE uuid = '{plain}'"),
    ("agent_id", M + "agent_id = 'mallory' WHERE uuid = '{private}'"),
    ("tags_column", M + "tags = '[\"project-x\"]' WHERE uuid = '{plain}'"),
    ("memory_tags_row", "INSERT INTO memory_tags (memory_id, tag) "
     "SELECT id, 'project-x' FROM memories WHERE uuid = '{plain}'"),
    ("quarantined", M + "quarantined = 1 WHERE uuid = '{quarantinable}'"),
    ("superseded_by", M + "superseded_by = 1 WHERE uuid = '{fact}'"),
    ("memory_row_deleted", "DELETE FROM memories WHERE uuid = '{plain}'"),
    ("page_row_deleted", "DELETE FROM pages WHERE slug = 'people/alice-example'"),
    ("page_visibility", "UPDATE pages SET visibility = 'world' WHERE slug = 'secret/plan'"),
    ("page_undeleted", "UPDATE pages SET deleted_at = NULL WHERE slug = 'old/page'"),
    ("page_content", "UPDATE pages SET content = '# Alice\n\nLikes coffee.\n' "
     "WHERE slug = 'people/alice-example'"),
    ("acl_forged", "INSERT INTO mnemo_acls (id, memory_id, grantee, permission, granted_by, "
     "created_at) SELECT '0190aaaa-0000-7000-8000-000000000001', id, 'mallory', 'read', "
     "'alice', created_at FROM memories WHERE uuid = '{private}'"),
    ("acl_extended", "UPDATE mnemo_acls SET expires_at = NULL"),
    ("acl_regranted", "UPDATE mnemo_acls SET grantee = 'mallory'"),
    ("acl_deleted", "DELETE FROM mnemo_acls"),
    ("delegation_forged", "INSERT INTO mnemo_delegations (id, owner, delegator, delegate, "
     "permission, selector, depth, max_depth, created_at) VALUES "
     "('0190aaaa-0000-7000-8000-000000000002', 'alice', 'alice', 'mallory', 'read', 'all', "
     "1, 3, '2026-01-01T00:00:00.000000Z')"),
    ("delegation_widened", "UPDATE mnemo_delegations SET selector = 'all'"),
    ("delegation_extended", "UPDATE mnemo_delegations SET expires_at = NULL"),
    ("delegation_item_added", "INSERT INTO mnemo_delegation_items (delegation_id, tag) "
     "SELECT id, 'other-tag' FROM mnemo_delegations"),
    ("delegation_deleted", "DELETE FROM mnemo_delegations"),
]


@pytest.mark.parametrize(("case", "statement"), TAMPERS, ids=[c for c, _ in TAMPERS])
def test_direct_edit_fails_both_verifiers(brain: Brain, home: Path, scene: Scene,
                                          case: str, statement: str) -> None:
    sql(home, statement.format(**scene.__dict__))

    report = verify_brain(brain.store)
    assert report.valid is False, case
    assert report.first_broken is not None
    whole = brain.mnemo.verify(None, None)  # gRPC Verify without agent_id
    assert whole.valid is False, case
    assert whole.error
    # gRPC Verify of alice's chains: her memories, and every page and grant
    # (MCP facts belong to no agent, so no agent's slice holds them).
    if "{fact}" not in statement and "{expired_fact}" not in statement \
            and "{ttl_fact}" not in statement:
        assert brain.mnemo.verify("alice", None).valid is False, case


@pytest.fixture
def stub(brain: Brain) -> Iterator[pb_grpc.MnemoServiceStub]:
    handle = start_grpc_server(brain, port=0)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{handle.port}") as channel:
            yield pb_grpc.MnemoServiceStub(channel)
    finally:
        handle.stop(grace=1.0)


def test_private_to_world_flip_fails_the_verify_rpc(brain: Brain, home: Path, scene: Scene,
                                                    stub: pb_grpc.MnemoServiceStub) -> None:
    assert stub.Verify(pb.VerifyRequest(agent_id="alice")).valid
    sql(home, M + "visibility = 'world', scope = 'public' WHERE uuid = ?", (scene.private,))
    reply = stub.Verify(pb.VerifyRequest(agent_id="alice"))
    assert not reply.valid
    assert reply.first_broken_at == scene.private
    assert "access state" in reply.error_message


def test_a_deleted_page_row_is_named(brain: Brain, home: Path, scene: Scene) -> None:
    sql(home, "DELETE FROM pages WHERE slug = 'secret/plan'")
    broken = verify_brain(brain.store).first_broken
    assert broken is not None
    assert (broken.kind, broken.slug) == ("page", "secret/plan")
