"""The chain head, anchors outside the database, and signed checkpoints.

* The **head** is the newest event's ``seq`` and ``hash``: ``SEQ:HASH``.
  Stored outside the brain (a ticket, a log, another machine), it is an
  anchor: ``verify --expect-head SEQ:HASH`` fails when event SEQ is missing
  (tail truncation) or has another hash (a rewritten or recomputed chain).
* A **checkpoint** (``chain.checkpoint`` event) signs the head before it
  with an Ed25519 key the brain never stores. ``verify`` checks every
  checkpoint signature: with a trusted public key, a checkpoint signed by
  another key fails too. A checkpoint only proves what precedes it, and
  truncation removes checkpoints as well, so the newest signed head must be
  kept outside the brain too (docs/audit.md, threat model).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from brainkeep.core import signing
from brainkeep.core.audit import canonical
from brainkeep.core.models import DEFAULT_SOURCE, Event, NewEvent
from brainkeep.core.ports.composites import LoggedWrites
from brainkeep.errors import InvalidInput

CHECKPOINT_KIND = "chain.checkpoint"
_HEAD = re.compile(r"^([1-9][0-9]{0,18}):([0-9a-f]{64})$")


@dataclass(frozen=True)
class ChainHead:
    """One event of the chain, named by its seq and hash."""

    seq: int
    hash: str

    @property
    def label(self) -> str:
        """``SEQ:HASH``, the form ``--expect-head`` takes."""
        return f"{self.seq}:{self.hash}"

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "hash": self.hash, "anchor": self.label}

    @classmethod
    def parse(cls, text: str) -> ChainHead:
        """``SEQ:HASH`` (HASH: 64 lowercase hex) as a head.

        Raises:
            InvalidInput: any other form.
        """
        match = _HEAD.match(text.strip().lower())
        if match is None:
            raise InvalidInput(
                f"{text!r} is not a chain head.", field="expect_head",
                suggestion="Pass SEQ:HASH exactly as `brainkeep verify` printed it.")
        return cls(int(match.group(1)), match.group(2))


def head_message(head: ChainHead) -> bytes:
    """The exact bytes a checkpoint signs (domain-separated from every other use)."""
    return canonical({"purpose": "brainkeep chain head v1", "seq": head.seq, "hash": head.hash})


def check_anchor(store: LoggedWrites, expected: ChainHead) -> str | None:
    """Why the chain no longer extends ``expected`` (None: it does).

    The chain walk proves every event links to its predecessor, so event
    SEQ carrying HASH proves the whole prefix up to it is the anchored one.
    """
    event = store.event_at(expected.seq)
    if event is None:
        tip = store.chain_tip()
        newest = 0 if tip is None else tip[0]
        return (f"event {expected.seq} of the anchored head is missing (the log ends at "
                f"{newest}): the chain was truncated")
    if event.hash != expected.hash:
        return (f"event {expected.seq} no longer has the anchored hash: the chain was "
                "rewritten or recomputed")
    return None


def checkpoint_problem(event: Event, trusted: Ed25519PublicKey | None) -> str | None:
    """Why a ``chain.checkpoint`` event does not hold (None: it does).

    It must sign exactly the event before it (its ``prev_hash``). With a
    ``trusted`` key the signature must be that key's; without one it is
    checked against the key the checkpoint names, which proves only that
    the payload was not edited (anyone can sign with a fresh key).
    """
    payload = event.payload
    if payload.get("seq") != event.seq - 1 or payload.get("hash") != event.prev_hash:
        return "checkpoint does not sign the head just before it"
    try:
        signature = base64.b64decode(str(payload.get("signature", "")), validate=True)
        named = signing.parse_public_key(str(payload.get("public_key", "")).encode())
    except (binascii.Error, ValueError, InvalidInput):
        return "checkpoint signature or public key is unreadable"
    if signing.fingerprint(named) != payload.get("key_fingerprint"):
        return "checkpoint key fingerprint does not match its public key"
    key = named
    if trusted is not None:
        if signing.fingerprint(trusted) != payload.get("key_fingerprint"):
            return f"checkpoint is signed by another key ({payload.get('key_fingerprint')})"
        key = trusted
    message = head_message(ChainHead(event.seq - 1, event.prev_hash))
    if not signing.verifies(key, signature, message):
        return "checkpoint signature does not verify"
    return None


def sign_head(store: LoggedWrites, key: Ed25519PrivateKey, *, now: str,
              actor: str = "local") -> Event:
    """Append a ``chain.checkpoint`` event signing the current head.

    Tail and append happen in one write transaction, so the signed head is
    exactly the event the checkpoint follows.

    Raises:
        InvalidInput: the log is empty (nothing to sign).
    """
    public = key.public_key()
    with store.transaction():
        tip = store.chain_tip()
        if tip is None:
            raise InvalidInput("The event log is empty; there is no head to sign.",
                               suggestion="Write something first.")
        head = ChainHead(*tip)
        payload = {
            "seq": head.seq,
            "hash": head.hash,
            "signature": base64.b64encode(key.sign(head_message(head))).decode(),
            "key_fingerprint": signing.fingerprint(public),
            "public_key": base64.b64encode(signing.public_bytes(public)).decode(),
        }
        return store.append_event(
            NewEvent(kind=CHECKPOINT_KIND, subject_type="chain", subject_id=str(head.seq),
                     payload=payload, source_id=DEFAULT_SOURCE, actor=actor),
            now,
        )
