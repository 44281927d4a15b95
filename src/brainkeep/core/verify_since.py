"""Incremental verification: where a walk may start, and what the new events touched.

A verify walk that found nothing records the head it proved
(``verify_checkpoints``, not part of the chain; signed when the CLI holds the
signing key). The next walk starts from the newest recorded head that

* still matches: the event at its seq carries its hash (a chain rewritten
  and recomputed from before it changes that hash, so the head is skipped);
* is signed by the trusted key, when one is given (a row forged in the
  database by whoever rewrote the chain cannot carry that signature);
* is not after an ``--expect-head`` anchor, so the walk always passes the
  anchored event and the anchor keeps proving the prefix it names.

From there it checks only what the newer events name: their links, hashes
and checkpoint signatures, and the rows they touched (memories with their
chain successor, pages, ACLs, delegations). The trade-off (docs/audit.md,
"Incremental verify"): an old event edited in place *without* recomputing
the chain, or a row edited behind the server's back that no newer event
names, is found only by ``--full``; a signed head kept outside the brain
bounds what such an edit can hide, since the prefix it signs cannot be
replaced without changing its hash.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from brainkeep.core import signing
from brainkeep.core.anchor import ChainHead, head_message
from brainkeep.core.integrity_rows import VerifiedCheckpoint
from brainkeep.core.models import Event
from brainkeep.core.ports.events import EventLog

_GRANT_KEYS = {"acl": "acl_hash", "delegation": "delegation_hash"}


@dataclass
class Touched:
    """Subjects the walked events name, as the newest event about each left them."""

    # uuid -> (owner, thread, row id): where the row sits in its chain.
    memories: dict[str, tuple[str, str | None, int | None]] = field(default_factory=dict)
    pages: dict[str, str | None] = field(default_factory=dict)  # page id -> slug
    # (subject type, id) -> (removed on purpose, label): the newest event decides.
    grants: dict[tuple[str, str], tuple[bool, str | None]] = field(default_factory=dict)

    def add(self, event: Event) -> None:
        """Note the subject of one walked event (events come oldest first)."""
        payload, kind = event.payload, event.subject_type
        if kind == "memory":
            owner = payload.get("owner", payload.get("agent_id")) or ""
            row = payload.get("id")
            self.memories[event.subject_id] = (
                str(owner), payload.get("thread_id"), row if isinstance(row, int) else None)
        elif kind == "page":
            self.pages[event.subject_id] = payload.get("slug")
        elif kind in _GRANT_KEYS:
            key = _GRANT_KEYS[kind]
            removed = event.kind.endswith(".revoke") or (key in payload and payload[key] is None)
            label = payload.get("memory_id" if kind == "acl" else "owner")
            self.grants[(kind, event.subject_id)] = (removed, None if label is None else str(label))


def signed_by(checkpoint: VerifiedCheckpoint, key: Ed25519PublicKey) -> bool:
    """True when the recorded head carries ``key``'s signature."""
    if checkpoint.signature is None or checkpoint.key_fingerprint != signing.fingerprint(key):
        return False
    try:
        signature = base64.b64decode(checkpoint.signature, validate=True)
    except (binascii.Error, ValueError):
        return False
    return signing.verifies(key, signature,
                            head_message(ChainHead(checkpoint.seq, checkpoint.hash)))


def start_point(store: EventLog, *, trusted: Ed25519PublicKey | None,
                anchor: ChainHead | None) -> VerifiedCheckpoint | None:
    """The newest recorded head a walk may start from (None: walk everything)."""
    for checkpoint in store.verified_checkpoints():
        if anchor is not None and checkpoint.seq > anchor.seq:
            continue
        if trusted is not None and not signed_by(checkpoint, trusted):
            continue
        event = store.event_at(checkpoint.seq)
        if event is not None and event.hash == checkpoint.hash:
            return checkpoint
    return None


def proved(head: ChainHead, *, now: str, from_seq: int, full: bool,
           signer: Ed25519PrivateKey | None) -> VerifiedCheckpoint:
    """The checkpoint row for a head a walk just proved (signed with ``signer``)."""
    fingerprint = signature = None
    if signer is not None:
        fingerprint = signing.fingerprint(signer.public_key())
        signature = base64.b64encode(signer.sign(head_message(head))).decode()
    return VerifiedCheckpoint(head.seq, head.hash, now, "full" if full else "incremental",
                              from_seq, fingerprint, signature)
