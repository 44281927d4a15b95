"""Forget receipts over gRPC: which calls send one, and what ``receipts.check`` catches.

A purging Forget (``redact``, ``hard_delete``) or ForgetSubject sends its
receipt as trailing metadata; a soft delete sends none (the text is kept).
The check is then run against brains changed behind the server's back: a
receipt edited, signed by another key, a chain rewritten under it, a
redacted row given its text back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from brainkeep.brain import Brain, open_store
from brainkeep.config import load_settings
from brainkeep.core import receipts, signing
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.servicer import RECEIPT_TRAILER
from tests.brain_engines import RawDatabase
from tests.grpc.support import assert_brain_valid, remember


def trailer(call: Any) -> dict[str, Any] | None:
    found = dict(call.trailing_metadata()).get(RECEIPT_TRAILER)
    return None if found is None else dict(json.loads(found))


def forget(stub: Any, ids: list[str], strategy: str) -> tuple[Any, dict[str, Any] | None]:
    reply, call = stub.Forget.with_call(pb.ForgetRequest(memory_ids=ids, strategy=strategy,
                                                         agent_id="alice"))
    return reply, trailer(call)


@pytest.mark.parametrize("strategy", ["redact", "hard_delete"])
def test_a_purging_forget_sends_a_receipt_that_checks(stub, brain: Brain, strategy) -> None:
    kept = remember(stub, "ostrich kept")
    doomed = [remember(stub, f"ostrich doomed {i}") for i in range(2)]
    topic = stub.Consolidate(pb.ConsolidateRequest(memory_ids=[doomed[0], kept],
                                                   topic_name="birds", agent_id="alice"))
    reply, receipt = forget(stub, doomed, strategy)
    assert sorted(reply.forgotten) == sorted(doomed) and receipt is not None
    assert receipt["strategy"] == strategy and receipt["operation"] == "Forget"
    assert receipt["purged"]["memories"] == 2 and receipt["purged"]["topic_documents"] == 1
    assert receipt["memory_count"] == 3  # the topic document copied one of them
    event = brain.store.event_at(receipt["event"]["seq"])
    assert event is not None and event.kind == receipts.ERASE_KIND
    assert sorted(event.payload["memory_ids"]) == sorted(doomed + [topic.topic_document_id])
    assert receipt["head"]["seq"] >= event.seq and "signature" not in receipt
    topic_row = brain.store.get_memory_by_uuid(topic.topic_document_id)
    assert topic_row is not None and topic_row.redacted_at is not None
    assert brain.store.get_memory_by_uuid(kept).redacted_at is None  # the other member stays
    assert receipts.check(brain.store, receipt).valid
    assert_brain_valid(brain, stub)


def test_a_soft_delete_keeps_the_text_and_sends_no_receipt(stub, brain: Brain) -> None:
    reply, receipt = forget(stub, [remember(stub, "emu kept text")], "soft_delete")
    assert len(reply.forgotten) == 1 and receipt is None
    _, call = stub.ForgetSubject.with_call(pb.ForgetSubjectRequest(subject_id="nobody"))
    assert trailer(call) is None  # nothing matched: nothing erased


def test_forget_subject_receipt_is_signed_with_the_configured_key(
        stub, grpc_home, tmp_path) -> None:
    key_path = tmp_path / "keys" / "k"
    key_path.parent.mkdir()
    key = signing.write_key_file(key_path)
    # Another process on the brain, with a signing key in its environment.
    settings = load_settings(grpc_home, env={signing.ENV_KEY_FILE: str(key_path)})
    brain = Brain(settings=settings, store=open_store(settings))
    try:
        remember(stub, "kiwi subject note", tags=["subject:kim"])
        outcome = brain.mnemo.forget_subject("kim", None, None)
        receipt = outcome.receipt
        assert receipt is not None and receipt["signature"]["key_fingerprint"] == \
            signing.fingerprint(key.public_key())
        assert receipts.check(brain.store, receipt, trusted=key.public_key()).valid
        edited = {**receipt, "purged": {**receipt["purged"], "vectors": 7}}
        assert "edited?" in " ".join(receipts.check(brain.store, edited).problems)
        other = signing.write_key_file(tmp_path / "keys" / "other")
        verdict = receipts.check(brain.store, receipt, trusted=other.public_key())
        assert "another key" in " ".join(verdict.problems)
        unsigned = {k: v for k, v in receipt.items() if k != "signature"}
        assert not receipts.check(brain.store, unsigned, trusted=key.public_key()).valid
    finally:
        brain.close()


def test_check_catches_what_changed_behind_the_servers_back(stub, brain: Brain) -> None:
    doomed = remember(stub, "penguin secret")
    _, receipt = forget(stub, [doomed], "redact")
    assert receipt is not None and receipts.check(brain.store, receipt).valid
    edited = {**receipt, "purged": {**receipt["purged"], "text": 9}}
    assert "differ" in " ".join(receipts.check(brain.store, edited).problems)
    db = RawDatabase(brain.settings.home)
    try:
        db.execute("UPDATE memories SET text = ?, redacted_at = NULL WHERE uuid = ?",
                   ("penguin secret", doomed))
        problems = " ".join(receipts.check(brain.store, receipt).problems)
        assert "no longer redacted" in problems and "stored again" in problems
        db.execute("UPDATE events SET hash = ? WHERE seq = ?",
                   ("0" * 64, receipt["event"]["seq"]))
        assert "another hash" in " ".join(receipts.check(brain.store, receipt).problems)
    finally:
        db.close()
