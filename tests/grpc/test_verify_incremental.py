"""Incremental verify (issue 13, `verify --since-verified` since issue 21): from a proved
head, the new events and what they touch; gRPC Verify always walks in full."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from brainkeep.brain import Brain
from brainkeep.core.anchor import ChainHead
from brainkeep.core.memory.forget import forget
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.verify import VerifyReport, verify_brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.brain_engines import RawDatabase
from tests.grpc.support import remember


def _note(brain: Brain, text: str, agent: str = "alice") -> str:
    return brain.mnemo.remember(RememberInput(content=text, agent_id=agent, thread_id="t")).uuid


def _verify(brain: Brain, **options) -> VerifyReport:
    return verify_brain(brain.store, since_verified=not options.pop("full", False),
                        now=brain.clock.now_ts(), **options)


def test_second_walk_checks_only_the_new_events(brain: Brain) -> None:
    for i in range(5):
        _note(brain, f"old {i}")
    first = _verify(brain)
    assert (first.valid, first.mode, first.events_checked) == (True, "full", 5)
    assert brain.store.verified_checkpoints()[0].seq == 5
    for i in range(3):
        _note(brain, f"new {i}")
    again = _verify(brain)
    assert (again.valid, again.mode, again.from_seq, again.events_checked) == (
        True, "incremental", 5, 3)
    assert again.memories_checked == 3  # the touched rows, not the brain
    assert again.head is not None and again.head.seq == 8
    idle = _verify(brain)  # nothing new: nothing to walk, the head stands
    assert (idle.mode, idle.events_checked, idle.head) == ("incremental", 0, again.head)
    full = _verify(brain, full=True)
    assert (full.mode, full.events_checked, full.memories_checked) == ("full", 8, 8)


def test_a_new_event_about_an_edited_row_is_caught(brain: Brain, db: RawDatabase) -> None:
    old = _note(brain, "old fact")
    assert _verify(brain).valid
    new = _note(brain, "new fact")
    db.execute("UPDATE memories SET text = 'edited' WHERE uuid = ?", (new,))
    report = _verify(brain)
    assert report.mode == "incremental" and not report.valid
    assert report.first_broken is not None and report.first_broken.id == new
    assert brain.store.verified_checkpoints() == []  # the break forgot every proved head
    assert _verify(brain).mode == "full"
    assert old


def test_an_untouched_old_row_needs_full(brain: Brain, db: RawDatabase) -> None:
    old = _note(brain, "old fact")
    assert _verify(brain).valid
    db.execute("UPDATE memories SET text = 'edited' WHERE uuid = ?", (old,))
    _note(brain, "new fact")
    assert _verify(brain).valid  # the documented trade-off: no newer event names it
    full = _verify(brain, full=True)
    assert not full.valid and full.first_broken is not None and full.first_broken.id == old


def test_a_recomputed_chain_is_not_trusted_from_its_old_head(brain: Brain,
                                                             db: RawDatabase) -> None:
    for i in range(3):
        _note(brain, f"fact {i}")
    assert _verify(brain).valid
    # The event at the proved head's seq no longer carries the proved hash.
    db.execute("UPDATE events SET hash = ? WHERE seq = 3", ("f" * 64,))
    _note(brain, "more")
    report = _verify(brain)
    assert report.mode == "full" and not report.valid


def test_a_hard_delete_checks_the_next_row_of_its_chain(brain: Brain) -> None:
    ids = [_note(brain, f"fact {i}") for i in range(4)]
    assert _verify(brain).valid
    outcome = forget(brain.mnemo.ctx, [ids[1]], "hard_delete", "alice")
    assert outcome.forgotten == (ids[1],)
    report = _verify(brain)
    assert report.valid and report.mode == "incremental"
    assert report.memories_checked == 1  # the successor, re-linked through the tombstone


def test_a_trusted_key_ignores_unsigned_heads(brain: Brain) -> None:
    key = Ed25519PrivateKey.generate()
    _note(brain, "fact")
    assert _verify(brain).valid  # unsigned head
    assert _verify(brain, trusted_key=key.public_key()).mode == "full"
    signed = _verify(brain, trusted_key=key.public_key(), signer=key)
    assert signed.recorded is not None and signed.recorded.signature
    _note(brain, "more")
    assert _verify(brain, trusted_key=key.public_key()).mode == "incremental"
    other = Ed25519PrivateKey.generate()
    assert _verify(brain, trusted_key=other.public_key()).mode == "full"


def test_an_anchor_before_the_head_is_walked(brain: Brain) -> None:
    for i in range(3):
        _note(brain, f"fact {i}")
    anchor = ChainHead(*brain.store.chain_tip())
    _note(brain, "more")
    assert _verify(brain).valid  # proves seq 4
    report = _verify(brain, anchor=anchor)
    assert report.valid and report.anchor_problem is None
    assert report.from_seq <= anchor.seq  # starts at or before the anchored event


def test_grpc_verify_walks_in_full(brain: Brain, stub, db: RawDatabase) -> None:
    uuids = [remember(stub, f"grpc fact {i}") for i in range(3)]
    assert stub.Verify(pb.VerifyRequest()).valid
    assert [c.mode for c in brain.store.verified_checkpoints()] == ["full"]
    remember(stub, "one more")
    reply = stub.Verify(pb.VerifyRequest(agent_id="alice"))
    assert reply.valid and reply.total_records == 4  # totals count the slice
    # A slice's walk proves no head (rows outside it were not checked).
    assert [c.mode for c in brain.store.verified_checkpoints()] == ["full"]
    # An old row no newer event names is still walked: gRPC has no incremental mode.
    db.execute("UPDATE memories SET scope = 'public' WHERE uuid = ?", (uuids[0],))
    reply = stub.Verify(pb.VerifyRequest())
    assert not reply.valid and reply.first_broken_at == uuids[0]
    assert brain.store.verified_checkpoints() == []  # the break forgot every proved head
