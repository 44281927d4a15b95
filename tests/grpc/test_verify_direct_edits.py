"""Issue 21, item 9: gRPC Verify walks in full, so a clean run hides no later edit.

``VerifyRequest`` has no field asking for an incremental walk, so Verify is
always the full walk. After one clean Verify (which records its head), a
direct edit that no newer event names must make the next Verify invalid,
on both engines.
"""

from __future__ import annotations

import pytest

from brainkeep.brain import Brain
from brainkeep.core.context import Caller
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from tests.brain_engines import RawDatabase
from tests.grpc.support import remember

LOCAL = Caller(remote=False, client_id="local", transport="cli")

# (case, statement, which uuid it edits: "fact" | "plain" | "redacted" | None)
EDITS = [
    ("private_fact_to_world", "UPDATE memories SET visibility = 'world' WHERE uuid = ?", "fact"),
    ("memory_row_deleted", "DELETE FROM memories WHERE uuid = ?", "plain"),
    ("redacted_text_rewritten", "UPDATE memories SET text = 'alice secret' WHERE uuid = ?",
     "redacted"),
    ("page_to_world", "UPDATE pages SET visibility = 'world' WHERE slug = 'secret/plan'", None),
]


@pytest.mark.parametrize(("case", "statement", "target"), EDITS, ids=[c for c, _, _ in EDITS])
def test_verify_catches_a_direct_edit_after_a_clean_verify(
    brain: Brain, stub: pb_grpc.MnemoServiceStub, db: RawDatabase,
    case: str, statement: str, target: str | None,
) -> None:
    fact = brain.facts.remember("Alice keeps the key under the mat", "chat", LOCAL,
                                visibility="private").memory.uuid
    brain.pages.put_page("secret/plan", "---\nvisibility: private\n---\n# Plan\n\nSecret.\n")
    plain = remember(stub, "bob plain note", agent_id="bob")
    redacted = remember(stub, "alice secret")
    assert stub.Forget(pb.ForgetRequest(memory_ids=[redacted], strategy="redact",
                                        agent_id="alice")).forgotten == [redacted]
    assert stub.Verify(pb.VerifyRequest()).valid
    assert [c.mode for c in brain.store.verified_checkpoints()] == ["full"]

    uuid = {"fact": fact, "plain": plain, "redacted": redacted}.get(target or "")
    db.execute(statement, () if uuid is None else (uuid,))

    reply = stub.Verify(pb.VerifyRequest())
    assert not reply.valid, case
    assert reply.first_broken_at == (uuid or "page:secret/plan")
    assert reply.error_message
    if target in ("plain", "redacted"):  # the owner's slice is the full walk too
        owner = "bob" if target == "plain" else "alice"
        assert not stub.Verify(pb.VerifyRequest(agent_id=owner)).valid, case
